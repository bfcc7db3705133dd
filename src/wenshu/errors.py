"""One error hierarchy with stable codes and one JSON shape: {"error": {"code", "message"}}.

Every error carries an English and a Chinese sentence; channels pick the user's language.
"""

from __future__ import annotations


class WenshuError(Exception):
    code = "internal_error"
    en = "Something went wrong inside Wenshu."
    zh = "问数内部出错了。"

    def __init__(self, en: str | None = None, zh: str | None = None, *, code: str | None = None):
        self.en = en or type(self).en
        self.zh = zh or (type(self).zh if en is None else self.en)
        if code:
            self.code = code
        super().__init__(self.en)

    def message(self, lang: str = "en") -> str:
        return self.zh if lang == "zh" else self.en

    def to_dict(self, lang: str = "en") -> dict:
        return {"code": self.code, "message": self.message(lang)}


class InputError(WenshuError):
    code = "bad_input"
    en = "The input is not valid."
    zh = "输入无效。"


class EmptyQuestion(InputError):
    code = "empty_question"
    en = "Please type a question, for example: top 10 cities by orders last month."
    zh = "请输入一个问题，例如：上个月每个城市的订单量Top10。"


class UnknownDatasource(WenshuError):
    code = "unknown_datasource"

    def __init__(self, name: str, known: list[str] | None = None):
        known_txt = ", ".join(known or []) or "none"
        super().__init__(
            f"There is no datasource named '{name}' (known: {known_txt}); add it with `wenshu db add {name} URL`.",
            f"没有名为「{name}」的数据源（已有：{known_txt}），请用 `wenshu db add {name} URL` 添加。",
        )


class DatasourceUnreachable(WenshuError):
    code = "datasource_unreachable"

    def __init__(self, name: str, detail: str):
        super().__init__(
            f"Cannot connect to datasource '{name}': {detail}",
            f"无法连接数据源「{name}」：{detail}",
        )


class ModelMissing(WenshuError):
    code = "model_missing"


class ModelTimeout(WenshuError):
    code = "model_timeout"
    en = "The model did not answer in time; try again or use a faster model."
    zh = "模型响应超时，请重试或换用更快的模型。"


class ModelFailure(WenshuError):
    code = "model_error"
    en = "The model failed to answer."
    zh = "模型调用失败。"


class SQLRefused(WenshuError):
    code = "sql_refused"


class SQLExecutionError(WenshuError):
    code = "sql_execution_error"


class SQLTimeout(SQLExecutionError):
    code = "sql_timeout"


class NotFound(WenshuError):
    code = "not_found"


def error_payload(err: Exception, lang: str = "en") -> dict:
    """The shared JSON error shape for any exception (internal ones stay generic)."""
    if isinstance(err, WenshuError):
        return {"error": err.to_dict(lang)}
    return {"error": WenshuError().to_dict(lang)}


class DuplicateEntry(InputError):
    """An example or glossary term that the library already holds."""

    code = "duplicate"
    en = "That entry already exists."
    zh = "该条目已存在。"


class InvalidExampleSQL(InputError):
    code = "invalid_example_sql"
    en = "The example's SQL could not be parsed."
    zh = "示例中的 SQL 无法解析。"


class WebhookSignatureInvalid(WenshuError):
    """A chat-bot webhook request whose signature is missing, forged or stale (HTTP 401)."""

    code = "bad_signature"
    en = "The webhook signature is missing, invalid or expired."
    zh = "Webhook 签名缺失、无效或已过期。"


class WebhookNotConfigured(WenshuError):
    """A webhook channel that has no shared secret configured (HTTP 403): it accepts nothing."""

    code = "webhook_not_configured"
    en = "This webhook channel has no secret configured; set WENSHU_WEBHOOK_SECRET or webhook_channels in wenshu.toml."
    zh = "该 Webhook 渠道未配置密钥；请设置 WENSHU_WEBHOOK_SECRET 或在 wenshu.toml 中配置 webhook_channels。"


class UnknownModel(NotFound):
    """An OpenAI-compatible request for a model name Wenshu does not serve (HTTP 404)."""

    code = "model_not_found"
    en = "Unknown model; use 'wenshu' or 'wenshu:<datasource>' (see GET /v1/models)."
    zh = "未知的模型；请使用 'wenshu' 或 'wenshu:<数据源>'（见 GET /v1/models）。"


class AuthRequired(WenshuError):
    """A request without a bearer token where the server requires one (HTTP 401)."""

    code = "auth_required"
    en = "This server requires a token: send 'Authorization: Bearer <token>' (create one with `wenshu token create --user NAME`)."
    zh = "该服务需要令牌：请发送 'Authorization: Bearer <令牌>'（用 `wenshu token create --user 用户名` 创建）。"


class InvalidToken(WenshuError):
    """A bearer token that is malformed, unknown or revoked (HTTP 401)."""

    code = "token_invalid"
    en = "The token is not valid (unknown, revoked or malformed)."
    zh = "令牌无效（不存在、已吊销或格式错误）。"


class Forbidden(WenshuError):
    """An authenticated user without the right to do this (HTTP 403)."""

    code = "forbidden"
    en = "You are not allowed to do this."
    zh = "你没有执行此操作的权限。"


class RateLimited(WenshuError):
    """Too many requests for one token (HTTP 429, with Retry-After)."""

    code = "rate_limited"

    def __init__(self, retry_after: int):
        self.retry_after = retry_after
        super().__init__(
            f"Too many requests; try again in {retry_after} s.",
            f"请求过于频繁，请在 {retry_after} 秒后重试。",
        )


class PayloadTooLarge(InputError):
    """A request body over the size limit (HTTP 413)."""

    code = "payload_too_large"

    def __init__(self, limit: int):
        super().__init__(
            f"The request body is larger than the limit of {limit} bytes.",
            f"请求体超过了 {limit} 字节的上限。",
        )


class ConversationBusy(WenshuError):
    """A second answer requested while the conversation is still answering (HTTP 409)."""

    code = "conversation_busy"
    en = "This conversation is still answering; wait for it or stop it first."
    zh = "该会话仍在回答中，请等待或先停止。"


class RunCancelled(WenshuError):
    """Raised inside a running answer when it is stopped (by the user, a disconnect or shutdown)."""

    code = "stopped"
    en = "The answer was stopped."
    zh = "回答已停止。"


class EmptyDatasource(WenshuError):
    """A datasource with no table or view that Wenshu can read (catalog sync)."""

    code = "datasource_empty"

    def __init__(self, name: str):
        super().__init__(
            f"Datasource '{name}' has no tables or views that Wenshu can read; check the database (or schema) "
            "in its URL and that the user may read its tables.",
            f"数据源「{name}」中没有问数可读取的表或视图；请检查连接串中的数据库（或 schema）以及该用户是否有读表权限。",
        )


class AuthNotConfigured(WenshuError):
    """`wenshu serve` on a non-loopback address with no token: it refuses to start (exit code 2)."""

    code = "auth_not_configured"
    en = ("Refusing to listen on a non-loopback address without authentication: create a token first "
          "(`wenshu token create --user NAME`), or bind 127.0.0.1.")
    zh = "拒绝在非本机地址上无认证监听：请先创建令牌（`wenshu token create --user 用户名`），或绑定 127.0.0.1。"
