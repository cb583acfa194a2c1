"""``veilbot run`` start-up failures: one line that says what to set, and no service."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.discord_server import FakeDiscord
from tests.fakes.slack_payloads import SIGNING_SECRET
from tests.fixtures.guardrail import TEST_VAULT_KEY_B64
from tests.fixtures.processes import spawned
from tests.fixtures.services import free_port

ROOT = Path(__file__).resolve().parents[2]


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m bot run *args``; killed by ``subprocess.run`` if it outlives the timeout."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("VEILBOT_", "ANTHROPIC_"))}
    return subprocess.run(
        [sys.executable, "-m", "bot", "run", *args],
        capture_output=True,
        text=True,
        env={**clean, **env},
        cwd=ROOT,
        timeout=120,
        check=False,
    )


def slack_env(tmp_path: Path, redis_url: str) -> dict[str, str]:
    return {
        "VEILBOT_DATA_DIR": str(tmp_path / "data"),
        "VEILBOT_REDIS_URL": redis_url,
        "VEILBOT_SLACK_BOT_TOKEN": "xoxb-test",
        "VEILBOT_SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "VEILBOT_SLACK_API_URL": "http://127.0.0.1:9/api/",
        "VEILBOT_SLACK_HTTP_PORT": "0",
    }


def test_run_without_a_model_key_refuses_to_serve_people_with_the_echo_model(
    tmp_path: Path, redis_url: str
) -> None:
    proc = run(slack_env(tmp_path, redis_url), "slack")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "ANTHROPIC_API_KEY" in lines[0]
    assert "VEILBOT_MODEL_PROVIDER=echo" in lines[0]


def discord_env(tmp_path: Path, redis_url: str, api_url: str) -> dict[str, str]:
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith(("VEILBOT_", "ANTHROPIC_"))},
        "VEILBOT_DATA_DIR": str(tmp_path / "data"),
        "VEILBOT_REDIS_URL": redis_url,
        "VEILBOT_VAULT_KEY": TEST_VAULT_KEY_B64,
        "VEILBOT_MODEL_PROVIDER": "echo",
        "VEILBOT_ADMIN_HTTP_PORT": "0",
        "VEILBOT_DISCORD_TOKEN": "MTIz.bad.token",
        "VEILBOT_DISCORD_API_URL": api_url,
        "VEILBOT_LOG_LEVEL": "WARNING",
    }


def assert_one_line_failure(stderr: str, expected: str) -> None:
    assert "Traceback" not in stderr
    assert "PyNaCl" not in stderr
    assert "davey" not in stderr
    failures = [line for line in stderr.splitlines() if "AdapterError" in line]
    assert len(failures) == 1, stderr
    assert expected in failures[0]


@pytest.mark.timeout(240)
async def test_discord_unreachable_at_start_is_one_line_naming_what_to_check(
    tmp_path: Path, redis_url: str
) -> None:
    nowhere = f"http://127.0.0.1:{free_port()}/api/v10"
    async with spawned(discord_env(tmp_path, redis_url, nowhere), "run", "discord") as child:
        rc = await child.exited(within=180)
    assert rc == 1
    assert_one_line_failure(child.stderr, "cannot reach Discord")
    assert "VEILBOT_DISCORD_API_URL" in child.stderr


@pytest.mark.timeout(240)
async def test_discord_refusing_the_token_at_start_is_one_line(
    tmp_path: Path, redis_url: str
) -> None:
    fake = FakeDiscord(accepted_token="the-real-token")
    await fake.start()
    try:
        env = discord_env(tmp_path, redis_url, fake.api_url)
        async with spawned(env, "run", "discord") as child:
            rc = await child.exited(within=180)
    finally:
        await fake.stop()
    assert rc == 1
    assert_one_line_failure(child.stderr, "Discord rejected VEILBOT_DISCORD_TOKEN")


# ``veilbot run`` in a child, then which of the guardrail's modules it had imported by then.
_RUN_THEN_SHOW_IMPORTS = """
import sys
from bot.cli.main import main
code = main(["run", *sys.argv[1:]])
loaded = [m for m in ("spacy", "presidio_analyzer", "guardrails.presidio") if m in sys.modules]
print(code, *loaded)
"""


@pytest.mark.parametrize(
    ("env", "args", "expected"),
    [
        ({}, [], "no platform is configured"),
        ({"VEILBOT_DISCORD_TOKEN": "t0k3n"}, ["teams"], "unknown platform(s) teams"),
        ({"VEILBOT_SLACK_BOT_TOKEN": "xoxb-1"}, ["slack"], "VEILBOT_SLACK_SIGNING_SECRET"),
        (
            {"VEILBOT_DISCORD_TOKEN": "t0k3n", "VEILBOT_VAULT_KEY": "dG9vLXNob3J0"},
            ["discord"],
            "VEILBOT_VAULT_KEY",
        ),
        (
            {"VEILBOT_DISCORD_TOKEN": "t0k3n", "VEILBOT_SPACY_MODEL": "en_core_web_xl"},
            ["discord"],
            "VEILBOT_SPACY_MODEL=en_core_web_xl: no such spaCy model is installed",
        ),
        (
            {"VEILBOT_DISCORD_TOKEN": "t0k3n", "VEILBOT_REDIS_URL": "redis://127.0.0.1:9/0"},
            ["discord"],
            "cannot reach Redis at 127.0.0.1:9",
        ),
        (
            {"VEILBOT_DISCORD_TOKEN": "t0k3n", "VEILBOT_GUARDRAIL_POLICY_FILE": "/no/policy.yaml"},
            ["discord"],
            "/no/policy.yaml",
        ),
    ],
    ids=[
        "no-credentials",
        "unknown-platform",
        "no-signing-secret",
        "malformed-key",
        "missing-spacy-model",
        "redis-unreachable",
        "missing-policy-file",
    ],
)
def test_a_configuration_mistake_is_reported_before_the_guardrail_is_loaded(
    tmp_path: Path, env: dict[str, str], args: list[str], expected: str
) -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("VEILBOT_", "ANTHROPIC_"))}
    settings = {"VEILBOT_DATA_DIR": str(tmp_path), "VEILBOT_MODEL_PROVIDER": "echo", **env}
    done = subprocess.run(
        [sys.executable, "-c", _RUN_THEN_SHOW_IMPORTS, *args],
        capture_output=True,
        text=True,
        env={**clean, **settings},
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert done.stdout.split() == ["2"], "the guardrail's modules were loaded first"
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("veilbot: configuration error:")
    assert expected in line
