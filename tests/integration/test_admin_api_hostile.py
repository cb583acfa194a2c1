"""The admin API on the real HTTP server under hostile requests: 4xx, one log line, no forgery."""

from __future__ import annotations

import io
import logging
from collections.abc import AsyncIterator

import aiohttp
import pytest

from bot.admin.api import add_admin_routes
from bot.admin.auth import AdminTokens, hash_token
from bot.audit.store import SqlAuditStore
from bot.core.logsafe import OneLineFormatter
from bot.http_server import HttpServer

ADMIN = "admin-token-0123456789"


@pytest.fixture
async def base(audit_store: SqlAuditStore) -> AsyncIterator[str]:
    async def readiness() -> dict[str, bool]:
        return {"redis": True}

    http = HttpServer("127.0.0.1", 0)
    tokens = AdminTokens.parse(hash_token(ADMIN))
    add_admin_routes(http.app, store=audit_store, tokens=tokens, readiness=readiness)
    async with http:
        yield http.url


def _lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The log as an operator's file holds it, through the service's formatter."""
    formatter = OneLineFormatter("%(levelname)s %(name)s: %(message)s")
    return "\n".join(formatter.format(r) for r in caplog.records).splitlines()


@pytest.mark.parametrize(
    "limit", ["9" * 5000, str(10**20), "²", "１０", "0", "1001", "-1", "1e3", ""]
)
async def test_an_unusable_limit_is_a_clear_400(
    base: str, limit: str, caplog: pytest.LogCaptureFixture
) -> None:
    headers = {"Authorization": f"Bearer {ADMIN}"}
    async with aiohttp.ClientSession() as session:
        for path in ("/admin/runs", "/admin/stats"):
            async with session.get(f"{base}{path}", params={"limit": limit}, headers=headers) as r:
                assert r.status == 400, path
                assert "limit" in (await r.json())["error"]
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


async def test_a_path_cannot_forge_a_log_line_and_refusals_are_one_line_with_a_count(
    base: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    forged = "2026-11-26 15:00:00,000 ERROR bot.admin.api: token accepted"
    async with aiohttp.ClientSession() as session:
        url = f"{base}/admin/runs/x%0A{forged.replace(' ', '%20')}%0D%E2%80%A8"
        async with session.get(url) as r:
            assert r.status == 401
        for _ in range(200):
            async with session.get(f"{base}/admin/runs") as r:
                assert r.status == 401
    lines = [line for line in _lines(caplog) if "refused" in line]
    assert len(lines) == 1, lines
    assert not any(line.startswith("2026-11-26") for line in _lines(caplog))
    assert "\\x0a" in lines[0]


def test_the_service_formatter_keeps_any_message_on_one_line() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(OneLineFormatter("%(levelname)s %(message)s"))
    log = logging.getLogger("tests.oneline")
    log.addHandler(handler)
    try:
        log.warning("thread %s refused", "x\nERROR forged\r\u2028")
    finally:
        log.removeHandler(handler)
    assert stream.getvalue().count("\n") == 1
    assert "\\x0aERROR forged" in stream.getvalue()
