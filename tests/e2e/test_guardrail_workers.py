"""Guardrail worker processes killed (as by the OOM killer) are replaced: the service recovers."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time

from bot.core.types import TurnStatus
from tests.e2e.conftest import MakeApp, message, unique_thread


async def test_turns_and_readiness_recover_after_the_guardrail_workers_are_killed(
    make_app: MakeApp,
) -> None:
    app = await make_app(guardrail_workers=2)
    thread = unique_thread()
    workers = multiprocessing.active_children()
    assert len(workers) == 2
    for worker in workers:
        os.kill(worker.pid, signal.SIGKILL)  # type: ignore[arg-type]

    deadline = time.monotonic() + 90
    refused = 0
    while True:
        reply = await app.conversation.handle(message("I'm Maria Gonzalez", thread))
        assert reply is not None
        if reply.ok:
            break
        # Failed closed, and the user is told so.
        assert reply.status is TurnStatus.GUARDRAIL_ERROR
        assert "didn't send it" in reply.text
        refused += 1
        assert time.monotonic() < deadline, "the guardrail never recovered"
    assert refused <= 1
    assert "Maria Gonzalez" in reply.text
    assert (await app.readiness())["guardrail"]
