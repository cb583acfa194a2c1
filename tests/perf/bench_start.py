"""Benchmark: how fast ``veilbot run`` starts, and how fast it says what is wrong.

Three figures per run, median of ``--runs`` (each a fresh ``python -m bot run slack`` against
the fake Slack and Anthropic servers, Slack over HTTP, a Redis of the tests' own):

- **error**: a configuration mistake (a spaCy model that is not installed) until the process
  has exited with its one line;
- **serving**: until ``/healthz`` answers: the adapters connected, events are acked and queued;
- **ready**: until ``/readyz`` answers 200: the detection processes are warm; with the
  ``timings`` ``/readyz`` reports (``build_seconds``, ``guardrail_warm_seconds``).

    .venv/bin/python -m tests.perf.bench_start [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.slack_payloads import SIGNING_SECRET
from tests.fakes.slack_server import FakeSlack
from tests.fixtures.guardrail import TEST_VAULT_KEY_B64
from tests.fixtures.services import RedisServer, _redis_binary, free_port

ROOT = Path(__file__).resolve().parents[2]


def _env(
    data: Path, redis_url: str, slack: FakeSlack, model: FakeAnthropic, port: int
) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("VEILBOT_", "ANTHROPIC_"))}
    return {
        **clean,
        "VEILBOT_DATA_DIR": str(data),
        "VEILBOT_REDIS_URL": redis_url,
        "VEILBOT_VAULT_KEY": TEST_VAULT_KEY_B64,
        "VEILBOT_ANTHROPIC_API_KEY": "test-key",
        "VEILBOT_ANTHROPIC_BASE_URL": model.url,
        "VEILBOT_SLACK_BOT_TOKEN": "xoxb-test",
        "VEILBOT_SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "VEILBOT_SLACK_API_URL": slack.api_url,
        "VEILBOT_SLACK_HTTP_PORT": str(port),
    }


def _status(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:  # noqa: S310  (loopback)
            return response.status, json.load(response)
    except urllib.error.HTTPError as exc:
        return exc.code, None
    except OSError:
        return 0, None


async def _until(url: str, proc: subprocess.Popen[bytes], started: float) -> tuple[float, Any]:
    while proc.poll() is None:
        status, body = await asyncio.to_thread(_status, url)
        if status == 200:
            return time.monotonic() - started, body
        await asyncio.sleep(0.02)
    raise RuntimeError(f"veilbot run exited with {proc.returncode}")


async def one_start(env: dict[str, str], port: int) -> tuple[float, float, dict[str, float]]:
    """Seconds to serving and to ready, and the timings ``/readyz`` reported."""
    base = f"http://127.0.0.1:{port}"
    started = time.monotonic()
    proc = subprocess.Popen(  # noqa: S603  (this interpreter, fixed arguments)
        [sys.executable, "-m", "bot", "run", "slack"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        serving, _ = await _until(f"{base}/healthz", proc, started)
        ready, body = await _until(f"{base}/readyz", proc, started)
        return serving, ready, body.get("timings", {})
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def one_error(env: dict[str, str]) -> float:
    """Seconds until a configuration mistake is reported and the process has exited."""
    started = time.monotonic()
    done = subprocess.run(  # noqa: S603  (this interpreter, fixed arguments)
        [sys.executable, "-m", "bot", "run", "slack"],
        env={**env, "VEILBOT_SPACY_MODEL": "en_core_web_xl"},
        cwd=ROOT,
        capture_output=True,
        timeout=120,
        check=False,
    )
    if done.returncode != 2:
        raise RuntimeError(f"expected a configuration error, got {done.returncode}")
    return time.monotonic() - started


async def main(runs: int) -> None:
    redis = RedisServer(_redis_binary("the benchmark"))
    redis.start()
    try:
        async with FakeSlack() as slack:
            with FakeAnthropic() as model:
                errors, serving, ready, warm = [], [], [], []
                for _ in range(runs):
                    with tempfile.TemporaryDirectory() as data:
                        port = free_port()
                        url = redis.url
                        env = _env(Path(data), url, slack, model, port)
                        errors.append(one_error(env))
                        up, done, timings = await one_start(env, port)
                    serving.append(up)
                    ready.append(done)
                    warm.append(timings.get("guardrail_warm_seconds", float("nan")))
    finally:
        redis.cleanup()
    print(f"veilbot run, median of {runs} (cores {os.cpu_count()}, load {os.getloadavg()[0]:.1f})")
    print(f"  configuration error reported and exited   {statistics.median(errors):6.2f} s")
    print(f"  serving (/healthz 200: acks and queue)     {statistics.median(serving):6.2f} s")
    print(f"  ready (/readyz 200: detection warm)        {statistics.median(ready):6.2f} s")
    print(f"  of which /readyz's guardrail_warm_seconds  {statistics.median(warm):6.2f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    asyncio.run(main(parser.parse_args().runs))
