"""Bad input and faults: each gets a clear answer, an audit status, and loses nothing."""

from __future__ import annotations

from typing import Any

import pytest

from bot.core.errors import InputRejected
from bot.core.text import MODEL_REPLIES
from bot.core.types import TurnStatus, thread_id
from guardrails.presidio import PresidioGuardrail
from tests.e2e.conftest import (
    CrashingAnalyzer,
    MakeApp,
    audit_rows,
    conversation_with,
    message,
    unique_thread,
)
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fixtures.services import RedisServer, free_port, redis_dump


@pytest.mark.parametrize("text", ["", "   \n\t  ", "\u200b\u200b", "\x00\x07"])
async def test_an_empty_message_gets_a_clear_answer_and_reaches_nobody(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, text: str
) -> None:
    app = await make_app()
    thread = unique_thread()
    reply = await app.conversation.handle(message(text, thread))
    assert reply is not None
    assert reply.status is TurnStatus.REJECTED_INPUT
    assert "empty" in reply.text
    assert fake_anthropic.requests == []
    assert [r["status"] for r in await audit_rows(app, thread)] == ["rejected_input"]


async def test_an_oversized_message_is_refused_with_the_limit(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    app = await make_app(max_input_chars=500)
    reply = await app.conversation.handle(message("Jane Doe " * 100, unique_thread()))
    assert reply is not None
    assert reply.status is TurnStatus.REJECTED_INPUT
    assert "899 characters" in reply.text
    assert "500" in reply.text
    assert "Jane" not in reply.text
    assert fake_anthropic.requests == []


async def test_invisible_characters_do_not_hide_an_email_from_the_guardrail(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    app = await make_app()
    reply = await app.conversation.handle(
        message("write to jane\u200b.doe@exam\u2060ple.com\x07 please", unique_thread())
    )
    assert reply is not None
    assert reply.ok
    sent = fake_anthropic.all_text_sent()
    assert "jane.doe@example.com" not in sent
    assert "<EMAIL_ADDRESS_1>" in sent
    assert "jane.doe@example.com" in reply.text


def test_a_thread_id_with_illegal_characters_is_rejected() -> None:
    with pytest.raises(InputRejected):
        thread_id("console", "bad name/../x")
    with pytest.raises(InputRejected):
        thread_id("console", "")


async def test_redis_down_gets_a_clear_answer_and_recovers(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, redis_server: RedisServer
) -> None:
    app = await make_app(redis_url=redis_server.url)
    thread = unique_thread()
    redis_server.stop()

    reply = await app.conversation.handle(message("Hi, I'm Maria Gonzalez", thread))

    assert reply is not None
    assert reply.status is TurnStatus.STORE_ERROR
    assert "conversation store" in reply.text
    assert fake_anthropic.requests == []
    redis_server.start()
    again = await app.conversation.handle(message("Hi, I'm Maria Gonzalez", thread))
    assert again is not None
    assert again.ok
    assert "Maria Gonzalez" in again.text
    assert [r["status"] for r in await audit_rows(app, thread)] == ["store_error", "ok"]


FAILURES = {
    # outage: (how the fake fails, a phrase of the user's answer, the audited error type)
    "rate limited": ((429, "rate_limit_error"), "rate limited", "ModelRateLimited"),
    "overloaded": ((529, "overloaded_error"), "overloaded", "ModelOverloaded"),
    "server error": ((500, "api_error"), "service had an error", "ModelUnavailable"),
    "bad key": ((401, "authentication_error"), "set up wrongly", "CredentialsRefused"),
    "timeout": ("slow", "took too long", "ModelTimeout"),
    "unreachable": ("refused", "can't reach the model", "ModelUnreachable"),
}


async def failed_turn(make_app: MakeApp, fake: FakeAnthropic, outage: str) -> tuple[Any, str, Any]:
    """One turn through the real anthropic SDK while the model fails as ``outage`` says."""
    how = FAILURES[outage][0]
    overrides: dict[str, Any] = {"model_max_retries": 1}
    if how == "refused":  # nothing listens there: connection refused
        overrides["anthropic_base_url"] = f"http://127.0.0.1:{free_port()}"
    if how == "slow":
        overrides["model_timeout_seconds"] = 0.3
    app = await make_app(**overrides)
    if how == "slow":
        fake.delay = 1.5
    elif isinstance(how, tuple):
        fake.fail(*how, times=2, retry_after_ms="5")
    thread = unique_thread()
    reply = await app.conversation.handle(message("Hello, I'm Maria Gonzalez", thread))
    return reply, thread, app


@pytest.mark.parametrize("outage", list(FAILURES))
async def test_each_model_failure_gets_its_own_answer_and_its_type_is_audited(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, redis_url: str, outage: str
) -> None:
    reply, thread, app = await failed_turn(make_app, fake_anthropic, outage)
    _, phrase, error_type = FAILURES[outage]
    assert reply is not None
    assert reply.status is TurnStatus.MODEL_ERROR
    assert phrase in reply.text
    rows = await audit_rows(app, thread)
    assert [r["status"] for r in rows] == ["model_error"]
    assert rows[0]["error"].startswith(f"{error_type}: ")
    assert "<PERSON_1>" in rows[0]["prompt"]
    assert ":history" not in redis_dump(redis_url, app.settings.redis_prefix)


def test_no_two_model_failures_share_an_answer() -> None:
    answers = [reply for _, reply in MODEL_REPLIES]
    assert len(set(answers)) == len(answers)
    phrases = [phrase for _, phrase, _ in FAILURES.values()]
    for phrase in phrases:
        assert sum(phrase in answer for answer in answers) == 1, phrase


async def test_a_rejected_request_is_explained(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    app = await make_app()
    fake_anthropic.fail(400, "invalid_request_error")
    reply = await app.conversation.handle(message("hello", unique_thread()))
    assert reply is not None
    assert reply.status is TurnStatus.MODEL_ERROR
    assert "couldn't process" in reply.text


async def test_guardrail_failure_fails_closed(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, presidio_analyzer: Any
) -> None:
    app = await make_app()
    broken = PresidioGuardrail(CrashingAnalyzer(presidio_analyzer), app.vault)
    conversation = conversation_with(app, broken)
    thread = unique_thread()
    reply = await conversation.handle(
        message("I'm Maria Gonzalez, card 4111 1111 1111 1111", thread)
    )

    assert reply is not None
    assert reply.status is TurnStatus.GUARDRAIL_ERROR
    assert "didn't send it" in reply.text
    assert fake_anthropic.requests == []
    assert [r["status"] for r in await audit_rows(app, thread)] == ["guardrail_error"]


async def test_audit_database_down_still_answers_and_spools_the_record(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    dead = f"postgresql://postgres@127.0.0.1:{free_port()}/nowhere"
    app = await make_app(database_url=dead)
    reply = await app.conversation.handle(message("Hi, I'm Maria Gonzalez", unique_thread()))

    assert reply is not None
    assert reply.ok
    assert "Maria Gonzalez" in reply.text
    spool = (app.settings.data_dir / "audit-spool.jsonl").read_text()
    assert len(spool.splitlines()) == 1
    assert "<PERSON_1>" in spool
    assert "Maria" not in spool
