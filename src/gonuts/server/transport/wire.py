"""The wire's common parts: the base models of what clients send (:class:`Strict`) and what
the server answers (:class:`Out`), and the error every layer answers with (HTTP body and socket
message alike). Each feature's ``messages.py`` builds on them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from gonuts.server.kernel.errors import ErrorCode, error_text


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorDetail(Out):
    code: ErrorCode
    message: str


class ErrorBody(Out):
    """Every HTTP error's body."""

    error: ErrorDetail


class ErrorMessage(Out):
    type: Literal["error"]
    code: ErrorCode
    message: str
    id: str | None = None
    """Only present when the refused message had one."""


def error_message(
    code: ErrorCode, lang: str, detail: str | None = None, id_: str | None = None
) -> dict[str, Any]:
    msg: dict[str, Any] = {"type": "error", "code": code, "message": error_text(code, lang, detail)}
    if id_ is not None:
        msg["id"] = id_
    return msg


def error_body(code: ErrorCode, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}
