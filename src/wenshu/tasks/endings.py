"""How a task ends and what it refuses, each as a stable code with one English and one Chinese sentence.

Refusals are raised (a step's refusal becomes that step's result; a bad request reaches the user). The
endings of a run are stored on the task (`TaskRecord.ending`) and shown by every channel.
"""

from __future__ import annotations

from wenshu.errors import InputError, NotFound, WenshuError


class EmptyGoal(InputError):
    code = "task_goal_empty"
    en = "Please give the task a goal, for example: make the failing test pass."
    zh = "请给任务一个目标，例如：让失败的测试通过。"


class EmptyWorkspace(InputError):
    code = "task_workspace_empty"

    def __init__(self, folder: str):
        super().__init__(f"The folder '{folder}' holds no project files: there is nothing to work on and no test to "
                         "check the work with. Point --workspace at a project folder.",
                         f"文件夹「{folder}」中没有项目文件：既没有可修改的代码，也没有可验证的测试。请用 --workspace 指定项目文件夹。")


class TaskNotFound(NotFound):
    code = "task_not_found"

    def __init__(self, task_id: str):
        super().__init__(f"There is no task '{task_id}'; `wenshu task list` shows them.",
                         f"任务「{task_id}」不存在；`wenshu task list` 可列出全部任务。")


class TaskNotResumable(InputError):
    code = "task_not_resumable"

    def __init__(self, task_id: str, status: str):
        super().__init__(f"Task '{task_id}' is {status}; only an interrupted, failed or step-limited task can be "
                         "resumed.", f"任务「{task_id}」的状态是 {status}；只有被中断、出错或步数用尽的任务可以继续。")


class TaskBusy(InputError):
    code = "task_busy"
    http_status = 409

    def __init__(self, task_id: str):
        super().__init__(f"Task '{task_id}' is running; wait for it or stop it first.",
                         f"任务「{task_id}」正在运行，请等待或先停止。")


class TaskNotSolved(InputError):
    code = "task_not_solved"

    def __init__(self, task_id: str, status: str):
        super().__init__(f"Task '{task_id}' is {status}: its tests did not pass in a clean copy, so its changes were "
                         "not applied. Look at the diff, then apply it anyway with `wenshu task apply "
                         f"{task_id} --force`.", f"任务「{task_id}」的状态是 {status}：测试未在干净副本中通过，因此未应用改动。"
                         f"请先查看 diff，确需应用可运行 `wenshu task apply {task_id} --force`。")


class NothingToApply(InputError):
    code = "task_nothing_to_apply"

    def __init__(self, task_id: str):
        super().__init__(f"Task '{task_id}' changed no file; there is nothing to apply.",
                         f"任务「{task_id}」没有修改任何文件，无需应用。")


class ApplyConflict(InputError):
    code = "task_apply_conflict"

    def __init__(self, paths: list[str]):
        names = ", ".join(paths)
        super().__init__(f"These files changed in the folder since the task started, so nothing was applied: {names}. "
                         "Run the task again on the current folder.",
                         f"以下文件在任务开始后已被修改，因此未应用任何改动：{names}。请在当前文件夹上重新运行任务。")


class TestEditRefused(InputError):
    code = "test_edit_refused"
    __test__ = False  # not a pytest test class

    def __init__(self, path: str, code: list[str] | None = None):
        files = ", ".join(code or [])
        super().__init__(f"'{path}' is a test file and the goal did not ask to change it; tests are kept as they are. "
                         + (f"Change the code it tests ({files}) so that the tests pass." if files else
                            "Change the code so that the tests pass."),
                         f"「{path}」是测试文件，目标并未要求修改它；测试保持原样。"
                         + (f"请修改它所测试的代码（{files}）让测试通过。" if files else "请修改代码让测试通过。"))


class IgnoredPath(InputError):
    code = "task_path_ignored"

    def __init__(self, path: str):
        super().__init__(f"'{path}' is not part of the project (version control, a cache, a virtual environment or "
                         "listed in .gitignore); it is neither read nor written.",
                         f"「{path}」不属于项目（版本库、缓存、虚拟环境或被 .gitignore 忽略），不读取也不写入。")


