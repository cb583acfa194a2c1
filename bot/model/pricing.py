"""Model prices and the cost of one call, in US dollars, per provider.

Prices are per million tokens. Cache writes (5-minute ephemeral cache) cost 1.25x the input
price and cache reads 0.1x, as Anthropic bills them. Dated model ids
(``claude-haiku-4-5-20251001``) are priced like their family.

Claude costs the same list price on Anthropic's API, Amazon Bedrock and Google Vertex AI;
``Pricing`` reads each provider's model ids (``us.anthropic.claude-sonnet-4-5-20250929-v1:0``,
``claude-sonnet-4-5@20250929``) as the family they name. From the 4.5 generation on, both
clouds charge 10% more on regional endpoints than on the global one: Bedrock ids without the
``global.`` inference-profile prefix, Vertex regions other than ``global``. Self-hosted
models behind the OpenAI-compatible client have no list price: they count as 0 (and the
audit says so) unless the operator configures a price.
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
    (re.compile(rf"claude-3-7-sonnet{_DATE}"), Price(3.0, 15.0)),
    (re.compile(rf"claude-3-5-haiku{_DATE}"), Price(0.8, 4.0)),
    (re.compile(rf"claude-3-haiku{_DATE}"), Price(0.25, 1.25)),
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
    return _cost(price, usage)


def _cost(price: Price, usage: Usage, factor: float = 1.0) -> float:
    total = (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_write_tokens * price.cache_write
        + usage.cache_read_tokens * price.cache_read
    )
    return total * factor / _PER_TOKEN


REGIONAL_PREMIUM = 1.10
"""Bedrock and Vertex: regional endpoints cost 10% more than global ones (4.5 models on)."""

_PREMIUM_FAMILIES = re.compile(r"claude-(?:opus|sonnet|haiku)-(?:4-(?:[5-9]|\d\d)|[5-9])(?:-.*)?")
_BEDROCK_ARN = re.compile(r"arn:aws[a-z-]*:bedrock:[^:]*:[^:]*:[a-z-]+/")
_BEDROCK_GEO = re.compile(r"(global|us|us-gov|eu|apac|jp|au|ca)\.")
_BEDROCK_VERSION = re.compile(r"-v\d+(?::\d+)?$")

NOTE_LIST = "list price"
NOTE_REGIONAL = "list price, regional endpoint +10%"
NOTE_CONFIGURED = "configured price"
NOTE_UNKNOWN = "no price known"
NOTE_SELF_HOSTED = "no price known: counted as 0 (self-hosted)"


def claude_model(provider: str, model: str) -> tuple[str, bool]:
    """The Anthropic model id a provider's id names, and whether it is a global endpoint.

    ``us.anthropic.claude-sonnet-4-5-20250929-v1:0`` (Bedrock) and ``claude-sonnet-4-5@20250929``
    (Vertex) both name ``claude-sonnet-4-5-20250929``. For Vertex the endpoint is global
    when the region is (see ``Pricing``); this returns ``False`` for it.
    """
    if provider == "bedrock":
        name = _BEDROCK_ARN.sub("", model, count=1)
        geo = _BEDROCK_GEO.match(name)
        name = name[geo.end() :] if geo else name
        name = _BEDROCK_VERSION.sub("", name.removeprefix("anthropic."))
        return name, bool(geo and geo.group(1) == "global")
    if provider == "vertex":
        return model.replace("@", "-", 1), False
    return model, True


@dataclass(frozen=True, slots=True)
class Pricing:
    """How one provider's calls are priced.

    Attributes:
        provider: ``anthropic``, ``bedrock``, ``vertex`` or ``openai``.
        region: the Vertex region (``global`` or a regional endpoint); unused elsewhere.
        configured: a price set by the operator; it wins over the list prices.
    """

    provider: str = "anthropic"
    region: str | None = None
    configured: Price | None = None

    def cost(self, model: str, usage: Usage) -> tuple[float | None, str]:
        """The cost of one call and how it was priced (a note for the audit record).

        Returns:
            ``(cost, note)``: the cost in US dollars, ``None`` for a Claude model without a
            known price, 0 for a self-hosted model without a configured price.
        """
        if self.configured is not None:
            return _cost(self.configured, usage), NOTE_CONFIGURED
        if self.provider == "openai":
            return 0.0, NOTE_SELF_HOSTED
        name, is_global = claude_model(self.provider, model)
        if self.provider == "vertex":
            is_global = self.region == "global"
        price = price_for(name)
        if price is None:
            return cost_usd(name, usage), NOTE_UNKNOWN  # logs the missing price once
        if not is_global and _PREMIUM_FAMILIES.fullmatch(name):
            return _cost(price, usage, REGIONAL_PREMIUM), NOTE_REGIONAL
        return _cost(price, usage), NOTE_LIST

    def max_cost(self, model: str, input_tokens: int, output_tokens: int) -> float | None:
        """The most a call of at most these token counts can cost (its budget hold).

        Every input token is priced as a prompt-cache write, the dearest way input is billed.
        """
        usage = Usage(cache_write_tokens=input_tokens, output_tokens=output_tokens)
        return self.cost(model, usage)[0]
