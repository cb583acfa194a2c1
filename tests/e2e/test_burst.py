"""A burst of new threads on a running Slack adapter: every turn waits its turn, none is refused.

redis-py's default pool raised ``MaxConnectionsError`` under 150 simultaneous new-thread events
(told "I can't reach my conversation store") and left thread locks held until they expired.
Twice the old pool's size here (150 already lost 50 turns); ``tests/perf/bench_slack.py
--threads 1000 --per-thread 1`` sends 1 000 and prints times.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter

import pytest
import redis.asyncio as aioredis

from tests.e2e.conftest import MakeApp, message, unique_thread
from tests.e2e.slack_harness import slack_harness
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.slack_payloads import mention

BURST = 200


# Every turn runs the real guardrail in this process: on a loaded 2-core machine the burst can
# take minutes, so the wait is bounded by the test's own timeout, not by a guess at speed.
@pytest.mark.timeout(600)
async def test_a_burst_of_simultaneous_new_threads_are_all_answered_and_no_lock_stays_held(
    make_app: MakeApp, redis_url: str
) -> None:
    # An ack now waits for the queue's Redis write, and detection in this process holds the
    # event loop under the burst: the reply may be read later than the tests' usual 1 s store
    # timeout (then Slack would retry, and the retry be acked as already queued). 5 s is the
    # service's default.
    async with slack_harness(make_app, slack_streaming="off", store_timeout_seconds=5) as h:
        events = [mention(f"burst number {i}") for i in range(BURST)]
        statuses = await asyncio.gather(*(h.send(e) for e in events))
        assert Counter(statuses) == {200: BURST}
        deadline = time.monotonic() + 540  # a bound for a stuck run, not a target
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


async def test_a_busy_thread_does_not_hold_up_the_other_threads(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    app = await make_app(max_turns_in_flight=2, redis_max_connections=10)
    fake_anthropic.delay = 0.2
    busy, other = unique_thread(), unique_thread()
    finished: list[str] = []

    async def turn(thread: str, text: str) -> None:
        reply = await app.conversation.handle(message(text, thread))
        assert reply is not None
        assert reply.ok
        finished.append(thread)

    async with asyncio.TaskGroup() as group:
        for i in range(6):
            group.create_task(turn(busy, f"message {i}"))
        await asyncio.sleep(0)  # the busy thread's messages are all queued first
        group.create_task(turn(other, "a question elsewhere"))

    # The other thread was answered while the busy one still had most of its queue to go.
    assert finished.index(other) <= 3, finished
