"""The event loop the commands run on: uvloop where it is installed, else asyncio's own.

uvloop (libuv, in C) does a socket's read, write and wake-up for a fraction of the CPU of
asyncio's selector loop, and an ack, a Redis round trip and a model call are mostly that.
``VEILBOT_EVENT_LOOP`` chooses: ``auto`` (uvloop when importable: Linux and macOS wheels),
``uvloop`` (required; a clear error without it) or ``asyncio``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, Literal, TypeVar

from bot.core.errors import ConfigError

T = TypeVar("T")

LoopKind = Literal["auto", "uvloop", "asyncio"]


def loop_factory(kind: LoopKind = "auto") -> Callable[[], asyncio.AbstractEventLoop]:
    """How to make the event loop ``kind`` names."""
    if kind == "asyncio":
        return asyncio.new_event_loop
    try:
        import uvloop  # noqa: PLC0415  (optional: not every platform has a wheel)
    except ImportError as exc:
        if kind == "uvloop":
            raise ConfigError(
                "VEILBOT_EVENT_LOOP=uvloop but uvloop is not installed (pip install uvloop)"
            ) from exc
        return asyncio.new_event_loop
    return uvloop.new_event_loop


def run(main: Coroutine[Any, Any, T], kind: LoopKind = "auto") -> T:
    """``asyncio.run(main)`` on the loop ``kind`` names (same SIGINT and clean-up rules)."""
    try:
        factory = loop_factory(kind)
    except BaseException:
        main.close()
        raise
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main)
