"""Benchmark: what a turn costs as its thread grows old, beside the same turn in a new thread.

Two variants of one console thread of ``--turns`` turns through the real composition root
(real Redis, SQLite audit, Presidio in a worker thread of this process, a zero-latency fake
model):

- ``values reused``: realistic chat (``bench_turn.messages``): about half the messages carry
  personal data, drawn from small pools, so an old thread mostly meets values it knows;
- ``new values``: the same chat, each message with two e-mail addresses, two phone numbers
  and two IP addresses the thread has not seen, so the vault grows with the kept history
  (some 600 values once the history is trimmed).

The last ``--window`` turns of the old thread (281-300 by default) are interleaved with the
same messages sent as the first ``--window`` turns of a brand-new thread. Printed per variant:
CPU milliseconds of this process per turn (median) in the old thread and in the new one, and
their ratio (the target is 1.2 or less). The fake model runs in a process of its own: reading
a long history is the model's work, not the service's. History is trimmed to
``VEILBOT_HISTORY_MAX_MESSAGES`` (200 by default) from turn 100 on, so the old turns include
the vault's retention.

    .venv/bin/python -m tests.perf.bench_thread_age [--turns 300] [--window 20] [--stream]

``--stream`` streams every answer, as ``veilbot console`` does (restored delta by delta).

``--callgrind`` counts instructions instead of timing, which no load on the machine moves:

    PYTHONHASHSEED=0 valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=age.%p \
        .venv/bin/python -m tests.perf.bench_thread_age --callgrind

Detection then runs in a worker process (not traced, the same for old and new threads), and
instrumentation is on only for each variant's window of old turns, then for the same messages
in the new thread; each is dumped on its own and the totals printed as millions of
instructions per turn of this process.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""

from bot.app import App, build_app  # noqa: E402
from bot.config.settings import Settings  # noqa: E402
from bot.core.logsafe import configure_logging  # noqa: E402
from bot.service import startup_frozen  # noqa: E402
from tests.fixtures.guardrail import TEST_VAULT_KEY_B64  # noqa: E402
from tests.fixtures.services import RedisServer, find_redis_server  # noqa: E402
from tests.perf.bench_turn import inbound, messages  # noqa: E402


def new_value_messages(count: int) -> list[str]:
    """``messages(count)``, each with six values no earlier message had."""
    return [
        f"{text} Reach case{i}.owner@example.com or case{i}.backup@example.org, "
        f"+1 415 555 {1000 + i:04d} or +1 212 555 {2000 + i:04d}, "
        f"from 10.{i // 200}.{i % 200}.7 or 10.{i // 200}.{i % 200}.8."
        for i, text in enumerate(messages(count), start=1)
    ]


VARIANTS: dict[str, Callable[[int], list[str]]] = {
    "values reused": messages,
    "new values": new_value_messages,
}


class _Unread:
    """A reply sink that drops what streams to it (``--stream``: as the console's answers)."""

    async def delta(self, text: str) -> None:
        """Drop a delta."""


STREAM: list[_Unread] = []
"""One sink when ``--stream`` is given: every turn's answer is streamed to it."""


async def turn_ms(app: App, i: int, text: str, thread: str) -> float:
    """CPU milliseconds of this process for one turn."""
    began = time.process_time()
    reply = await app.conversation.handle(inbound(i, text, thread), *STREAM)
    if reply is None or not reply.ok:
        raise SystemExit(f"turn {i} failed")
    return (time.process_time() - began) * 1000


async def warm_up(app: App) -> None:
    """Turns in threads of their own, so no variant pays the first turns' lazy start-up."""
    for i, text in enumerate(new_value_messages(20)):
        await turn_ms(app, 90_000 + i, text, f"warm{i}")


async def run(settings: Settings, turns: int, window: int) -> None:
    """Per variant: the old thread's turns, its last ``window`` beside a new thread's first."""
    print(
        f"{turns} turns in one thread; CPU ms per turn, median of turns "
        f"{turns - window + 1}-{turns} against a new thread's first {window}"
    )
    print(f"{'variant':<14} {'old thread':>11} {'new thread':>11} {'ratio':>7}")
    async with build_app(settings) as app:
        with startup_frozen():  # as `veilbot run` does: no full GC passes over spaCy
            await warm_up(app)
            for n, (name, make) in enumerate(VARIANTS.items()):
                old, fresh = [], []
                base = (n + 1) * 100_000
                for i, text in enumerate(make(turns), start=1):
                    ms = await turn_ms(app, base + i, text, f"old{n}")
                    if i > turns - window:
                        old.append(ms)
                        fresh.append(await turn_ms(app, base + 50_000 + i, text, f"new{n}"))
                mine, theirs = statistics.median(old), statistics.median(fresh)
                print(f"{name:<14} {mine:>11.1f} {theirs:>11.1f} {mine / theirs:>7.2f}")


async def run_callgrind(settings: Settings, turns: int, window: int, out: str) -> None:
    """Instructions per turn of each variant, old thread against new (see the docstring)."""
    dumps: list[str] = []
    async with build_app(settings) as app:
        with startup_frozen():
            await warm_up(app)
            for n, make in enumerate(VARIANTS.values()):
                texts, base = make(turns), (n + 1) * 100_000
                for i in range(1, turns - window + 1):
                    await turn_ms(app, base + i, texts[i - 1], f"old{n}")
                for label, thread, offset in (("old", f"old{n}", 0), ("new", f"new{n}", 50_000)):
                    _callgrind("--instr=on")
                    for i in range(turns - window + 1, turns + 1):
                        await turn_ms(app, base + offset + i, texts[i - 1], thread)
                    _callgrind("--instr=off")
                    _callgrind(f"--dump={label}{n}")
                    dumps.append(f"{label}{n}")
    totals = _dump_totals(out, len(dumps))
    print(
        f"{turns} turns in one thread; M instructions per turn (the last {window} against "
        f"a new thread's first {window})"
    )
    print(f"{'variant':<14} {'old thread':>11} {'new thread':>11} {'ratio':>7}")
    for n, name in enumerate(VARIANTS):
        old, new = totals[2 * n] / window / 1e6, totals[2 * n + 1] / window / 1e6
        print(f"{name:<14} {old:>11.2f} {new:>11.2f} {old / new:>7.2f}")


def _callgrind(option: str) -> None:
    command = ["callgrind_control", option, str(os.getpid())]
    subprocess.run(command, check=True, capture_output=True)  # noqa: S603


def _dump_totals(out: str, count: int) -> list[int]:
    """The instruction totals of the first ``count`` dumps of ``--callgrind-out-file``."""
    totals = []
    for n in range(1, count + 1):
        text = Path(out.replace("%p", str(os.getpid())) + f".{n}").read_text()
        found = re.search(r"^totals: (\d+)", text, re.MULTILINE)
        totals.append(int(found.group(1)) if found else 0)
    return totals


async def main(args: argparse.Namespace) -> None:
    """Start a private Redis unless one is given, run, print."""
    configure_logging("WARNING")
    if args.stream:
        STREAM.append(_Unread())
    redis_url = os.environ.get("VEILBOT_TEST_REDIS_URL")
    server = None
    if not redis_url:
        binary = find_redis_server()
        assert binary, "no redis-server: set VEILBOT_TEST_REDIS_URL"
        server = RedisServer(binary)
        server.start()
        redis_url = server.url
    fake = subprocess.Popen(  # noqa: S603  (this interpreter, a fixed module)
        [sys.executable, "-m", "tests.fakes.anthropic_server"], stdout=subprocess.PIPE
    )
    try:
        assert fake.stdout is not None
        fake_url = fake.stdout.readline().decode().strip()
        with tempfile.TemporaryDirectory() as tmp:
            settings = Settings(
                data_dir=Path(tmp),
                redis_url=redis_url,
                redis_prefix=f"age{os.getpid()}",
                vault_key=TEST_VAULT_KEY_B64,
                anthropic_api_key="bench",  # type: ignore[arg-type]
                anthropic_base_url=fake_url,
                model_max_retries=0,
                guardrail_workers=1 if args.callgrind else 0,
            )
            if args.callgrind:
                await run_callgrind(settings, args.turns, args.window, args.out)
            else:
                await run(settings, args.turns, args.window)
    finally:
        fake.terminate()
        fake.wait(10)
        if server:
            server.cleanup()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--window", type=int, default=20)
    parser.add_argument("--stream", action="store_true", help="stream answers, as the console")
    parser.add_argument("--callgrind", action="store_true", help="instructions, under valgrind")
    parser.add_argument("--out", default="age.%p", help="valgrind's --callgrind-out-file")
    asyncio.run(main(parser.parse_args()))
