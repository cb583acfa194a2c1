"""Slack events go through the turn queue: acked once queued, answered once, by any replica.

Replicas are Slack adapters on real apps sharing one Redis prefix and one database; each
talks to its own fake Slack (an answer shows up in the fake of the replica that gave it).
A replica "dies" when its tasks are cancelled in the middle of a turn, so nothing it held
is acked (the process-level SIGKILL is in the three-replica test).
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter

import pytest
import redis.asyncio as aioredis
import sqlalchemy as sa

from adapters.slack.replies import ANSWER_EVENT_TYPE
from bot.core.keys import KeySpace
from bot.core.types import QueuedEvent, ThreadId, queued_run_id, thread_id
from tests.e2e.conftest import MakeApp
from tests.e2e.slack_harness import Harness, slack_harness
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.slack_payloads import mention
from tests.fixtures.services import RedisServer

SEEDED = ("Maria Gonzalez", "maria.gonzalez@example.org")


async def queued_payloads(client: aioredis.Redis, prefix: str) -> dict[bytes, bytes]:
    """The sealed payloads queued in every shard of the queue."""
    found: dict[bytes, bytes] = {}
    async for key in client.scan_iter(match=KeySpace(prefix).queue_everywhere("payloads")):
        found.update(await client.hgetall(key))
    return found


def event_key(event: dict[str, object]) -> str:
    inner = event["event"]
    assert isinstance(inner, dict)
    return f"T1:{inner['channel']}:{inner['ts']}"


async def audit_rows_of(h: Harness, message_ts: str) -> list[dict[str, object]]:
    async with h.app.audit.engine.connect() as conn:
        result = await conn.execute(
            sa.text("SELECT run_id, status FROM audit_runs WHERE message_id = :m"),
            {"m": message_ts},
        )
        return [dict(row._mapping) for row in result]


@pytest.mark.timeout(120)
@pytest.mark.redis_cluster
async def test_each_delivery_of_an_event_is_answered_once(make_app: MakeApp) -> None:
    # Detection in this process holds the event loop under a burst (issue 12, speed): the
    # acks' Redis replies may wait past the tests' usual 1 s store timeout.
    async with slack_harness(make_app, slack_streaming="off", store_timeout_seconds=5) as h:
        events = [mention(f"question number {i}") for i in range(20)]
        # Slack's retries: each event three times, the retries while the first is in work.
        statuses = await asyncio.gather(
            *(h.send(e, retry_num=n or None) for n in range(3) for e in events)
        )
        assert Counter(statuses) == {200: 60}
        await h.until(lambda: len(h.slack.all_replies()) >= 20, "the answers")
        await h.settle()
        replies = h.slack.all_replies()
        assert Counter(r.thread_ts for r in replies) == {e["event"]["ts"]: 1 for e in events}
        # Every answer says which event it answers (how a worker that takes over checks).
        assert {r.metadata["event_payload"]["event"] for r in replies if r.metadata} == {
            event_key(e) for e in events
        }


@pytest.mark.timeout(120)
async def test_an_event_acked_by_a_replica_that_dies_is_answered_by_another(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    event = mention(f"Hi, I'm {SEEDED[0]}, write to {SEEDED[1]}")
    fake_anthropic.hold()
    try:
        async with slack_harness(make_app, slack_streaming="off") as first:
            assert await first.send(event) == 200
            await first.until(lambda: len(fake_anthropic.requests) == 1, "the first turn")
            await first.kill()  # acked, mid-turn, never answered here
        assert first.slack.all_replies() == []
        fake_anthropic.release()
        async with slack_harness(
            make_app, slack_streaming="off", queue_claim_idle_seconds=0.5
        ) as second:
            await second.until(lambda: len(second.slack.all_replies()) == 1, "the answer")
            await second.settle()
            (reply,) = second.slack.all_replies()
            assert reply.thread_ts == event["event"]["ts"]
            assert SEEDED[0] in reply.text  # restored for the user
            rows = await audit_rows_of(second, event["event"]["ts"])
            assert [r["run_id"] for r in rows] == [queued_run_id(f"slack:{event_key(event)}")]
    finally:
        fake_anthropic.release()


@pytest.mark.timeout(120)
async def test_an_event_answered_before_its_worker_died_is_not_answered_again(
    make_app: MakeApp,
) -> None:
    async with slack_harness(make_app, slack_streaming="off") as h:
        event = mention("what is the capital of France?")
        assert await h.send(event) == 200
        await h.until(lambda: len(h.slack.all_replies()) == 1, "the answer")
        await h.settle()
        (answer,) = h.slack.all_replies()
        assert answer.metadata is not None
        assert answer.metadata["event_type"] == ANSWER_EVENT_TYPE
        # The worker died after posting, before the entry was marked done: the entry comes
        # back to another worker as a second attempt.
        body = {"trigger": "mention", "body": event, "bot_user_id": "UBOT", "bot_id": "B0BOT"}
        again = QueuedEvent(
            "slack", event_key(event), answer_thread(h, event), json.dumps(body).encode(), 2
        )
        assert h.app.queue is not None
        await h.app.queue._handlers["slack"](again)
        assert len(h.slack.all_replies()) == 1
        assert len(await audit_rows_of(h, event["event"]["ts"])) == 1


def answer_thread(h: Harness, event: dict[str, object]) -> ThreadId:
    inner = event["event"]
    assert isinstance(inner, dict)
    return thread_id("slack", "T1", str(inner["channel"]), str(inner["ts"]))


@pytest.mark.timeout(120)
async def test_redis_down_at_the_ack_gets_a_non_2xx_so_slack_sends_it_again(
    make_app: MakeApp, redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    async with slack_harness(make_app, redis_url=redis_server.url, slack_streaming="off") as h:
        event = mention(f"I am {SEEDED[0]}")
        redis_server.stop()
        try:
            status = await h.send(event)
        finally:
            redis_server.start()
        assert status >= 300
        assert SEEDED[0] not in caplog.text
        assert await h.send(event, retry_num=1) == 200  # Slack's retry, Redis back
        await h.until(lambda: len(h.slack.all_replies()) == 1, "the answer")
        await h.settle()
        assert len(h.slack.all_replies()) == 1


@pytest.mark.timeout(120)
async def test_a_queued_event_rests_sealed_in_redis(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, redis_url: str
) -> None:
    fake_anthropic.hold()
    try:
        async with slack_harness(make_app, slack_streaming="off") as h:
            later = mention(f"and mail {SEEDED[1]}", thread_ts="1700000000.000100")
            first = mention(f"Hi, I'm {SEEDED[0]}", thread_ts="1700000000.000100")
            assert await h.send(first) == 200
            await h.until(lambda: len(fake_anthropic.requests) == 1, "the first turn")
            assert await h.send(later) == 200  # waits in the queue behind the first
            client = aioredis.Redis.from_url(redis_url)
            try:
                queued = await queued_payloads(client, h.app.settings.redis_prefix)
                assert len(queued) == 2  # the one in work and the one waiting behind it
                stored = b"".join(k + v for k, v in queued.items())
                for value in SEEDED:
                    assert value.encode() not in stored
            finally:
                await client.aclose()
            fake_anthropic.release()
            await h.until(lambda: len(h.slack.all_replies()) == 2, "both answers")
            await h.settle()
    finally:
        fake_anthropic.release()


@pytest.mark.timeout(120)
async def test_an_ingress_replica_acks_and_queues_and_a_worker_replica_answers(
    make_app: MakeApp,
) -> None:
    event = mention("how long is a marathon?")
    async with (
        slack_harness(make_app, slack_streaming="off", queue_workers=0) as ingress,
        slack_harness(make_app, slack_streaming="off") as worker,
    ):
        assert await ingress.send(event) == 200
        await worker.until(lambda: len(worker.slack.all_replies()) == 1, "the answer")
        await worker.settle()
        (reply,) = worker.slack.all_replies()
        assert reply.thread_ts == event["event"]["ts"]
        assert ingress.slack.all_replies() == []  # the ingress replica answers nothing
