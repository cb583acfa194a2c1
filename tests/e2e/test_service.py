"""``veilbot run`` as one service (``bot.service``): Slack's events endpoint, the admin API and
the probes on one port, the daily retention, and an honest ``/readyz``.

Real Redis, SQLite (or an unreachable PostgreSQL), Presidio via ``build_app``, the real
slack-bolt against the fake Slack, and the fake Anthropic server.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import signal
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.admin.auth import hash_token
from bot.app import App, build_app
from bot.audit.types import RunFilter
from bot.core.errors import GuardrailError
from bot.core.types import AuditRecord
from bot.http_server import HttpServer
from bot.service import build_http, running
from tests.e2e.conftest import MakeApp, settings_for
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.slack_payloads import SIGNING_SECRET, mention, signed_headers
from tests.fakes.slack_server import FakeSlack
from tests.fixtures.audit_db import run
from tests.fixtures.guardrail import TEST_VAULT_KEY_B64
from tests.fixtures.processes import spawned
from tests.fixtures.services import RedisServer, free_port

TOKEN = "service-admin-token-abcdefghijkl"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def slack_settings(slack: FakeSlack, **overrides: Any) -> dict[str, Any]:
    return {
        "slack_bot_token": "xoxb-test",
        "slack_signing_secret": SIGNING_SECRET,
        "slack_api_url": slack.api_url,
        "slack_http_port": 0,
        "slack_streaming": "update",
        "slack_update_interval_seconds": 0.0,
        "admin_tokens": hash_token(TOKEN),
        **overrides,
    }


async def until(check: Callable[[], Any], what: str) -> None:
    for _ in range(1000):
        if await check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def aged_run(tid: str, days: int) -> AuditRecord:
    started = datetime.now(UTC) - timedelta(days=days)
    return run(thread_id=tid, started_at=started, finished_at=started + timedelta(seconds=2))


async def get(url: str, **kw: Any) -> tuple[int, Any]:
    async with aiohttp.ClientSession() as session, session.get(url, **kw) as response:
        return response.status, await response.json()


async def test_one_port_serves_slack_events_the_admin_api_and_probes_and_retention_runs(
    make_app: MakeApp,
) -> None:
    async with FakeSlack() as slack:
        app = await make_app(**slack_settings(slack), audit_retention_days=30)
        old, recent = aged_run("slack:T1:C9:1.1", 45), aged_run("slack:T1:C9:1.2", 2)
        await app.audit.record(old)
        await app.audit.record(recent)
        async with running(app, ["slack"]) as service:
            base = service.http.url

            async def purged() -> bool:
                return await app.audit.get_run(old.run_id) is None

            await until(purged, "the retention purge at start")
            assert await app.audit.get_run(recent.run_id) is not None

            event = mention("what is a haiku?")
            body = json.dumps(event)
            async with aiohttp.ClientSession() as session:
                url = f"{base}{app.settings.slack_http_path}"
                async with session.post(url, data=body, headers=signed_headers(body)) as r:
                    assert r.status == 200
            ts = event["event"]["ts"]
            tid = f"slack:T1:C1:{ts}"

            async def answered() -> bool:
                return bool(slack.thread("C1", ts)) and (await runs_of(app, tid)) == 1

            await until(answered, "the answer and its audit run")
            assert (await get(f"{base}/admin/runs?thread_id={tid}"))[0] == 401
            status, page = await get(f"{base}/admin/runs?thread_id={tid}", headers=AUTH)
            assert status == 200
            assert [r["thread_id"] for r in page["runs"]] == [tid]
            status, ready = await get(f"{base}/readyz")
            assert status == 200
            assert ready["checks"] == {"redis": True, "database": True, "guardrail": True}
            assert (await get(f"{base}/healthz"))[0] == 200


async def test_while_serving_full_collections_skip_what_startup_built(make_app: MakeApp) -> None:
    """A full garbage collection walks every object it tracks with the event loop stopped:
    with the spaCy model loaded, 100-200 ms during which no event is acked, several times in
    a burst. What startup built lives as long as the service; collections leave it alone."""
    async with FakeSlack() as slack:
        app = await make_app(**slack_settings(slack))
        assert gc.get_freeze_count() == 0
        async with running(app, ["slack"]):
            frozen, walked = gc.get_freeze_count(), len(gc.get_objects())
            assert frozen > 100_000  # the model, the recognizers, the SDKs
            assert walked < frozen / 4
        assert gc.get_freeze_count() == 0  # handed back to the collector on stop


async def runs_of(app: App, tid: str) -> int:
    return await app.audit.count_runs(RunFilter(thread_id=tid))


@pytest.fixture
async def probe_server(make_app: MakeApp) -> AsyncIterator[Callable[..., Any]]:
    """Start the service's HTTP server (no platform) for an app built with overrides."""
    servers: list[HttpServer] = []

    async def start(**overrides: Any) -> tuple[App, str]:
        app = await make_app(admin_http_port=0, **overrides)
        http = build_http(app, [])
        await http.__aenter__()
        servers.append(http)
        return app, http.url

    yield start
    for http in servers:
        await http.__aexit__(None, None, None)


