"""Every failure leaves the server as `{"error": {"code", "message"}}` with a proper HTTP status.

Wenshu errors map to a status by class; FastAPI validation errors become 422 (`input_invalid`),
malformed JSON 400 (`input_invalid_json`), unknown routes 404 and wrong methods 405. Anything
unexpected is logged and answered with a generic 500 that never shows a stack trace.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from wenshu import errors as e
from wenshu.server.deps import request_lang

log = logging.getLogger("wenshu.server")

STATUS_BY_CLASS: list[tuple[type[e.WenshuError], int]] = [
    (e.AuthRequired, 401),
    (e.InvalidToken, 401),
    (e.WebhookSignatureInvalid, 401),
    (e.Forbidden, 403),
    (e.WebhookNotConfigured, 403),
    (e.NotFound, 404),
    (e.UnknownDatasource, 404),
    (e.ConversationBusy, 409),
    (e.PayloadTooLarge, 413),
    (e.RateLimited, 429),
    (e.InputError, 400),
    (e.DatasourceUnreachable, 400),
    (e.ModelMissing, 503),
]


def status_for(err: e.WenshuError) -> int:
    explicit = getattr(err, "http_status", None)
    if isinstance(explicit, int):
        return explicit
    return next((status for cls, status in STATUS_BY_CLASS if isinstance(err, cls)), 500)


def error_response(err: e.WenshuError, lang: str, status: int | None = None) -> JSONResponse:
    headers = {"Retry-After": str(err.retry_after)} if isinstance(err, e.RateLimited) else None
    return JSONResponse(e.error_payload(err, lang), status_code=status or status_for(err), headers=headers)


def validation_error(exc: RequestValidationError) -> tuple[e.WenshuError, int]:
    errs = exc.errors()
    if any(x.get("type") == "json_invalid" for x in errs):
        return e.InputError("The request body is not valid JSON.", "请求体不是有效的 JSON。",
                            code="input_invalid_json"), 400
    first = errs[0] if errs else {}
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
    what = first.get("msg", "invalid")
    return e.InputError(f"Invalid input at '{where}': {what}.", f"输入无效（{where}）：{what}。",
                        code="input_invalid"), 422


def http_error(request: Request, exc: StarletteHTTPException) -> tuple[e.WenshuError, int]:
    if isinstance(exc.__cause__, e.WenshuError):  # e.g. a chunked body over the limit
        return exc.__cause__, status_for(exc.__cause__)
    path = f"{request.method} {request.url.path}"
    if exc.status_code == 404:
        return e.NotFound(f"There is no such route: {path}.", f"没有这个接口：{path}。", code="not_found"), 404
    if exc.status_code == 405:
        return e.WenshuError(f"Method not allowed: {path}.", f"不支持该请求方法：{path}。",
                             code="method_not_allowed"), 405
    if exc.status_code == 400:
        return e.InputError(f"Bad request: {exc.detail}.", f"请求无效：{exc.detail}。", code="bad_request"), 400
    return e.WenshuError(str(exc.detail), str(exc.detail), code=f"http_{exc.status_code}"), exc.status_code


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(e.WenshuError)
    async def _wenshu(request: Request, exc: e.WenshuError) -> JSONResponse:
        return error_response(exc, request_lang(request))

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        err, status = validation_error(exc)
        return error_response(err, request_lang(request), status)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        err, status = http_error(request, exc)
        response = error_response(err, request_lang(request), status)
        if exc.headers:
            response.headers.update(exc.headers)
        return response

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return error_response(e.WenshuError(), request_lang(request), 500)
