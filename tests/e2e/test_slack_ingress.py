"""Slack's events endpoint under hostile input: refusals are 4xx, never a 500 or a traceback.

The real Slack adapter on the real HTTP server, the fake Slack, real Redis and Presidio.
"""

from __future__ import annotations

import hmac
import json
import logging
import time
from typing import Any
from urllib.parse import quote

import pytest

from tests.e2e.conftest import MakeApp
from tests.e2e.slack_harness import Harness, slack_harness
from tests.fakes.slack_payloads import SIGNING_SECRET, deleted, envelope, mention, user_event


def _sign(body: bytes, stamp: str | None = None) -> dict[str, str]:
    """Slack's ``v0`` signature over raw bytes (slack-sdk's signer wants text)."""
    stamp = stamp or str(int(time.time()))
    digest = hmac.new(SIGNING_SECRET.encode(), b"v0:" + stamp.encode() + b":" + body, "sha256")
    return {
        "Content-Type": "application/json",
        "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": "v0=" + digest.hexdigest(),
    }


async def _post(h: Harness, body: bytes, headers: dict[str, str]) -> int:
    async with h.session.post(h.events_url, data=body, headers=headers) as response:
        await response.read()
        return response.status


def no_tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    """Log records with a traceback or at ERROR: what a refused request must not write."""
    return [
        f"{r.name}: {r.getMessage()[:80]}"
        for r in caplog.records
        if r.exc_info or r.levelno >= logging.ERROR or "Traceback" in r.getMessage()
    ]


async def test_unsigned_garbage_is_refused_with_401_and_no_traceback(
    make_app: MakeApp, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    async with slack_harness(make_app) as h:
        fresh = str(int(time.time()))
        forged = "v0=" + "0" * 64
        cases: list[tuple[bytes, dict[str, str]]] = [
            (b"\xff\xfe{\x80}", {"X-Slack-Request-Timestamp": fresh, "X-Slack-Signature": forged}),
            (b"{}", {"X-Slack-Request-Timestamp": "²²²", "X-Slack-Signature": forged}),
            (b"{}", {"X-Slack-Request-Timestamp": "１２３", "X-Slack-Signature": forged}),
            (b"{}", {"X-Slack-Request-Timestamp": "9" * 400, "X-Slack-Signature": forged}),
        ]
        statuses = [await _post(h, body, headers) for body, headers in cases]
        assert statuses == [401] * len(cases)
        # a signed body that is not UTF-8 is Slack's signature on something Slack never sends
        assert await _post(h, b"\xff\xfe{\x80}", _sign(b"\xff\xfe{\x80}")) == 400
    assert no_tracebacks(caplog) == []


def _channelless() -> dict[str, Any]:
    body = mention("hello")
    del body["event"]["channel"]
    return body


def _listed_subtype() -> dict[str, Any]:
    return envelope(user_event("message", "hi", subtype=["file_share"]))  # type: ignore[arg-type]


def _string_authorizations() -> dict[str, Any]:
    body = mention("hello")
    body["authorizations"] = ["T1", "UBOT"]
    del body["team_id"]
    return body


def _string_previous() -> dict[str, Any]:
    body = deleted(user_event("message", "gone"))
    body["event"]["previous_message"] = "not a message"
    return body


MALFORMED = {
    "event without channel": _channelless,
    "subtype a list": _listed_subtype,
    "authorizations of strings": _string_authorizations,
    "previous_message a string": _string_previous,
}


@pytest.mark.parametrize("queued", [True, False], ids=["queue", "no-queue"])
async def test_signed_but_malformed_events_get_400_and_no_traceback(
    make_app: MakeApp, caplog: pytest.LogCaptureFixture, queued: bool
) -> None:
    caplog.set_level(logging.INFO)
    overrides = {} if queued else {"queue_enabled": False}
    async with slack_harness(make_app, **overrides) as h:
        for name, build in MALFORMED.items():
            body = json.dumps(build()).encode()
            assert await _post(h, body, _sign(body)) == 400, name
        deep = b"[" * 100_000 + b"]" * 100_000
        assert await _post(h, deep, _sign(deep)) == 400
        deep_object = b'{"type":"event_callback","event":' * 20_000 + b"{}" + b"}" * 20_000
        assert await _post(h, deep_object, _sign(deep_object)) == 400
        await h.settle()
    assert no_tracebacks(caplog) == []


def _with_file_size(size: str) -> bytes:
    """A mention sharing a file whose ``size`` is written as ``size`` (raw JSON)."""
    body = mention("look", files=[{"id": "F1", "name": "a.txt", "size": 0}])
    return json.dumps(body).replace('"size": 0', f'"size": {size}').encode()


def _form(*payloads: str) -> bytes:
    return "&".join(f"payload={quote(p)}" for p in payloads).encode()


BUTTON = json.dumps(
    {"type": "block_actions", "user": {"id": "U1"}, "team": {"id": "T1"}, "actions": []}
)
ODD_BODIES: dict[str, tuple[bytes, str]] = {
    **{
        f"a file's size of {size}": (_with_file_size(size), "application/json")
        for size in ('"abc"', "[1]", "1e400", "-1", '{"a": 1}')
    },
    # bolt reads a body that starts with "{" as JSON whatever its type says; with a "=" in
    # it, it also reads as a form
    **{
        f"{name} as text/plain": (
            json.dumps({**build(), "note": "2+2=4"}).encode(),
            "text/plain",
        )
        for name, build in MALFORMED.items()
    },
    "a file's size of 1e400 as text/plain": (
        _with_file_size("1e400").replace(b'"look', b'"2+2=4'),
        "text/plain",
    ),
    # bolt reads a form's last payload, and a blank one too
    "a form whose last payload is malformed": (
        _form(BUTTON, '{"type": "block_actions", "user": 5}'),
        "application/x-www-form-urlencoded",
    ),
    "a form with a blank payload": (_form(""), "application/x-www-form-urlencoded"),
}


@pytest.mark.parametrize("queued", [True, False], ids=["queue", "no-queue"])
async def test_signed_bodies_veilbot_cannot_read_get_400_whatever_their_content_type(
    make_app: MakeApp, caplog: pytest.LogCaptureFixture, queued: bool
) -> None:
    caplog.set_level(logging.INFO)
    overrides = {} if queued else {"queue_enabled": False}
    async with slack_harness(make_app, **overrides) as h:
        statuses = {
            name: await _post(h, body, {**_sign(body), "Content-Type": kind})
            for name, (body, kind) in ODD_BODIES.items()
        }
        fine = _with_file_size("12")
        assert await _post(h, fine, _sign(fine)) == 200
        await h.settle()
    assert {name: s for name, s in statuses.items() if s != 400} == {}
    assert no_tracebacks(caplog) == []
