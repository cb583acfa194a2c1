"""The event loop the commands run on (``VEILBOT_EVENT_LOOP``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from bot.config.settings import EventLoop

T = TypeVar("T")


def run(main: Coroutine[Any, Any, T], event_loop: EventLoop = "auto") -> T:
    """``asyncio.run(main)``, on uvloop when ``event_loop`` is ``auto`` and it is installed."""
    with asyncio.Runner(loop_factory=loop_factory(event_loop)) as runner:
        return runner.run(main)


def loop_factory(event_loop: EventLoop) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """What makes the loop: uvloop's for ``auto`` where installed, else ``None`` (asyncio's)."""
    if event_loop == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:  # not installed (Windows has no uvloop): asyncio's own loop
        return None
    return uvloop.new_event_loop
