"""Model prices and the cost of one call, in US dollars.

Prices are per million tokens. Cache writes (5-minute ephemeral cache) cost 1.25x the input
price and cache reads 0.1x, as Anthropic bills them. Dated model ids
(``claude-haiku-4-5-20251001``) are priced like their family.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from bot.core.types import Usage

logger = logging.getLogger(__name__)

CACHE_WRITE_FACTOR = 1.25
CACHE_READ_FACTOR = 0.1
_PER_TOKEN = 1_000_000


@dataclass(frozen=True, slots=True)
class Price:
    """USD per million tokens of one model family.

    Attributes:
        input: price of uncached input tokens.
        output: price of output tokens.
    """

    input: float
    output: float

    @property
    def cache_write(self) -> float:
        """Price of input tokens written to the prompt cache."""
        return self.input * CACHE_WRITE_FACTOR

    @property
    def cache_read(self) -> float:
        """Price of input tokens read from the prompt cache."""
        return self.input * CACHE_READ_FACTOR


_DATE = r"(?:-\d{8})?"
PRICES: tuple[tuple[re.Pattern[str], Price], ...] = (
    (re.compile(rf"claude-opus-4-[5-8]{_DATE}"), Price(5.0, 25.0)),
    (re.compile(rf"claude-opus-4(?:-[01])?{_DATE}"), Price(15.0, 75.0)),
    (re.compile(rf"claude-sonnet-4(?:-\d)?{_DATE}"), Price(3.0, 15.0)),
    (re.compile(rf"claude-haiku-4-5{_DATE}"), Price(1.0, 5.0)),
)
"""Model id patterns (full match) and their prices; the first match wins."""

_warned: set[str] = set()


def price_for(model: str) -> Price | None:
    """The price of a model id, or ``None`` when the model is not in the table."""
    for pattern, price in PRICES:
        if pattern.fullmatch(model):
            return price
    return None


def cost_usd(model: str, usage: Usage) -> float | None:
    """The cost of one call.

    Args:
        model: the model id the call used (dated ids are fine).
        usage: the call's token counts.

    Returns:
        The cost in US dollars, or ``None`` for a model without a known price (a warning is
        logged once per model name).
    """
    price = price_for(model)
    if price is None:
        if model not in _warned:
            _warned.add(model)
            logger.warning("no price known for model %s; cost not recorded", model)
        return None
    total = (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_write_tokens * price.cache_write
        + usage.cache_read_tokens * price.cache_read
    )
    return total / _PER_TOKEN