async def test_readyz_is_503_while_redis_is_down_and_recovers(
    probe_server: Callable[..., Any], redis_server: RedisServer
) -> None:
    _, base = await probe_server(redis_url=redis_server.url)
    assert (await get(f"{base}/readyz"))[0] == 200
    redis_server.stop()
    status, body = await get(f"{base}/readyz")
    assert status == 503
    assert body["checks"]["redis"] is False
    assert body["checks"]["database"] is True
    assert (await get(f"{base}/healthz"))[0] == 200  # alive, just not ready
    redis_server.start()
    assert (await get(f"{base}/readyz"))[0] == 200


async def test_readyz_is_503_while_the_database_is_down(probe_server: Callable[..., Any]) -> None:
    nowhere = f"postgresql+asyncpg://veilbot:x@127.0.0.1:{free_port()}/veilbot"
    _, base = await probe_server(database_url=nowhere)  # starts: records are spooled
    status, body = await get(f"{base}/readyz")
    assert status == 503
    assert body["checks"] == {"redis": True, "database": False, "guardrail": True}


async def test_readyz_is_503_while_the_guardrail_cannot_analyze_and_recovers(
    probe_server: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    app, base = await probe_server()
    assert (await get(f"{base}/readyz"))[0] == 200

    def broken(*_args: Any, **_kw: Any) -> None:
        raise OSError("model files gone")

    monkeypatch.setattr("guardrails.detect.detection.detect_many", broken)
    with pytest.raises(Exception, match="fail closed"):
        await app.guardrail.anonymize("console:t", "hello Jane", platform="console")
    status, body = await get(f"{base}/readyz")
    assert status == 503
    assert body["checks"]["guardrail"] is False
    monkeypatch.undo()
    assert (await get(f"{base}/readyz"))[0] == 200


async def test_veilbot_run_serves_slack_and_the_admin_api_on_one_port(
    tmp_path: Path, redis_url: str, redis_prefix: str, fake_anthropic: FakeAnthropic
) -> None:
    async with FakeSlack() as slack:
        port = free_port()
        env = {
            **os.environ,
            "VEILBOT_DATA_DIR": str(tmp_path / "data"),
            "VEILBOT_REDIS_URL": redis_url,
            "VEILBOT_REDIS_PREFIX": redis_prefix,
            "VEILBOT_VAULT_KEY": TEST_VAULT_KEY_B64,
            "VEILBOT_ANTHROPIC_API_KEY": "test-key",
            "VEILBOT_ANTHROPIC_BASE_URL": fake_anthropic.url,
            "VEILBOT_SLACK_BOT_TOKEN": "xoxb-test",
            "VEILBOT_SLACK_SIGNING_SECRET": SIGNING_SECRET,
            "VEILBOT_SLACK_API_URL": slack.api_url,
            "VEILBOT_SLACK_HTTP_PORT": str(port),
            "VEILBOT_ADMIN_TOKENS": hash_token(TOKEN),
        }
        base = f"http://127.0.0.1:{port}"
        async with spawned(env, "run", "slack") as child:  # killed whatever happens
            await child.serving(f"{base}/readyz")  # once detection is warm
            status, ready = await get(f"{base}/readyz")
            assert (status, ready["checks"]["guardrail"]) == (200, True)
            assert (await get(f"{base}/admin/runs"))[0] == 401
            assert (await get(f"{base}/admin/runs", headers=AUTH))[0] == 200
            body = json.dumps({"type": "url_verification", "challenge": "c-123"})
            async with aiohttp.ClientSession() as session:
                url = f"{base}/slack/events"
                async with session.post(url, data=body, headers=signed_headers(body)) as r:
                    assert (r.status, await r.json()) == (200, {"challenge": "c-123"})
            child.proc.send_signal(signal.SIGINT)
            assert await child.exited() == 0, child.stderr


async def test_while_detection_warms_up_readyz_is_503_and_ready_once_it_is_warm(
    probe_server: Callable[..., Any],
) -> None:
    app, base = await probe_server()
    warm = asyncio.Event()

    async def warming() -> float:
        await warm.wait()
        return 0.0

    app.warming = asyncio.create_task(warming())  # the detection processes still starting
    status, body = await get(f"{base}/readyz")
    assert status == 503
    assert body["checks"] == {"redis": True, "database": True, "guardrail": False}
    warm.set()
    await app.warming
    assert (await get(f"{base}/readyz"))[0] == 200


async def test_a_guardrail_that_cannot_warm_up_stops_the_service_with_its_error(
    make_app: MakeApp,
) -> None:
    async with FakeSlack() as slack:
        app = await make_app(**slack_settings(slack))

        async def fails() -> float:
            raise GuardrailError("PII detection failed (BrokenProcessPool); fail closed")

        app.warming = asyncio.create_task(fails())
        async with running(app, ["slack"]) as service:
            with pytest.raises(GuardrailError, match="fail closed"):
                await asyncio.wait_for(service.wait(), 30)


async def test_veilbot_run_answers_a_message_sent_while_its_detection_processes_warm_up(
    tmp_path: Path, redis_url: str, redis_prefix: str, fake_anthropic: FakeAnthropic
) -> None:
    """The adapters serve while the guardrail warms up in the background: an event that
    comes meanwhile is acked, waits for detection, and is answered with the values hidden."""
    async with FakeSlack() as slack:
        settings = settings_for(
            tmp_path / "data",
            redis_url,
            redis_prefix,
            fake_anthropic.url,
            **slack_settings(slack),
            guardrail_workers=1,
        )
        async with build_app(settings, warm_in_background=True) as app:
            assert app.warming is not None
            async with running(app, ["slack"]) as service:
                event = mention("I am Maria Gonzalez, what is a haiku?")
                body = json.dumps(event)
                url = f"{service.http.url}{settings.slack_http_path}"
                async with (
                    aiohttp.ClientSession() as session,
                    session.post(url, data=body, headers=signed_headers(body)) as response,
                ):
                    assert response.status == 200
                ts = event["event"]["ts"]
                # the answer waits for a detection process's cold start (seconds on an idle
                # machine, more on a busy one): wait for the warm-up itself, then the answer
                async with asyncio.timeout(90):
                    warmed = await app.warming
                await until(lambda: _answered(slack, ts), "the answer")
                assert warmed > 0
                status, ready = await get(f"{service.http.url}/readyz")
                assert status == 200
                assert ready["timings"]["guardrail_warm_seconds"] == round(warmed, 3)
                sent = fake_anthropic.all_text_sent()
                assert "<PERSON_1>" in sent
                assert "Maria Gonzalez" not in sent


async def _answered(slack: FakeSlack, ts: str) -> bool:
    return bool(slack.thread("C1", ts))
