"""A queued turn run again after its worker died: the stored exchange is given, not asked again.

The three-replica test (``test_replicas.py``) found it: a replica killed after storing a turn's
exchange in the history but before posting the answer left the next worker to run the turn
again, so the question and an answer stood twice in the thread's history and every later turn
of the thread showed the model the question twice.
"""

from __future__ import annotations

import logging
from dataclasses import replace

import pytest

from tests.e2e.conftest import MakeApp, audit_rows, message, unique_thread
from tests.fakes.anthropic_server import FakeAnthropic


async def test_a_turn_run_again_gives_the_stored_answer_and_keeps_the_history_once(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    app = await make_app()
    thread = unique_thread()
    first = replace(message("Mail jane.roe@example.org please", thread), run_id="a" * 32)
    given = await app.conversation.handle(first)
    assert given is not None
    assert given.ok
    # the worker died before posting; the next one runs the same queue entry again
    again = await app.conversation.handle(replace(first, attempt=2))

    assert again is not None
    assert again.ok
    assert again.text == given.text
    assert "jane.roe@example.org" in again.text
    assert len(fake_anthropic.requests) == 1
    history = await app.history.load(first.thread_id)
    assert [m.role for m in history] == ["user", "assistant"]
    # a later message of the thread is asked with the exchange once
    later = await app.conversation.handle(message("and then?", thread))
    assert later is not None
    sent = fake_anthropic.requests[-1].body["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]


async def test_a_turn_run_again_keeps_one_audit_row_and_reports_no_failure(
    make_app: MakeApp, caplog: pytest.LogCaptureFixture
) -> None:
    app = await make_app()
    thread = unique_thread()
    first = replace(message("Ask Jane Doe about it", thread), run_id="d" * 32)
    caplog.set_level(logging.INFO)
    await app.conversation.handle(first)
    again = await app.conversation.handle(replace(first, attempt=2))

    assert again is not None
    assert again.ok
    rows = await audit_rows(app, thread)
    assert [(r["run_id"], r["status"]) for r in rows] == [("d" * 32, "ok")]
    assert "Jane Doe" not in rows[0]["prompt"]
    problems = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert problems == []
    assert any("earlier attempt kept run=" + "d" * 32 in r.getMessage() for r in caplog.records)


async def test_a_new_message_with_the_same_words_is_asked_again(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    app = await make_app()
    thread = unique_thread()
    await app.conversation.handle(replace(message("yes", thread), run_id="b" * 32))
    await app.conversation.handle(replace(message("yes", thread), run_id="c" * 32))
    assert len(fake_anthropic.requests) == 2
    assert len(await app.history.load(f"console:{thread}")) == 4  # type: ignore[arg-type]
