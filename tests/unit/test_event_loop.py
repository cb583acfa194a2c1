"""The event loop the commands run on: uvloop by default, asyncio's own when asked."""

import asyncio

from bot.cli import loop
from bot.config.settings import Settings


async def _running_loop() -> str:
    return type(asyncio.get_running_loop()).__module__.split(".")[0]


def test_commands_run_on_uvloop_by_default(monkeypatch) -> None:
    monkeypatch.delenv("VEILBOT_EVENT_LOOP", raising=False)
    assert loop.run(_running_loop(), Settings().event_loop) == "uvloop"


def test_the_setting_puts_them_on_asyncios_own_loop(monkeypatch) -> None:
    monkeypatch.setenv("VEILBOT_EVENT_LOOP", "asyncio")
    assert loop.run(_running_loop(), Settings().event_loop) == "asyncio"
