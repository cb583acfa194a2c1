"""Claude's Markdown as Slack shows it: mrkdwn, neutralized broadcasts, message splitting."""

from __future__ import annotations

import pytest

from adapters.slack.formatting import (
    WORD_JOINER,
    neutralize,
    seal_open_tokens,
    split_message,
    to_mrkdwn,
)


@pytest.mark.parametrize(
    ("markdown", "mrkdwn"),
    [
        ("**bold** and *italic* and __also bold__", "*bold* and _italic_ and *also bold*"),
        ("~~gone~~", "~gone~"),
        ("# Title\n## Sub **x**", "*Title*\n*Sub x*"),
        (
            "See [the docs](https://example.com/a?b=1&c=2).",
            "See <https://example.com/a?b=1&c=2|the docs>.",
        ),
        ("- one\n  * two\n1. three", "• one\n  • two\n1. three"),
        ("a < b && c > d", "a &lt; b &amp;&amp; c &gt; d"),
        ("> quoted **text**", "> quoted *text*"),
        ("ask <#C42|general>", "ask <#C42|general>"),
        ("mail <mailto:a@b.co|a@b.co>", "mail <mailto:a@b.co|a@b.co>"),
        ("use `x**2 < y`", "use `x**2 &lt; y`"),
    ],
)
def test_markdown_becomes_mrkdwn(markdown: str, mrkdwn: str) -> None:
    assert to_mrkdwn(markdown) == mrkdwn


def test_code_blocks_are_kept_verbatim_but_escaped_and_lose_the_language() -> None:
    md = "Run:\n```python\nif a < b and **kw:\n    print('# not a heading')\n```\nDone **now**."
    assert to_mrkdwn(md) == (
        "Run:\n```\nif a &lt; b and **kw:\n    print('# not a heading')\n```\nDone *now*."
    )


def test_tables_become_code_blocks() -> None:
    md = "| a | b |\n|---|---|\n| 1 | 2 |\nafter"
    assert to_mrkdwn(md) == "```\n| a | b |\n|---|---|\n| 1 | 2 |\n```\nafter"


def test_only_users_the_asker_mentioned_may_be_pinged() -> None:
    answer = "ask <@U1>, <@U2|bob> or <@W3>"
    assert neutralize(answer, {"U1"}) == f"ask <@U1>, @{WORD_JOINER}bob or @{WORD_JOINER}W3"
    assert to_mrkdwn(answer, {"U1", "W3"}) == f"ask <@U1>, @{WORD_JOINER}bob or <@W3>"
    assert "<@" not in to_mrkdwn(answer)


def test_broadcasts_are_neutralized_but_asked_user_mentions_kept() -> None:
    text = neutralize(
        "<!here> <!channel> <!everyone|everyone> <!subteam^S1|@devs> @here <@U1>", {"U1"}
    )
    for ping in ("<!here>", "<!channel>", "<!everyone", "<!subteam"):
        assert ping not in text
    assert f"@{WORD_JOINER}here" in text
    assert f"@{WORD_JOINER}devs" in text
    assert text.endswith("<@U1>")
    mrkdwn = to_mrkdwn("<!here> hi")
    assert "<!" not in mrkdwn
    assert "here" in mrkdwn


def test_short_text_is_one_message() -> None:
    assert split_message("hello", 100) == ["hello"]


def test_split_prefers_paragraph_boundaries() -> None:
    text = "\n\n".join(f"Paragraph {i} " + "word " * 30 for i in range(10))
    chunks = split_message(text, 500)
    assert all(len(c) <= 500 for c in chunks)
    assert all(c.startswith("Paragraph") for c in chunks)
    assert "".join(chunks).replace("\n", "").replace(" ", "") == text.replace("\n", "").replace(
        " ", ""
    )


def test_a_cut_code_block_is_closed_and_reopened() -> None:
    code = "```python\n" + "\n".join(f"x_{i} = {i}" for i in range(200)) + "\n```"
    chunks = split_message("Intro.\n\n" + code + "\n\nOutro.", 600)
    assert len(chunks) > 3
    assert all(len(c) <= 600 for c in chunks)
    assert all(c.count("```") % 2 == 0 for c in chunks)
    assert all(c.startswith("```python") for c in chunks[1:-1])
    lines = [ln for c in chunks for ln in c.split("\n") if ln.startswith("x_")]
    assert lines == [f"x_{i} = {i}" for i in range(200)]


def test_a_single_huge_word_is_still_cut() -> None:
    chunks = split_message("a" * 2500, 1000)
    assert all(len(c) <= 1000 for c in chunks)
    assert "".join(chunks) == "a" * 2500


def test_a_token_left_open_at_the_end_of_a_streamed_piece_cannot_be_completed_later() -> None:
    assert seal_open_tokens("hi <!here|all of") == "hi &lt;!here|all of"
    assert seal_open_tokens("ask <@U1|someone") == "ask &lt;@U1|someone"
    assert seal_open_tokens("<!here> and <@U1> a < b") == "<!here> and <@U1> a < b"
