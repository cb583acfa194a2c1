"""deploy/slack: one app manifest per transport, the same app otherwise.

The HTTP manifest sends events, the slash command and interactivity to one request URL (the
path veilbot serves); the Socket Mode manifest has no URL at all. Both grant the scopes and
events of group DMs and shared files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from adapters.slack.oauth.flow import REDIRECT_PATH
from bot.config.settings import Settings

SLACK = Path(__file__).resolve().parents[2] / "deploy" / "slack"


def manifest(name: str) -> dict[str, Any]:
    found: dict[str, Any] = yaml.safe_load((SLACK / name).read_text())
    return found


def urls(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [
            u
            for k, v in value.items()
            for u in (urls(v) if k not in ("url", "request_url") else [v])
        ]
    if isinstance(value, list):
        return [u for item in value for u in urls(item)]
    return []


def test_the_http_manifest_points_every_request_at_the_events_path() -> None:
    http = manifest("manifest.yml")
    assert http["settings"]["socket_mode_enabled"] is False
    path = Settings.model_fields["slack_http_path"].default
    found = urls(http)
    assert len(found) == 3  # events, the slash command, interactivity
    assert all(u == f"https://veilbot.example.com{path}" for u in found)


def test_the_socket_manifest_is_the_http_one_without_urls() -> None:
    http, socket = manifest("manifest.yml"), manifest("manifest-socket.yml")
    assert socket["settings"]["socket_mode_enabled"] is True
    assert urls(socket) == []
    assert socket["oauth_config"]["scopes"] == http["oauth_config"]["scopes"]
    assert "redirect_urls" not in socket["oauth_config"]  # OAuth mode serves over HTTP only
    assert (
        socket["settings"]["event_subscriptions"]["bot_events"]
        == (http["settings"]["event_subscriptions"]["bot_events"])
    )
    assert [c["command"] for c in socket["features"]["slash_commands"]] == [
        Settings.model_fields["slack_command"].default
    ]


def test_the_http_manifest_redirects_installs_to_the_path_the_service_serves() -> None:
    [redirect] = manifest("manifest.yml")["oauth_config"]["redirect_urls"]
    assert redirect == f"https://veilbot.example.com{REDIRECT_PATH}"
    Settings(slack_oauth_redirect_url=redirect)  # a valid VEILBOT_SLACK_OAUTH_REDIRECT_URL


def test_both_manifests_cover_group_dms_and_shared_files() -> None:
    for name in ("manifest.yml", "manifest-socket.yml"):
        doc = manifest(name)
        scopes = set(doc["oauth_config"]["scopes"]["bot"])
        assert {"mpim:history", "files:read", "im:history", "groups:history"} <= scopes, name
        events = set(doc["settings"]["event_subscriptions"]["bot_events"])
        assert {"message.mpim", "message.im", "message.groups", "message.channels"} <= events
