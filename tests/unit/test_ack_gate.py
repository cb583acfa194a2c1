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


class Work:
    """Running work that records when it was paused and resumed (loop time)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, float]] = []
        self.resumed = asyncio.Event()

    def pause(self) -> None:
        self.calls.append(("pause", asyncio.get_running_loop().time()))
        self.resumed.clear()

    def resume(self) -> None:
        self.calls.append(("resume", asyncio.get_running_loop().time()))
        self.resumed.set()

    @property
    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.calls]


async def test_running_work_is_paused_for_a_burst_and_resumed_once_it_is_over() -> None:
    work = Work()
    gate = AckGate(most_seconds=60.0, yielding=[work])
    with gate.acking():
        assert gate.paused
        with gate.acking():  # a second ack of the same burst: still one pause
            pass
    assert work.kinds == ["pause"]
    last_ack_done = asyncio.get_running_loop().time()
    await asyncio.wait_for(work.resumed.wait(), 30)
    assert work.kinds == ["pause", "resume"]
    assert not gate.paused
    assert work.calls[-1][1] - last_ack_done >= QUIET_SECONDS  # not in the gap between waves


async def test_work_is_paused_at_most_the_bound_and_then_runs_at_least_as_long() -> None:
    work = Work()
    gate = AckGate(most_seconds=0.2, yielding=[work])
    with gate.acking():  # acks that never end
        await asyncio.wait_for(work.resumed.wait(), 30)
        (_, paused), (_, resumed) = work.calls
        assert resumed - paused >= 0.2
        with gate.acking():  # the next delivery, right after: the work runs on
            assert not gate.paused
    assert work.kinds == ["pause", "resume"]
    while asyncio.get_running_loop().time() < resumed + (resumed - paused):
        await asyncio.sleep(0.01)  # the loop's clock, not a synchronization
    with gate.acking():  # a burst once it has run as long: paused again
        assert gate.paused
    gate.resume()
    assert work.kinds == ["pause", "resume", "pause", "resume"]


async def test_without_an_acks_first_bound_nothing_is_paused() -> None:
    work = Work()
    gate = AckGate(most_seconds=0, yielding=[work])
    with gate.acking():
        assert not gate.paused
    assert work.calls == []
