"""The vault key as an operator changes it: ``veilbot vault rotate``, a wrong key, a restore.

Each step is the ``veilbot`` command a person runs (a subprocess), on a real Redis and the
fake Anthropic server: a thread written with the old key goes on after the rotation with the
new key alone; a key that opens nothing is one line before the guardrail loads; a Redis
restored from its backup files gives the thread back with the same key.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from slack_sdk.oauth.installation_store import Installation

from adapters.slack.oauth.installations import SealedInstallationStore
from bot.audit.installations import SqlInstallationRows
from bot.audit.store import SqlAuditStore, sqlite_url
from guardrails.vault.keys import KeyRing, derive_install_key
from guardrails.vault.sealing import AesGcmSealer
from tests.e2e.test_console import CONSOLE_TIMEOUT, jsonl, run_console
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fixtures.services import RedisServer, find_redis_server

pytestmark = CONSOLE_TIMEOUT

ROOT = Path(__file__).resolve().parents[2]
OLD, NEW, WRONG = (base64.b64encode(bytes([n]) * 32).decode() for n in (7, 8, 9))
FIRST = json.dumps({"text": "Hi, I'm Maria Gonzalez; mail me at maria@example.com"})
LATER = json.dumps({"text": "Maria Gonzalez again: did you get maria@example.com?"})


def env_for(base: dict[str, str], key: str, previous: str = "") -> dict[str, str]:
    env = {**base, "VEILBOT_VAULT_KEY": key}
    return {**env, "VEILBOT_VAULT_PREVIOUS_KEYS": previous} if previous else env


@pytest.fixture
def base_env(
    tmp_path: Path, redis_url: str, redis_prefix: str, fake_anthropic: FakeAnthropic
) -> dict[str, str]:
    return {
        "VEILBOT_DATA_DIR": str(tmp_path / "data"),
        "VEILBOT_REDIS_URL": redis_url,
        "VEILBOT_REDIS_PREFIX": redis_prefix,
        "ANTHROPIC_API_KEY": "test-key",
        "ANTHROPIC_BASE_URL": fake_anthropic.url,
    }


def rotate(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("VEILBOT_", "ANTHROPIC_"))}
    return subprocess.run(
        [sys.executable, "-m", "bot", "vault", "rotate"],
        capture_output=True,
        text=True,
        env={**clean, **env},
        cwd=ROOT,
        timeout=120,
        check=False,
    )


def goes_on(done: subprocess.CompletedProcess[str], fake: FakeAnthropic) -> None:
    """The second message was answered in the same thread: same placeholders, restored."""
    assert done.returncode == 0, done.stderr
    sent = fake.requests[-1].body["messages"]
    assert len(sent) == 3, "the thread's history went with the question"
    assert "<PERSON_1>" in json.dumps(sent[0])
    assert "<PERSON_1>" in json.dumps(sent[-1])
    assert "<EMAIL_ADDRESS_1>" in json.dumps(sent[-1])
    assert "Maria Gonzalez" in str(jsonl(done.stdout)[0]["reply"])


async def install_then_find(data_dir: str, save_with: str | None, find_with: str) -> str | None:
    """Save an installation (with ``save_with``), then its bot token as ``find_with`` opens it."""
    if save_with is not None:
        async with SqlAuditStore(sqlite_url(Path(data_dir))) as store:  # its schema
            sealer = AesGcmSealer(KeyRing(base64.b64decode(save_with)).derived(derive_install_key))
            await SealedInstallationStore(SqlInstallationRows(store.engine), sealer).async_save(
                Installation(team_id="T1", user_id="U1", bot_token="xoxb-sealed-with-old")
            )
    async with SqlAuditStore(sqlite_url(Path(data_dir))) as store:
        sealer = AesGcmSealer(KeyRing(base64.b64decode(find_with)).derived(derive_install_key))
        found = await SealedInstallationStore(
            SqlInstallationRows(store.engine), sealer
        ).async_find_bot(enterprise_id=None, team_id="T1")
    return None if found is None else found.bot_token


def test_rotate_then_drop_the_old_key_and_the_thread_and_installation_go_on(
    base_env: dict[str, str], fake_anthropic: FakeAnthropic
) -> None:
    first = run_console([FIRST], env_for(base_env, OLD), "--thread", "trip")
    assert first.returncode == 0, first.stderr
    data = base_env["VEILBOT_DATA_DIR"]
    assert asyncio.run(install_then_find(data, OLD, OLD)) == "xoxb-sealed-with-old"

    rotated = rotate(env_for(base_env, NEW, previous=OLD))
    assert rotated.returncode == 0, rotated.stderr
    assert "vault: 1 threads walked, 1 sealed again" in rotated.stderr
    assert "slack installations: 1 sealed again" in rotated.stderr
    assert "VEILBOT_VAULT_PREVIOUS_KEYS can be emptied" in rotated.stderr
    assert "Traceback" not in rotated.stderr

    goes_on(run_console([LATER], env_for(base_env, NEW), "--thread", "trip"), fake_anthropic)
    assert asyncio.run(install_then_find(data, None, NEW)) == "xoxb-sealed-with-old"


def test_a_changed_key_is_one_clear_error_before_the_guardrail_loads(
    base_env: dict[str, str],
) -> None:
    first = run_console([FIRST], env_for(base_env, OLD), "--thread", "trip")
    assert first.returncode == 0, first.stderr

    loud = {**env_for(base_env, WRONG), "VEILBOT_LOG_LEVEL": "INFO"}
    done = run_console([LATER], loud, "--thread", "trip")

    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if line.startswith("veilbot:")]
    assert len(errors) == 1, done.stderr
    assert "VEILBOT_VAULT_KEY" in errors[0]
    assert "does not open the threads in Redis" in errors[0]
    assert "Traceback" not in done.stderr
    assert "spaCy model" not in done.stderr, "the guardrail was loading already"
    assert done.stdout == ""


def bgsave(url: str) -> None:
    """``BGSAVE`` and wait (bounded) until the snapshot is on disk."""
    client = redis.Redis.from_url(url)
    try:
        before = client.lastsave()
        client.bgsave()
        deadline = time.monotonic() + 30
        while client.lastsave() == before or client.info("persistence")["rdb_bgsave_in_progress"]:
            assert time.monotonic() < deadline, "BGSAVE did not finish"
            time.sleep(0.05)
    finally:
        client.close()


@pytest.mark.parametrize("files", ["rdb", "aof"])
def test_a_redis_restored_from_its_backup_files_gives_the_thread_back(
    tmp_path: Path, fake_anthropic: FakeAnthropic, files: str
) -> None:
    """docs/operations.md, "Backing up and restoring": copy the files, start from the copy."""
    binary = find_redis_server()
    assert binary is not None
    source = RedisServer(binary, appendonly=True)
    restored = RedisServer(binary, appendonly=files == "aof")
    try:
        source.start()
        env = {
            "VEILBOT_DATA_DIR": str(tmp_path / "data"),
            "VEILBOT_REDIS_URL": source.url,
            "VEILBOT_VAULT_KEY": OLD,
            "ANTHROPIC_API_KEY": "test-key",
            "ANTHROPIC_BASE_URL": fake_anthropic.url,
        }
        first = run_console([FIRST], env, "--thread", "trip")
        assert first.returncode == 0, first.stderr
        bgsave(source.url)
        backup = tmp_path / "backup"
        backup.mkdir()
        if files == "rdb":
            shutil.copy2(Path(source.dir) / "dump.rdb", backup / "dump.rdb")
        else:
            shutil.copytree(Path(source.dir) / "appendonlydir", backup / "appendonlydir")
        source.stop()  # the machine is gone; a new server starts from the copy

        shutil.copytree(backup, restored.dir, dirs_exist_ok=True)
        restored.start()
        again = run_console([LATER], {**env, "VEILBOT_REDIS_URL": restored.url}, "--thread", "trip")
        goes_on(again, fake_anthropic)
    finally:
        source.cleanup()
        restored.cleanup()
