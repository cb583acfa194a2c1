"""Slack credentials are checked when the adapter starts; `veilbot run` picks platforms."""

from __future__ import annotations

import pytest

from adapters.slack.handler import SlackAdapter
from bot.cli.main import main
from bot.core.errors import ConfigError
from bot.http_server import HttpServer
from bot.service import select_platforms
from bot.settings import Settings


class _NoCore:
    """The adapter is never asked anything here: construction fails first."""


@pytest.mark.parametrize(
    ("values", "variable"),
    [
        ({}, "VEILBOT_SLACK_BOT_TOKEN"),
        ({"slack_bot_token": "xoxb-1"}, "VEILBOT_SLACK_SIGNING_SECRET"),
        ({"slack_bot_token": "xoxb-1", "slack_mode": "socket"}, "VEILBOT_SLACK_APP_TOKEN"),
    ],
)
def test_missing_credentials_name_the_variable(values: dict[str, str], variable: str) -> None:
    with pytest.raises(ConfigError, match=variable):
        SlackAdapter(Settings(**values), _NoCore(), HttpServer())  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=variable):
        SlackAdapter(Settings(**values), _NoCore())  # type: ignore[arg-type]


def test_placeholder_secrets_are_refused() -> None:
    with pytest.raises(ValueError, match="placeholder"):
        Settings(slack_signing_secret="changeme")


def test_run_picks_configured_platforms() -> None:
    http = Settings(slack_bot_token="xoxb-1", slack_signing_secret="s1")
    assert select_platforms(http, []) == ["slack"]
    socket = Settings(slack_bot_token="xoxb-1", slack_mode="socket", slack_app_token="xapp-1")
    assert select_platforms(socket, ["slack"]) == ["slack"]
    with pytest.raises(ConfigError, match="VEILBOT_SLACK_SIGNING_SECRET"):
        select_platforms(Settings(slack_bot_token="xoxb-1"), ["slack"])
    with pytest.raises(ConfigError, match="VEILBOT_SLACK_BOT_TOKEN"):
        select_platforms(Settings(), [])


def test_cli_run_without_credentials_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in (
        "VEILBOT_SLACK_BOT_TOKEN",
        "VEILBOT_SLACK_SIGNING_SECRET",
        "VEILBOT_SLACK_APP_TOKEN",
    ):
        monkeypatch.delenv(name, raising=False)
    assert main(["run", "slack"]) == 2
    assert "VEILBOT_SLACK_BOT_TOKEN" in capsys.readouterr().err
