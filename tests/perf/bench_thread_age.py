"""Benchmark: what a turn costs as its thread grows old, beside the same turn in a new thread.

One console thread takes ``--turns`` turns of realistic chat (``bench_turn.messages``)
through the real composition root (real Redis, SQLite audit, Presidio in a worker thread of
this process, a zero-latency fake model). At turns 1, 100 and 300 (the ``--window``
turns up to each) the same messages are also sent, one each, into brand-new threads.
Printed: CPU milliseconds of this process per turn in the old thread and in new ones, and
their ratio (the target is 1.2 or less at every age). The fake model runs in a process of
its own: reading a long history is the model's work, not the service's. History is trimmed
to ``VEILBOT_HISTORY_MAX_MESSAGES`` (200 by default) from turn 100 on, so turns 100 and 300
include the vault's retention.

    .venv/bin/python -m tests.perf.bench_thread_age [--turns 300] [--window 10]

``--callgrind`` counts instructions instead of timing, which no load on the machine moves:

    PYTHONHASHSEED=0 valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=age.%p \
        .venv/bin/python -m tests.perf.bench_thread_age --callgrind

Detection then runs in a worker process (not traced, the same for old and new threads), and
instrumentation is on only for each age's window of old turns, then for the same messages in
new threads; each is dumped on its own and the totals printed as millions of instructions per
turn of this process.
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
from pathlib import Path

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""

from bot.app import App, build_app  # noqa: E402
from bot.core.logsafe import configure_logging  # noqa: E402
from bot.service import startup_frozen  # noqa: E402
from bot.settings import Settings  # noqa: E402
from tests.fixtures.guardrail import TEST_VAULT_KEY_B64  # noqa: E402
from tests.fixtures.services import RedisServer, find_redis_server  # noqa: E402
from tests.perf.bench_turn import inbound, messages  # noqa: E402


async def turn_ms(app: App, i: int, text: str, thread: str) -> float:
    """CPU milliseconds of this process for one turn."""
    began = time.process_time()
    reply = await app.conversation.handle(inbound(i, text, thread))
    if reply is None or not reply.ok:
        raise SystemExit(f"turn {i} failed")
    return (time.process_time() - began) * 1000


def _span(age: int, window: int) -> range:
    """The turns measured for an age: the first ``window``, else the ``window`` up to it."""
    return range(1, window + 1) if age <= window else range(age - window + 1, age + 1)


async def run_callgrind(settings: Settings, turns: int, window: int, out: str) -> None:
    """Instructions per turn at each age, old thread against new threads (see the docstring)."""
    texts = messages(turns)
    ages = {a: _span(a, window) for a in (1, 100, 300) if a <= turns}
    dumps: list[str] = []
    async with build_app(settings) as app:
        with startup_frozen():  # as `veilbot run` does: no full GC passes over spaCy
            for i in range(20):
                await turn_ms(app, 10_000 + i, texts[i], f"warm{i}")
            done = 0
            for age, span in ages.items():
                for i in range(done + 1, span.start):
                    await turn_ms(app, i, texts[i - 1], "old")
                for label, base, thread in (("old", 0, "old"), ("new", 20_000, "new")):
                    _callgrind("--instr=on")
                    for i in span:
                        await turn_ms(
                            app, base + i, texts[i - 1], thread if base == 0 else f"new{i}"
                        )
                    _callgrind("--instr=off")
                    _callgrind(f"--dump={label}{age}")
                    dumps.append(f"{label}{age}")
                done = span.stop - 1
    totals = _dump_totals(out, len(dumps))
    print(f"{turns} turns in one thread; M instructions per turn ({window} turns each)")
    print(f"{'turn':>6} {'old thread':>11} {'new thread':>11} {'ratio':>7}")
    for n, age in enumerate(ages):
        old, new = totals[2 * n] / window / 1e6, totals[2 * n + 1] / window / 1e6
        print(f"{age:>6} {old:>11.2f} {new:>11.2f} {old / new:>7.2f}")


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


async def run(settings: Settings, turns: int, window: int) -> None:
    """The old thread's turns, and at each age the same messages in new threads."""
    texts = messages(turns)
    ages = {a: _span(a, window) for a in (1, 100, 300) if a <= turns}
    old: dict[int, float] = {}
    fresh: dict[int, float] = {}
    async with build_app(settings) as app:
        with startup_frozen():  # as `veilbot run` does: no full GC passes over spaCy
            for i in range(20):  # warm-up, in threads of their own
                await turn_ms(app, 10_000 + i, texts[i], f"warm{i}")
            for i, text in enumerate(texts[:turns], start=1):
                old[i] = await turn_ms(app, i, text, "old")
                if any(i in span for span in ages.values()):
                    fresh[i] = await turn_ms(app, 20_000 + i, text, f"new{i}")
    print(f"{turns} turns in one thread; CPU ms per turn (median of {window})")
    print(f"{'turn':>6} {'old thread':>11} {'new thread':>11} {'ratio':>7}")
    for age, span in ages.items():
        mine = statistics.median(old[i] for i in span)
        base = statistics.median(fresh[i] for i in span)
        print(f"{age:>6} {mine:>11.1f} {base:>11.1f} {mine / base:>7.2f}")


async def main(args: argparse.Namespace) -> None:
    """Start a private Redis unless one is given, run, print."""
    configure_logging("WARNING")
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
    parser.add_argument("--window", type=int, default=10)
    parser.add_argument("--callgrind", action="store_true", help="instructions, under valgrind")
    parser.add_argument("--out", default="age.%p", help="valgrind's --callgrind-out-file")
    asyncio.run(main(parser.parse_args()))
