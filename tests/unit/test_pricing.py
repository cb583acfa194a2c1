"""Model prices and the cost of a call."""

from __future__ import annotations

import logging

import pytest

from bot.core.types import Usage
from bot.model import pricing
from bot.model.pricing import Price, cost_usd, price_for

MILLION = Usage(input_tokens=1_000_000)


@pytest.mark.parametrize(
    ("model", "price"),
    [
        ("claude-opus-4-5", Price(5, 25)),
        ("claude-opus-4-6", Price(5, 25)),
        ("claude-opus-4-7", Price(5, 25)),
        ("claude-opus-4-8", Price(5, 25)),
        ("claude-opus-4-5-20251101", Price(5, 25)),
        ("claude-sonnet-4-6", Price(3, 15)),
        ("claude-sonnet-4-5-20250929", Price(3, 15)),
        ("claude-sonnet-4-20250514", Price(3, 15)),
        ("claude-haiku-4-5", Price(1, 5)),
        ("claude-haiku-4-5-20251001", Price(1, 5)),
        ("claude-opus-4-1", Price(15, 75)),
        ("claude-opus-4-1-20250805", Price(15, 75)),
        ("claude-opus-4-0", Price(15, 75)),
        ("claude-opus-4-20250514", Price(15, 75)),
    ],
)
def test_known_models(model, price):
    assert price_for(model) == price


@pytest.mark.parametrize(
    "model", ["echo", "gpt-4o", "claude-opus-4-9", "claude-haiku-4-6", "claude-sonnet-4-6x", ""]
)
def test_unknown_models_have_no_price(model):
    assert price_for(model) is None


def test_cost_of_every_token_kind():
    usage = Usage(
        input_tokens=1_000_000,
        output_tokens=1_000_000,
        cache_write_tokens=1_000_000,
        cache_read_tokens=1_000_000,
    )
    assert cost_usd("claude-sonnet-4-6", usage) == pytest.approx(3 + 15 + 3.75 + 0.3)
    assert cost_usd("claude-haiku-4-5-20251001", usage) == pytest.approx(1 + 5 + 1.25 + 0.1)
    assert cost_usd("claude-opus-4-1", Usage(output_tokens=2000)) == pytest.approx(0.15)


def test_zero_usage_costs_nothing():
    assert cost_usd("claude-opus-4-7", Usage()) == 0.0


def test_unknown_model_warns_once(caplog, monkeypatch):
    monkeypatch.setattr(pricing, "_warned", set())
    with caplog.at_level(logging.WARNING, logger="bot.model.pricing"):
        assert cost_usd("mystery-model", MILLION) is None
        assert cost_usd("mystery-model", MILLION) is None
        assert cost_usd("other-model", MILLION) is None
    messages = [r.getMessage() for r in caplog.records]
    assert messages == [
        "no price known for model mystery-model; cost not recorded",
        "no price known for model other-model; cost not recorded",
    ]


def test_the_most_a_call_can_cost_prices_all_input_as_cache_writes_and_every_output_token() -> None:
    most = pricing.Pricing("anthropic").max_cost("claude-sonnet-4-6", 1_000_000, 1_000_000)
    assert most == pytest.approx(3 * 1.25 + 15)
    regional = pricing.Pricing("vertex", region="europe-west1")
    assert regional.max_cost("claude-sonnet-4-6@20250929", 0, 1_000_000) == pytest.approx(16.5)
    assert pricing.Pricing("openai").max_cost("llama3.1:8b", 10**6, 10**6) == 0.0
