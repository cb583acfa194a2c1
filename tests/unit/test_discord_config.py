"""Discord settings and platform selection: fail fast, naming the variable."""

from __future__ import annotations

import pytest

from bot.config.settings import Settings
from bot.config.settings import load_settings as _load
from bot.core.errors import ConfigError
from bot.platforms import select_platforms


@pytest.fixture(autouse=True)
def _no_discord_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TOKEN", "SHARD_COUNT", "SHARD_IDS", "SHARD_POD", "REPLY_MODE"):
        monkeypatch.delenv(f"VEILBOT_DISCORD_{name}", raising=False)


def load_settings(**overrides: object) -> Settings:
    """Settings from these values only (no .env file of the developer's)."""
    return _load(_env_file=None, **overrides)


def test_shard_ids_are_read_from_a_comma_list() -> None:
    settings = load_settings(discord_shard_count=4, discord_shard_ids="2, 3")
    assert settings.discord_shard_ids == [2, 3]


def test_a_statefulset_pod_runs_the_shard_of_its_ordinal() -> None:
    settings = load_settings(discord_shard_count=3, discord_shard_pod="veilbot-discord-2")
    assert settings.discord_shard_count == 3
    assert settings.discord_shard_ids == [2]


@pytest.mark.parametrize(
    ("overrides", "variable"),
    [
        ({"discord_shard_ids": "0"}, "VEILBOT_DISCORD_SHARD_COUNT"),
        ({"discord_shard_count": 2, "discord_shard_ids": "2"}, "VEILBOT_DISCORD_SHARD_IDS"),
        ({"discord_shard_count": 2, "discord_shard_pod": "veilbot-discord-2"}, "SHARD_POD"),
        ({"discord_shard_count": 2, "discord_shard_pod": "veilbot-discord"}, "SHARD_POD"),
        (
            {"discord_shard_count": 2, "discord_shard_pod": "bot-1", "discord_shard_ids": "1"},
            "VEILBOT_DISCORD_SHARD_POD or VEILBOT_DISCORD_SHARD_IDS",
        ),
        ({"discord_shard_pod": "veilbot-discord-0"}, "VEILBOT_DISCORD_SHARD_COUNT"),
        ({"discord_token": "changeme"}, "VEILBOT_DISCORD_TOKEN"),
        ({"discord_reply_mode": "dm"}, "VEILBOT_DISCORD_REPLY_MODE"),
    ],
)
def test_bad_discord_settings_name_the_variable(
    overrides: dict[str, object], variable: str
) -> None:
    with pytest.raises(ConfigError, match=variable):
        load_settings(**overrides)


def test_run_without_a_name_runs_every_configured_platform() -> None:
    assert select_platforms(load_settings(discord_token="t0k3n")) == ["discord"]


def test_run_fails_fast_when_nothing_is_configured_or_a_token_is_missing() -> None:
    with pytest.raises(ConfigError, match="VEILBOT_DISCORD_TOKEN"):
        select_platforms(load_settings())
    with pytest.raises(ConfigError, match="VEILBOT_DISCORD_TOKEN is not set"):
        select_platforms(load_settings(), ["discord"])
    with pytest.raises(ConfigError, match="unknown platform"):
        select_platforms(load_settings(discord_token="t0k3n"), ["irc"])
