"""A model endpoint that keeps failing: the errors Wenshu reports once the bounded retries are spent (the
`openai` provider, providers/endpoint_chat.py). One stable code and an English and a Chinese sentence each;
the endpoint is named, its key never."""

from __future__ import annotations

from wenshu.errors import ModelFailure, ModelTimeout


class EndpointTimeout(ModelTimeout):
    """Every attempt ran past WENSHU_LLM_TIMEOUT_S."""

    def __init__(self, url: str, attempts: int, timeout_s: float):
        super().__init__(
            f"The model endpoint {url} did not answer within {timeout_s:g} s ({attempts} attempts); check that the "
            "model server is up and not overloaded, or raise WENSHU_LLM_TIMEOUT_S.",
            f"模型服务 {url} 在 {timeout_s:g} 秒内没有响应（共尝试 {attempts} 次）；请检查模型服务是否正常、是否过载，"
            "或调大 WENSHU_LLM_TIMEOUT_S。",
        )


class EndpointFailed(ModelFailure):
    """Every attempt got a server error (5xx) or a rate limit (429)."""

    code = "model_endpoint_error"

    def __init__(self, url: str, attempts: int, status: int):
        super().__init__(
            f"The model endpoint {url} answered HTTP {status} ({attempts} attempts); the model server is failing "
            "or overloaded: check it, or try again later.",
            f"模型服务 {url} 返回 HTTP {status}（共尝试 {attempts} 次）；模型服务出错或过载，请检查它，或稍后重试。",
        )


class EndpointUnreachable(ModelFailure):
    """No attempt could connect."""

    code = "model_unreachable"

    def __init__(self, url: str, attempts: int):
        super().__init__(
            f"Cannot connect to the model endpoint {url} ({attempts} attempts); check WENSHU_LLM_BASE_URL and that "
            "the model server is running.",
            f"无法连接模型服务 {url}（共尝试 {attempts} 次）；请检查 WENSHU_LLM_BASE_URL 以及模型服务是否在运行。",
        )
