"""An offline model for use without credentials: it echoes the last user message.

``EchoModelClient`` implements ``bot.core.ports.ModelClient``; ``veilbot console`` answers with
it when no Anthropic API key is set, so the whole pipeline runs offline.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

from bot.core.types import ModelRequest, ModelResult, Usage
from bot.core.window import estimate_tokens, message_tokens

ECHO_PREFIX = "(offline echo model: set ANTHROPIC_API_KEY to talk to Claude) You said: "
_WORDS = re.compile(r"\s*\S+\s*|\s+")


class EchoModelClient:
    """An offline model for use without credentials: it echoes the last user message.

    Placeholders are kept verbatim, so the guardrail's restore is visible end to end.
    Usage is estimated with ``bot.core.window``; the cost is 0.
    """

    @property
    def model(self) -> str:
        """Always ``echo``."""
        return "echo"

    def _answer(self, request: ModelRequest) -> ModelResult:
        last_user = next((m.text for m in reversed(request.messages) if m.role == "user"), "")
        text = ECHO_PREFIX + last_user
        if request.images:  # shows that the painted images reached the model, not what is in them
            count = len(request.images)
            text += f"\n(and {count} redacted image{'s' if count > 1 else ''})"
        usage = Usage(
            input_tokens=estimate_tokens(request.system)
            + sum(message_tokens(m) for m in request.messages),
            output_tokens=estimate_tokens(text),
        )
        return ModelResult(
            text=text,
            model="echo",
            usage=usage,
            cost_usd=0.0,
            stop_reason="end_turn",
            provider="echo",
        )

    def takes_tools(self, request: ModelRequest) -> bool:
        """The echo model calls no tools."""
        return False

    def max_cost(self, request: ModelRequest) -> float:
        """Nothing: the echo model is free."""
        return 0.0

    async def complete(self, request: ModelRequest) -> ModelResult:
        """The echo answer at once."""
        return self._answer(request)

    def stream(self, request: ModelRequest) -> EchoStream:
        """The echo answer in word-sized deltas."""
        return EchoStream(self._answer(request))

    async def aclose(self) -> None:
        """Nothing to close."""


class EchoStream:
    """A finished answer replayed as word-sized deltas."""

    def __init__(self, result: ModelResult) -> None:
        self._result = result

    def __aiter__(self) -> AsyncIterator[str]:
        return self._deltas()

    async def _deltas(self) -> AsyncIterator[str]:
        for match in _WORDS.finditer(self._result.text):
            yield match.group(0)

    @property
    def result(self) -> ModelResult:
        """The whole answer (available at once)."""
        return self._result
