"""Broadcasts the model writes reach Slack as plain words, even split across stream deltas.

The fake model streams its answer about three words per delta; the real adapter streams it to
the fake Slack (``chat.startStream``/``appendStream``), which joins the pieces as Slack does.
"""

from __future__ import annotations

import pytest

from tests.e2e.conftest import MakeApp
from tests.e2e.slack_harness import slack_harness
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.slack_payloads import mention

ANSWERS = {
    "here": "Team, listen: <!here|all of you> must read this now.",
    "channel": "Note for <!channel|the whole channel> about the deadline.",
    "subteam": "Paging <!subteam^S1|the on call team> right away please.",
    "user": "Ask <@U999|somebody else entirely> about it.",
    "long": "Hello <!here|" + "word " * 120 + "end> bye.",
}


@pytest.mark.parametrize("kind", list(ANSWERS))
async def test_a_broadcast_split_across_deltas_pings_nobody(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, kind: str
) -> None:
    fake_anthropic.answer(ANSWERS[kind])
    async with slack_harness(make_app, slack_streaming="stream") as h:
        payload = mention("what should the team do?")
        ts = payload["event"]["ts"]
        assert await h.send(payload) == 200
        await h.until(lambda: bool(h.slack.thread("C1", ts)), "answer")
        await h.settle()
        assert h.slack.calls_to("chat.appendStream")
        shown = "".join(h.slack.thread("C1", ts))
        assert "<!" not in shown
        assert "<@U999" not in shown
        assert shown.endswith(ANSWERS[kind][-8:])
