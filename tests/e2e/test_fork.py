"""Forking a thread: the new thread keeps exactly the chosen turns and only their values."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.app import App
from bot.core.errors import InputRejected
from bot.core.fork import ForkSpan, turns_of
from bot.core.types import ChatMessage, TurnStatus, parse_thread_id, thread_id
from tests.e2e.conftest import MakeApp, audit_rows, message, unique_thread
from tests.fakes.anthropic_server import FakeAnthropic, block_text
from tests.fixtures.guardrail import TEST_VAULT_KEY_B64

ROOT = Path(__file__).resolve().parents[2]

MARIA, MARIA_MAIL = "Maria Gonzalez", "maria.gonzalez@example.com"
PHONE, BOB_MAIL = "+1 415 555 0199", "bob.smith@example.org"


async def _three_turns(app: App, thread: str) -> None:
    for text in (
        f"I'm {MARIA}, mail {MARIA_MAIL}.",
        f"Call {PHONE} about the order.",
        f"Also copy {BOB_MAIL} on it.",
    ):
        reply = await app.conversation.handle(message(text, thread))
        assert reply is not None
        assert reply.ok


async def _fork(app: App, source: str, target: str, span: ForkSpan) -> None:
    await app.conversation.fork(
        thread_id("console", source),
        thread_id("console", target),
        span,
        workspace="local",
        channel=target,
        user_id="U-tester",
    )


async def test_a_fork_keeps_the_last_turns_and_only_their_values(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    app = await make_app()
    source, target = unique_thread(), unique_thread()
    await _three_turns(app, source)
    before = await app.history.load(thread_id("console", source))

    await _fork(app, source, target, ForkSpan(last_n=2))

    fork_tid = thread_id("console", target)
    assert await app.history.load(fork_tid) == before[2:]
    values = {v for _, v in (await app.vault.mapping(fork_tid)).values()}
    assert values == {PHONE, BOB_MAIL}  # Maria's name and mail were only in the dropped turn
    # The source is as it was.
    assert await app.history.load(thread_id("console", source)) == before
    source_values = {v for _, v in (await app.vault.mapping(thread_id("console", source))).values()}
    assert {MARIA, MARIA_MAIL, PHONE, BOB_MAIL} <= source_values

    # The next turn in the fork: the model sees the kept turns in placeholder form.
    fake_anthropic.answer("<PHONE_NUMBER_1>, <EMAIL_ADDRESS_2>, <EMAIL_ADDRESS_1>")
    reply = await app.conversation.handle(message("Which contacts do we have?", target))
    assert reply is not None
    assert reply.ok
    sent = fake_anthropic.requests[-1].body["messages"]
    texts = [block_text(m["content"]) for m in sent]
    assert texts[:4] == [m.text for m in before[2:]]
    assert "<PHONE_NUMBER_1>" in texts[0]
    assert "<EMAIL_ADDRESS_2>" in texts[2]
    joined = "\n".join(texts)
    for raw in (MARIA, MARIA_MAIL, PHONE, BOB_MAIL):
        assert raw not in joined
    # The answer restores the fork's values; the dropped turn's value is not there.
    assert reply.text == f"{PHONE}, {BOB_MAIL}, [redacted]"

    # A value new to the fork takes a number the source never gave.
    fake_anthropic.answer("Noted <EMAIL_ADDRESS_3>")
    reply = await app.conversation.handle(message("And new.person@example.net too.", target))
    assert reply is not None
    assert "<EMAIL_ADDRESS_3>" in fake_anthropic.last_user_text(fake_anthropic.requests[-1].body)
    assert reply.text == "Noted new.person@example.net"

    rows = await audit_rows(app, target)
    assert rows[0]["status"] == TurnStatus.FORKED.value
    assert rows[0]["prompt"] == ""
    assert rows[0]["answer"] == ""
    meta = rows[0]["metadata"]
    meta = meta if isinstance(meta, dict) else json.loads(meta)
    assert meta["forked_from"] == f"console:{source}"
    assert meta["fork"] == "last_n=2"
    assert meta["turns_kept"] == 2
    assert meta["values_kept"] == 2


async def test_a_fork_of_the_first_turn_keeps_its_name_linking(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    app = await make_app()
    source, target = unique_thread(), unique_thread()
    await _three_turns(app, source)

    await _fork(app, source, target, ForkSpan(first_k=1))

    fork_tid = thread_id("console", target)
    kept = await app.history.load(fork_tid)
    assert [m.role for m in kept] == ["user", "assistant"]
    values = {v for _, v in (await app.vault.mapping(fork_tid)).values()}
    assert values == {MARIA, MARIA_MAIL}
    # "Maria" alone is the same person in the fork, as in the source.
    reply = await app.conversation.handle(message("Is Maria still there?", target))
    assert reply is not None
    assert "<PERSON_1>" in fake_anthropic.last_user_text(fake_anthropic.requests[-1].body)
    assert "Maria" in reply.text


@pytest.mark.parametrize(
    ("words", "says"),
    [
        (["first_k=1", "last_n=1"], "not both"),
        (["first_k=-1"], "whole number"),
        (["last_n=0"], "at least 1"),
        (["last_n=two"], "whole number"),
        ([], "not both (and not neither)"),
        (["first_k"], "first_k=K"),
        (["everything"], "first_k=K"),
    ],
)
def test_bad_selections_say_what_is_wrong(words: list[str], says: str) -> None:
    with pytest.raises(InputRejected) as caught:
        ForkSpan.parse(words)
    assert says in str(caught.value)


async def test_a_fork_asking_too_much_or_of_nothing_is_refused_and_changes_nothing(
    make_app: MakeApp,
) -> None:
    app = await make_app()
    source, target = unique_thread(), unique_thread()
    await _three_turns(app, source)
    fork_tid = thread_id("console", target)

    with pytest.raises(InputRejected, match="has 3 turns kept; last_n=4"):
        await _fork(app, source, target, ForkSpan(last_n=4))
    with pytest.raises(InputRejected, match="no history for that thread"):
        await _fork(app, unique_thread(), target, ForkSpan(first_k=1))
    assert not await app.history.exists(fork_tid)
    assert await app.vault.mapping(fork_tid) == {}

    # A thread that already talks is not a new thread: nothing is written into it.
    reply = await app.conversation.handle(message("Hello there.", target))
    assert reply is not None
    existing = await app.history.load(fork_tid)
    with pytest.raises(InputRejected, match="history already"):
        await _fork(app, source, target, ForkSpan(first_k=1))
    assert await app.history.load(fork_tid) == existing
    with pytest.raises(InputRejected, match="into itself"):
        await _fork(app, source, source, ForkSpan(first_k=1))


def test_turns_are_a_user_message_with_its_answers() -> None:
    history = [
        ChatMessage("user", "a"),
        ChatMessage("assistant", "b"),
        ChatMessage("user", "c"),
        ChatMessage("user", "d"),
        ChatMessage("assistant", "e"),
    ]
    assert [len(t) for t in turns_of(history)] == [2, 1, 2]


def _cli(app: App, *args: str) -> subprocess.CompletedProcess[str]:
    """``veilbot fork ...`` as an operator runs it, on the app's stores."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("VEILBOT_", "ANTHROPIC_"))}
    env = {
        **clean,
        "VEILBOT_DATA_DIR": str(app.settings.data_dir),
        "VEILBOT_REDIS_URL": str(app.settings.redis_url),
        "VEILBOT_REDIS_PREFIX": app.settings.redis_prefix,
        "VEILBOT_VAULT_KEY": TEST_VAULT_KEY_B64,
    }
    return subprocess.run(
        [sys.executable, "-m", "bot", "fork", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
        check=False,
    )


async def test_the_cli_forks_into_a_new_console_thread(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    app = await make_app()
    source = unique_thread()
    await _three_turns(app, source)
    before = await app.history.load(thread_id("console", source))

    done = await asyncio.to_thread(_cli, app, f"console:{source}", "--first-k", "2")

    assert done.returncode == 0, done.stderr
    target = parse_thread_id(done.stdout.strip())
    assert target.startswith("console:fork-")
    assert "2 turns, 3 vault values kept" in done.stderr
    assert await app.history.load(target) == before[:4]
    values = {v for _, v in (await app.vault.mapping(target)).values()}
    assert values == {MARIA, MARIA_MAIL, PHONE}
    # The console goes on with it: the model sees the kept turns, the answer restores.
    fake_anthropic.answer("<PHONE_NUMBER_1> for <PERSON_1>")
    reply = await app.conversation.handle(message("Whose number?", target.split(":", 1)[1]))
    assert reply is not None
    assert reply.text == f"{PHONE} for {MARIA}"
    assert len(fake_anthropic.requests[-1].body["messages"]) == 5


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--first-k", "1", "--last-n", "1"], "not both"),
        (["--last-n", "-2"], "at least 1"),
        (["--first-k", "9"], "has 3 turns kept; first_k=9"),
        ([], "not both (and not neither)"),
    ],
)
async def test_the_cli_says_what_is_wrong(make_app: MakeApp, args: list[str], says: str) -> None:
    app = await make_app()
    source = unique_thread()
    await _three_turns(app, source)

    done = await asyncio.to_thread(_cli, app, f"console:{source}", *args)

    assert done.returncode == 2
    assert says in done.stderr
    assert done.stdout == ""


async def test_the_cli_refuses_an_unknown_thread(make_app: MakeApp) -> None:
    app = await make_app()
    done = await asyncio.to_thread(_cli, app, "console:nobody-here", "--last-n", "1")
    assert done.returncode == 2
    assert "no history for that thread" in done.stderr
