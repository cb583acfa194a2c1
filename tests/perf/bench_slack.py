"""Benchmark: a burst of signed Slack events over HTTP against the real app.

500 ``app_mention`` events across 100 threads (5 per thread, each thread's events sent one
after another, threads concurrently), a fake model that takes 1 s per answer, real Redis and
Presidio. Prints ack latency p50/p99/max, answers delivered (duplicates, per-thread order)
and the total time. Run on demand, not part of the suite:

    python -m tests.perf.bench_slack [--threads 100] [--per-thread 5] [--model-delay 1.0]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import tempfile
import time
from pathlib import Path

import aiohttp

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")

from adapters.slack.handler import SlackAdapter  # noqa: E402
from bot.app import build_app  # noqa: E402
from bot.http_server import HttpServer  # noqa: E402
from bot.settings import Settings  # noqa: E402
from tests.fakes.anthropic_server import FakeAnthropic  # noqa: E402
from tests.fakes.slack_payloads import SIGNING_SECRET, mention, signed_headers  # noqa: E402
from tests.fakes.slack_server import FakeSlack  # noqa: E402
from tests.fixtures.guardrail import TEST_VAULT_KEY_B64  # noqa: E402
from tests.fixtures.services import RedisServer, find_redis_server  # noqa: E402

_MARK = re.compile(r"msg-(\d+)-(\d+)")


async def _thread(
    session: aiohttp.ClientSession, url: str, t: int, per_thread: int, acks: list[float]
) -> str:
    root = f"17{t:08d}.000000"
    for k in range(per_thread):
        payload = mention(
            f"msg-{t}-{k} please answer",
            ts=f"17{t:08d}.{k:06d}",
            thread_ts=None if k == 0 else root,
            channel=f"C{t % 7}",
        )
        body = json.dumps(payload)
        start = time.perf_counter()
        async with session.post(url, data=body.encode(), headers=signed_headers(body)) as resp:
            await resp.read()
            assert resp.status == 200, resp.status
        acks.append(time.perf_counter() - start)
    return root


def _check(slack: FakeSlack, expected: int) -> tuple[int, int, int]:
    """(answers, duplicates, threads out of order) from what people would see."""
    seen: dict[tuple[int, int], int] = {}
    order: dict[int, list[int]] = {}
    for posted in slack.all_replies():
        match = _MARK.search(posted.text)
        if match is None:
            continue
        t, k = int(match.group(1)), int(match.group(2))
        seen[(t, k)] = seen.get((t, k), 0) + 1
        order.setdefault(t, []).append(k)
    duplicates = sum(n - 1 for n in seen.values())
    disordered = sum(1 for ks in order.values() if ks != sorted(ks))
    return len(seen), duplicates, disordered


async def bench(threads: int, per_thread: int, model_delay: float, redis_url: str) -> None:
    """Run the burst and print the figures."""
    total = threads * per_thread
    with FakeAnthropic() as model, tempfile.TemporaryDirectory() as data:
        model.delay = model_delay
        async with FakeSlack() as slack:
            settings = Settings(
                data_dir=Path(data),
                redis_url=redis_url,
                redis_prefix=f"bench-{os.getpid()}-{int(time.time())}",  # no earlier run's dedupe
                vault_key=TEST_VAULT_KEY_B64,
                anthropic_api_key="bench-key",
                anthropic_base_url=model.url,
                model_max_retries=0,
                slack_bot_token="xoxb-bench",
                slack_signing_secret=SIGNING_SECRET,
                slack_api_url=slack.api_url,
                slack_http_port=0,
                log_level="WARNING",
            )
            async with build_app(settings) as app:
                http = HttpServer("127.0.0.1", 0)
                adapter = SlackAdapter(settings, app.conversation, http, queue=app.queue)
                async with (
                    http,
                    aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=threads)) as session,
                ):
                    runner = asyncio.create_task(adapter.run())
                    worker = asyncio.create_task(app.queue.run()) if app.queue else None
                    url = f"{http.url}{settings.slack_http_path}"
                    acks: list[float] = []
                    start = time.perf_counter()
                    await asyncio.gather(
                        *(_thread(session, url, t, per_thread, acks) for t in range(threads))
                    )
                    acked = time.perf_counter() - start
                    while _check(slack, total)[0] < total and time.perf_counter() - start < 300:
                        await asyncio.sleep(0.05)
                    if app.queue is not None:
                        await app.queue.drain(60)
                    await adapter.drain(60)
                    elapsed = time.perf_counter() - start
                    prefix = settings.redis_prefix
                    held = [k async for k in app.redis.scan_iter(match=f"{prefix}:*:lock")]
                    runner.cancel()
                    await asyncio.gather(
                        *(t for t in (runner, worker) if t), return_exceptions=True
                    )
            answers, duplicates, disordered = _check(slack, total)
    acks.sort()
    p99 = acks[min(len(acks) - 1, int(len(acks) * 0.99))]
    print(f"events sent:          {total} ({threads} threads x {per_thread}), model {model_delay}s")
    print(
        f"ack latency:          p50 {statistics.median(acks) * 1000:.1f} ms, "
        f"p99 {p99 * 1000:.1f} ms, max {acks[-1] * 1000:.1f} ms"
    )
    print(f"acked within 3 s:     {sum(a < 3 for a in acks)}/{len(acks)}")
    print(f"all acked after:      {acked:.2f} s")
    print(
        f"answers delivered:    {answers}/{total}, duplicates {duplicates}, "
        f"threads out of order {disordered}"
    )
    print(f"total time:           {elapsed:.2f} s")
    print(f"thread locks held:    {len(held)} after the drain")


def main() -> None:
    """Parse arguments, start a private Redis unless one is given, run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=100)
    parser.add_argument("--per-thread", type=int, default=5)
    parser.add_argument("--model-delay", type=float, default=1.0)
    parser.add_argument("--redis-url", default=os.environ.get("VEILBOT_TEST_REDIS_URL"))
    args = parser.parse_args()
    server = None
    if args.redis_url is None:
        binary = find_redis_server()
        if binary is None:
            raise SystemExit("no redis-server found; pass --redis-url")
        server = RedisServer(binary)
        server.start()
    try:
        asyncio.run(
            bench(args.threads, args.per_thread, args.model_delay, args.redis_url or server.url)
        )  # type: ignore[union-attr]
    finally:
        if server is not None:
            server.cleanup()


if __name__ == "__main__":
    main()
