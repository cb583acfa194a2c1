"""Fuzzing the live ingress: arbitrary bytes, headers and JSON shapes never give a 5xx or a
traceback, on Slack's events endpoint (signed and unsigned), Discord's gateway, and the admin
API.

Hypothesis draws the inputs (a fixed seed and a bounded number of examples, so the suite stays
fast and repeatable); each set is then sent to one running service, since starting the app
per example would take minutes. A failure names the input that caused it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import time
from typing import Any, TypeVar
from urllib.parse import quote

import aiohttp
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from bot.admin.api import add_admin_routes
from bot.admin.auth import AdminTokens, hash_token
from bot.audit.store import SqlAuditStore
from bot.http_server import HttpServer
from tests.e2e.conftest import MakeApp
from tests.e2e.discord_harness import StartBot
from tests.e2e.slack_harness import Harness, slack_harness
from tests.fakes.discord_server import ALICE_ID, BOB_ID, BOT_ID, CHANNEL_ID, GUILD_ID, FakeDiscord
from tests.fakes.slack_payloads import SIGNING_SECRET, mention

T = TypeVar("T")
EXAMPLES = 60


def drawn(strategy: st.SearchStrategy[T], count: int = EXAMPLES) -> list[T]:
    """``count`` values of ``strategy``, the same on every run (hypothesis, derandomized)."""
    found: list[T] = []

    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(strategy)
    def collect(value: T) -> None:
        found.append(value)

    collect()
    return found


def problems(caplog: pytest.LogCaptureFixture) -> list[str]:
    """Log records a hostile request must never cause: tracebacks and errors."""
    return [
        f"{r.name}: {r.getMessage()[:120]}"
        for r in caplog.records
        if r.exc_info or r.levelno >= logging.ERROR or "Traceback" in r.getMessage()
    ]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
EVENT_KEYS = ["type", "subtype", "channel", "ts", "thread_ts", "user", "text", "bot_id",
              "channel_type", "team", "deleted_ts", "hidden", "files", "previous_message",
              "message", "bot_profile"]  # fmt: skip
ENVELOPE_KEYS = ["type", "team_id", "event_id", "team", "authorizations", "event"]
SHAPES = {
    "type": st.sampled_from(["message", "app_mention", "assistant_thread_started"]) | JSON,
    "subtype": st.sampled_from(["message_deleted", "message_changed", "file_share"]) | JSON,
    "channel": st.sampled_from(["C1", "D1", "C1:x"]) | JSON,
    "ts": st.sampled_from(["1700000000.000001"]) | JSON,
    "previous_message": st.dictionaries(st.sampled_from(EVENT_KEYS), JSON, max_size=5) | JSON,
    "message": st.dictionaries(st.sampled_from(EVENT_KEYS), JSON, max_size=5) | JSON,
    "files": st.lists(
        st.fixed_dictionaries(
            {},
            optional={
                **{k: JSON for k in ("id", "name", "url_private", "mode")},
                "size": st.sampled_from([12, -1, "abc", [1], float("inf")]) | JSON,
            },
        )
        | JSON,
        max_size=3,
    )
    | JSON,
}


def _field(name: str) -> st.SearchStrategy[Any]:
    return SHAPES.get(name, JSON)


EVENTS = st.fixed_dictionaries({}, optional={k: _field(k) for k in EVENT_KEYS}).map(lambda e: e)
ENVELOPES = st.fixed_dictionaries(
    {"type": st.just("event_callback") | JSON, "event": EVENTS | JSON},
    optional={
        "team_id": st.just("T1") | JSON,
        "event_id": JSON,
        "team": JSON,
        "authorizations": st.lists(JSON, max_size=3) | JSON,
    },
)
LATIN1 = st.text(
    st.characters(min_codepoint=0x20, max_codepoint=0xFF, exclude_characters="\x7f"), max_size=40
)
STAMPS = st.text(max_size=12).filter(lambda s: "\n" not in s and "\r" not in s) | st.integers(
    -(10**20), 10**20
).map(str)


def _signed(body: bytes, stamp: str | None = None) -> dict[str, str]:
    stamp = stamp or str(int(time.time()))
    digest = hmac.new(
        SIGNING_SECRET.encode(), b"v0:" + stamp.encode() + b":" + body, hashlib.sha256
    )
    return {"X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": "v0=" + digest.hexdigest()}


def _header_safe(value: str) -> str:
    """aiohttp sends headers as latin-1 with no control characters; others go as escapes."""
    latin = value.encode("latin-1", "backslashreplace").decode("latin-1")
    return "".join(c for c in latin if c >= " " and c != "\x7f")


async def _post(h: Harness, body: bytes, headers: dict[str, str]) -> int:
    async with h.session.post(h.events_url, data=body, headers=headers) as response:
        await response.read()
        return response.status


async def test_slack_ingress_answers_arbitrary_requests_with_no_5xx_and_no_traceback(
    make_app: MakeApp, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    unsigned = drawn(st.tuples(st.binary(max_size=300), STAMPS, st.text(max_size=70), LATIN1))
    signed_json = drawn(ENVELOPES)
    signed_bytes = drawn(st.binary(max_size=300), 30)
    forms = drawn(
        st.tuples(
            st.sampled_from(["block_actions", "view_submission", "shortcut"]) | JSON,
            st.dictionaries(
                st.sampled_from(
                    ["actions", "user", "team", "channel", "container", "response_url"]
                ),
                JSON,
                max_size=5,
            ),  # fmt: skip
        ),
        30,
    )
    # Workers 0: this process only acks and queues; what the queue would answer is not fuzzed.
    async with slack_harness(make_app, queue_workers=0) as h:
        statuses: dict[str, int] = {}
        for body, stamp, signature, content_type in unsigned:
            headers = {
                "X-Slack-Request-Timestamp": _header_safe(stamp),
                "X-Slack-Signature": _header_safe(signature),
                "Content-Type": _header_safe(content_type) or "application/json",
            }
            statuses[f"unsigned {body!r} {headers}"] = await _post(h, body, headers)
        for envelope in [*signed_json, mention("a valid one")]:
            # bolt reads a body that starts with "{" as JSON, whatever its type says (and
            # with a "=" in it, it reads as a form too)
            for kind in ("application/json", "text/plain"):
                body = json.dumps({**envelope, "note": "2+2=4"}).encode()
                headers = {**_signed(body), "Content-Type": kind}
                statuses[f"signed {envelope!r} {kind}"] = await _post(h, body, headers)
        for body in signed_bytes:
            for kind in ("application/json", "application/x-www-form-urlencoded"):
                headers = {**_signed(body), "Content-Type": kind}
                statuses[f"signed bytes {body!r} {kind}"] = await _post(h, body, headers)
        for kind, rest in forms:
            payload = {"type": kind, **rest}
            body = ("payload=" + quote(json.dumps(payload))).encode()
            headers = {**_signed(body), "Content-Type": "application/x-www-form-urlencoded"}
            statuses[f"form {payload!r}"] = await _post(h, body, headers)
        await h.adapter.idle(30)
    failed = {what: status for what, status in statuses.items() if status >= 500}
    assert failed == {}
    assert problems(caplog) == []


async def test_discord_gateway_events_of_arbitrary_content_cause_no_traceback(
    start_bot: StartBot, fake_discord: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    texts = drawn(st.text(max_size=300), 25)
    mentions = drawn(st.lists(st.sampled_from([BOT_ID, ALICE_ID, BOB_ID]), max_size=3), 25)
    # No queue: each message, edit and deletion is worked here, guardrail and model included.
    bot = await start_bot(queue_enabled=False)
    for n, (text, who) in enumerate(zip(texts, mentions, strict=True)):
        content = (f"<@{BOT_ID}> " if n % 2 else "") + text
        msg = fake_discord.message(content, mentions=tuple(who))
        await fake_discord.dispatch("MESSAGE_CREATE", msg)
        edit = {**msg, "content": text[::-1], "edited_timestamp": "2026-11-26T15:00:00+00:00"}
        await fake_discord.dispatch("MESSAGE_UPDATE", edit)
        await fake_discord.dispatch(
            "MESSAGE_DELETE",
            {"id": msg["id"], "channel_id": str(CHANNEL_ID), "guild_id": str(GUILD_ID)},
        )
    dm = 650000000000000009  # answered after every event above was read from the gateway
    await bot.say(fake_discord.message("sentinel", channel=dm, guild=None), channel=dm)
    await bot.adapter.drain(60)  # and the turns still in flight finish
    assert len(fake_discord.of("POST", "/messages")) > len(texts) // 4  # mentions answered
    assert problems(caplog) == []


async def test_admin_api_answers_arbitrary_requests_with_no_5xx_and_no_traceback(
    audit_store: SqlAuditStore, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    token = "admin-token-0123456789"
    cases = drawn(
        st.tuples(
            st.sampled_from(
                [
                    "/admin/runs",
                    "/admin/stats",
                    "/admin/export.csv",
                    "/admin/export.jsonl",
                    "/admin/runs/",
                ]
            ),  # fmt: skip
            st.text(max_size=30),
            st.dictionaries(
                st.sampled_from(
                    ["limit", "since", "until", "by", "cursor", "thread_id", "meta.x", "status"]
                )
                | st.text(max_size=8),  # fmt: skip
                st.text(max_size=30) | st.integers().map(str),
                max_size=4,
            ),
            st.booleans(),
            LATIN1,
        )
    )

    async def readiness() -> dict[str, bool]:
        return {"redis": True}

    http = HttpServer("127.0.0.1", 0)
    tokens = AdminTokens.parse(hash_token(token))
    add_admin_routes(http.app, store=audit_store, tokens=tokens, readiness=readiness)
    statuses: dict[str, int] = {}
    async with http, aiohttp.ClientSession() as session:
        for route, tail, query, authorized, garbage in cases:
            path = route + (quote(tail, safe="") if route.endswith("/") else "")
            auth = f"Bearer {token}" if authorized else _header_safe(garbage)
            url = f"{http.url}{path}"
            async with session.get(url, params=query, headers={"Authorization": auth}) as r:
                await r.read()
                statuses[f"{path} {query} {authorized}"] = r.status
    failed = {what: status for what, status in statuses.items() if status >= 500}
    assert failed == {}
    assert problems(caplog) == []


# Requests that are not HTTP, sent as raw bytes over a socket (no client would send them).
MALFORMED = {
    "a carriage return in the target": b"GET /slack/events\rX HTTP/1.1\r\nHost: x\r\n\r\n",
    "a header without a colon": (
        b"POST /slack/events HTTP/1.1\r\nHost: x\r\nX-Slack-Signature v0=1\r\n\r\n"
    ),
    "a 20 KB header": (
        b"POST /slack/events HTTP/1.1\r\nHost: x\r\nX-Slack-Signature: "
        + b"a" * 20_000
        + b"\r\n\r\n"
    ),
    "a non-numeric Content-Length": (
        b"POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Length: 2e1\r\n\r\n{}"
    ),
    "the HTTP/2 preface": b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
    "a bad chunk size": (
        b"POST /slack/events HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n\r\n"
    ),
}
REFUSAL_LINE = "malformed or abandoned HTTP request"


async def _raw(port: int, data: bytes) -> int | None:
    """Send ``data`` as it is; the response's status, ``None`` when none comes in 5 s."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(data)
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), timeout=5)
    except (TimeoutError, ConnectionError):
        return None
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()
    parts = line.split()
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None


