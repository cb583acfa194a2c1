"""``ThrottledLog``: one line per key a minute, and a bounded memory of keys."""

from __future__ import annotations

import logging

import pytest

from bot.core.logsafe import OTHER_KEYS, ThrottledLog

log = logging.getLogger("tests.throttled")


def lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == log.name]


def test_a_key_is_logged_once_an_interval(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    throttled = ThrottledLog(log, "refused")
    for _ in range(100):
        throttled.warning("10.0.0.1", "LineTooLong")
    assert lines(caplog) == ["refused: 10.0.0.1 LineTooLong"]


def test_keys_from_the_network_are_remembered_up_to_a_bound(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A flood from many addresses must neither grow the memory nor the log without end."""
    caplog.set_level(logging.WARNING)
    throttled = ThrottledLog(log, "refused", max_keys=3)
    for n in range(1000):
        throttled.warning(f"10.0.{n // 256}.{n % 256}")
    assert lines(caplog) == [
        "refused: 10.0.0.0",
        "refused: 10.0.0.1",
        "refused: 10.0.0.2",
        f"refused: {OTHER_KEYS}",
    ]


def test_keys_not_logged_within_the_interval_make_room(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    throttled = ThrottledLog(log, "refused", interval=0.0, max_keys=2)
    for key in ("a", "b", "c", "d"):
        throttled.warning(key)
    assert lines(caplog) == ["refused: a", "refused: b", "refused: c", "refused: d"]