class PartialOverwrite(InputError):
    code = "task_partial_overwrite"

    def __init__(self, path: str, before: int, after: int):
        super().__init__(f"Writing {after} lines over '{path}' ({before} lines, only part of which was shown) would "
                         "drop most of it; write the complete file.",
                         f"用 {after} 行覆盖「{path}」（共 {before} 行，只显示了一部分）会丢失大部分内容；请写出完整文件。")


class NotPython(InputError):
    code = "task_syntax_error"

    def __init__(self, path: str, line: int, message: str, text: str):
        where = f" at line {line}" + (f": {text}" if text else "") if line else ""
        zh_where = f"（第 {line} 行" + (f"：{text}" if text else "") + "）" if line else ""
        super().__init__(f"The new '{path}' is not valid Python ({message}{where}), so it was not written; the file "
                         "is as it was. Write the whole file again, complete and valid.",
                         f"新的「{path}」不是有效的 Python（{message}{zh_where}），因此未写入，文件保持原样。"
                         "请重新写出完整、有效的文件。")


# The endings of a run (stored on the task, never raised at the user).

class Solved(WenshuError):
    code = "solved"

    def __init__(self, files: int):
        super().__init__(f"Done: the tests pass in a clean copy of the folder; {files} file(s) changed. Review the diff "
                         "and apply it.", f"完成：测试在文件夹的干净副本中通过；修改了 {files} 个文件。请查看 diff 后应用。")


class NoTests(WenshuError):
    code = "no_tests"

    def __init__(self, command: str):
        super().__init__(f"The test command ({command}) found no tests in this folder, so the work cannot be checked; "
                         "the task ends here. Add a test, or ask for one in the goal.",
                         f"测试命令（{command}）在此文件夹中没有找到测试，无法验证改动，任务到此结束。请添加测试，或在目标中要求编写测试。")


class TestCommandFailed(WenshuError):
    code = "test_command_failed"
    __test__ = False

    def __init__(self, command: str, detail: str):
        super().__init__(f"The test command ({command}) could not run: {detail}. Set task_test_command, or "
                         "workspace_path so that it finds the project's Python.",
                         f"测试命令（{command}）无法运行：{detail}。请设置 task_test_command，或设置 workspace_path 让它找到项目的 Python。")


class Stuck(WenshuError):
    code = "stuck"

    def __init__(self, what: str, times: int, same_error: bool):
        if same_error:
            en = f"Stopped: the same failure came back {times} times ({what}), so the agent is not getting closer."
            zh = f"已停止：同一个失败连续出现 {times} 次（{what}），智能体没有进展。"
        else:
            en = f"Stopped: the agent repeated the same step {times} times ({what}) without progress."
            zh = f"已停止：智能体把同一步骤重复了 {times} 次（{what}），没有进展。"
        super().__init__(en + " Look at the steps; discard the task or run it again with a more precise goal.",
                         zh + "请查看各步骤；可丢弃任务，或用更明确的目标重新运行。")


class StepLimit(WenshuError):
    code = "max_steps"

    def __init__(self, steps: int):
        super().__init__(f"Stopped after {steps} steps without passing tests. Resume with more steps "
                         "(`wenshu task resume ID --max-steps N`) or discard the task.",
                         f"已执行 {steps} 步，测试仍未通过。可增加步数继续（`wenshu task resume ID --max-steps N`）或丢弃任务。")


class Interrupted(WenshuError):
    code = "interrupted"
    en = ("The task was interrupted; the folder is as it was. Resume it with `wenshu task resume ID` or discard it "
          "with `wenshu task discard ID`.")
    zh = "任务被中断；文件夹保持原样。可用 `wenshu task resume ID` 继续，或用 `wenshu task discard ID` 丢弃。"


class Applied(WenshuError):
    code = "applied"

    def __init__(self, files: list[str]):
        super().__init__(f"Applied to the folder: {', '.join(files)}.", f"已应用到文件夹：{', '.join(files)}。")


class Discarded(WenshuError):
    code = "discarded"

    def __init__(self, task_id: str):
        super().__init__(f"Task '{task_id}' and its scratch copy were removed; the folder is as it was.",
                         f"已删除任务「{task_id}」及其临时副本；文件夹保持原样。")
