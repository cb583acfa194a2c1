"""``AckGate``: turns wait while a burst of deliveries is being acked, and never for ever."""

from __future__ import annotations

import asyncio
import time

import pytest

from bot.state.acks import QUIET_SECONDS, AckGate


async def test_a_turn_waits_through_the_gap_between_two_waves_of_acks() -> None:
    gate, stop = AckGate(most_seconds=60.0), asyncio.Event()
    with gate.acking():  # the first wave
        pass
    turn = asyncio.create_task(gate.wait(stop))
    with gate.acking():  # the next wave comes before the quiet time is over
        await asyncio.sleep(0)
        assert not turn.done()
    last_ack_done = time.monotonic()
    await turn
    assert time.monotonic() - last_ack_done >= QUIET_SECONDS


async def test_a_turn_waits_at_most_the_bound_while_acks_never_end() -> None:
    gate, stop = AckGate(most_seconds=0.3), asyncio.Event()
    with gate.acking():
        began = time.monotonic()
        await gate.wait(stop)
        assert time.monotonic() - began >= 0.3
        assert gate.under_way == 1


async def test_a_stop_ends_the_wait_and_no_acks_means_no_wait() -> None:
    gate, stop = AckGate(most_seconds=600.0), asyncio.Event()
    await asyncio.wait_for(gate.wait(stop), 5)  # nothing acked yet
    with gate.acking():
        turn = asyncio.create_task(gate.wait(stop))
        await asyncio.sleep(0)
        stop.set()
        await asyncio.wait_for(turn, 5)  # long before the 600 s


def test_the_bound_is_not_negative() -> None:
    with pytest.raises(ValueError, match="negative"):
        AckGate(most_seconds=-1)
