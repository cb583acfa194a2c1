"""Slack credentials are checked when the adapter starts; `veilbot run` picks platforms."""

from __future__ import annotations

import pytest

from adapters.slack.handler import SlackAdapter
from bot.cli.main import main
from bot.config.settings import Settings
from bot.core.errors import ConfigError
from bot.http_server import HttpServer
from bot.platforms import select_platforms


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


@pytest.mark.parametrize(
    ("values", "named"),
    [
        (
            {"slack_client_id": "1.2"},
            "VEILBOT_SLACK_CLIENT_SECRET, VEILBOT_SLACK_SIGNING_SECRET, "
            "VEILBOT_SLACK_OAUTH_REDIRECT_URL",
        ),
        (
            {"slack_client_id": "1.2", "slack_client_secret": "s", "slack_signing_secret": "g"},
            "VEILBOT_SLACK_OAUTH_REDIRECT_URL",
        ),
    ],
)
def test_oauth_mode_names_every_missing_setting_and_needs_no_bot_token(
    values: dict[str, str], named: str
) -> None:
    assert Settings(**values).slack_missing_credential == named


def test_oauth_scopes_default_to_the_manifest_and_parse_from_a_list() -> None:
    from pathlib import Path

    import yaml

    manifest = yaml.safe_load(Path("deploy/slack/manifest.yml").read_text())
    assert Settings().slack_oauth_scopes == manifest["oauth_config"]["scopes"]["bot"]
    given = Settings(slack_oauth_scopes="chat:write, commands")  # type: ignore[arg-type]
    assert given.slack_oauth_scopes == ["chat:write", "commands"]


def test_a_bad_redirect_url_is_refused() -> None:
    with pytest.raises(ValueError, match="slack_oauth_redirect_url"):
        Settings(slack_oauth_redirect_url="not a url")


def test_oauth_mode_over_socket_mode_is_refused_with_the_setting_to_change() -> None:
    settings = Settings(
        slack_client_id="1.2",
        slack_client_secret="s",
        slack_signing_secret="g",
        slack_oauth_redirect_url="https://veilbot.example/slack/oauth_redirect",
        slack_mode="socket",
    )
    with pytest.raises(ConfigError, match="VEILBOT_SLACK_MODE=http"):
        SlackAdapter(settings, _NoCore(), HttpServer())  # type: ignore[arg-type]
