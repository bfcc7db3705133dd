"""The workspace's refusals: one sentence in each language and a stable code."""

from __future__ import annotations

from wenshu.errors import InputError, WenshuError


class PathOutsideWorkspace(InputError):
    code = "path_outside_workspace"

    def __init__(self, path: str, why: str):
        super().__init__(f"'{path}' is outside the workspace ({why}); use a path inside it.",
                         f"「{path}」不在工作区内（{why}），请使用工作区内的路径。")


class NotInWorkspace(InputError):
    code = "workspace_path_missing"

    def __init__(self, path: str):
        super().__init__(f"There is no file or folder '{path}' in the workspace.", f"工作区中没有「{path}」。")


class NotText(InputError):
    code = "workspace_not_text"

    def __init__(self, path: str):
        super().__init__(f"'{path}' is not a text file; only UTF-8 text can be read or written.",
                         f"「{path}」不是文本文件；只能读写 UTF-8 文本。")


class CommandNotAllowed(InputError):
    code = "command_not_allowed"

    def __init__(self, command: str, allowed: list[str]):
        listed = "; ".join(allowed) or "none"
        super().__init__(f"The command '{command}' is not allowed here (allowed: {listed}).",
                         f"不允许运行命令「{command}」（允许：{listed}）。")


class WorkspaceMissing(WenshuError):
    code = "workspace_missing"
    http_status = 400

    def __init__(self, root: str):
        super().__init__(f"The workspace folder '{root}' does not exist.", f"工作区文件夹「{root}」不存在。")


class FolderTooLarge(InputError):
    code = "workspace_too_large"

    def __init__(self, folder: str, limit_mb: int):
        super().__init__(f"The folder '{folder}' is larger than {limit_mb} MB (caches and virtual environments "
                         "left out); a task works on a copy of it. Use a smaller folder.",
                         f"文件夹「{folder}」超过 {limit_mb} MB（不含缓存和虚拟环境）；任务需要复制它。请使用更小的文件夹。")


class WorkspaceNotAllowed(InputError):
    code = "workspace_not_allowed"
    http_status = 403

    def __init__(self, folder: str):
        super().__init__(f"The folder '{folder}' is not one this server may work in: choose one of its workspace "
                         "folders (the setting workspace_roots lists them).",
                         f"服务器不允许在文件夹「{folder}」中工作：请选择它的工作区文件夹之一（由设置 workspace_roots 指定）。")


class NoWorkspaceRoots(InputError):
    code = "workspace_roots_unset"
    http_status = 403
    en = ("This server allows no workspace folder: list the folders tasks and the assistant may work in as "
          "workspace_roots (wenshu.toml, or WENSHU_WORKSPACE_ROOTS as a JSON list), or work on this machine's "
          "command line (`wenshu task run`, `wenshu assist --workspace`).")
    zh = ("该服务器未允许任何工作区文件夹：请在 workspace_roots 中列出任务和助手可以使用的文件夹（wenshu.toml，"
          "或以 JSON 列表设置 WENSHU_WORKSPACE_ROOTS），或在本机命令行中使用（`wenshu task run`、"
          "`wenshu assist --workspace`）。")
