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


class RedisUnusable(WenshuError):
    """WENSHU_REDIS_URL names no usable Redis (checked at start by `wenshu serve` and `wenshu doctor`)."""

    code = "redis_unreachable"

    def __init__(self, code: str, detail: str):
        en, zh = {
            "redis_bad_url": (f"WENSHU_REDIS_URL is not a Redis URL ({detail}); write redis://host:6379/0 "
                              "(rediss:// for TLS, unix:///path/to/redis.sock), or leave it empty for the "
                              "embedded defaults.",
                              f"WENSHU_REDIS_URL 不是 Redis 地址（{detail}）；请写成 redis://host:6379/0（TLS 用 "
                              "rediss://，套接字用 unix:///path/to/redis.sock），或留空以使用内置默认。"),
            "redis_unreachable": (f"Cannot reach Redis ({detail}): start it, correct WENSHU_REDIS_URL, or leave it "
                                  "empty for the embedded defaults.",
                                  f"无法连接 Redis（{detail}）：请启动它、修正 WENSHU_REDIS_URL，或留空以使用内置默认。"),
            "redis_too_old": (f"Redis {detail} is too old: Wenshu needs Redis 5.0 or newer (Debian 12's "
                              "redis-server is 7.0).",
                              f"Redis {detail} 版本过旧：问数需要 Redis 5.0 或更新版本（Debian 12 的 redis-server 为 7.0）。"),
        }[code]
        super().__init__(en, zh, code=code)


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


class RuntimeCrashed(WenshuError):
    """The embedded runtime died or failed on a real decode (`wenshu doctor`, and before a model loads)."""

    code = "runtime_crashed"

    def __init__(self, detail: str, fix: str):
        super().__init__(
            f"The embedded model runtime (llama-cpp-python) crashed on a test decode ({detail}); it was probably "
            f"built for another CPU. Rebuild the portable runtime with `{fix}`, or use a model endpoint "
            "(WENSHU_LLM_BASE_URL).",
            f"内置模型运行库（llama-cpp-python）在试解码时崩溃（{detail}），很可能是为其他 CPU 编译的。"
            f"请运行 `{fix}` 重新编译可移植版本，或改用模型服务（WENSHU_LLM_BASE_URL）。",
        )


class RuntimeUnsupportedCPU(WenshuError):
    """A CPU without the instructions the portable runtime needs (AVX2 level)."""

    code = "runtime_cpu_unsupported"

    def __init__(self, missing: list[str]):
        self.missing = list(missing)
        names = ", ".join(self.missing)
        super().__init__(
            f"This CPU lacks {names}, which the embedded model runtime needs (an x86-64 CPU with AVX2, 2013 or "
            "later). Build one for this CPU with `make runtime LLAMA_BUILD=native`, or use a model endpoint "
            "(WENSHU_LLM_BASE_URL).",
            f"此 CPU 缺少内置模型运行库所需的指令集：{names}（需要支持 AVX2 的 x86-64 CPU，2013 年及以后）。"
            "可用 `make runtime LLAMA_BUILD=native` 为本机编译，或改用模型服务（WENSHU_LLM_BASE_URL）。",
        )


class ModelHashMismatch(ModelMissing):
    """A model file whose SHA-256 is not the expected one: it is refused, never loaded."""

    code = "model_hash_mismatch"

    def __init__(self, path: str, digest: str, expected: str):
        super().__init__(
            f"{path} is not the expected model (SHA-256 {digest[:12]}…, expected {expected[:12]}…); it was not "
            "loaded. Run `wenshu model install --force`, or fix WENSHU_MODEL_SHA256.",
            f"{path} 不是预期的模型文件（SHA-256 {digest[:12]}…，应为 {expected[:12]}…），已拒绝加载。"
            "请运行 `wenshu model install --force`，或修正 WENSHU_MODEL_SHA256。",
        )
