"""The whole guarded turn through the real composition root.

Real Redis, real SQLite and PostgreSQL, real Presidio with a spaCy model, and the real
``anthropic`` SDK talking to a fake Messages API that records what the model was sent.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from bot.core.fork import ForkSpan
from bot.core.types import Platform, TextAnalysis, TurnStatus, thread_id
from tests.e2e.conftest import MakeApp, audit_rows, conversation_with, message, unique_thread
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fixtures.services import redis_dump

TURNS = [
    "Hi, I'm Maria Gonzalez. Please email John Smith at john.smith@acme-corp.com about the refund.",
    "This is Maria Gonzalez again: call me on +1 415 555 0123 and charge card 4111 1111 1111 1111."
    " My member id is W48213377.",
    "Wire it to IBAN DE89 3704 0044 0532 0130 00 and cc Priya Natarajan at priya@startup.io. "
    "The portal's password: Tr0ub4dor&3x, its key ANTHROPIC_API_KEY=sk-ant-api03-Zq8vY2kLm4Np6Rt",
]
SEEDED = [
    "Maria Gonzalez",
    "John Smith",
    "john.smith@acme-corp.com",
    "+1 415 555 0123",
    "4111 1111 1111 1111",
    "W48213377",
    "DE89 3704 0044 0532 0130 00",
    "Priya Natarajan",
    "priya@startup.io",
    "Tr0ub4dor&3x",
    "sk-ant-api03-Zq8vY2kLm4Np6Rt",
]


def leaked(values: list[str], text: str) -> list[str]:
    """Seeded values found in ``text``, verbatim, case-folded or as bare digits."""
    folded, digits = text.casefold(), re.sub(r"\D", "", text)
    found = []
    for value in values:
        value_digits = re.sub(r"\D", "", value)
        if value.casefold() in folded or (len(value_digits) >= 9 and value_digits in digits):
            found.append(value)
    return found


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest) -> str | None:
    if request.param == "sqlite":
        return None
    return str(request.getfixturevalue("postgres_url"))


@pytest.mark.redis_cluster
async def test_personal_data_never_reaches_the_model_or_any_store(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, redis_url: str, database_url: str | None
) -> None:
    app = await make_app(database_url=database_url)
    thread = unique_thread()
    # A direct message: the reveal policy shows the asker every value (shared places mask cards).
    replies = [await app.conversation.handle(message(t, thread, private=True)) for t in TURNS]

    assert all(r is not None and r.status is TurnStatus.OK for r in replies)
    # A fork copies the thread's values into a vault of its own: sealed, like the source's.
    fork = unique_thread()
    await app.conversation.fork(
        thread_id("console", thread),
        thread_id("console", fork),
        ForkSpan(last_n=2),
        workspace="local",
        channel=fork,
        user_id="U-tester",
    )
    assert len(await app.vault.mapping(thread_id("console", fork))) > 0
    assert leaked(SEEDED, fake_anthropic.all_text_sent()) == []
    assert leaked(SEEDED, redis_dump(redis_url, app.settings.redis_prefix)) == []
    rows = await audit_rows(app, thread)
    assert [r["status"] for r in rows] == ["ok", "ok", "ok"]
    rows += await audit_rows(app, fork)
    assert [r["status"] for r in rows[3:]] == ["forked"]
    assert leaked(SEEDED, "\n".join(str(v) for row in rows for v in row.values())) == []
    # The people in the thread get their own values back.
    shown = "\n".join(r.text for r in replies if r)
    assert leaked(SEEDED, shown) == SEEDED


async def test_the_same_person_keeps_one_placeholder_across_turns(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    app = await make_app()
    thread = unique_thread()
    for text in TURNS[:2]:
        await app.conversation.handle(message(text, thread))
    first, second = (r.body["messages"][-1]["content"] for r in fake_anthropic.requests)
    text_of = lambda c: c if isinstance(c, str) else "".join(b["text"] for b in c)  # noqa: E731
    maria = re.search(r"I'm (<PERSON_\d+>)", text_of(first))
    assert maria, text_of(first)
    assert text_of(second).startswith(f"This is {maria.group(1)} again")
    # The model also saw the first turn as history, in placeholder form.
    assert len(fake_anthropic.requests[1].body["messages"]) == 3


async def test_a_streamed_answer_arrives_restored_and_never_half_a_placeholder(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    app = await make_app()
    fake_anthropic.delta_delay = 0.001

    class Collect:
        def __init__(self) -> None:
            self.deltas: list[str] = []

        async def delta(self, text: str) -> None:
            self.deltas.append(text)

    sink = Collect()
    reply = await app.conversation.handle(message(TURNS[0], unique_thread()), sink)

    assert reply is not None
    assert reply.streamed
    assert reply.ok
    assert "".join(sink.deltas) == reply.text
    assert "Maria Gonzalez" in reply.text
    assert "john.smith@acme-corp.com" in reply.text
    assert not any(re.search(r"<[A-Z_]*$", d) for d in sink.deltas)
    assert fake_anthropic.requests[0].body.get("stream") is True


async def test_a_redelivered_event_is_answered_once(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    app = await make_app()
    thread = unique_thread()
    first = await app.conversation.handle(message("hello there", thread, event_id="Ev1"))
    again = await app.conversation.handle(message("hello there", thread, event_id="Ev1"))
    assert first is not None
    assert first.ok
    assert again is None
    assert len(fake_anthropic.requests) == 1


async def test_history_is_placeholder_text_and_forget_erases_it(
    make_app: MakeApp, redis_url: str
) -> None:
    app = await make_app()
    thread = unique_thread()
    await app.conversation.handle(message(TURNS[0], thread))
    dump = redis_dump(redis_url, app.settings.redis_prefix)
    assert "<PERSON_" in dump
    assert "<EMAIL_ADDRESS_" in dump

    removed = await app.conversation.forget(message("x", thread).thread_id)

    assert removed == 2  # history and vault
    assert thread not in redis_dump(redis_url, app.settings.redis_prefix)


async def test_a_long_thread_is_trimmed_for_the_model_but_kept_in_full(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    app = await make_app(context_budget_tokens=400)
    thread = unique_thread()
    for i in range(8):
        await app.conversation.handle(message(f"Question {i}: " + "tell me more " * 20, thread))

    sent = fake_anthropic.requests[-1].body["messages"]
    roles = [m["role"] for m in sent]
    assert len(sent) < 15
    assert roles[0] == "user"
    assert roles == ["user", "assistant"] * (len(sent) // 2) + ["user"]
    assert "Question 7" in str(sent[-1]["content"])
    kept = await app.history.load(message("x", thread).thread_id)
    assert len(kept) == 16  # the canonical history is never rewritten by trimming


async def test_detection_in_worker_processes_guards_the_turn_the_same_way(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    app = await make_app(guardrail_workers=2)
    reply = await app.conversation.handle(message(TURNS[0], unique_thread(), private=True))

    assert reply is not None
    assert reply.ok
    assert leaked(SEEDED, fake_anthropic.all_text_sent()) == []
    assert "Maria Gonzalez" in reply.text
    assert "john.smith@acme-corp.com" in reply.text


class _Watched:
    """The app's guardrail, telling when it has analysed a text (nothing else changes)."""

    def __init__(self, real: Any) -> None:
        self._real = real
        self.analysed = asyncio.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    async def analyze(self, text: str, *, platform: Platform, **kw: Any) -> TextAnalysis:
        analysis: TextAnalysis = await self._real.analyze(text, platform=platform, **kw)
        self.analysed.set()
        return analysis


