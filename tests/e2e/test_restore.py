"""What the user reads, and what the service keeps, when the model's answer comes back.

Real composition root, real Redis and SQLite, real Presidio; the model is the fake Messages
API with scripted answers that mangle placeholders or invent personal data of their own.
"""

from __future__ import annotations

import logging

import pytest

from bot.core.types import TurnStatus
from guardrails.restore.placeholders import NEUTRAL
from tests.e2e.conftest import MakeApp, audit_rows, message, unique_thread
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fixtures.services import redis_dump

USER_TURN = "Hi, I'm Maria Gonzalez, my card is 4111 1111 1111 1111. Can you help?"


async def test_values_the_model_invents_are_shown_but_never_kept(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, redis_url: str
) -> None:
    app = await make_app()
    thread = unique_thread()
    fake_anthropic.answer(
        "Sure <PERSON_1>! Please contact bob.smith@example.org or Robert Johnson at 212-555-0143."
    )
    reply = await app.conversation.handle(message(USER_TURN, thread))

    assert reply is not None
    assert reply.status is TurnStatus.OK
    assert "contact bob.smith@example.org" in reply.text  # the asker reads the answer as written
    kept = redis_dump(redis_url, app.settings.redis_prefix)
    (row,) = await audit_rows(app, thread)
    for store in (kept, row["answer"]):
        assert "bob.smith" not in store
        assert "555-0143" not in store
        assert "<EMAIL_ADDRESS_1>" in store
    # The output scan is pattern-only: a name the model invents is its own words, not user data.
    assert "Sure <PERSON_1>! Please contact <EMAIL_ADDRESS_1> or Robert Johnson" in row["answer"]


async def test_mangled_placeholders_come_back_as_the_users_values_and_are_counted(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    app = await make_app()
    thread = unique_thread()
    fake_anthropic.answer(
        "Hello PERSON_1, [PERSON_1]'s card `<credit_card_1>` is << CREDIT_CARD_1 >>, <PERSON_1>."
    )
    reply = await app.conversation.handle(message(USER_TURN, thread, private=True))

    assert reply is not None
    assert reply.text == (
        "Hello Maria Gonzalez, Maria Gonzalez's card `4111 1111 1111 1111` is "
        "4111 1111 1111 1111, Maria Gonzalez."
    )
    (row,) = await audit_rows(app, thread)
    assert (row["mangled_placeholders"], row["unknown_placeholders"]) == (4, 0)


@pytest.mark.parametrize(("private", "card"), [(False, "•••• 1111"), (True, "4111 1111 1111 1111")])
async def test_cards_are_masked_in_shared_places_and_shown_in_direct_messages(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, private: bool, card: str
) -> None:
    app = await make_app()
    fake_anthropic.answer("<PERSON_1>, I will charge <CREDIT_CARD_1>.")
    reply = await app.conversation.handle(message(USER_TURN, unique_thread(), private=private))

    assert reply is not None
    assert reply.text == f"Maria Gonzalez, I will charge {card}."


async def test_the_reveal_policy_setting_is_honoured(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    app = await make_app(reveal_policy={"PERSON": {"shared": "placeholder"}})
    fake_anthropic.answer("<PERSON_1>, noted.")
    reply = await app.conversation.handle(message(USER_TURN, unique_thread()))

    assert reply is not None
    assert reply.text == "<PERSON_1>, noted."


async def test_a_placeholder_the_thread_never_issued_is_neutral_counted_and_logged(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, caplog: pytest.LogCaptureFixture
) -> None:
    app = await make_app()
    thread = unique_thread()
    fake_anthropic.answer("<PERSON_1> and PERSON_2 and <EMAIL_ADDRESS_3> were here.")
    with caplog.at_level(logging.WARNING, logger="bot.core.conversation"):
        reply = await app.conversation.handle(message(USER_TURN, thread))

    assert reply is not None
    assert reply.text == f"Maria Gonzalez and {NEUTRAL} and {NEUTRAL} were here."
    (row,) = await audit_rows(app, thread)
    assert row["unknown_placeholders"] == 2
    (record,) = [r for r in caplog.records if "never issued" in r.getMessage()]
    assert f"console:{thread}" in record.getMessage()
    assert "count=2" in record.getMessage()
