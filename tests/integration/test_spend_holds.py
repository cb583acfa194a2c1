"""Budget holds in a real Redis: held before a model call, settled after, lapsed when lost.

``RedisSpendLedger.reserve`` holds a turn's most possible cost against its budgets;
``charge`` replaces the hold with the real cost; a hold nobody settles (its process died)
lapses after the ledger's hold time, measured by the Redis server's clock.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator

import pytest

from bot.core.budgets import Budgets, Hold, OverBudget
from bot.core.keys import KeySpace
from bot.core.types import InboundMessage, thread_id
from bot.state.budgets import RedisSpendLedger
from bot.state.client import RedisClient, open_redis

pytestmark = pytest.mark.redis_cluster

LIMIT = 1.0


def message(workspace: str) -> InboundMessage:
    channel = "C1"
    return InboundMessage(
        thread_id=thread_id("slack", workspace, channel, "1700000000.000100"),
        platform="slack",
        workspace=workspace,
        channel=channel,
        user_id="U1",
        message_id="1700000000.000100",
        text="",
    )


@pytest.fixture
async def client(redis_url: str) -> AsyncIterator[RedisClient]:
    made = open_redis(redis_url, timeout=2)
    try:
        yield made
    finally:
        await made.aclose()


def ledger(client: RedisClient, prefix: str, hold_seconds: float = 60) -> RedisSpendLedger:
    budgets = Budgets(defaults={"workspace": LIMIT})
    return RedisSpendLedger(client, KeySpace(prefix), budgets, hold_seconds=hold_seconds)


def workspace() -> str:
    return f"T{uuid.uuid4().hex[:8].upper()}"


async def spent(ledger: RedisSpendLedger, workspace: str) -> float:
    (state,) = await ledger.states([ledger.budgets.ref("workspace", f"slack:{workspace}")])
    return state.spent_usd


async def test_holds_of_turns_in_flight_count_against_the_budget(
    client: RedisClient, redis_prefix: str
) -> None:
    spend, team = ledger(client, redis_prefix), workspace()
    first = await spend.reserve(message(team), "run-1", 0.6)
    second = await spend.reserve(message(team), "run-2", 0.6)  # 0.6 held: still below $1
    third = await spend.reserve(message(team), "run-3", 0.01)  # 1.2 held: spent

    assert isinstance(first, Hold)
    assert isinstance(second, Hold)
    assert isinstance(third, OverBudget)
    assert third.budget.kind == "workspace"
    assert third.limit_usd == LIMIT


async def test_settling_replaces_the_hold_with_the_real_cost(
    client: RedisClient, redis_prefix: str
) -> None:
    spend, team = ledger(client, redis_prefix), workspace()
    hold = await spend.reserve(message(team), "run-1", 0.9)
    assert isinstance(hold, Hold)
    assert isinstance(await spend.reserve(message(team), "run-2", 0.2), Hold)  # 0.9 < 1

    await spend.charge(message(team), 0.05, hold)

    assert await spent(spend, team) == pytest.approx(0.05)
    # The other turn's 0.2 is still held: 0.25 of the dollar is taken, 0.75 is not.
    assert isinstance(await spend.reserve(message(team), "run-3", 0.7), Hold)


async def test_a_hold_given_back_with_no_cost_frees_the_budget(
    client: RedisClient, redis_prefix: str
) -> None:
    spend, team = ledger(client, redis_prefix), workspace()
    hold = await spend.reserve(message(team), "run-1", 5.0)
    assert isinstance(hold, Hold)
    assert isinstance(await spend.reserve(message(team), "run-2", 0.1), OverBudget)

    await spend.charge(message(team), 0.0, hold)  # the model call failed: nothing to pay

    assert await spent(spend, team) == 0
    assert isinstance(await spend.reserve(message(team), "run-2", 0.1), Hold)


async def test_a_hold_nobody_settles_lapses(client: RedisClient, redis_prefix: str) -> None:
    """A turn whose process died never settles; its hold must not block the budget for good."""
    spend, team = ledger(client, redis_prefix, hold_seconds=0.3), workspace()
    assert isinstance(await spend.reserve(message(team), "run-dead", 5.0), Hold)
    assert isinstance(await spend.reserve(message(team), "run-2", 0.1), OverBudget)

    deadline = time.monotonic() + 10
    while isinstance(await spend.reserve(message(team), "run-2", 0.1), OverBudget):
        assert time.monotonic() < deadline, "the dead turn's hold never lapsed"
        await asyncio.sleep(0.05)
    assert await spent(spend, team) == 0
