"""Replicas that lose nothing (issue 12): an acked event is answered, once, in its thread's order.

Three real ``veilbot run slack`` processes share one Redis (a private server) and one
PostgreSQL audit database (a database of this test's own), behind one fake Slack and one fake
Anthropic whose answers take a while, so turns are in flight. Every event of a 1 500-event
burst is delivered to all three replicas (the original and Slack's two retries). Mid-burst a
replica that has taken events it has not answered yet is killed with SIGKILL: the others must
answer those. A second test stops a replica with SIGTERM mid-burst: it finishes what it holds,
answers new deliveries 503 with ``Retry-After`` (Slack delivers them again) and exits 0.

What a person would notice is what is checked: every event gets exactly one answer in its
thread, a thread's answers come in the order its messages were sent and each turn saw exactly
the thread's earlier turns, every answer has one audit row, and the personal data seeded in the
events appears in clear in no store, log or model request.
"""

from __future__ import annotations

import asyncio
import signal
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import pytest
from sqlalchemy.engine import make_url

from tests.e2e.replicas import (
    AnswerWatch,
    Event,
    Key,
    Replica,
    Sent,
    answers,
    asker,
    history_faults,
    in_flight,
    other_posts,
    pending_of,
    plan,
    queue_settled,
    queue_state,
    redis_everything,
    running_replicas,
    send_burst,
    thread_orders,
)
from tests.e2e.test_guarded_turn import leaked
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.slack_payloads import signed_headers
from tests.fakes.slack_server import FakeSlack
from tests.fixtures.services import RedisServer

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(600)]

PREFIX = "vbreplicas"
MODEL_DELAY = 0.5
"""Seconds the model takes per answer: long enough that a replica always holds turns."""
QUIET_SECONDS = 90.0
"""No new answer for this long while some are missing: they are lost, stop waiting."""
QUEUE_ENV = {
    "VEILBOT_QUEUE_CLAIM_IDLE_SECONDS": "3",
    "VEILBOT_DRAIN_TIMEOUT_SECONDS": "60",
}

SEEDED = [
    "john.smith@acme-corp.com",
    "+1 415 555 0123",
    "4111 1111 1111 1111",
    "DE89 3704 0044 0532 0130 00",
    "priya@startup.io",
]


def thread_email(t: int) -> str:
    return f"ana.lima.{t}@example.org"


def seeded_text(t: int, k: int) -> str:
    """Personal data in every event: a per-thread e-mail and one of ``SEEDED``."""
    return f"and write to {thread_email(t)} or {SEEDED[(t + k) % len(SEEDED)]}"


@pytest.fixture
async def audit_database(postgres_url: str) -> AsyncIterator[str]:
    """The URL of an empty PostgreSQL database of this test's own, dropped afterwards."""
    base = make_url(postgres_url)
    name = f"vb_replicas_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(f"postgresql://{base.username}@{base.host}:{base.port}/postgres")
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        yield base.set(database=name).render_as_string(hide_password=False)
        await admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    finally:
        await admin.close()


async def audit_rows(url: str) -> list[dict[str, Any]]:
    u = make_url(url)
    conn = await asyncpg.connect(f"postgresql://{u.username}@{u.host}:{u.port}/{u.database}")
    try:
        return [dict(r) for r in await conn.fetch("SELECT * FROM audit_runs")]
    finally:
        await conn.close()


async def until(
    check: Callable[[], Any], what: str, within: float, status: Callable[[], str] = str
) -> None:
    """Poll ``check`` (sync or async) until it is true, for at most ``within`` seconds;
    ``status()`` describes the state in the failure."""
    deadline = time.monotonic() + within
    while True:
        result = check()
        if asyncio.iscoroutine(result):
            result = await result
        if result:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {within:g}s waiting for {what}: {status()}")
        await asyncio.sleep(0.1)


async def until_answered(slack: FakeSlack, expected: set[Key], within: float = 400) -> None:
    """Wait until every expected event has an answer; give up early when answers stop."""
    deadline = time.monotonic() + within
    count, moved, watch = -1, time.monotonic(), AnswerWatch(slack)
    while True:
        now, seen = time.monotonic(), watch.count()
        if expected <= watch.answered:
            return
        if seen != count:
            count, moved = seen, now
        if now - moved > QUIET_SECONDS or now > deadline:
            return  # the assertions say which are missing
        await asyncio.sleep(0.2)


