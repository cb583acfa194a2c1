"""The turn's added cost for the controls (on demand; prints figures, not collected by pytest).

    .venv/bin/python -m tests.perf.bench_controls [--redis redis://127.0.0.1:6379/0] [--turns 5000]

Times what ``Conversation`` does before any other work of a turn: the access rules (in
process) and the rate limits (``RedisRateLimiter.take``: one Lua call, one Redis round trip,
user and channel limits together), against a real Redis. Then the same with the monthly
budgets folded into that call (workspace, channel and user budgets, ``bot.state.budgets``), the
commands Redis counted per checked turn (``INFO commandstats``: one ``EVALSHA``), the hold
right before the model call (``RedisSpendLedger.reserve``) and the charge after the model
that settles it (``RedisSpendLedger.charge``, off the answer's path). Also the round
trip of a bare ``PING`` on the same connection, for scale. Prints p50/p99 in milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import uuid
from dataclasses import replace
from typing import Any

import redis.asyncio as aioredis

from bot.core.access import AccessRules
from bot.core.budgets import Budgets, Hold
from bot.core.keys import KeySpace
from bot.core.limits import Limit
from bot.core.types import InboundMessage, thread_id
from bot.state.budgets import RedisSpendLedger
from bot.state.ratelimit import RedisRateLimiter

MESSAGE = InboundMessage(
    thread_id=thread_id("slack", "T1", "C1", "1.0"),
    platform="slack",
    workspace="T1",
    channel="C1",
    user_id="U1",
    message_id="1.0",
    text="hello",
    groups=frozenset({"S1"}),
)
RULES = AccessRules(
    allow_channels=frozenset({f"C{i}" for i in range(200)}),
    allow_groups=frozenset({"S1", "S2"}),
    deny_users=frozenset({f"U9{i}" for i in range(200)}),
)


def figures(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return f"p50 {statistics.median(ms):.3f} ms  p99 {p99:.3f} ms  (n={len(ms)})"


async def main(url: str, turns: int) -> None:
    client = aioredis.Redis.from_url(url)
    prefix = f"vbbench-{uuid.uuid4().hex[:8]}"
    limiter = RedisRateLimiter(
        client,
        KeySpace(prefix),
        [Limit("user", 10**9, 3600), Limit("channel", 10**9, 3600)],
    )
    try:
        await client.ping()
        access, take, ping, both = [], [], [], []
        for n in range(turns):
            msg = replace(MESSAGE, user_id=f"U{n % 500}")
            t0 = time.perf_counter()
            RULES.refusal(msg)
            t1 = time.perf_counter()
            await limiter.take(msg)
            t2 = time.perf_counter()
            await client.ping()
            t3 = time.perf_counter()
            access.append(t1 - t0)
            take.append(t2 - t1)
            ping.append(t3 - t2)
            both.append(t2 - t0)
        print(f"access rules          {figures(access)}")
        print(f"rate limits (1 call)  {figures(take)}")
        print(f"both (the checks)     {figures(both)}")
        print(f"redis PING            {figures(ping)}")
        await budgeted(url, prefix, turns)
    finally:
        keys = [k async for k in client.scan_iter(match=f"{prefix}:*")]
        if keys:
            await client.delete(*keys)
        await client.aclose()


class Counted(aioredis.Redis):
    """A client that counts the commands it sends (each one round trip): the server's
    counters would count the commands inside scripts, and other clients of a shared server."""

    sent = 0

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        Counted.sent += 1
        return await super().execute_command(*args, **options)


async def budgeted(url: str, prefix: str, turns: int) -> None:
    """The checks with budgets folded in (one call), and the charge after the model."""
    client = Counted.from_url(url)
    limits = [Limit("user", 10**9, 3600), Limit("channel", 10**9, 3600)]
    budgets = Budgets(defaults={"workspace": 10**6, "channel": 10**5, "user": 10**4})
    ledger = RedisSpendLedger(client, KeySpace(prefix), budgets)
    limiter = RedisRateLimiter(client, KeySpace(prefix), limits, ledger)
    plain = RedisRateLimiter(client, KeySpace(prefix), limits)
    checks, without, held, charge = [], [], [], []
    await limiter.take(MESSAGE)  # the scripts loaded
    await ledger.charge(MESSAGE, 0.01)
    before = Counted.sent
    for n in range(turns):
        msg = replace(MESSAGE, user_id=f"U{n % 500}")
        t0 = time.perf_counter()
        RULES.refusal(msg)
        await limiter.take(msg)
        checks.append(time.perf_counter() - t0)
    per_turn = (Counted.sent - before) / turns
    for n in range(turns):
        msg = replace(MESSAGE, user_id=f"U{n % 500}")
        t0 = time.perf_counter()
        RULES.refusal(msg)
        await plain.take(msg)
        t1 = time.perf_counter()
        hold = await ledger.reserve(msg, f"run-{n}", 0.05)
        t2 = time.perf_counter()
        await ledger.charge(msg, 0.0123, hold if isinstance(hold, Hold) else None)
        without.append(t1 - t0)
        held.append(t2 - t1)
        charge.append(time.perf_counter() - t2)
    added = statistics.median(checks) - statistics.median(without)
    print(f"checks with budgets   {figures(checks)}")
    print(f"checks without        {figures(without)}")
    print(f"budgets added (p50)   {added * 1000:.3f} ms")
    print(f"round trips per turn  {per_turn:.2f} (the checks: rate limits and budgets)")
    print(f"hold before model     {figures(held)}")
    print(f"charge after model    {figures(charge)}")
    await client.aclose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--turns", type=int, default=5000)
    args = parser.parse_args()
    asyncio.run(main(args.redis, args.turns))
