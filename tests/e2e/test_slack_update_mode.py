"""Update mode (post, then edit) does work linear in an answer's length, and ends exact."""

from __future__ import annotations

from adapters.slack.formatting import split_message, to_mrkdwn
from tests.perf.bench_slack_update import LIMIT, long_answer, stream_answer


async def test_a_long_answer_costs_work_linear_in_its_length_and_ends_as_its_messages() -> None:
    small, large = long_answer(16_000), long_answer(50_000)
    posted_small, work_small, _ = await stream_answer(small)
    posted_large, work_large, _ = await stream_answer(large)

    assert posted_small == split_message(to_mrkdwn(small), LIMIT)
    assert posted_large == split_message(to_mrkdwn(large), LIMIT)
    # Linear: about 3x the text, at most about 3x the characters converted (it was ~10x).
    assert work_large.chars <= 1.2 * (len(large) / len(small)) * work_small.chars
