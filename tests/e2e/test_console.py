"""``veilbot console`` as a user runs it: a subprocess, scripted with JSON Lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.test_guarded_turn import SEEDED, TURNS, leaked
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fixtures.guardrail import TEST_VAULT_KEY_B64

ROOT = Path(__file__).resolve().parents[2]
RUN_TIMEOUT = 300.0
"""How long one console run may take before ``run_console`` calls it hung."""
CONSOLE_TIMEOUT = pytest.mark.timeout(int(3 * RUN_TIMEOUT))
"""pytest-timeout's limit for a test of up to three console runs. The suite's default (120 s)
is shorter than one run's own guard: with two CPU-bound jobs beside the suite, runs that took
longer than 120 s (but finished) failed as timeouts."""
pytestmark = CONSOLE_TIMEOUT


def run_console(
    lines: list[str], env: dict[str, str], *args: str, timeout: float = RUN_TIMEOUT
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m bot console`` with ``lines`` on stdin (not a terminal: JSONL mode).

    ``timeout`` only guards against a hang: a run takes 11-15 s on an idle 2-core machine,
    and went past 90 s with two CPU-bound processes beside the suite (spaCy's load, the
    detection processes' warm-up and the turn all share the same two cores).
    """
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("VEILBOT_", "ANTHROPIC_"))}
    return subprocess.run(
        [sys.executable, "-m", "bot", "console", *args],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        env={**clean, "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS": "", **env},
        cwd=ROOT,
        timeout=timeout,
        check=False,
    )


def jsonl(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


@pytest.fixture
def console_env(
    tmp_path: Path, redis_url: str, redis_prefix: str, fake_anthropic: FakeAnthropic
) -> dict[str, str]:
    return {
        "VEILBOT_DATA_DIR": str(tmp_path / "data"),
        "VEILBOT_REDIS_URL": redis_url,
        "VEILBOT_REDIS_PREFIX": redis_prefix,
        "VEILBOT_VAULT_KEY": TEST_VAULT_KEY_B64,
        "ANTHROPIC_API_KEY": "test-key",
        "ANTHROPIC_BASE_URL": fake_anthropic.url,
    }


def test_console_jsonl_answers_each_line_and_the_model_sees_placeholders(
    console_env: dict[str, str], fake_anthropic: FakeAnthropic
) -> None:
    lines = [json.dumps({"thread": "support", "text": t}) for t in TURNS]
    lines += [
        "this is not json",
        json.dumps({"thread": "bad name!", "text": "hi"}),
        json.dumps({"thread": "support", "text": "   "}),
    ]

    done = run_console(lines, console_env, "--show-redactions")

    assert done.returncode == 0, done.stderr
    out = jsonl(done.stdout)
    assert len(out) == 6
    assert [o.get("status") for o in out[:3]] == ["ok", "ok", "ok"]
    assert leaked(SEEDED, " ".join(str(o["reply"]) for o in out[:3])) == SEEDED
    assert "<PERSON_1>" in str(out[0]["redacted"])
    assert out[3] == {"line": 4, "error": "not a JSON object"}
    assert "invalid thread name" in str(out[4]["error"])
    assert out[5]["status"] == "rejected_input"
    assert leaked(SEEDED, fake_anthropic.all_text_sent()) == []
    assert leaked(SEEDED, done.stderr) == []


def test_console_on_embedded_defaults_keeps_a_thread_across_runs(
    tmp_path: Path, fake_anthropic: FakeAnthropic
) -> None:
    env = {
        "VEILBOT_DATA_DIR": str(tmp_path / "data"),
        "ANTHROPIC_API_KEY": "test-key",
        "ANTHROPIC_BASE_URL": fake_anthropic.url,
    }
    first = run_console([json.dumps({"text": "Hi, I'm Maria Gonzalez"})], env, "--thread", "trip")
    second = run_console([json.dumps({"text": "What is my name?"})], env, "--thread", "trip")

    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    assert "Maria Gonzalez" in str(jsonl(first.stdout)[0]["reply"])
    history = fake_anthropic.requests[-1].body["messages"]
    assert len(history) == 3, "the second run continued the thread of the first"
    assert (tmp_path / "data" / "vault.key").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "data" / "audit.db").exists()


