"""SIGHUP reloads the config file's controls: a good file takes effect for the next turn, a
bad one is refused with its reason logged and the running settings kept, and a turn already
running finishes as it began."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.config.reload import reload_on_sighup
from bot.config.settings import load_settings
from bot.core.types import InboundMessage, TurnStatus, thread_id
from bot.model.echo import ECHO_PREFIX
from tests.e2e.conftest import MakeApp, message, unique_thread
from tests.fakes.anthropic_server import FakeAnthropic

OPEN = "max_tokens = 900\n"
CLOSED = 'max_tokens = 900\n[access]\ndeny_users = ["console:U-tester"]\n'
BAD = "max_tokens = 900\n[access]\ndeny_user = ['U-tester']\n"


async def until(check: Callable[[], bool], what: str) -> None:
    for _ in range(1500):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


async def test_sighup_reloads_access_keeps_a_running_turn_and_refuses_a_bad_file(
    make_app: MakeApp,
    fake_anthropic: FakeAnthropic,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    path = tmp_path / "veilbot.toml"
    path.write_text(OPEN, encoding="utf-8")
    loaded = load_settings(config_file=path, _env_file=None)
    app = await make_app(config=path, config_watch_seconds=0, max_tokens=loaded.max_tokens)
    thread = unique_thread()
    async with reload_on_sighup(app) as reloader:
        fake_anthropic.hold()
        running = asyncio.create_task(app.conversation.handle(message("first", thread)))
        await until(lambda: len(fake_anthropic.requests) == 1, "the first turn at the model")

        path.write_text(CLOSED, encoding="utf-8")
        os.kill(os.getpid(), signal.SIGHUP)
        await reloader.wait_for(1)
        fake_anthropic.release()
        first = await running
        assert first is not None
        assert first.status is TurnStatus.OK  # began before the reload: finished as begun

        refused = await app.conversation.handle(message("second", unique_thread()))
        assert refused is not None
        assert refused.status is TurnStatus.REFUSED

        path.write_text(BAD, encoding="utf-8")
        with caplog.at_level(logging.ERROR, logger="bot.config.reload"):
            os.kill(os.getpid(), signal.SIGHUP)
            await reloader.wait_for(2)
        assert (reloader.reloads, reloader.refused) == (1, 1)
        assert f"{path}:3: access.deny_user" in caplog.text
        still = await app.conversation.handle(message("third", unique_thread()))
        assert still is not None
        assert still.status is TurnStatus.REFUSED  # the last good settings stand
    assert len(fake_anthropic.requests) == 1


async def test_a_changed_file_is_reloaded_as_kubernetes_swaps_a_configmap(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    # A ConfigMap volume: the file is a symlink into a versioned directory, swapped whole.
    for version, text in (("v1", OPEN), ("v2", CLOSED)):
        (tmp_path / version).mkdir()
        (tmp_path / version / "veilbot.toml").write_text(text, encoding="utf-8")
    (tmp_path / "..data").symlink_to("v1")
    path = tmp_path / "veilbot.toml"
    path.symlink_to("..data/veilbot.toml")
    app = await make_app(config=path, config_watch_seconds=0.05)
    async with reload_on_sighup(app) as reloader:
        before = await app.conversation.handle(message("hello", unique_thread()))
        assert before is not None
        assert before.ok
        (tmp_path / "..data_tmp").symlink_to("v2")
        os.replace(tmp_path / "..data_tmp", tmp_path / "..data")  # what the kubelet does
        await reloader.wait_for(1)
        after = await app.conversation.handle(message("hello again", unique_thread()))
        assert after is not None
        assert after.status is TurnStatus.REFUSED
    assert (reloader.reloads, reloader.refused) == (1, 0)


def _in_channel(text: str, ts: str) -> InboundMessage:
    return InboundMessage(
        thread_id=thread_id("slack", "T1", "C2", ts),
        platform="slack",
        workspace="T1",
        channel="C2",
        user_id="U1",
        message_id=uuid.uuid4().hex,
        text=text,
    )


async def test_a_reload_that_changes_a_scope_keeps_the_turns_already_begun(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    before = '[scopes."slack:T1:C2"]\nmodel = "claude-haiku-4-5"\nmax_tokens = 300\n'
    after = '[scopes."slack:T1:C2"]\nmodel = "claude-opus-4-1"\nmax_tokens = 700\n'
    path = tmp_path / "veilbot.toml"
    path.write_text(before, encoding="utf-8")
    loaded = load_settings(config_file=path, _env_file=None)
    app = await make_app(config=path, config_watch_seconds=0, scopes=loaded.scopes)
    ts = f"17{uuid.uuid4().int % 10**8}.1"
    async with reload_on_sighup(app) as reloader:
        fake_anthropic.hold()
        first = asyncio.create_task(app.conversation.handle(_in_channel("first", ts)))
        await until(lambda: len(fake_anthropic.requests) == 1, "the first turn at the model")
        # the same thread: this turn has begun, and waits for the first one's lock
        queued = asyncio.create_task(app.conversation.handle(_in_channel("second", ts)))
        tid = thread_id("slack", "T1", "C2", ts)
        await until(lambda: app.locks.queued(tid) == 2, "the second turn queued")

        path.write_text(after, encoding="utf-8")
        os.kill(os.getpid(), signal.SIGHUP)
        await reloader.wait_for(1)
        fake_anthropic.release()
        assert (await first) is not None
        assert (await queued) is not None
        later = await app.conversation.handle(_in_channel("third", f"{ts}1"))
        assert later is not None

    models = [(r.body["model"], r.body["max_tokens"]) for r in fake_anthropic.requests]
    assert models == [
        ("claude-haiku-4-5", 300),  # at the model when the file changed
        ("claude-haiku-4-5", 300),  # begun before the reload: the settings it began with
        ("claude-opus-4-1", 700),  # the next turn: the new settings
    ]


async def test_a_reload_builds_the_provider_a_scope_names_and_refuses_one_it_cannot_build(
    make_app: MakeApp,
    fake_anthropic: FakeAnthropic,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    path = tmp_path / "veilbot.toml"
    path.write_text("max_tokens = 900\n", encoding="utf-8")
    app = await make_app(config=path, config_watch_seconds=0)
    async with reload_on_sighup(app) as reloader:
        path.write_text('[scopes."slack:T1:C2"]\nprovider = "echo"\n', encoding="utf-8")
        assert await reloader.reload()
        echoed = await app.conversation.handle(_in_channel("hello there", "17.1"))
        assert echoed is not None
        assert echoed.text.startswith(ECHO_PREFIX)  # the new provider answered

        bad = '[scopes."slack:T1:C2"]\nprovider = "openai"\n'
        path.write_text(bad, encoding="utf-8")
        with caplog.at_level(logging.ERROR, logger="bot.config.reload"):
            assert not await reloader.reload()
        assert "config reload refused" in caplog.text
        assert "scopes: provider openai cannot be used: VEILBOT_OPENAI_BASE_URL" in caplog.text
        still = await app.conversation.handle(_in_channel("hello again", "17.2"))
        assert still is not None
        assert still.text.startswith(ECHO_PREFIX)  # the last good settings stand
    assert fake_anthropic.requests == []


async def test_sighup_with_a_file_nested_too_deeply_is_refused_in_one_line(
    make_app: MakeApp,
    fake_anthropic: FakeAnthropic,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    path = tmp_path / "veilbot.toml"
    path.write_text(CLOSED, encoding="utf-8")
    app = await make_app(
        config=path,
        config_watch_seconds=0,
        access=load_settings(config_file=path, _env_file=None).access,
    )
    caplog.set_level(logging.INFO)
    async with reload_on_sighup(app) as reloader:
        path.write_text("max_tokens = 900\nx = " + "[" * 100_000 + "]" * 100_000 + "\n")
        os.kill(os.getpid(), signal.SIGHUP)
        async with asyncio.timeout(30):
            await reloader.wait_for(1)
        assert (reloader.reloads, reloader.refused) == (0, 1)
        still = await app.conversation.handle(message("hello", unique_thread()))
        assert still is not None
        assert still.status is TurnStatus.REFUSED  # the running settings stand
    (refusal,) = [r for r in caplog.records if "config reload refused" in r.getMessage()]
    assert "nested too deeply" in refusal.getMessage()
    assert not any(r.exc_info for r in caplog.records)
    assert "Traceback" not in caplog.text
