"""Benchmark: the longest stretch a long message's turn holds the event loop.

A 40 000-character adversarial message (``bench_slack.adversarial``: dot- and hyphen-joined
words, digits with dashes) goes through the real composition root (real Redis, SQLite audit,
detection in its default worker process, a fake model in a process of its own that echoes
it, placeholders and all) twice: in a new thread, and in a thread whose vault already holds
values (a turn before it), where the message's words are looked up in the vault too. Every
step of the event loop is timed in CPU of the loop's own thread, which the load other
processes put on a shared machine barely moves. Printed: the longest step, the loop's CPU
over the turn, and the CPU of this process (worker threads too; detection runs in a process
of its own). A step is a stretch in which no other event (an ack) can be answered; the
target is ~20 ms.

    .venv/bin/python -m tests.perf.bench_loop_hold [--chars 40000] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""

from bot.app import App, build_app  # noqa: E402
from bot.config.settings import Settings  # noqa: E402
from bot.core.logsafe import configure_logging  # noqa: E402
from tests.fixtures.guardrail import TEST_VAULT_KEY_B64  # noqa: E402
from tests.fixtures.services import RedisServer, find_redis_server  # noqa: E402
from tests.perf.bench_slack import adversarial  # noqa: E402
from tests.perf.bench_turn import inbound  # noqa: E402


class _Steps:
    """Times every step of the running loop (``_run_once``) in the loop thread's CPU."""

    def __init__(self, loop: Any) -> None:
        self.longest = 0.0
        self.total = 0.0
        real = loop._run_once

        def timed() -> None:
            began = time.thread_time()
            real()
            spent = time.thread_time() - began
            self.longest = max(self.longest, spent)
            self.total += spent

        loop._run_once = timed

    def reset(self) -> None:
        self.longest = self.total = 0.0


async def _turn(app: App, steps: _Steps, i: int, text: str, thread: str) -> str:
    """Longest loop step, the loop's CPU, and this process's (worker threads too), in ms."""
    steps.reset()
    began = time.process_time()
    reply = await app.conversation.handle(inbound(i, text, thread))
    if reply is None or not reply.ok:
        raise SystemExit(f"turn {i} failed")
    spent = time.process_time() - began
    return f"{steps.longest * 1000:6.1f} {steps.total * 1000:6.1f} {spent * 1000:6.1f}"


async def run(settings: Settings, chars: int, runs: int) -> None:
    """The long message in new threads and in threads with a vault, ``runs`` times each."""
    steps = _Steps(asyncio.get_running_loop())
    long_text = adversarial(chars)
    async with build_app(settings) as app:
        await _turn(app, steps, 0, "Hi, I'm Maria Gonzalez from Porto.", "warm")
        print(f"a {chars}-character message, CPU ms: longest loop step, loop, process")
        for k in range(runs):
            new = await _turn(app, steps, 10 * k + 1, long_text, f"new{k}")
            await _turn(app, steps, 10 * k + 2, "Write to Maria Gonzalez, Porto.", f"old{k}")
            old = await _turn(app, steps, 10 * k + 3, long_text, f"old{k}")
            print(f"  new thread {new}   with a vault {old}")


async def main(args: argparse.Namespace) -> None:
    """Start a private Redis and the fake model, run, print."""
    configure_logging("WARNING")
    binary = find_redis_server()
    assert binary, "no redis-server"
    server = RedisServer(binary)
    server.start()
    fake = subprocess.Popen(  # noqa: S603  (this interpreter, a fixed module)
        [sys.executable, "-m", "tests.fakes.anthropic_server"], stdout=subprocess.PIPE
    )
    try:
        assert fake.stdout is not None
        fake_url = fake.stdout.readline().decode().strip()
        with tempfile.TemporaryDirectory() as tmp:
            settings = Settings(
                data_dir=Path(tmp),
                redis_url=server.url,
                redis_prefix=f"hold{os.getpid()}",
                vault_key=TEST_VAULT_KEY_B64,
                anthropic_api_key="bench",  # type: ignore[arg-type]
                anthropic_base_url=fake_url,
                model_max_retries=0,
                max_input_chars=args.chars + 100,
            )
            await run(settings, args.chars, args.runs)
    finally:
        fake.terminate()
        fake.wait(10)
        server.cleanup()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--chars", type=int, default=40_000)
    parser.add_argument("--runs", type=int, default=3)
    asyncio.run(main(parser.parse_args()))
