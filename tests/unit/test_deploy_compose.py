"""deploy/compose.yml: `veilbot run` on a published port, started once its stores are healthy,
restarted when it dies, and checked by a healthcheck on a path the app serves."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from bot.settings import Settings
from tests.fixtures.deploy import unknown_settings

COMPOSE = Path(__file__).resolve().parents[2] / "deploy" / "compose.yml"


def services() -> dict[str, Any]:
    found: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())["services"]
    return found


def test_veilbot_runs_the_service_on_a_published_port() -> None:
    veilbot = services()["veilbot"]
    assert veilbot["command"] == ["run"]
    env = veilbot["environment"]
    # one port whichever platforms run: Slack's server, or the admin/probe server
    assert env["VEILBOT_SLACK_HTTP_PORT"] == env["VEILBOT_ADMIN_HTTP_PORT"] == "3000"
    assert env["VEILBOT_SLACK_HTTP_HOST"] == env["VEILBOT_ADMIN_HTTP_HOST"] == "0.0.0.0"  # noqa: S104
    assert "3000:3000" in veilbot["ports"]
    assert not unknown_settings(set(env))


def test_veilbot_starts_after_healthy_stores_and_everything_restarts() -> None:
    found = services()
    assert found["veilbot"]["depends_on"] == {
        "redis": {"condition": "service_healthy"},
        "postgres": {"condition": "service_healthy"},
    }
    for name, service in found.items():
        assert service["restart"] == "unless-stopped", name
        check = service["healthcheck"]
        assert check["test"][0] in ("CMD", "CMD-SHELL"), name
        assert check["retries"] >= 3, name


def test_the_veilbot_healthcheck_asks_the_liveness_probe_on_its_port() -> None:
    veilbot = services()["veilbot"]
    command = " ".join(veilbot["healthcheck"]["test"])
    assert "http://127.0.0.1:3000/healthz" in command
    assert veilbot["read_only"] is True
    assert "/tmp" in veilbot["tmpfs"]
    assert any(v.endswith(":/data") for v in veilbot["volumes"])


def test_a_veilbot_service_answers_what_is_queued() -> None:
    # `veilbot run` acks a Slack event once it is queued; with VEILBOT_QUEUE_WORKERS=0 in every
    # process, every event would be acked and none answered
    default = Settings.model_fields["queue_workers"].default
    answering = [
        name
        for name, service in services().items()
        if service.get("command", [None])[0] == "run"
        and int(service["environment"].get("VEILBOT_QUEUE_WORKERS", default)) > 0
    ]
    assert answering == ["veilbot"]
