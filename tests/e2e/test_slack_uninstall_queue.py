"""An uninstall drops the workspace's queued turns at once, and stops the one already running.

``veilbot run``'s own server in Slack OAuth mode with the real queue on real Redis, real
slack-bolt, the fake Slack and the fake model. A workspace's thread is kept busy (its lock
held) while two mentions wait: the first in a worker, at the thread's lock, the second in the
queue behind it. ``app_uninstalled`` (or ``tokens_revoked``) arrives; then the lock is let
go. Neither turn may reach the model or post; both are audited ``dropped`` with ids only;
nothing of the workspace stays in Redis; the other workspace is answered as before.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bot.audit.types import RunFilter
from bot.core.types import ThreadId, TurnStatus, queued_run_id
from tests.e2e.conftest import MakeApp, audit_rows, message, unique_thread
from tests.e2e.test_budgets import budgets_from
from tests.e2e.test_slack_oauth_service import (
    TEAM_A,
    TEAM_B,
    UNINSTALLS,
    _posted,
    install,
    installed,
    mention,
    oauth_settings,
    posts_by_team,
    send,
    serving,
    sql_dump,
    team_keys,
    until,
)
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.slack_payloads import envelope, new_ts
from tests.fakes.slack_server import FakeSlack

NAME, MAIL, PHONE = "Ann Lee", "ann.lee@example.org", "+1 415 555 0132"

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("kind", list(UNINSTALLS))
async def test_an_uninstall_drops_the_queued_turns_and_stops_the_one_in_a_worker(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, kind: str
) -> None:
    async with FakeSlack() as slack:
        app = await make_app(**oauth_settings(slack))
        assert app.queue is not None
        async with serving(app) as (service, session):
            for team in (TEAM_A, TEAM_B):
                assert (await install(service, session, slack, team))[0] == 200
            first, second = new_ts(), new_ts()
            thread = ThreadId(f"slack:{TEAM_A}:C1:{first}")
            later = mention(TEAM_A, f"And call me at {PHONE}", ts=second)
            later["event"]["thread_ts"] = first
            asked = len(fake_anthropic.requests)

            async with app.locks.hold(thread):  # the thread is busy: its turns wait
                said = f"I'm {NAME}, write to {MAIL}"
                assert await send(service, session, mention(TEAM_A, said, ts=first)) == 200
                assert await send(service, session, later) == 200

                async def waiting() -> bool:  # a worker holds the first, at the thread's lock
                    return app.locks.queued(thread) == 2

                await until(waiting, "the first turn waiting for the thread")
                uninstall = envelope({**UNINSTALLS[kind], "event_ts": new_ts()}, team=TEAM_A)
                assert await send(service, session, uninstall) == 200

                async def erased() -> bool:
                    runs = await app.audit.count_runs(RunFilter(workspace=TEAM_A))
                    return await installed(app) == [TEAM_B] and runs == 2

                await until(erased, "workspace A erased, its two turns audited")
                payloads = await app.redis.hkeys(app.keys.queue("payloads"))
                assert payloads == []  # both sealed texts are gone at once

            assert await app.queue.idle(30)  # the worker went on past the lock: withdrawn
            assert len(fake_anthropic.requests) == asked  # the model saw neither turn
            assert not posts_by_team(slack).get(TEAM_A)  # nothing was posted in workspace A
            runs = (await app.audit.list_runs(RunFilter(workspace=TEAM_A), limit=10)).runs
            expected = {queued_run_id(f"slack:{TEAM_A}:C1:{ts}") for ts in (first, second)}
            assert {r.run_id for r in runs} == expected
            assert {(r.status, r.thread_id) for r in runs} == {(TurnStatus.DROPPED, thread)}
            actions = await app.audit.recent_actions()
            [action] = [a for a in actions if a.action == "erase_workspace"]
            assert action.outcome["queued_dropped"] == 2
            stored = await sql_dump(app)
            assert not [v for v in (NAME, MAIL, PHONE) if v in stored]
            assert not await team_keys(app, TEAM_A)  # the vault the stopped turn placed went too

            # the other workspace is answered as before
            assert await send(service, session, mention(TEAM_B, "hello", ts=new_ts())) == 200
            await until(lambda: _posted(slack, TEAM_B), "workspace B's answer")
            assert len(fake_anthropic.requests) == asked + 1


async def test_a_turn_withdrawn_while_the_model_answers_keeps_and_posts_nothing(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    # What a queued turn's worker sees when the uninstall lands during the model call: still
    # queued when asked before the call, withdrawn when asked before the answer is stored.
    app = await make_app(**budgets_from(tmp_path))
    answers = iter([False, True])

    async def withdrawn() -> bool:
        return next(answers)

    thread = unique_thread()
    turn = replace(message(f"I'm {NAME}, write to {MAIL}", thread), withdrawn=withdrawn)
    asked = len(fake_anthropic.requests)
    assert await app.conversation.handle(turn) is None  # nothing for the adapter to post
    assert len(fake_anthropic.requests) == asked + 1  # it had asked already
    assert not await app.conversation.knows_thread(turn.thread_id)  # no history kept
    assert not [k for k in app.keys.thread_keys(turn.thread_id) if await app.redis.exists(k)]
    [row] = await audit_rows(app, thread)
    assert row["status"] == "dropped"
    assert row["input_tokens"] > 0  # what the call cost is in the audit
    assert NAME not in str(row)
    assert await app.ledger.known() == []  # no spend kept for a workspace being erased