async def holding(
    model: FakeAnthropic, slack: FakeSlack, replica: Replica, redis_url: str, *, after: int
) -> set[Key]:
    """Wait until at least ``after`` events are answered and ``replica`` holds events it took
    but has not answered (model calls in flight, and queue entries pending if there is a
    queue); returns the events whose model call it has in flight."""
    held: set[Key] = set()

    async def check() -> bool:
        nonlocal held
        if len(answers(slack)) < after or len(in_flight(model, slack, replica.index)) < 3:
            return False
        state = await queue_state(redis_url)
        if state and pending_of(state, replica.name) == 0:
            return False
        # Read last, with no wait between it and the caller's kill: during the queue look
        # above the replica may finish every turn it held then.
        held = in_flight(model, slack, replica.index)
        return len(held) >= 3

    def status() -> str:
        asked = Counter(asker(r) for r in model.requests)
        return (
            f"{len(answers(slack))} answered, model calls by replica {dict(asked)}, "
            f"other posts {other_posts(slack)[:3]}, calls {Counter(c.method for c in slack.calls)}"
        )

    await until(check, f"{replica.name} to hold unanswered events", 300, status)
    return held


async def queue_settled_now(url: str) -> bool:
    return queue_settled(await queue_state(url))


async def deliver(
    replica: Replica, event: Event, *, retry: int | None = None
) -> tuple[int, str | None]:
    """One signed delivery of ``event``: its status and ``Retry-After``."""
    headers = signed_headers(event.body, retry_num=retry)
    async with (
        aiohttp.ClientSession() as session,
        session.post(replica.events_url, data=event.body.encode(), headers=headers) as response,
    ):
        return response.status, response.headers.get("Retry-After")


async def refused_while_draining(replica: Replica, event: Event) -> tuple[int, str | None]:
    """Deliver ``event`` to a replica that was told to stop until it refuses it (the first
    deliveries may come before the drain starts: they are the same event, so harmless)."""
    deadline = time.monotonic() + 10
    while True:
        status, retry_after = await deliver(replica, event)
        if status != 200 or time.monotonic() > deadline:
            return status, retry_after
        await asyncio.sleep(0.01)


async def stop(replicas: Sequence[Replica]) -> list[int]:
    """SIGTERM each replica; their exit codes."""
    for replica in replicas:
        replica.child.proc.send_signal(signal.SIGTERM)
    return list(await asyncio.gather(*(r.child.exited(within=120) for r in replicas)))


def check_answers(slack: FakeSlack, model: FakeAnthropic, burst: Sequence[Sequence[Event]]) -> None:
    """Each event answered exactly once, threads in order, each turn saw the earlier turns."""
    expected = {e.key for events in burst for e in events}
    got = answers(slack)
    missing = sorted(expected - set(got))
    assert missing == [], f"{len(missing)} events never answered: {missing[:20]}"
    twice = {k: v for k, v in got.items() if len(v) > 1}
    assert twice == {}, f"answered more than once (by replicas): {twice}"
    assert set(got) == expected
    assert other_posts(slack) == []
    orders = thread_orders(slack, burst)
    disordered = {t: ks for t, ks in orders.items() if ks != list(range(len(ks)))}
    assert disordered == {}, f"threads answered out of order: {disordered}"
    faults = history_faults(model)
    assert faults == [], f"turns that saw another history than the thread's: {faults[:10]}"


def check_audit(rows: list[dict[str, Any]], burst: Sequence[Sequence[Event]]) -> None:
    """One audit row per answered event, status ok."""
    per_event = Counter((r["thread_id"], r["message_id"]) for r in rows)
    expected = {(e.thread_id, e.ts) for events in burst for e in events}
    assert set(per_event) == expected
    assert {k: n for k, n in per_event.items() if n != 1} == {}
    assert Counter(r["status"] for r in rows) == {"ok": len(expected)}


