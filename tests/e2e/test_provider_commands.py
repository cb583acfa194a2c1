"""``veilbot console`` and ``veilbot run`` with each model provider, as an operator runs them.

Subprocesses with only environment variables, like a deployment: each provider's fake on
127.0.0.1 (Bedrock checking SigV4 signatures, Vertex issuing tokens for the service-account
key file), real Redis, SQLite, Presidio; for ``run``, the real slack-bolt and the fake Slack.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import aiohttp

from tests.e2e.test_console import CONSOLE_TIMEOUT, jsonl, run_console
from tests.e2e.test_guarded_turn import SEEDED, TURNS, leaked
from tests.fakes.slack_payloads import SIGNING_SECRET, mention, signed_headers
from tests.fakes.slack_server import FakeSlack
from tests.fixtures.guardrail import TEST_VAULT_KEY_B64
from tests.fixtures.processes import spawned, until
from tests.fixtures.providers import Provider
from tests.fixtures.services import free_port

pytestmark = CONSOLE_TIMEOUT


def base_env(tmp_path: Path, redis_url: str, redis_prefix: str) -> dict[str, str]:
    return {
        "VEILBOT_DATA_DIR": str(tmp_path / "data"),
        "VEILBOT_REDIS_URL": redis_url,
        "VEILBOT_REDIS_PREFIX": redis_prefix,
        "VEILBOT_VAULT_KEY": TEST_VAULT_KEY_B64,
    }


def test_console_answers_through_each_provider(
    tmp_path: Path, redis_url: str, redis_prefix: str, provider: Provider
) -> None:
    env = {**base_env(tmp_path, redis_url, redis_prefix), **provider.env}
    lines = [json.dumps({"thread": "support", "text": t}) for t in TURNS]

    done = run_console(lines, env)

    assert done.returncode == 0, done.stderr
    out = jsonl(done.stdout)
    assert [o["status"] for o in out] == ["ok", "ok", "ok"]
    assert leaked(SEEDED, " ".join(str(o["reply"]) for o in out)) == SEEDED
    assert len(provider.fake.requests) == 3
    assert leaked(SEEDED, provider.fake.everything_received()) == []
    assert leaked(SEEDED, done.stderr) == []


BAD = {  # the variable set wrongly, its value, and the name the error must give
    "anthropic": ("VEILBOT_ANTHROPIC_API_KEY", "sk-ant-wrong-key", "ANTHROPIC_API_KEY"),
    "bedrock": ("VEILBOT_AWS_SECRET_ACCESS_KEY", "wrong/secret/key", "AWS_SECRET_ACCESS_KEY"),
    "vertex": ("VEILBOT_VERTEX_PROJECT_ID", "", "VEILBOT_VERTEX_PROJECT_ID"),
    "openai": ("VEILBOT_OPENAI_BASE_URL", "", "VEILBOT_OPENAI_BASE_URL"),
}


def test_console_with_wrong_or_missing_credentials_stops_naming_the_variable(
    tmp_path: Path, provider: Provider
) -> None:
    if provider.name == "anthropic":
        provider.fake.api_key = "sk-ant-right-key"  # type: ignore[attr-defined]
    variable, value, named = BAD[provider.name]
    env = {**provider.env, "VEILBOT_DATA_DIR": str(tmp_path / "data"), variable: value}

    done = run_console([json.dumps({"text": "hi"})], env, timeout=60)

    assert done.returncode == 2, done.stderr
    assert "configuration error" in done.stderr
    assert named in done.stderr
    assert not value or value not in done.stderr
    assert provider.fake.requests == []


async def test_veilbot_run_answers_slack_through_each_provider(
    tmp_path: Path, redis_url: str, redis_prefix: str, provider: Provider
) -> None:
    async with FakeSlack() as slack:
        port = free_port()
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("VEILBOT_")},
            **base_env(tmp_path, redis_url, redis_prefix),
            **provider.env,
            "VEILBOT_SLACK_BOT_TOKEN": "xoxb-test",
            "VEILBOT_SLACK_SIGNING_SECRET": SIGNING_SECRET,
            "VEILBOT_SLACK_API_URL": slack.api_url,
            "VEILBOT_SLACK_HTTP_PORT": str(port),
            "VEILBOT_SLACK_STREAMING": "update",
            "VEILBOT_SLACK_UPDATE_INTERVAL_SECONDS": "0",
        }
        base = f"http://127.0.0.1:{port}"
        async with spawned(env, "run", "slack") as child:  # killed whatever happens
            await child.serving(f"{base}/healthz")
            body = json.dumps(mention(TURNS[0]))
            async with aiohttp.ClientSession() as session:
                url = f"{base}/slack/events"
                async with session.post(url, data=body, headers=signed_headers(body)) as r:
                    assert r.status == 200

            def shown() -> str:
                return " ".join(m.text for m in slack.all_replies())

            # The first turn of a fresh process waits for its detection process to load the
            # model: bounded generously, so a busy machine is no failure.
            await until(lambda: "john.smith@acme-corp.com" in shown(), "the answer", within=240)
            assert "Maria Gonzalez" in shown()
            assert "john.smith@acme-corp.com" in shown()
            child.proc.send_signal(signal.SIGINT)
            assert await child.exited() == 0, child.stderr
        err = child.stderr
    assert len(provider.fake.requests) == 1
    assert "<PERSON_1>" in provider.fake.all_text_sent()
    assert leaked(SEEDED, provider.fake.everything_received()) == []
    assert leaked(SEEDED, err) == []
