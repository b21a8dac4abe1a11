"""Fakes of the notification tests: a push service on loopback that decrypts what it gets
(as a browser would, with the subscriber's private key) and checks the VAPID signature, and an
SMTP server on loopback (aiosmtpd)."""

from __future__ import annotations

import base64
import json
import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece  # type: ignore[import-untyped]
from aiosmtpd.controller import Controller
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from gonuts.server.notify.store import Subscription


def b64d(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64e(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


@dataclass
class Subscriber:
    """A browser's side of a push subscription: its key pair and auth secret."""

    endpoint: str
    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    @property
    def subscription(self) -> Subscription:
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return Subscription(self.endpoint, b64e(point), b64e(self.auth))

    def decrypt(self, body: bytes) -> Any:
        plain = http_ece.decrypt(
            body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"
        )
        return json.loads(plain)


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


def vapid_claims(authorization: str, server_key: str) -> dict[str, Any]:
    """The claims of a ``vapid t=…,k=…`` header, after checking that ``k`` is the server's
    public key and that the JWT is ES256-signed with it."""
    scheme, _, params = authorization.partition(" ")
    assert scheme == "vapid", authorization
    parts = dict(p.strip().split("=", 1) for p in params.split(","))
    assert parts["k"] == server_key
    head, claims, signature = parts["t"].split(".")
    assert json.loads(b64d(head)) == {"typ": "JWT", "alg": "ES256"}
    raw = b64d(signature)
    assert len(raw) == 64
    der = encode_dss_signature(int.from_bytes(raw[:32]), int.from_bytes(raw[32:]))
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64d(server_key))
    public.verify(der, f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))  # raises if not
    found: dict[str, Any] = json.loads(b64d(claims))
    return found


class PushService:
    """An HTTP server on loopback taking pushes: it records each and answers ``status[path]``
    (201 unless told)."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.status: dict[str, int] = {}
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                service.received.append(
                    Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                )
                self.send_response(service.status.get(self.path, 201))
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def subscriber(self, name: str) -> Subscriber:
        return Subscriber(f"{self.origin}/push/{name}")


@contextmanager
def push_service() -> Iterator[PushService]:
    service = PushService()
    service.thread.start()
    try:
        yield service
    finally:
        service.server.shutdown()
        service.server.server_close()


class Mailbox:
    """aiosmtpd's handler: every message it accepts."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []

    async def handle_DATA(  # noqa: N802 (aiosmtpd's name)
        self, server: Any, session: Any, envelope: Any
    ) -> str:
        message = message_from_bytes(envelope.content, policy=policy.default)
        assert isinstance(message, EmailMessage)
        message["X-Envelope-To"] = ",".join(envelope.rcpt_tos)
        self.messages.append(message)
        return "250 OK"


@contextmanager
def smtp_server() -> Iterator[tuple[Mailbox, str]]:
    """An SMTP server on loopback and its ``GONUTS_SMTP_URL`` (plain: a local relay)."""
    box = Mailbox()
    with socket.socket() as probe:  # (aiosmtpd's controller wants a port number, not 0)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(box, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield box, f"smtp+plain://127.0.0.1:{controller.port}"
    finally:
        controller.stop()


def part(message: EmailMessage, kind: str) -> str:
    """The text of a mail's ``plain`` or ``html`` part (it must have one)."""
    found = message.get_body((kind,))
    assert found is not None, f"no {kind} part"
    text: str = found.get_content()
    return text
