"""A burst of new threads on a running Slack adapter: every turn waits its turn, none is refused.

redis-py's default pool raised ``MaxConnectionsError`` under 150 simultaneous new-thread events
(told "I can't reach my conversation store") and left thread locks held until they expired.
Three times the old pool's size here; ``tests/perf/bench_burst.py`` sends 1 000 and prints times.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter

import redis.asyncio as aioredis

from tests.e2e.conftest import MakeApp
from tests.e2e.slack_harness import slack_harness
from tests.fakes.slack_payloads import mention

BURST = 300


async def test_a_burst_of_simultaneous_new_threads_are_all_answered_and_no_lock_stays_held(
    make_app: MakeApp, redis_url: str
) -> None:
    async with slack_harness(make_app, slack_streaming="off") as h:
        events = [mention(f"burst number {i}") for i in range(BURST)]
        statuses = await asyncio.gather(*(h.send(e) for e in events))
        assert Counter(statuses) == {200: BURST}
        deadline = time.monotonic() + 100  # a busy machine: the bound is generous, not a target
        while len(h.slack.all_replies()) < BURST and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        await h.settle()

        replies = h.slack.all_replies()
        by_thread = Counter(r.thread_ts for r in replies)
        assert len(replies) == BURST
        assert set(by_thread) == {e["event"]["ts"] for e in events}
        refused = [r.text for r in replies if not r.text.startswith("Noted: burst number")]
        assert refused == []
        client = aioredis.Redis.from_url(redis_url)
        try:
            prefix = h.app.settings.redis_prefix
            locks = [k async for k in client.scan_iter(match=f"{prefix}:*:lock", count=1000)]
        finally:
            await client.aclose()
        assert locks == []
