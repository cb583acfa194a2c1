"""Benchmark: what one Slack ack costs the service, with no turn work beside it.

The Slack adapter on a real aiohttp server and a real turn queue (Redis, sealed puts) with no
queue workers (an ingress replica: it only acks and queues). Signed ``app_mention`` events
come from a client in a *separate process* (``threads`` threads sent concurrently, each
thread's events one after another, each once the previous one was acked, as Slack and
``bench_slack`` send them), so the service process's CPU is the ack path's alone.

Prints the CPU the service process spent per ack (``getrusage``: independent of the load
beside it; the client's beside it), Redis commands per ack (``INFO commandstats`` of a
private server), and the ack latency the client saw (depends on the load: written with the
load average).
Run on demand:

    python -m tests.perf.bench_ack [--threads 100] [--per-thread 20] [--rounds 3] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import multiprocessing
import os
import pstats
import resource
import statistics
import time
from typing import Any

import aiohttp

from adapters.slack.handler import SlackAdapter
from bot.config.settings import Settings
from bot.core.keys import KeySpace
from bot.http_server import HttpServer
from bot.state.client import open_redis
from bot.state.queue import RedisTurnQueue
from guardrails.vault.sealing import AesGcmSealer
from tests.fakes.slack_payloads import SIGNING_SECRET, mention, signed_headers
from tests.fakes.slack_server import FakeSlack
from tests.fixtures.services import RedisServer, find_redis_server


class _NoTurns:
    """The adapter's ``MessageHandler``: never called, as no queue worker runs here."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"a turn ran in the ack benchmark ({name})")


def _client(url: str, threads: int, per_thread: int, round_no: int, out: Any) -> None:
    """The client process: send the burst, put the ack latencies (s) on ``out``."""

    async def thread(session: aiohttp.ClientSession, t: int, acks: list[float]) -> None:
        root = f"18{round_no:02d}{t:06d}.000000"
        for k in range(per_thread):
            ts = f"18{round_no:02d}{t:06d}.{k:06d}"
            body = json.dumps(
                mention(f"msg-{t}-{k} please answer", ts=ts, thread_ts=None if k == 0 else root)
            )
            start = time.perf_counter()
            async with session.post(url, data=body.encode(), headers=signed_headers(body)) as r:
                await r.read()
                if r.status != 200:
                    raise RuntimeError(f"ack status {r.status}")
            acks.append(time.perf_counter() - start)

    async def burst() -> list[float]:
        acks: list[float] = []
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector) as session:
            await asyncio.gather(*(thread(session, t, acks) for t in range(threads)))
        return acks

    cpu = _cpu()
    acks = asyncio.run(burst())
    out.put((acks, _cpu() - cpu))


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def _commands(redis: Any) -> int:
    stats = await redis.info("commandstats")
    return sum(int(v["calls"]) for v in stats.values())


async def bench(args: argparse.Namespace, redis_url: str) -> None:
    """Serve the adapter here, burst from a child process, print the figures."""
    ctx = multiprocessing.get_context("spawn")
    profile = cProfile.Profile()
    async with FakeSlack() as slack:
        settings = Settings(
            slack_bot_token="xoxb-bench",
            slack_signing_secret=SIGNING_SECRET,
            slack_api_url=slack.api_url,
            redis_url=redis_url,
            log_level="WARNING",
        )
        redis = open_redis(redis_url, timeout=5.0)
        queue = RedisTurnQueue(
            redis, KeySpace("benchack"), sealer=AesGcmSealer(os.urandom(32)), workers=0
        )
        http = HttpServer("127.0.0.1", 0)
        SlackAdapter(settings, _NoTurns(), http, queue=queue)  # type: ignore[arg-type]
        try:
            async with http:
                url = f"{http.url}{settings.slack_http_path}"
                for round_no in range(args.rounds):
                    out = ctx.Queue()
                    child = ctx.Process(
                        target=_client, args=(url, args.threads, args.per_thread, round_no, out)
                    )
                    commands, cpu = await _commands(redis), _cpu()
                    if args.profile:
                        profile.enable()
                    child.start()
                    acks, client_cpu = await asyncio.to_thread(out.get, True, 300)
                    profile.disable()
                    cpu, commands = _cpu() - cpu, await _commands(redis) - commands - 1
                    await asyncio.to_thread(child.join, 30)
                    _report(round_no, sorted(acks), cpu, client_cpu, commands)
        finally:
            await redis.aclose()
    if args.profile:
        pstats.Stats(profile).sort_stats("tottime").print_stats(40)


def _report(round_no: int, acks: list[float], cpu: float, client_cpu: float, commands: int) -> None:
    n = len(acks)
    p99 = acks[min(n - 1, int(n * 0.99))]
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"round {round_no}: {n} acks, service CPU {cpu / n * 1000:.3f} ms/ack "
        f"(client {client_cpu / n * 1000:.3f}), "
        f"redis commands {commands / n:.2f}/ack, ack p50 {statistics.median(acks) * 1000:.1f} "
        f"ms p99 {p99 * 1000:.1f} ms max {acks[-1] * 1000:.1f} ms; load {load}"
    )


def main() -> None:
    """Parse arguments, start a private Redis, run the benchmark."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=100)
    parser.add_argument("--per-thread", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="cProfile the service side")
    args = parser.parse_args()
    binary = find_redis_server()
    if binary is None:
        raise SystemExit("no redis-server found")
    server = RedisServer(binary)
    server.start()
    try:
        asyncio.run(bench(args, server.url))
    finally:
        server.cleanup()


if __name__ == "__main__":
    main()
