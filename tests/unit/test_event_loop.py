"""``VEILBOT_EVENT_LOOP``: which event loop the commands run on."""

from __future__ import annotations

import asyncio
import sys

import pytest

from bot.cli.loop import run
from bot.core.errors import ConfigError


async def _loop_module() -> str:
    return type(asyncio.get_running_loop()).__module__


def test_auto_runs_on_uvloop_where_it_is_installed_and_asyncio_on_asyncio() -> None:
    pytest.importorskip("uvloop", reason="uvloop has no wheel for this platform")
    assert run(_loop_module(), "auto").startswith("uvloop")
    assert run(_loop_module(), "asyncio").startswith("asyncio")


def test_without_uvloop_auto_falls_back_and_uvloop_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # import uvloop raises ImportError
    assert run(_loop_module(), "auto").startswith("asyncio")
    main = _loop_module()
    with pytest.raises(ConfigError, match="VEILBOT_EVENT_LOOP=uvloop"):
        run(main, "uvloop")
    assert main.cr_frame is None  # closed: no "never awaited" warning
