"""The events endpoint acks queued message events itself; everything else still goes to bolt.

With the turn queue on (``veilbot run``), a signed ``message``/``app_mention`` event is checked,
parsed and queued by the adapter without bolt (the lean path); URL verification, other
events, commands and buttons go through bolt as before. The bot's identity (``auth.test``)
is asked for once, at the start; an event that comes while it cannot be had gets a 503, so
Slack sends it again, instead of an ack that queues nothing.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter

import pytest
import redis.asyncio as aioredis

from adapters.slack.enqueue import queueable
from bot.core.keys import KeySpace
from guardrails.detect.workers import PAUSABLE
from tests.e2e.conftest import MakeApp
from tests.e2e.slack_harness import Harness, slack_harness
from tests.fakes.slack_payloads import envelope, mention, signed_headers
from tests.fakes.slack_server import BOT_ID, BOT_USER_ID
from tests.fixtures.processes import process_state, worker_pids

pytestmark = pytest.mark.timeout(120)


async def queued_keys(h: Harness, redis_url: str) -> list[bytes]:
    """The turn queue's keys of the harness's prefix but its token streams and shard count
    (which the worker makes at its start): payloads, dedupe marks, thread lists."""
    client = aioredis.Redis.from_url(redis_url)
    try:
        keys = KeySpace(h.app.settings.redis_prefix)
        found = client.scan_iter(match=keys.queue_everywhere("*"), count=500)
        return [k async for k in found if b":tokens:" not in k and not k.endswith(b":shards")]
    finally:
        await client.aclose()


async def test_a_burst_at_the_start_asks_who_the_bot_is_once_and_answers_each_event_once(
    make_app: MakeApp,
) -> None:
    async with slack_harness(make_app, slack_streaming="off", store_timeout_seconds=5) as h:
        events = [mention(f"question number {i}") for i in range(20)]
        statuses = await asyncio.gather(*(h.send(e) for e in events))
        assert statuses == [200] * 20
        await h.until(lambda: len(h.slack.all_replies()) >= 20, "the answers")
        await h.settle()
        replies = Counter(r.thread_ts for r in h.slack.all_replies())
        assert replies == {e["event"]["ts"]: 1 for e in events}
        # bolt asks auth.test for every request that comes before its first answer
        assert len(h.slack.calls_to("auth.test")) == 1


async def test_the_bots_identity_is_asked_for_at_start_not_by_the_first_events(
    make_app: MakeApp,
) -> None:
    """After a start (a deploy in the middle of a burst) the first events are acked without
    each waiting for a round trip to Slack first."""
    async with slack_harness(make_app, slack_streaming="off") as h:
        await h.until(lambda: len(h.slack.calls_to("auth.test")) == 1, "auth.test at the start")
        assert h.slack.calls_to("chat.postMessage") == []
        assert await h.send(mention("hello there")) == 200
        await h.until(lambda: len(h.slack.all_replies()) == 1, "the answer")
        await h.settle()
        assert len(h.slack.calls_to("auth.test")) == 1


async def test_a_queued_turn_waits_while_a_delivery_is_being_acked(make_app: MakeApp) -> None:
    """Acks first: Slack times an ack out after 3 s, an answer takes seconds anyway. Here the
    ack never ends (Slack does not answer ``auth.test``), so the turn waits the whole bound."""
    async with slack_harness(make_app, slack_streaming="off", queue_acks_first_seconds=2.0) as h:
        assert h.app.queue is not None
        release = h.slack.hold("auth.test")
        try:
            await h.until(lambda: len(h.slack.calls_to("auth.test")) == 1, "auth.test")
            acking = asyncio.create_task(h.send(mention("a delivery being acked")))
            await h.until(lambda: h.app.queue.acks_in_flight == 1, "the delivery's ack")
            # a question that another replica acked, queued for this one to answer
            question = mention("a question already queued")
            identity = {"bot_user_id": BOT_USER_ID, "bot_id": BOT_ID}
            found = queueable(question, identity, h.app.settings)
            assert found is not None
            put_at = time.monotonic()
            assert await h.app.queue.put("slack", found[1], found[0], found[2])
            ts = question["event"]["ts"]
            await h.until(lambda: bool(h.slack.thread("C1", ts)), "the queued answer")
            answered_at = time.monotonic()
        finally:
            release.set()
        assert await acking == 200
        assert answered_at - put_at >= 2.0
        await h.until(lambda: len(h.slack.all_replies()) == 2, "both answers")
        await h.settle()


@pytest.mark.skipif(not PAUSABLE, reason="workers are paused on Linux only")
async def test_detection_processes_are_paused_while_a_delivery_is_being_acked(
    make_app: MakeApp,
) -> None:
    """A long analysis must not take the CPU the acks of a burst need: while one is under
    way the detection process is stopped, and it runs again once the acks are done (the
    bound is long so that a slow machine still sees the pause; the burst's end resumes it)."""
    async with slack_harness(
        make_app, slack_streaming="off", guardrail_workers=1, queue_acks_first_seconds=30.0
    ) as h:
        (worker,) = worker_pids()
        release = h.slack.hold("auth.test")
        try:
            await h.until(lambda: len(h.slack.calls_to("auth.test")) == 1, "auth.test")
            acking = asyncio.create_task(h.send(mention("a delivery being acked")))
            await h.until(
                lambda: h.app.queue is not None and h.app.queue.acks_in_flight == 1, "the ack"
            )
            await h.until(lambda: process_state(worker) == "T", "the worker to be stopped")
        finally:
            release.set()
        assert await acking == 200
        await h.until(lambda: process_state(worker) != "T", "the worker to run again")
        await h.until(lambda: len(h.slack.all_replies()) == 1, "the answer")
        await h.settle()


async def test_an_event_that_comes_while_auth_test_fails_gets_503_and_its_retry_is_answered(
    make_app: MakeApp,
) -> None:
    async with slack_harness(make_app, slack_streaming="off") as h:
        h.slack.fail("auth.test", 200, error="fatal_error", times=1000)  # until it recovers
        event = mention("what is two plus two?")
        body = json.dumps(event)
        async with h.session.post(h.events_url, data=body, headers=signed_headers(body)) as r:
            assert (r.status, r.headers.get("Retry-After")) == (503, "1")
        assert h.slack.all_replies() == []
        h.slack.recover("auth.test")
        assert await h.send(event, retry_num=1) == 200  # Slack's retry, auth.test works again
        await h.until(lambda: len(h.slack.all_replies()) == 1, "the answer")
        await h.settle()
        assert [r.thread_ts for r in h.slack.all_replies()] == [event["event"]["ts"]]


async def test_forged_or_malformed_deliveries_queue_nothing(
    make_app: MakeApp, redis_url: str
) -> None:
    async with slack_harness(make_app, slack_streaming="off") as h:
        body = json.dumps(mention("let me in"))
        assert (await h.post(body, signed_headers(body, secret="not-the-secret")))[0] == 401
        torn = body[: len(body) // 2]
        assert (await h.post(torn, signed_headers(torn)))[0] == 400
        assert (await h.post("[1, 2]", signed_headers("[1, 2]")))[0] == 400
        await h.settle()
        assert await queued_keys(h, redis_url) == []
        assert h.slack.all_replies() == []


async def test_url_verification_and_events_the_queue_does_not_take_still_reach_bolt(
    make_app: MakeApp,
) -> None:
    async with slack_harness(make_app, slack_streaming="off", slack_assistant=True) as h:
        challenge = json.dumps({"type": "url_verification", "challenge": "c-123"})
        status, text = await h.post(challenge, signed_headers(challenge))
        assert (status, json.loads(text)) == (200, {"challenge": "c-123"})
        started = envelope(
            {
                "type": "assistant_thread_started",
                "assistant_thread": {"channel_id": "D1", "thread_ts": "1700000000.000900"},
                "event_ts": "1700000000.000901",
            }
        )
        assert await h.send(started) == 200
        await h.until(
            lambda: bool(h.slack.calls_to("assistant.threads.setSuggestedPrompts")),
            "the suggested prompts",
        )
        await h.settle()
        (prompts,) = h.slack.calls_to("assistant.threads.setSuggestedPrompts")
        assert (prompts["channel_id"], prompts["thread_ts"]) == ("D1", "1700000000.000900")


async def test_answers_reuse_one_connection_to_slack(make_app: MakeApp) -> None:
    """Each answer's post goes over the adapter's kept-alive connection: no TCP connection
    (and, against slack.com, no TLS handshake) per call."""
    async with slack_harness(make_app, slack_streaming="off") as h:
        for i in range(3):  # one after another: one connection is enough for all of them
            assert await h.send(mention(f"question number {i}")) == 200
            await h.until(lambda n=i: len(h.slack.all_replies()) > n, "the answer")
        await h.settle()
        posts = [c for c in h.slack.calls if c.method == "chat.postMessage"]
        assert len(posts) == 3
        assert len({c.connection for c in h.slack.calls}) == 1
