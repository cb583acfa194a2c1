"""``bot.cli.stopping``: a stop signal is an event that stays set, not a one-off cancellation."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator

import pytest

from bot.cli.stopping import StopSignals


@pytest.fixture
def stopping() -> Iterator[list[StopSignals]]:
    made: list[StopSignals] = []
    yield made
    for stop in made:  # the watchdog would end the test process later
        if stop.watchdog is not None:
            stop.watchdog.cancel()


async def swallow_one_cancellation(entered: asyncio.Event) -> None:
    """Start-up code that loses a cancellation (as ``asyncio.wait_for`` can in 3.11)."""
    entered.set()
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        current = asyncio.current_task()
        assert current is not None
        current.uncancel()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_a_stop_during_start_up_survives_a_swallowed_cancellation(
    stopping: list[StopSignals], signum: signal.Signals
) -> None:
    with StopSignals(grace_seconds=600) as stop:
        stopping.append(stop)
        entered = asyncio.Event()
        starting = asyncio.create_task(swallow_one_cancellation(entered))
        await entered.wait()
        stop._main = starting  # the task that starts the service
        os.kill(os.getpid(), signum)
        await starting  # start-up "finished" regardless of the cancellation
        assert stop.requested.is_set()  # so the service stops right after it
        assert stop.startup_cancelled
        assert stop.watchdog is not None
        assert stop.watchdog.is_alive()


async def test_a_stop_while_serving_asks_for_a_drain_and_cancels_nothing(
    stopping: list[StopSignals],
) -> None:
    with StopSignals(grace_seconds=600) as stop:
        stopping.append(stop)
        stop.serving()
        os.kill(os.getpid(), signal.SIGTERM)
        await asyncio.wait_for(stop.requested.wait(), 10)
        assert not stop.startup_cancelled
        assert stop.signal_name == "SIGTERM"
