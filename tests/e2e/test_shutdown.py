"""How ``veilbot run`` stops: SIGTERM and SIGINT drain the service (``bot.cli.stopping``).

A real ``veilbot run slack`` process with its embedded Redis (no ``VEILBOT_REDIS_URL``),
the fake Slack and the fake Anthropic server holding the model's answer until released, so
the signal lands while a turn is in flight.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from guardrails.detect.workers import PAUSABLE
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.slack_payloads import SIGNING_SECRET, mention, signed_headers
from tests.fakes.slack_server import FakeSlack
from tests.fixtures.guardrail import TEST_VAULT_KEY_B64
from tests.fixtures.processes import Spawned, alive, base_env, children_of, spawned, until
from tests.fixtures.services import free_port

STEPS = (
    "received; taking no new events",
    "shutdown: waiting up to 60s for the work in flight",
    "shutdown: work in flight done",
    "shutdown: platforms and http server closed",
    "shutdown: audit spool flushed",
    "embedded Redis (pid",
    "shutdown: veilbot stopped",
)


def run_env(tmp_path: Path, slack: FakeSlack, fake: FakeAnthropic, port: int) -> dict[str, str]:
    return base_env(
        VEILBOT_DATA_DIR=str(tmp_path / "data"),
        VEILBOT_VAULT_KEY=TEST_VAULT_KEY_B64,
        VEILBOT_ANTHROPIC_API_KEY="test-key",
        VEILBOT_ANTHROPIC_BASE_URL=fake.url,
        VEILBOT_SLACK_BOT_TOKEN="xoxb-test",
        VEILBOT_SLACK_SIGNING_SECRET=SIGNING_SECRET,
        VEILBOT_SLACK_API_URL=slack.api_url,
        VEILBOT_SLACK_HTTP_PORT=str(port),
        VEILBOT_SLACK_STREAMING="off",
        VEILBOT_DRAIN_TIMEOUT_SECONDS="60",
    )


async def post_event(url: str, event: dict[str, Any]) -> int:
    body = json.dumps(event)
    async with aiohttp.ClientSession() as session:
        async with session.post(url, data=body, headers=signed_headers(body)) as response:
            return response.status


async def until_not_ready(url: str, within: float = 30.0) -> None:
    deadline = time.monotonic() + within
    async with aiohttp.ClientSession() as session:
        while True:
            async with session.get(url) as response:
                body = await response.json()
                if response.status == 503 and body["checks"].get("serving") is False:
                    return
            if time.monotonic() > deadline:
                raise AssertionError(f"/readyz still {response.status} {body}")
            await asyncio.sleep(0.05)


def embedded_redis(child: Spawned) -> int:
    pids = [
        pid
        for pid in children_of(child.proc.pid)
        if "redis-server" in Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
    ]
    assert len(pids) == 1, f"expected one embedded redis-server child, found {pids}"
    return pids[0]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
@pytest.mark.timeout(240)
async def test_a_stop_signal_finishes_the_turn_in_flight_and_stops_the_embedded_redis(
    tmp_path: Path, fake_anthropic: FakeAnthropic, signum: signal.Signals
) -> None:
    fake_anthropic.hold()
    async with FakeSlack() as slack:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        try:
            async with spawned(run_env(tmp_path, slack, fake_anthropic, port), "run") as child:
                await child.serving(f"{base}/healthz")
                redis_pid = embedded_redis(child)
                event = mention("what is a haiku?")
                assert await post_event(f"{base}/slack/events", event) == 200
                await until(lambda: len(fake_anthropic.requests) == 1, "the model call")

                child.proc.send_signal(signum)
                await child.logged("taking no new events")
                # stopping: a new delivery is refused with a status Slack retries
                assert await post_event(f"{base}/slack/events", mention("another")) == 503
                # and the load balancer is told to send traffic elsewhere
                await until_not_ready(f"{base}/readyz")
                fake_anthropic.release()
                rc = await child.exited()
        finally:
            fake_anthropic.release()
        ts = event["event"]["ts"]
        assert rc == 0, child.stderr
        assert slack.thread("C1", ts) == ["Noted: what is a haiku?"], child.stderr
        assert not alive(redis_pid), "the embedded redis-server outlived veilbot"
        for step in STEPS:
            assert sum(step in line for line in child.lines) == 1, (step, child.stderr)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
@pytest.mark.timeout(240)
async def test_a_stop_signal_during_start_up_stops_cleanly(
    tmp_path: Path, fake_anthropic: FakeAnthropic, signum: signal.Signals
) -> None:
    async with FakeSlack() as slack:
        env = run_env(tmp_path, slack, fake_anthropic, free_port())
        async with spawned(env, "run") as child:
            await child.logged("embedded Redis started")  # the guardrail is still loading
            redis_pid = embedded_redis(child)
            child.proc.send_signal(signum)
            rc = await child.exited()
    assert rc == 0, child.stderr
    assert "start-up cancelled" in child.stderr
    assert not alive(redis_pid), "the embedded redis-server outlived veilbot"


def detection_workers(child: Spawned) -> list[int]:
    return [
        pid
        for pid in children_of(child.proc.pid)
        if "multiprocessing.spawn" in Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
    ]


@pytest.mark.timeout(240)
@pytest.mark.parametrize("paused", [False, True], ids=["running", "paused"])
async def test_a_killed_service_leaves_no_detection_worker_behind(
    tmp_path: Path, fake_anthropic: FakeAnthropic, paused: bool
) -> None:
    """SIGKILL gives no chance to shut the pool down: its workers must still go with it.

    Left behind they hold about 170 MB each and the service's stderr, so a supervisor reading
    that pipe never sees the service end. Paused (stopped while the service acked a burst),
    they cannot notice the service is gone: the kernel kills them with it.
    """
    if paused and not PAUSABLE:
        pytest.skip("workers are paused on Linux only")
    async with FakeSlack() as slack:
        port = free_port()
        env = {**run_env(tmp_path, slack, fake_anthropic, port), "VEILBOT_GUARDRAIL_WORKERS": "2"}
        async with spawned(env, "run", "slack") as child:
            await child.serving(f"http://127.0.0.1:{port}/readyz")
            workers = detection_workers(child)
            assert len(workers) == 2, child.stderr
            for pid in workers if paused else []:
                os.kill(pid, signal.SIGSTOP)  # as ``ProcessDetector.pause`` does
            child.proc.kill()
            await until(lambda: not any(map(alive, workers)), "the workers to exit", 30)


def interrupted_cleanly(child: Spawned) -> None:
    """No traceback, and nothing failed on the way out (a worker, the embedded Redis)."""
    assert "Traceback" not in child.stderr, child.stderr
    assert "KeyboardInterrupt" not in child.stderr, child.stderr
    assert not [line for line in child.lines if " ERROR " in line or " WARNING " in line]


@pytest.mark.timeout(240)
async def test_ctrl_c_stops_the_service_and_its_detection_processes_without_a_traceback(
    tmp_path: Path, fake_anthropic: FakeAnthropic
) -> None:
    """Ctrl-C in a terminal signals the whole foreground group, detection processes too."""
    async with FakeSlack() as slack:
        port = free_port()
        env = run_env(tmp_path, slack, fake_anthropic, port)
        async with spawned(env, "run", own_group=True) as child:
            await child.serving(f"http://127.0.0.1:{port}/readyz")
            workers = detection_workers(child)
            assert workers
            os.killpg(child.proc.pid, signal.SIGINT)
            rc = await child.exited()
            await until(lambda: not any(alive(pid) for pid in workers), "the workers to end")
    assert rc == 0, child.stderr
    interrupted_cleanly(child)


@pytest.mark.timeout(240)
async def test_ctrl_c_while_the_detection_processes_start_is_quiet(
    tmp_path: Path, fake_anthropic: FakeAnthropic
) -> None:
    async with FakeSlack() as slack:
        env = run_env(tmp_path, slack, fake_anthropic, free_port())
        async with spawned(env, "run", own_group=True) as child:
            await until(lambda: detection_workers(child), "a detection process")
            os.killpg(child.proc.pid, signal.SIGINT)  # it is still importing and loading
            rc = await child.exited()
    assert rc == 0, child.stderr
    interrupted_cleanly(child)
