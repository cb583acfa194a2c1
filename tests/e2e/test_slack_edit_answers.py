"""An edited question is answered again: the bot's answer is updated in place on Slack."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config.settings import load_settings
from bot.core.types import thread_id
from tests.e2e.conftest import MakeApp
from tests.e2e.slack_harness import slack_harness
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.slack_payloads import edited, mention, message


@pytest.mark.parametrize("queued", [True, False], ids=["queue", "no-queue"])
async def test_editing_the_last_question_updates_its_answer_and_replaces_the_turn(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, queued: bool
) -> None:
    overrides = {} if queued else {"queue_enabled": False}
    async with slack_harness(make_app, **overrides) as h:
        first = mention("Write to maria.gonzalez@example.com about the invoice.")
        ts = str(first["event"]["ts"])
        tid = thread_id("slack", "T1", "C1", ts)
        await h.send(first)
        await h.until(lambda: len(h.slack.thread("C1", ts)) == 1, "first answer")
        second = message("Is the 12th of May fine?", thread_ts=ts)
        await h.send(second)
        await h.until(lambda: len(h.slack.thread("C1", ts)) == 2, "second answer")
        await h.settle()
        asked = len(fake_anthropic.requests)

        fake_anthropic.answer("Yes, I will mail <EMAIL_ADDRESS_1> on the 14th.")
        await h.send(edited(second["event"], "Is the 14th of May fine?"))
        await h.until(lambda: len(fake_anthropic.requests) == asked + 1, "the new answer")
        await h.settle()

        # What people see: the second answer, edited in place; no new message.
        shown = h.slack.thread("C1", ts)
        assert len(shown) == 2
        assert shown[1] == "Yes, I will mail maria.gonzalez@example.com on the 14th."
        assert len(h.slack.calls_to("chat.update")) >= 1
        # The model read the edited question after the first exchange, not the old one.
        sent = fake_anthropic.requests[-1].body["messages"]
        assert len(sent) == 3
        assert "14th" in fake_anthropic.last_user_text(fake_anthropic.requests[-1].body)
        assert "12th" not in str(sent)
        # The history holds the edited turn once, in place of the old one.
        history = await h.app.history.load(tid)
        assert [m.role for m in history] == ["user", "assistant"] * 2
        assert history[2].text == "Is the 14th of May fine?"
        assert history[3].text == "Yes, I will mail <EMAIL_ADDRESS_1> on the 14th."


async def test_editing_an_older_question_keeps_its_answer_and_asks_the_model_nothing(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    async with slack_harness(make_app) as h:
        first = mention("Write to maria.gonzalez@example.com about the invoice.")
        ts = str(first["event"]["ts"])
        tid = thread_id("slack", "T1", "C1", ts)
        await h.send(first)
        await h.until(lambda: len(h.slack.thread("C1", ts)) == 1, "first answer")
        await h.send(message("Is the 12th of May fine?", thread_ts=ts))
        await h.until(lambda: len(h.slack.thread("C1", ts)) == 2, "second answer")
        await h.settle()
        shown, asked = h.slack.thread("C1", ts), len(fake_anthropic.requests)
        updates = len(h.slack.calls_to("chat.update"))

        await h.send(edited(first["event"], "<@UBOT> Write to john.smith@example.org instead."))
        await h.settle()

        assert len(fake_anthropic.requests) == asked
        assert h.slack.thread("C1", ts) == shown
        assert len(h.slack.calls_to("chat.update")) == updates
        history = await h.app.history.load(tid)
        assert len(history) == 4
        assert history[0].text == "Write to <EMAIL_ADDRESS_2> instead."  # redacted afresh


async def test_an_edit_while_the_answer_is_being_written_replaces_it_once_it_is_done(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    async with slack_harness(make_app) as h:
        first = mention("Is the 12th of May fine?")
        ts = str(first["event"]["ts"])
        tid = thread_id("slack", "T1", "C1", ts)
        fake_anthropic.hold()
        await h.send(first)
        await h.until(lambda: len(fake_anthropic.requests) == 1, "the first question asked")
        await h.send(edited(first["event"], "<@UBOT> Is the 14th of May fine?"))
        fake_anthropic.release()
        await h.until(lambda: len(fake_anthropic.requests) == 2, "the edited question asked")
        await h.settle()

        (answer,) = h.slack.thread("C1", ts)
        assert "14th" in answer
        assert "12th" not in answer
        history = await h.app.history.load(tid)
        assert [m.role for m in history] == ["user", "assistant"]
        assert "14th" in history[0].text


async def test_a_refused_edit_keeps_the_answer_people_still_see_in_the_history(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    """The asker's limit is spent: the edit is refused to the asker alone, the old answer stays
    in the thread, so the history keeps the exchange, its question as edited (a value edited
    out is gone)."""
    config = tmp_path / "veilbot.toml"
    config.write_text("[rate_limits]\nuser = { turns = 2, per_seconds = 3600 }\n", "utf-8")
    limits = load_settings(config_file=config, _env_file=None).rate_limits
    async with slack_harness(make_app, rate_limits=limits) as h:
        first = mention("Write to maria.gonzalez@example.com about the invoice.")
        ts = str(first["event"]["ts"])
        tid = thread_id("slack", "T1", "C1", ts)
        await h.send(first)
        await h.until(lambda: len(h.slack.thread("C1", ts)) == 1, "first answer")
        fake_anthropic.answer("The 12th works for <EMAIL_ADDRESS_1>.")
        second = message("Is the 12th fine? Call +1 415 555 0134 if not.", thread_ts=ts)
        await h.send(second)
        await h.until(lambda: len(h.slack.thread("C1", ts)) == 2, "second answer")
        await h.settle()
        asked, shown = len(fake_anthropic.requests), h.slack.thread("C1", ts)

        await h.send(edited(second["event"], "Is the 14th fine?"))
        await h.until(lambda: h.slack.calls_to("chat.postEphemeral"), "the refusal")
        await h.settle()

        assert len(fake_anthropic.requests) == asked, "a refused turn asks the model nothing"
        assert h.slack.thread("C1", ts) == shown
        history = await h.app.history.load(tid)
        assert [m.role for m in history] == ["user", "assistant"] * 2
        assert history[2].text == "Is the 14th fine?"
        assert history[3].text == "The 12th works for <EMAIL_ADDRESS_1>."
        assert "415" not in str(history)


async def test_a_long_answer_edited_into_a_short_one_leaves_none_of_its_old_parts(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    async with slack_harness(make_app, slack_message_chars=500) as h:
        question = mention("Tell me about the invoice.")
        ts = str(question["event"]["ts"])
        fake_anthropic.answer(" ".join(["The invoice lists every item we shipped."] * 30))
        await h.send(question)
        await h.until(lambda: len(h.slack.thread("C1", ts)) >= 3, "a long answer, in parts")
        await h.settle()
        assert len(h.slack.thread("C1", ts)) >= 3

        fake_anthropic.answer("It is paid.")
        await h.send(edited(question["event"], "<@UBOT> Is the invoice paid?"))
        await h.until(lambda: h.slack.thread("C1", ts) == ["It is paid."], "the short answer")
