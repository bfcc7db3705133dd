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
