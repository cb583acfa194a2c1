"""A long answer is restored off the event loop, and restored all the same."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from bot.core.conversation import OFF_LOOP_CHARS
from bot.core.ports import StreamRestorer
from bot.core.types import Restoration
from tests.e2e.conftest import MakeApp, conversation_with, message, unique_thread
from tests.fakes.anthropic_server import FakeAnthropic


class _Noted:
    """The real restorer, noting which thread fed it."""

    def __init__(self, real: StreamRestorer) -> None:
        self._real = real
        self.fed_on: set[int] = set()

    @property
    def placeholders(self) -> Any:
        return self._real.placeholders

    async def fetch(self, delta: str, *, end: bool = False) -> None:
        await self._real.fetch(delta, end=end)

    def feed(self, delta: str) -> str:
        self.fed_on.add(threading.get_ident())
        return self._real.feed(delta)

    def finish(self) -> Restoration:
        return self._real.finish()


class _Watched:
    """The app's guardrail, handing out noted restorers."""

    def __init__(self, real: Any) -> None:
        self._real = real
        self.restorers: list[_Noted] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    async def anonymize_turn(self, *args: Any, **kwargs: Any) -> Any:
        redaction, restorer = await self._real.anonymize_turn(*args, **kwargs)
        noted = _Noted(restorer)
        self.restorers.append(noted)
        return redaction, noted


@pytest.mark.parametrize("long", [False, True])
async def test_a_long_answer_is_restored_in_a_worker_thread(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, long: bool
) -> None:
    app = await make_app()
    guardrail = _Watched(app.guardrail)
    conversation = conversation_with(app, guardrail)
    msg = message("Please write to Maria Gonzalez about the refund.", unique_thread())
    line = "Dear <PERSON_1>, your refund is on its way.\n"
    answer = line * (OFF_LOOP_CHARS // len(line) + (1 if long else 0))
    assert (len(answer) > OFF_LOOP_CHARS) == long
    fake_anthropic.answer(answer)

    reply = await conversation.handle(msg)

    assert reply is not None
    assert reply.ok
    assert reply.text == answer.replace("<PERSON_1>", "Maria Gonzalez")
    (restorer,) = guardrail.restorers
    on_loop = restorer.fed_on == {threading.get_ident()}
    assert on_loop is not long
