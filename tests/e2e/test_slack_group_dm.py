"""Slack group DMs (``message.mpim``): answered without a mention, thread-keyed like a DM."""

from __future__ import annotations

from bot.core.types import thread_id
from tests.e2e.conftest import MakeApp
from tests.e2e.slack_harness import slack_harness
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.slack_payloads import message

GROUP = "G0MPIM1"


async def test_a_group_dm_is_answered_like_a_dm_in_its_own_thread(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    async with slack_harness(make_app) as h:
        first = message("what is a vault?", channel=GROUP, channel_type="mpim")
        ts = first["event"]["ts"]
        await h.send(first)
        await h.until(lambda: len(h.slack.thread(GROUP, ts)) == 1, "the group DM's answer")
        # a reply in that thread, again without a mention, by another member
        await h.send(
            message(
                "and a placeholder?", channel=GROUP, channel_type="mpim", thread_ts=ts, user="U222"
            )
        )
        await h.until(lambda: len(h.slack.thread(GROUP, ts)) == 2, "the reply's answer")
        await h.settle()
        tid = thread_id("slack", "T1", GROUP, ts)
        kept = await h.app.history.load(tid)

    assert len(fake_anthropic.requests) == 2
    assert len(kept) == 4  # one conversation, keyed by the group DM's first message
    last = fake_anthropic.requests[-1].body["messages"]
    assert "vault" in str(last[0])
    assert "placeholder" in str(last[-1])


async def test_a_group_dm_in_a_channel_without_the_bot_mentioned_is_not_a_dm(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    async with slack_harness(make_app) as h:
        await h.send(message("people talking among themselves", channel="C1"))
        await h.settle()
    assert fake_anthropic.requests == []
