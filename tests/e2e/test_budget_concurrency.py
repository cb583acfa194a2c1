"""Budgets under concurrency: spend is held before the model call and settled after it.

Fifty turns of one workspace start together against the fake Anthropic server, which holds
every answer until the test lets them go, so every turn that gets through is in flight at
once. Real Redis keeps the spend; the cost of each answer is priced from the fake's usage
as in production.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.audit.budgets import month_spend
from bot.config.settings import load_settings
from bot.core.budgets import month_start, next_month
from bot.core.types import ChatMessage, ModelRequest, Reply, TurnStatus
from bot.model.prompt import build_system_prompt
from tests.e2e.conftest import MakeApp, message, unique_thread
from tests.fakes.anthropic_server import FakeAnthropic, Outage
from tests.fixtures.processes import until

LIMIT_USD = 20.0
SPENT_USD = 19.01
TURNS = 50
MAX_TOKENS = 4096
QUESTION = "what is the capital of France?"


async def test_fifty_concurrent_turns_overshoot_a_budget_by_at_most_one_turns_maximum_cost(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    path = tmp_path / "veilbot.toml"
    path.write_text(f"[budgets]\nworkspace_usd = {LIMIT_USD}\n", encoding="utf-8")
    budgets = load_settings(config_file=path, _env_file=None).budgets
    app = await make_app(
        budgets=budgets,
        max_tokens=MAX_TOKENS,
        max_turns_in_flight=TURNS + 8,
        redis_max_connections=4 * TURNS,
    )
    await app.ledger.rebuild({("workspace", "console:local"): SPENT_USD}, {})
    fake_anthropic.usage = {"output_tokens": MAX_TOKENS}  # every answer as long as it may be
    fake_anthropic.hold()
    try:
        turns = [
            asyncio.ensure_future(app.conversation.handle(message(QUESTION, unique_thread())))
            for _ in range(TURNS)
        ]
        # Every turn is either at the model (held there) or answered already (refused).
        await until(
            lambda: len(fake_anthropic.requests) + sum(t.done() for t in turns) >= TURNS,
            "every turn at the model or refused",
        )
    finally:
        fake_anthropic.release()
    replies: list[Reply | None] = list(await asyncio.gather(*turns))

    statuses = [r.status for r in replies if r is not None]
    answered = statuses.count(TurnStatus.OK)
    assert 0 < answered < TURNS
    assert statuses.count(TurnStatus.OVER_BUDGET) == TURNS - answered
    one_turn = app.model.max_cost(
        ModelRequest(system=build_system_prompt(), messages=(ChatMessage("user", QUESTION),))
    )
    assert one_turn is not None
    (state,) = await app.ledger.states([app.ledger.budgets.ref("workspace", "console:local")])
    assert state.spent_usd <= LIMIT_USD + one_turn
    # Settled with the real costs: what Redis holds is what the answers cost, nothing held.
    now = app.ledger.clock()
    costs = await month_spend(app.audit.engine, month_start(now), next_month(now))
    real = costs[("workspace", "console:local")]
    assert state.spent_usd == pytest.approx(SPENT_USD + real, abs=1e-5)


async def test_a_turn_whose_model_call_fails_gives_its_hold_back(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    path = tmp_path / "veilbot.toml"
    path.write_text("[budgets]\nworkspace_usd = 1\n", encoding="utf-8")
    budgets = load_settings(config_file=path, _env_file=None).budgets
    app = await make_app(budgets=budgets, max_tokens=MAX_TOKENS)
    # $0.05 left: a turn's hold (about $0.065) fits once, and only while no other is held.
    await app.ledger.rebuild({("workspace", "console:local"): 0.95}, {})
    fake_anthropic.fail_as(Outage.SERVER_ERROR)

    failed = await app.conversation.handle(message(QUESTION, unique_thread()))
    answered = await app.conversation.handle(message(QUESTION, unique_thread()))

    assert failed is not None
    assert failed.status is TurnStatus.MODEL_ERROR
    assert answered is not None
    assert answered.status is TurnStatus.OK
