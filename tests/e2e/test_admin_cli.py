"""The admin commands as an operator runs them: no guardrail, no model loaded.

``veilbot audit``, ``forget`` and ``admin`` run where spaCy, Presidio and the anthropic SDK
have no business (a cron job, an admin's laptop, a small admin-API container): each is run
here as a subprocess under ``python -X importtime``, which names every module the process
imported, and must do its job with none of them.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from bot.admin.auth import hash_token
from tests.fixtures.services import free_port

ROOT = Path(__file__).resolve().parents[2]
HEAVY = {"anthropic", "spacy", "thinc", "presidio_analyzer", "presidio_anonymizer"}
TOKEN = "admin-cli-token-abcdefghijkl"


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("VEILBOT_", "ANTHROPIC_"))}
    return {**clean, "VEILBOT_DATA_DIR": str(tmp_path / "data"), **extra}


def imported(stderr: str) -> set[str]:
    """Every module named by ``-X importtime`` lines (``import time: self | total | name``)."""
    return {
        line.rsplit("|", 1)[1].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }


def heavy(modules: set[str]) -> set[str]:
    return {m for m in modules if m.split(".", 1)[0] in HEAVY}


def veilbot(
    args: list[str], env: dict[str, str], stdin: str = ""
) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "bot", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=90,
        check=False,
    )
    return proc, imported(proc.stderr)


@pytest.mark.parametrize(
    ("args", "expect"),
    [
        (["audit", "list", "--json"], '{"runs": [], "next_cursor": null}'),
        (["audit", "stats", "--by", "user", "--json"], '{"by": "user", "groups": []}'),
        (["audit", "export", "--format", "csv"], "#veilbot-audit-export "),
        (["audit", "purge", "--older-than", "90d", "--dry-run"], "would purge 0 run(s)"),
        (["admin", "new-token"], "hash  (add to VEILBOT_ADMIN_TOKENS):"),
    ],
    ids=["audit-list", "audit-stats", "audit-export", "audit-purge", "admin-new-token"],
)
def test_audit_and_admin_commands_never_load_spacy_presidio_or_anthropic(
    tmp_path: Path, args: list[str], expect: str
) -> None:
    proc, modules = veilbot(args, env_for(tmp_path))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert expect in proc.stdout
    assert "bot.cli.main" in modules  # the import log was read
    assert not heavy(modules)


def test_hash_token_reads_stdin_without_loading_the_guardrail(tmp_path: Path) -> None:
    proc, modules = veilbot(["admin", "hash-token"], env_for(tmp_path), stdin=TOKEN + "\n")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == hash_token(TOKEN)
    assert "bot.cli.admin" in modules
    assert not heavy(modules)


def test_forget_opens_redis_and_the_audit_log_but_not_the_guardrail(
    tmp_path: Path, redis_url: str, redis_prefix: str
) -> None:
    env = env_for(tmp_path, VEILBOT_REDIS_URL=redis_url, VEILBOT_REDIS_PREFIX=redis_prefix)
    env["VEILBOT_FORGET_KEEPS_AUDIT_ROWS"] = "true"  # derives the pseudonym key from the vault's
    proc, modules = veilbot(["forget", "--thread", "console:nobody", "--json"], env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout) == {
        "threads": 0,
        "redis_keys": 0,
        "runs_deleted": 0,
        "runs_pseudonymized": 0,
    }
    assert {"bot.stores", "guardrails.vault.keys"} <= modules
    assert not heavy(modules)


def test_admin_serve_answers_readyz_without_loading_the_guardrail(
    tmp_path: Path, redis_url: str, redis_prefix: str
) -> None:
    port = free_port()
    env = env_for(
        tmp_path,
        VEILBOT_REDIS_URL=redis_url,
        VEILBOT_REDIS_PREFIX=redis_prefix,
        VEILBOT_ADMIN_TOKENS=hash_token(TOKEN),
        VEILBOT_ADMIN_HTTP_PORT=str(port),
    )
    proc = subprocess.Popen(
        [sys.executable, "-X", "importtime", "-m", "bot", "admin", "serve"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    try:
        checks = wait_ready(f"http://127.0.0.1:{port}/readyz", proc, deadline=60)
    finally:
        proc.terminate()
        try:
            _, stderr = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, stderr = proc.communicate()
    assert checks == {"redis": True, "database": True}
    modules = imported(stderr)
    assert {"bot.cli.admin", "bot.admin.api"} <= modules
    assert not heavy(modules)


def wait_ready(url: str, proc: subprocess.Popen[str], deadline: float) -> dict[str, bool]:
    """The ``checks`` of the first 200 from ``url``; fails if the process exits or time runs out."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if proc.poll() is not None:
            pytest.fail(f"admin serve exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:  # noqa: S310 (loopback)
                checks: dict[str, bool] = json.loads(response.read())["checks"]
                return checks
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.1)
    pytest.fail(f"admin serve did not answer {url} in {deadline} s")


