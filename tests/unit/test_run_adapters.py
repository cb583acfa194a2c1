"""``veilbot run`` with several platforms: one adapter's failure ends the run as one error.

``main`` prints a ``VeilbotError`` as one line; an ``ExceptionGroup`` would print as a
traceback around the message. These stand-in adapters fail the ways real ones do.
"""

from __future__ import annotations

import asyncio

import pytest

from bot.core.errors import AdapterError
from bot.service import run_adapters


class Unreachable:
    name = "discord"

    async def run(self) -> None:
        raise AdapterError("cannot reach Discord (ClientConnectorError)")

    async def drain(self, timeout: float) -> None:  # noqa: ASYNC109
        return None


class FailsWhenStopped:
    """Serves until cancelled, then its SDK's clean-up fails (a closed session, say)."""

    name = "slack"

    async def run(self) -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            raise RuntimeError("Session is closed") from None

    async def drain(self, timeout: float) -> None:  # noqa: ASYNC109
        return None


async def test_a_failing_platform_beside_one_whose_clean_up_fails_is_one_error() -> None:
    with pytest.raises(AdapterError, match="cannot reach Discord") as raised:
        await run_adapters([Unreachable(), FailsWhenStopped()])
    assert raised.value.__suppress_context__


async def test_an_unexpected_sdk_error_is_one_adapter_error_naming_its_type() -> None:
    class Broken(FailsWhenStopped):
        async def run(self) -> None:
            raise KeyError("x")

    with pytest.raises(AdapterError, match="a platform adapter failed: KeyError"):
        await run_adapters([Broken()])