async def test_three_replicas_answer_every_event_once_in_order_though_one_is_killed(
    tmp_path: Path,
    fake_anthropic: FakeAnthropic,
    redis_server: RedisServer,
    audit_database: str,
) -> None:
    fake_anthropic.delay = MODEL_DELAY
    burst = plan(300, 5, extra=seeded_text)  # 1 500 events, each delivered three times
    seeded = SEEDED + [thread_email(t) for t in range(len(burst))]
    async with (
        FakeSlack() as slack,
        running_replicas(
            3,
            data_dir=tmp_path,
            redis_url=redis_server.url,
            prefix=PREFIX,
            database_url=audit_database,
            slack=slack,
            model=fake_anthropic,
            **QUEUE_ENV,
        ) as replicas,
    ):
        victim, survivors = replicas[0], replicas[1:]
        sender = asyncio.create_task(send_burst(replicas, burst))
        try:
            held = await holding(fake_anthropic, slack, victim, redis_server.url, after=150)
            victim.child.proc.kill()
            assert await victim.child.exited() == -signal.SIGKILL
            _, mid_burst_redis = await redis_everything(redis_server.url)
            sent = await asyncio.wait_for(sender, 300)
        finally:
            sender.cancel()
        await until_answered(slack, {e.key for events in burst for e in events})
        await until(lambda: queue_settled_now(redis_server.url), "the queue to settle", 120)
        assert await stop(survivors) == [0, 0], [r.child.stderr[-3000:] for r in survivors]
        keys, final_redis = await redis_everything(redis_server.url)
    assert sent.never_acked() == []
    assert sent.acked_by(victim.index), "the killed replica acked nothing"
    got = answers(slack)
    lost = sorted(held - set(got))
    unanswered = sum(1 for events in burst for e in events if e.key not in got)
    assert lost == [], (
        f"events the killed replica had taken were never answered: {lost} "
        f"({unanswered} of {sum(map(len, burst))} events unanswered in all)"
    )
    # (the victim may have finished a few between the look and the kill)
    taken_over = [k for k in held if k in got and victim.index not in got[k]]
    assert taken_over, f"no event the killed replica held was answered by another: {held}"
    check_answers(slack, fake_anthropic, burst)
    rows = await audit_rows(audit_database)
    check_audit(rows, burst)
    # the personal data in the events is in clear nowhere the service keeps or sends
    stores = {
        "redis mid-burst": mid_burst_redis,
        "redis after": final_redis,
        "sql": "\n".join(str(v) for row in rows for v in row.values()),
        "model requests": fake_anthropic.all_text_sent(),
        **{f"{r.name} stderr": r.child.stderr for r in replicas},
    }
    for name, text in stores.items():
        assert leaked(seeded, text) == [], name
    assert [k for k in keys if not k.startswith(f"{PREFIX}:")] == []


async def test_a_replica_stopped_mid_burst_finishes_its_turns_and_sends_new_deliveries_back(
    tmp_path: Path,
    fake_anthropic: FakeAnthropic,
    redis_server: RedisServer,
    audit_database: str,
) -> None:
    fake_anthropic.delay = MODEL_DELAY
    burst = plan(101, 3)
    probe = burst.pop()[0]  # sent to the stopping replica by hand
    async with (
        FakeSlack() as slack,
        running_replicas(
            3,
            data_dir=tmp_path,
            redis_url=redis_server.url,
            prefix=PREFIX,
            database_url=audit_database,
            slack=slack,
            model=fake_anthropic,
            **QUEUE_ENV,
        ) as replicas,
    ):
        stopping, others = replicas[1], [replicas[0], replicas[2]]
        sender = asyncio.create_task(send_burst(replicas, burst))
        try:
            held = await holding(fake_anthropic, slack, stopping, redis_server.url, after=30)
            stopping.child.proc.send_signal(signal.SIGTERM)
            await stopping.child.logged("taking no new events")
            refused = await refused_while_draining(stopping, probe)
            assert (await deliver(others[0], probe, retry=1))[0] == 200
            rc = await stopping.child.exited(within=120)
            sent: Sent = await asyncio.wait_for(sender, 300)
        finally:
            sender.cancel()
        await until_answered(slack, {e.key for events in burst for e in events} | {probe.key})
        await until(lambda: queue_settled_now(redis_server.url), "the queue to settle", 120)
        assert await stop(others) == [0, 0], [r.child.stderr[-3000:] for r in others]
    assert refused[0] == 503
    assert refused[1] is not None
    assert refused[1].isdigit()
    assert rc == 0, stopping.child.stderr[-3000:]
    assert "shutdown: veilbot stopped" in stopping.child.stderr
    got = answers(slack)
    finished = {k: got.get(k) for k in held}
    assert all(v == [stopping.index] for v in finished.values()), finished
    assert all(r is not None and r.isdigit() for r in sent.retry_after)
    assert sent.never_acked() == []
    burst.append([probe])
    check_answers(slack, fake_anthropic, burst)
    check_audit(await audit_rows(audit_database), burst)
