"""Pydantic models of every message a client may send (docs/protocol.md)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class SeatSpec(Strict):
    kind: Literal["human", "bot"]
    level: Literal["easy", "medium", "hard"] | None = None


class CreateTable(Strict):
    seats: list[SeatSpec] = Field(min_length=2, max_length=6)
    name: str | None = Field(default=None, max_length=200)


class JoinTable(Strict):
    name: str = Field(max_length=200)


class ActBody(Strict):
    action: str = Field(max_length=64)
    id: str | None = Field(default=None, max_length=40)
    """Optional client id: a retried request with the same id is not applied twice."""


class Hello(Strict):
    type: Literal["hello"]
    token: str | None = Field(default=None, max_length=200)
    lang: str | None = Field(default=None, max_length=16)


class Act(Strict):
    type: Literal["act"]
    action: str = Field(max_length=64)
    id: str | None = Field(default=None, max_length=40)


class Hints(Strict):
    type: Literal["hints"]
    on: bool


class Lang(Strict):
    type: Literal["lang"]
    lang: str = Field(max_length=16)


class Ping(Strict):
    type: Literal["ping"]


ClientMessage = Annotated[Hello | Act | Hints | Lang | Ping, Field(discriminator="type")]
CLIENT_MESSAGE: TypeAdapter[Hello | Act | Hints | Lang | Ping] = TypeAdapter(ClientMessage)
