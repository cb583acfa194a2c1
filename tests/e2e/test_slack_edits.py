"""A person edits, then deletes, a message: the bot keeps the new text and then forgets both.

The real Slack adapter and core on real Redis and Presidio; the fake model echoes
placeholders back so the test sees which values the thread can still restore.
"""

from __future__ import annotations

import pytest

from bot.core.types import thread_id
from tests.e2e.conftest import MakeApp, audit_dump
from tests.e2e.slack_harness import Harness, slack_harness
from tests.e2e.test_guarded_turn import leaked
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.slack_payloads import deleted, edited, mention, message
from tests.fixtures.services import redis_dump

OLD = "I'm Maria Gonzalez, mail maria.gonzalez@example.com, IBAN DE89 3704 0044 0532 0130 00."
NEW = "I'm Maria Gonzalez, mail maria.new@example.org instead."
SEEDED = ["Maria Gonzalez", "maria.gonzalez@example.com", "DE89 3704 0044 0532 0130 00"]
SEEDED += ["maria.new@example.org"]


async def _kept(h: Harness, tid: str) -> set[str]:
    return {value for _, value in (await h.app.vault.mapping(tid)).values()}  # type: ignore[arg-type]


@pytest.mark.parametrize("queued", [True, False], ids=["queue", "no-queue"])
async def test_an_edit_is_redacted_afresh_and_a_delete_after_it_withdraws_both_versions(
    make_app: MakeApp,
    fake_anthropic: FakeAnthropic,
    redis_url: str,
    debug_logs: pytest.LogCaptureFixture,
    queued: bool,
) -> None:
    overrides = {} if queued else {"queue_enabled": False}
    async with slack_harness(make_app, **overrides) as h:
        first = mention(OLD)
        ts = first["event"]["ts"]
        tid = thread_id("slack", "T1", "C1", ts)
        await h.send(first)
        await h.until(lambda: len(h.slack.thread("C1", ts)) == 1, "first answer")
        await h.settle()
        assert "maria.gonzalez@example.com" in await _kept(h, tid)

        await h.send(edited(first["event"], f"<@UBOT> {NEW}"))
        await h.settle()
        history = await h.app.history.load(tid)
        assert len(history) == 2
        assert "<EMAIL_ADDRESS_2>" in history[0].text  # the new address, redacted
        kept = await _kept(h, tid)
        assert "maria.new@example.org" in kept
        assert "maria.gonzalez@example.com" not in kept
        assert not [v for v in kept if v.replace(" ", "").startswith("DE89")]

        fake_anthropic.answer("Mail <EMAIL_ADDRESS_1>, <PERSON_1>.")
        await h.send(message("Which address?", thread_ts=ts))
        await h.until(lambda: len(h.slack.thread("C1", ts)) == 2, "second answer")
        await h.settle()
        answer = h.slack.thread("C1", ts)[-1]
        assert "maria.gonzalez@example.com" not in answer
        assert "[redacted]" in answer
        assert "Maria Gonzalez" in answer
        sent = fake_anthropic.all_text_sent()
        assert "maria.new@example.org" not in sent

        # Slack's deletion carries the message as it reads now: the edited text
        await h.send(deleted({**first["event"], "text": f"<@UBOT> {NEW}"}))
        await h.settle()
        history = await h.app.history.load(tid)
        assert [m.role for m in history] == ["user", "assistant"]
        assert history[0].text == "Which address?"
        kept = await _kept(h, tid)
        assert "maria.new@example.org" not in kept
        assert "maria.gonzalez@example.com" not in kept

        fake_anthropic.answer("Mail <EMAIL_ADDRESS_1> or <EMAIL_ADDRESS_2>.")
        await h.send(message("And now?", thread_ts=ts))
        await h.until(lambda: len(h.slack.thread("C1", ts)) == 3, "third answer")
        await h.settle()
        answer = h.slack.thread("C1", ts)[-1]
        assert "@example" not in answer

        # Nothing the service keeps or logs ever held a value of either version in clear.
        assert leaked(SEEDED, redis_dump(redis_url, h.app.settings.redis_prefix)) == []
        assert leaked(SEEDED, await audit_dump(h.app)) == []
        assert leaked(SEEDED, debug_logs.text) == []
