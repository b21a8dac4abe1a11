"""What every API route shares: ``?lang=`` and ``Authorization`` parameters, the error
responses of the OpenAPI description, the ``/api`` router each feature's ``api.py`` starts from,
and the app's error handlers (one per kind of refusal: a :class:`ServiceError`, a request
that does not validate, an HTTP error).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException

from gonuts.server.kernel.errors import (
    DatabaseUnavailableError,
    ErrorCode,
    ServiceError,
    error_text,
)
from gonuts.server.kernel.metrics import Metrics
from gonuts.server.transport.middleware import error_response, request_lang
from gonuts.server.transport.wire import ErrorBody

E = ErrorCode

LangParam = Annotated[
    str | None,
    Query(alias="lang", description="language of the texts: en, es or it (else Accept-Language)"),
]
AuthHeader = Annotated[
    str | None,
    Header(alias="Authorization", description="`Bearer <seat token>`", max_length=300),
]


async def lang_param(lang_query: LangParam = None) -> None:
    """Documents ``?lang=`` on every API route (:func:`request_lang` reads it). Async: a plain
    function would be run in a worker thread for every request."""


ERRORS: Final[dict[int | str, dict[str, Any]]] = {
    status: {"model": ErrorBody, "description": what}
    for status, what in (
        (403, "bad_token"),
        (404, "unknown_table, unknown_language"),
        (409, "the rules or the table refuse it (see docs/protocol.md)"),
        (413, "too_large"),
        (422, "malformed, bad_action, bad_record"),
        (429, "rate_limited, too_many_tables"),
        (503, "database_unavailable (with Retry-After)"),
    )
}


def api_router() -> APIRouter:
    """A router under ``/api`` with ``?lang=`` and the error responses documented."""
    return APIRouter(prefix="/api", dependencies=[Depends(lang_param)], responses=ERRORS)


def install_error_handlers(app: FastAPI, metrics: Metrics, static: Path) -> None:
    """Refusals as the protocol's error bodies (counted); a browser's unknown page as the app's
    own "page not found"."""

    @app.exception_handler(ServiceError)
    async def _service_error(request: Request, exc: ServiceError) -> JSONResponse:
        metrics.error(exc.code)
        lang = request_lang(request)
        headers = None
        if isinstance(exc, DatabaseUnavailableError):
            headers = {"Retry-After": str(exc.retry_after)}
        text_ = error_text(exc.code, lang, exc.detail)
        return error_response(exc.code, text_, exc.status, headers)

    @app.exception_handler(PoolTimeout)
    async def _pool_timeout(request: Request, exc: PoolTimeout) -> JSONResponse:
        """Every database connection busy for the pool's timeout: the database cannot serve
        this request now (as :class:`DatabaseUnavailableError`)."""
        return await _service_error(request, DatabaseUnavailableError("database busy"))

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        metrics.error(E.MALFORMED)
        problems = exc.errors()
        detail = None
        if problems:
            first = problems[0]
            where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
            detail = f"{where}: {first.get('msg', 'invalid')}" if where else first.get("msg")
        return error_response(
            E.MALFORMED, error_text(E.MALFORMED, request_lang(request), detail), 422
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        code = E.NOT_FOUND if exc.status_code == 404 else E.HTTP_ERROR
        metrics.error(code)
        page = static / "index.html"
        if (
            exc.status_code == 404
            and not request.url.path.startswith("/api/")
            and "text/html" in request.headers.get("accept", "")
            and page.is_file()
        ):  # a browser's unknown page: the app says "page not found" (JSON stays for /api/*)
            return FileResponse(page, status_code=404, media_type="text/html")
        return error_response(code, str(exc.detail), exc.status_code)