def test_console_without_a_key_answers_with_the_echo_model(
    tmp_path: Path, redis_url: str, redis_prefix: str
) -> None:
    env = {
        "VEILBOT_DATA_DIR": str(tmp_path / "data"),
        "VEILBOT_REDIS_URL": redis_url,
        "VEILBOT_REDIS_PREFIX": redis_prefix,
    }
    done = run_console([json.dumps({"text": "I'm Maria Gonzalez"})], env)
    assert done.returncode == 0, done.stderr
    assert "echo model" in done.stderr
    assert "Maria Gonzalez" in str(jsonl(done.stdout)[0]["reply"])


def test_the_echo_model_chosen_by_name_is_not_called_a_missing_provider(
    tmp_path: Path, redis_url: str, redis_prefix: str
) -> None:
    env = {
        "VEILBOT_DATA_DIR": str(tmp_path / "data"),
        "VEILBOT_REDIS_URL": redis_url,
        "VEILBOT_REDIS_PREFIX": redis_prefix,
        "VEILBOT_MODEL_PROVIDER": "echo",
    }
    done = run_console([json.dumps({"text": "hello"})], env)
    assert done.returncode == 0, done.stderr
    (notice,) = [line for line in done.stderr.splitlines() if "echo model" in line]
    assert "No model provider configured" not in notice
    assert "VEILBOT_MODEL_PROVIDER=echo" in notice


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("VEILBOT_VAULT_KEY", "changeme"),
        ("ANTHROPIC_API_KEY", "changeme"),
        ("VEILBOT_VAULT_KEY", "dG9vLXNob3J0"),
        ("VEILBOT_MAX_INPUT_CHARS", "lots"),
    ],
)
def test_a_bad_setting_stops_start_up_naming_the_variable(
    tmp_path: Path, variable: str, value: str
) -> None:
    done = run_console([], {"VEILBOT_DATA_DIR": str(tmp_path / "data"), variable: value})
    assert done.returncode == 2
    assert variable in done.stderr
    assert value not in done.stderr.replace(variable, "")


def test_a_transcript_line_is_read_with_its_platforms_markup(
    console_env: dict[str, str], fake_anthropic: FakeAnthropic
) -> None:
    slack = "ping <@U024BE7LH>: mail <mailto:jane.doe@acme.com|jane.doe@acme.com> &amp; thanks"
    discord = "<@!296012345678901234> call ||+44 20 7946 0958|| <t:1700000000:R>"
    lines = [
        json.dumps({"thread": "replay", "text": slack, "platform": "slack"}),
        json.dumps({"thread": "replay", "text": discord, "platform": "discord"}),
        json.dumps({"thread": "replay", "text": "hi", "platform": "irc"}),
    ]

    done = run_console(lines, console_env, "--show-redactions")

    assert done.returncode == 0, done.stderr
    out = jsonl(done.stdout)
    assert out[0]["redacted"] == "ping <USER_1>: mail <EMAIL_ADDRESS_1> &amp; thanks"
    assert out[1]["redacted"] == "<USER_2> call ||<PHONE_NUMBER_1>|| <t:1700000000:R>"
    assert out[0]["reply"] == f"Noted: {slack}"  # the fake model repeats what it saw
    assert out[1]["reply"] == f"Noted: {discord}"
    assert out[2] == {"line": 3, "error": 'platform must be "slack", "discord" or "console"'}
    sent = fake_anthropic.all_text_sent()
    for value in ("jane.doe@acme.com", "U024BE7LH", "296012345678901234", "7946 0958"):
        assert value not in sent


def test_a_file_attached_in_the_console_reaches_the_model_redacted(
    console_env: dict[str, str], fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    notes = tmp_path / "Maria Gonzalez notes.txt"
    notes.write_text("Call Maria Gonzalez on +1 415 555 0123 about the lease.\n", encoding="utf-8")
    lines = [
        json.dumps({"thread": "files", "text": "Summarise this", "files": [str(notes)]}),
        json.dumps({"thread": "files", "text": "and this", "files": [str(tmp_path / "gone")]}),
        json.dumps({"thread": "files", "text": "x", "files": "not a list"}),
    ]

    done = run_console(lines, console_env)

    assert done.returncode == 0, done.stderr
    answered, missing, bad = jsonl(done.stdout)
    assert answered["status"] == "ok"
    assert "Maria Gonzalez" in str(answered["reply"]), "the echo model's answer is restored"
    sent = fake_anthropic.all_text_sent()
    assert '<file name="<PERSON_1> notes.txt">' in sent
    assert leaked(["Maria Gonzalez", "+1 415 555 0123"], sent) == []
    assert missing["status"] == "rejected_input"
    assert "File 1 could not be read" in str(missing["reply"])
    assert bad == {"line": 3, "error": '"files" must be a list of paths'}
