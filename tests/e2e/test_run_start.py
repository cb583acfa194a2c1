"""``veilbot run`` start-up failures: one line that says what to set, and no service."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.fakes.slack_payloads import SIGNING_SECRET

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