def refusal_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if REFUSAL_LINE in r.getMessage()]


async def test_malformed_http_gets_400_and_one_log_line_a_minute_per_peer(
    make_app: MakeApp, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    async with slack_harness(make_app, queue_workers=0) as h:
        statuses = {
            f"{name} #{n}": await _raw(h.http.port, data)
            for n in range(50)
            for name, data in MALFORMED.items()
        }
    assert {what: s for what, s in statuses.items() if s != 400} == {}
    assert problems(caplog) == []
    (line,) = refusal_lines(caplog)  # 300 requests from one peer: one line, counted after
    assert "127.0.0.1" in line
    assert "X-Slack-Signature" not in line


HEAD_PARTS = st.sampled_from(
    [b"\r", b"\n", b"\x00", b":", b" ", b"\t", b"\x7f", b"\xff", b"HTTP/1.1", b"HTTP/2.0"]
)
WILD = st.lists(HEAD_PARTS | st.binary(max_size=12), max_size=6).map(b"".join)
HEADERS = st.lists(
    st.tuples(
        st.sampled_from([b"Host", b"Content-Length", b"Transfer-Encoding", b"X-Slack-Signature"])
        | WILD,
        st.sampled_from([b": ", b":", b" ", b""]),
        WILD | st.sampled_from([b"chunked", b"-1", b"0x10", b"1e400", b"12abc", b"a" * 9000]),
    ).map(b"".join),
    max_size=5,
)
REQUESTS = st.tuples(
    st.sampled_from([b"GET", b"POST", b"PRI", b"G\rET", b""]) | WILD,
    st.sampled_from([b"/slack/events", b"/healthz", b"*", b"/slack/events\rX"]) | WILD,
    st.sampled_from([b"HTTP/1.1", b"HTTP/1.0", b"HTTP/2.0", b"HTTP/9.9"]) | WILD,
    HEADERS,
    st.binary(max_size=40),
).map(
    lambda r: r[0] + b" " + r[1] + b" " + r[2] + b"\r\n" + b"\r\n".join(r[3]) + b"\r\n\r\n" + r[4]
)


async def test_arbitrary_request_heads_cause_no_5xx_no_traceback_and_no_log_flood(
    make_app: MakeApp, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    requests = drawn(REQUESTS, 150)
    async with slack_harness(make_app, queue_workers=0) as h:
        statuses = {repr(data): await _raw(h.http.port, data) for data in requests}
    assert {what: s for what, s in statuses.items() if s is not None and s >= 500} == {}
    assert problems(caplog) == []
    assert len(refusal_lines(caplog)) <= 1
