"""The knowledge base's errors: one stable code and one English and one Chinese sentence each.

Per-file errors (`KbFileError`) name the file; `wenshu kb add` and `POST /api/kb/documents` report them
per file and go on with the rest of the batch.
"""

from __future__ import annotations

from wenshu.errors import InputError, NotFound, WenshuError


class KbFileError(InputError):
    """A file that cannot become a document; `name` is the file's display name."""

    def __init__(self, name: str, en: str, zh: str):
        self.name = name
        super().__init__(en, zh)


class KbUnsupportedFormat(KbFileError):
    code = "kb_unsupported_format"

    def __init__(self, name: str, suffix: str, known: list[str]):
        listed = ", ".join(known)
        super().__init__(name, f"'{name}': the format '{suffix or '(none)'}' is not supported; supported: {listed}.",
                         f"「{name}」：不支持「{suffix or '（无扩展名）'}」格式；支持的格式：{listed}。")


class KbUnreadable(KbFileError):
    code = "kb_unreadable"

    def __init__(self, name: str, detail: str):
        super().__init__(name, f"'{name}' could not be read; the file may be damaged ({detail}).",
                         f"无法读取「{name}」，文件可能已损坏（{detail}）。")


class KbEncrypted(KbFileError):
    code = "kb_encrypted"

    def __init__(self, name: str):
        super().__init__(name, f"'{name}' is password-protected; remove the password and add it again.",
                         f"「{name}」设置了密码保护，请去掉密码后重新添加。")


class KbEmpty(KbFileError):
    code = "kb_empty"

    def __init__(self, name: str):
        super().__init__(name, f"'{name}' holds no text to search (empty, or only images).",
                         f"「{name}」中没有可检索的文字（文件为空或只有图片）。")


class KbTooLarge(KbFileError):
    code = "kb_too_large"
    http_status = 413

    def __init__(self, name: str, size: int, limit: int):
        mib, cap = size / 2**20, limit / 2**20
        super().__init__(name, f"'{name}' is {mib:.1f} MiB, over the limit of {cap:g} MiB (setting kb_max_file_mb).",
                         f"「{name}」大小为 {mib:.1f} MiB，超过了 {cap:g} MiB 的上限（设置项 kb_max_file_mb）。")


class KbNotFound(NotFound):
    code = "kb_document_not_found"

    def __init__(self, ref: str):
        super().__init__(f"There is no document '{ref}' in the knowledge base (see `wenshu kb list`).",
                         f"知识库中没有文档「{ref}」（见 `wenshu kb list`）。")


class KbNoEmbedder(WenshuError):
    code = "kb_no_embedder"
    en = "The knowledge base needs an embedding model; embed_provider is 'none'."
    zh = "知识库需要向量模型，但 embed_provider 设置为 none。"


class KbNothingFound(WenshuError):
    """Not an error raised: the answer when no passage of the documents answers a question."""

    code = "kb_nothing_found"
    en = "Not in the documents: no passage answers this."
    zh = "文档中没有找到相关内容。"
