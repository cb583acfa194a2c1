"""The cap on turns in flight must leave room in the Redis pool for each turn's two connections."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bot.config.settings import Settings


def test_turns_in_flight_fit_in_half_the_redis_pool() -> None:
    settings = Settings(redis_max_connections=40, max_turns_in_flight=20)
    assert (settings.redis_max_connections, settings.max_turns_in_flight) == (40, 20)
    assert 2 * Settings().max_turns_in_flight <= Settings().redis_max_connections


def test_more_turns_in_flight_than_the_pool_can_serve_is_refused_by_name() -> None:
    with pytest.raises(ValidationError, match="VEILBOT_MAX_TURNS_IN_FLIGHT"):
        Settings(redis_max_connections=40, max_turns_in_flight=21)


def test_a_smaller_pool_lowers_the_default_cap_with_it() -> None:
    assert Settings(redis_max_connections=20).max_turns_in_flight == 10
