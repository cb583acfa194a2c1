"""Rate limits from a config file, kept in real Redis and shared by two service instances.

Two apps on one Redis prefix stand for two replicas: turns taken on either count against the
same limit. An over-limit turn never reaches the model, says when to try again, and is audited
``rate_limited``.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from bot.config.settings import load_settings
from bot.core.types import TurnStatus
from tests.e2e.conftest import MakeApp, audit_rows, message, unique_thread
from tests.fakes.anthropic_server import FakeAnthropic

LIMITS = """\
[rate_limits]
user = { turns = 2, per_seconds = 3600 }  # two an hour each
channel = { turns = 3, per_seconds = 60 }
"""


def limits_from(tmp_path: Path) -> dict[str, Any]:
    path = tmp_path / "veilbot.toml"
    path.write_text(LIMITS, encoding="utf-8")
    return {"rate_limits": load_settings(config_file=path, _env_file=None).rate_limits}


async def test_two_replicas_share_one_user_limit_and_the_answer_says_when_to_retry(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    first = await make_app(**limits_from(tmp_path))
    second = await make_app(**limits_from(tmp_path))
    thread = unique_thread()

    one = await first.conversation.handle(message("what is GCRA?", thread))
    two = await second.conversation.handle(message("and a token bucket?", thread))
    three = await first.conversation.handle(message("my name is Jane Roe", thread))

    assert one is not None
    assert two is not None
    assert three is not None
    assert (one.status, two.status) == (TurnStatus.OK, TurnStatus.OK)
    assert three.status is TurnStatus.RATE_LIMITED
    assert three.text == (
        "You've reached the limit of 2 messages per 1 hour for you. Please try again in 30 minutes."
    )
    assert len(fake_anthropic.requests) == 2  # the third never reached the model
    await first.audit.flush()
    rows = await audit_rows(first, thread)
    assert [r["status"] for r in rows] == ["ok", "ok", "rate_limited"]
    assert rows[2]["prompt"] in ("", None)
    assert "Jane" not in str(rows[2])

    # another person in another channel has a limit of their own
    other = replace(message("hello", unique_thread()), user_id="U-other")
    answered = await second.conversation.handle(other)
    assert answered is not None
    assert answered.ok


async def test_the_channel_limit_counts_everyone_in_the_channel(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    first = await make_app(**limits_from(tmp_path))
    second = await make_app(**limits_from(tmp_path))
    thread = unique_thread()
    replies = []
    for n, app in enumerate([first, second, first, second]):
        msg = replace(message(f"question {n}", thread), user_id=f"U-{n}")
        replies.append(await app.conversation.handle(msg))
    statuses = [r.status for r in replies if r is not None]
    assert statuses == [TurnStatus.OK] * 3 + [TurnStatus.RATE_LIMITED]
    last = replies[-1]
    assert last is not None
    assert "3 messages per 1 minute for this channel" in last.text
    # 20 s after the first turn, less the time the turns took
    wait = re.search(r"try again in (\d+) seconds?\.$", last.text)
    assert wait is not None
    assert 1 <= int(wait.group(1)) <= 20
    assert len(fake_anthropic.requests) == 3


async def test_a_turn_refused_by_one_limit_is_not_charged_to_the_other(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    app = await make_app(**limits_from(tmp_path))
    busy, quiet = unique_thread(), unique_thread()
    for n in range(3):  # fill the busy channel with other people's turns
        await app.conversation.handle(replace(message(f"q{n}", busy), user_id=f"U-{n}"))
    me = "U-me"
    for _ in range(2):  # over the channel limit: refused, and my own turns are not spent
        reply = await app.conversation.handle(replace(message("hi", busy), user_id=me))
        assert reply is not None
        assert reply.status is TurnStatus.RATE_LIMITED
    for _ in range(2):
        reply = await app.conversation.handle(replace(message("hi", quiet), user_id=me))
        assert reply is not None
        assert reply.ok
