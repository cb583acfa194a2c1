"""``veilbot console`` in a terminal, as a person types at it: a pseudo-terminal, real keys."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.anthropic_server import FakeAnthropic
from tests.fixtures.guardrail import TEST_VAULT_KEY_B64

ROOT = Path(__file__).resolve().parents[2]
PROMPT = "you> "
UP, LEFT = "\x1b[A", "\x1b[D"
LOG_LINE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ [A-Z]+ ")


class Terminal:
    """``python -m bot console`` on a pseudo-terminal: what it printed, and keys to type."""

    def __init__(self, env: dict[str, str]) -> None:
        leader, follower = pty.openpty()
        # A terminal's foreground job has Ctrl-C at its default; a test run started as a
        # background job ignores SIGINT, and an ignored signal stays ignored across exec.
        # A handler, unlike SIG_IGN, is reset to the default in the child.
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            self.proc = subprocess.Popen(  # noqa: S603
                [sys.executable, "-m", "bot", "console"],
                stdin=follower,
                stdout=follower,
                stderr=follower,
                env=env,
                cwd=ROOT,
            )
        finally:
            if previous is not None:  # None: a handler set outside Python, left as it was
                signal.signal(signal.SIGINT, previous)
        os.close(follower)
        self.leader = leader
        self.screen = ""

    def type(self, keys: str) -> None:
        os.write(self.leader, keys.encode())

    def wait_for(self, text: str, *, after: int = 0, seconds: float = 120) -> int:
        """Read until ``text`` appears at or after offset ``after``; its end offset."""
        deadline = time.monotonic() + seconds
        while (at := self.screen.find(text, after)) < 0:
            left = deadline - time.monotonic()
            assert left > 0, f"never printed {text!r}; screen: {self.screen[-2000:]!r}"
            if select.select([self.leader], [], [], left)[0]:
                try:
                    chunk = os.read(self.leader, 4096)
                except OSError:  # EIO: the console exited
                    chunk = b""
                assert chunk, f"exited before {text!r}; screen: {self.screen[-2000:]!r}"
                self.screen += chunk.decode("utf-8", "replace")
        return at + len(text)

    def close(self) -> None:
        os.close(self.leader)
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def terminal(
    tmp_path: Path, redis_url: str, redis_prefix: str, fake_anthropic: FakeAnthropic
) -> Iterator[Terminal]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("VEILBOT_", "ANTHROPIC_"))}
    env = {
        **clean,
        "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS": "",
        "VEILBOT_DATA_DIR": str(tmp_path / "data"),
        "VEILBOT_REDIS_URL": redis_url,
        "VEILBOT_REDIS_PREFIX": redis_prefix,
        "VEILBOT_VAULT_KEY": TEST_VAULT_KEY_B64,
        "VEILBOT_LOG_LEVEL": "INFO",
        "ANTHROPIC_API_KEY": "test-key",
        "ANTHROPIC_BASE_URL": fake_anthropic.url,
        "TERM": "xterm",
    }
    term = Terminal(env)
    try:
        yield term
    finally:
        term.close()


def test_the_prompt_edits_lines_recalls_history_and_answers_thread_without_a_name(
    terminal: Terminal, fake_anthropic: FakeAnthropic
) -> None:
    at = terminal.wait_for(PROMPT)
    terminal.type(f"deploy on fridy{LEFT}a\r")  # a typo fixed with the arrow keys
    at = terminal.wait_for(PROMPT, after=terminal.wait_for("bot> ", after=at))
    terminal.type(f"{UP}\r")  # the same line again, from the history
    at = terminal.wait_for(PROMPT, after=terminal.wait_for("bot> ", after=at))
    terminal.type("/thread\r")
    at = terminal.wait_for(PROMPT, after=terminal.wait_for("Usage: /thread NAME", after=at))
    terminal.type("/quit\r")
    assert terminal.proc.wait(60) == 0
    sent = [fake_anthropic.last_user_text(r.body) for r in fake_anthropic.requests]
    assert sent == ["deploy on friday", "deploy on friday"]


def test_attach_sends_a_file_with_the_next_message_only(
    terminal: Terminal, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("Maria Gonzalez: +1 415 555 0123.\n", encoding="utf-8")
    at = terminal.wait_for(PROMPT)
    terminal.type(f"/attach {tmp_path / 'missing.txt'}\r")
    at = terminal.wait_for(PROMPT, after=terminal.wait_for("No file at", after=at))
    terminal.type(f"/attach {notes}\r")
    at = terminal.wait_for(PROMPT, after=terminal.wait_for("1 file will go", after=at))
    terminal.type("who do I ring?\r")
    at = terminal.wait_for(PROMPT, after=terminal.wait_for("bot> ", after=at))
    terminal.type("and then?\r")
    at = terminal.wait_for(PROMPT, after=terminal.wait_for("bot> ", after=at))
    terminal.type("/quit\r")
    assert terminal.proc.wait(60) == 0
    first, second = (fake_anthropic.last_user_text(r.body) for r in fake_anthropic.requests)
    assert first.startswith('who do I ring?\n\n<file name="notes.txt">\n<PERSON_1>: <PHONE_')
    assert "Maria" not in first
    assert second == "and then?"


def test_ctrl_c_at_the_prompt_ends_the_console_at_once(terminal: Terminal) -> None:
    terminal.wait_for(PROMPT)
    terminal.proc.send_signal(signal.SIGINT)  # what Ctrl-C sends to the foreground process
    assert terminal.proc.wait(60) == 130  # without a line typed after it
    assert "Traceback" not in terminal.screen


def test_log_lines_wait_until_the_answer_is_written(
    terminal: Terminal, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.fail_mid_stream(after_deltas=1)  # the answer breaks off after its start
    at = terminal.wait_for(PROMPT)
    terminal.type("summarize the release notes\r")
    start = terminal.wait_for("bot> ", after=at)
    end = terminal.wait_for(PROMPT, after=start)
    answer = terminal.screen[start:end]
    lines = answer.splitlines()
    logged = [i for i, line in enumerate(lines) if LOG_LINE.match(line)]
    assert logged, answer  # the turn was logged (VEILBOT_LOG_LEVEL=INFO) ...
    told = [i for i, line in enumerate(lines) if "try again" in line.lower()]
    assert told, answer
    assert max(told) < min(logged), answer  # ... after what the user was told