def test_help_loads_the_parser_alone(tmp_path: Path) -> None:
    proc, modules = veilbot(["--help"], env_for(tmp_path))
    assert proc.returncode == 0
    assert "audit" in proc.stdout
    assert "bot.cli.parser" in modules
    assert not heavy(modules)
    assert not {"bot.config.settings", "bot.stores", "bot.app", "pydantic_settings"} & modules


def run_server_paths(env: dict[str, str]) -> set[str]:
    """The fixed paths of the server ``veilbot run`` builds with these settings (no platform)."""
    from types import SimpleNamespace

    from bot.config.settings import Settings
    from bot.metrics import PrometheusMetrics
    from bot.service import build_http

    settings = Settings(admin_tokens=env["VEILBOT_ADMIN_TOKENS"], _env_file=None)  # type: ignore[call-arg]
    stand_in = SimpleNamespace(
        settings=settings,
        audit=None,
        redis=None,
        eraser=None,
        ledger=None,
        readiness=None,
        timings=None,
        metrics=PrometheusMetrics(),
    )
    http = build_http(stand_in, [])  # type: ignore[arg-type]
    return {r.canonical for r in http.app.router.resources() if "{" not in r.canonical}


def get(url: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 (loopback)
            return response.status, response.headers.get("Content-Type", ""), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Content-Type", ""), exc.read()


def test_admin_serve_is_the_server_veilbot_run_has(
    tmp_path: Path, redis_url: str, redis_prefix: str
) -> None:
    """The same endpoints (``/healthz`` body, ``/metrics``) and the same logged shutdown."""
    port = free_port()
    env = env_for(
        tmp_path,
        VEILBOT_REDIS_URL=redis_url,
        VEILBOT_REDIS_PREFIX=redis_prefix,
        VEILBOT_ADMIN_TOKENS=hash_token(TOKEN),
        VEILBOT_ADMIN_HTTP_PORT=str(port),
        VEILBOT_LOG_LEVEL="INFO",
    )
    log_path = tmp_path / "serve.log"
    with log_path.open("w") as log_file:
        proc = subprocess.Popen(
            [sys.executable, "-m", "bot", "admin", "serve"],
            stdout=subprocess.DEVNULL,
            stderr=log_file,
            env=env,
            cwd=ROOT,
        )
        try:
            base = f"http://127.0.0.1:{port}"
            wait_ready(f"{base}/readyz", proc, deadline=60)
            assert get(f"{base}/healthz") == (
                200,
                "application/json; charset=utf-8",
                b'{"ok": true}',
            )
            status, kind, body = get(f"{base}/metrics")
            assert (status, kind.split(";")[0]) == (200, "text/plain")
            assert b"# HELP veilbot_turns" in body
            for path in sorted(run_server_paths(env)):
                assert get(f"{base}{path}")[0] != 404, path
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(30) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    logged = log_path.read_text()
    for line in (
        "shutdown: SIGTERM received",
        "shutdown: http server closed",
        "shutdown: veilbot admin stopped (SIGTERM)",
    ):
        assert line in logged, logged[-2000:]
    assert "Traceback" not in logged