async def test_a_message_waiting_for_its_busy_thread_is_analysed_while_it_waits(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    """Detection needs nothing of the thread: a follow-up that waits behind the thread's
    running turn is analysed meanwhile, and only then reaches the model, in placeholders."""
    app = await make_app(lock_wait_seconds=120)
    guardrail = _Watched(app.guardrail)
    conversation = conversation_with(app, guardrail)
    msg = message(TURNS[0], unique_thread(), private=True)

    async with app.locks.hold(msg.thread_id):  # the thread's earlier turn, still running
        turn = asyncio.create_task(conversation.handle(msg))
        await asyncio.wait_for(guardrail.analysed.wait(), 60)
        assert not turn.done()
        assert fake_anthropic.requests == []
    reply = await turn

    assert reply is not None
    assert reply.ok
    assert leaked(SEEDED, fake_anthropic.all_text_sent()) == []
    assert "Maria Gonzalez" in reply.text


async def test_a_turn_that_gives_up_on_its_busy_thread_keeps_nothing_of_its_analysis(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, redis_url: str
) -> None:
    """The user is told the thread is busy; what was detected before the lock was never
    granted goes nowhere: no vault entry, no history, no model request."""
    app = await make_app(lock_wait_seconds=1)
    conversation = conversation_with(app, app.guardrail)
    thread = unique_thread()
    msg = message(TURNS[0], thread, private=True)

    async with app.locks.hold(msg.thread_id):
        reply = await conversation.handle(msg)

    assert reply is not None
    assert reply.status is TurnStatus.STORE_ERROR
    assert fake_anthropic.requests == []
    assert thread not in redis_dump(redis_url, app.settings.redis_prefix)
    rows = await audit_rows(app, thread)
    assert [r["status"] for r in rows] == ["store_error"]
    assert leaked(SEEDED, "\n".join(str(v) for row in rows for v in row.values())) == []
