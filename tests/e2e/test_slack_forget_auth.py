"""Who may erase a Slack thread: the people who wrote in it, or an admin; nobody else.

The real Slack adapter and core on real Redis and SQLite, the fake Slack (which keeps the
thread's messages, as Slack does, for ``conversations.replies``), and the admin action log.
"""

from __future__ import annotations

import json

from adapters.slack.commands import ERASE_REFUSAL, FORGET_CONFIRM, FORGET_DONE
from bot.core.types import ThreadId, thread_id
from tests.e2e.conftest import MakeApp
from tests.e2e.slack_harness import Harness, slack_harness
from tests.fakes.slack_payloads import block_action, dm, slash_command

VICTIM, STRANGER, ADMIN = "U111", "U666", "U900"


async def _victims_dm(h: Harness) -> tuple[ThreadId, str]:
    first = dm("I'm Maria Gonzalez, my mail is maria.gonzalez@example.com", user=VICTIM)
    ts = first["event"]["ts"]
    await h.send(first)
    await h.until(lambda: len(h.slack.thread("D1", ts)) == 1, "answer")
    await h.settle()
    tid = thread_id("slack", "T1", "D1", ts)
    assert len(await h.app.history.load(tid)) == 2
    return tid, f"https://fake.slack.com/archives/D1/p{ts.replace('.', '')}"


async def _decisions(h: Harness) -> list[tuple[str, str | None, dict[str, object]]]:
    actions = await h.app.audit.recent_actions()
    return [(a.actor, a.target, a.outcome) for a in actions if a.action == "erase_thread"]


async def test_a_stranger_can_neither_ask_nor_confirm_erasing_someone_elses_thread(
    make_app: MakeApp,
) -> None:
    async with slack_harness(make_app) as h:
        tid, link = await _victims_dm(h)

        command = slash_command(f"forget {link}", h.slack.response_url(), user=STRANGER)
        status, body = await h.send_form(command)
        assert status == 200
        answer = json.loads(body)
        assert answer["text"] == ERASE_REFUSAL
        assert answer["response_type"] == "ephemeral"
        assert "blocks" not in answer

        # the button's payload, forged or replayed by the stranger
        click = block_action(FORGET_CONFIRM, tid, h.slack.response_url(2), user=STRANGER)
        await h.send_form(click)
        await h.until(lambda: bool(h.slack.responses), "the answer to the click")
        assert h.slack.responses[0]["text"] == ERASE_REFUSAL
        await h.settle()
        assert len(await h.app.history.load(tid)) == 2
        assert (await h.app.vault.mapping(tid)) != {}

        decisions = await _decisions(h)
        assert [(actor, target) for actor, target, _ in decisions] == [
            (f"slack:T1:{STRANGER}", tid),
            (f"slack:T1:{STRANGER}", tid),
        ]
        assert {o["allowed"] for _, _, o in decisions} == {False}
        assert {o["step"] for _, _, o in decisions} == {"request", "confirm"}


async def test_the_person_in_the_thread_and_an_admin_may_erase_it(make_app: MakeApp) -> None:
    async with slack_harness(make_app, admin_users=f"slack:T1:{ADMIN}") as h:
        tid, link = await _victims_dm(h)
        status, body = await h.send_form(
            slash_command(f"forget {link}", h.slack.response_url(), user=VICTIM)
        )
        assert json.loads(body)["blocks"][1]["elements"][0]["value"] == tid

        await h.send_form(block_action(FORGET_CONFIRM, tid, h.slack.response_url(2), user=ADMIN))
        await h.until(lambda: bool(h.slack.responses), "the answer to the click")
        assert h.slack.responses[0]["text"] == FORGET_DONE
        assert await h.app.history.load(tid) == []
        decisions = await _decisions(h)
        assert [(o["allowed"], o["as"]) for _, _, o in decisions] == [
            (True, "admin"),  # newest first
            (True, "participant"),
        ]
