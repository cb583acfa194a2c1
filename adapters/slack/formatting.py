"""Claude's Markdown to Slack text: mrkdwn conversion, broadcast neutralizing, splitting.

Pure functions, no network. Two outputs exist because Slack has two renderers: classic
``text`` is mrkdwn (``*bold*``, ``<url|label>``, ``&lt;`` escapes), while the streaming API's
``markdown_text`` takes Markdown as Claude writes it. Both go through ``neutralize`` so that
nothing the model writes can ping a channel, and both are cut by ``take_chunk`` under Slack's
size limits, on paragraph or code-fence boundaries, closing and reopening a fence when a
code block itself must be cut.
"""

from __future__ import annotations

import re
from collections.abc import Collection

WORD_JOINER = "\u2060"
"""Invisible character that keeps ``@here`` readable while stopping Slack from parsing it."""

_BROADCAST = re.compile(r"<!(here|channel|everyone)(?:\|[^>]*)?>", re.IGNORECASE)
_SUBTEAM = re.compile(r"<!subteam\^[A-Za-z0-9]+(?:\|@?([^>]*))?>")
_OTHER_SPECIAL = re.compile(r"<!([^>]*)>")
_USER_MENTION = re.compile(r"<@([UW][A-Z0-9]+)(?:\|([^>]*))?>")
_OPEN_TOKEN = re.compile(r"<(?=[!@#])(?![^<>]*>)")
"""A ``<!``, ``<@`` or ``<#`` with no ``>`` after it: a token a later piece could complete."""
_BARE_BROADCAST = re.compile(r"@(here|channel|everyone)\b", re.IGNORECASE)
_SLACK_TOKEN = re.compile(
    r"<(?:@[UW][A-Z0-9]+|#C[A-Z0-9]+(?:\|[^>]*)?|(?:https?|mailto|tel):[^>\s|]+(?:\|[^>]*)?)>"
)
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1")
_LINK = re.compile(r"\[([^\]\n]+)\]\((https?://[^)\s]+|mailto:[^)\s]+)\)")
_AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
_BOLD = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_ITALIC_STAR = re.compile(r"(?<![*\w])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![*\w])")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")
_BULLET = re.compile(r"^(\s*)[-*+]\s+(.*)$")
_RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
_TOKEN = "\x00{}\x00"  # noqa: S105  (a marker, not a secret)
_TOKEN_RE = re.compile("\x00(\\d+)\x00")


def mentioned_users(text: str) -> frozenset[str]:
    """The user ids a Slack text mentions (``<@U…>``, ``<@W…|name>``)."""
    return frozenset(m.group(1) for m in _USER_MENTION.finditer(text))


def neutralize(text: str, asked: Collection[str] = ()) -> str:
    """Make mentions from the model harmless: they read as text and ping nobody unasked.

    ``<!here>``, ``<!channel>``, ``<!everyone>`` and ``<!subteam^…>`` (user groups) become
    plain words, and bare ``@here`` gets an invisible word joiner. A user mention (``<@U…>``)
    stays a mention only for the users in ``asked`` (those the asker mentioned: the guardrail
    restores them from placeholders and they should render), as on Discord; any other user
    becomes plain ``@U…`` text.
    """
    text = _USER_MENTION.sub(
        lambda m: (
            m.group(0) if m.group(1) in asked else f"@{WORD_JOINER}{m.group(2) or m.group(1)}"
        ),
        text,
    )
    text = _BROADCAST.sub(lambda m: f"@{WORD_JOINER}{m.group(1).lower()}", text)
    text = _SUBTEAM.sub(lambda m: f"@{WORD_JOINER}{m.group(1) or 'group'}", text)
    text = _OTHER_SPECIAL.sub(lambda m: f"&lt;!{m.group(1)}&gt;", text)
    return _BARE_BROADCAST.sub(lambda m: f"@{WORD_JOINER}{m.group(1)}", text)


def seal_open_tokens(text: str) -> str:
    """Escape the ``<`` of a Slack token left open at the end of a streamed piece.

    Streamed pieces are joined by Slack: ``<!here|all of`` now and `` you>`` later would
    make a broadcast neither piece holds. The stream holds such a tail back until it closes
    (``LiveReply``); a tail too long to hold is sent with its ``<`` escaped instead.
    """
    return _OPEN_TOKEN.sub("&lt;", text)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class _Tokens:
    """Protects finished Slack markup from later rewrites and from escaping."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def keep(self, value: str) -> str:
        self.items.append(value)
        return _TOKEN.format(len(self.items) - 1)

    def restore(self, text: str) -> str:
        return _TOKEN_RE.sub(lambda m: self.items[int(m.group(1))], text)


def _inline(line: str) -> str:
    """Convert one line of prose (outside code blocks) to mrkdwn."""
    tokens = _Tokens()
    line = _INLINE_CODE.sub(lambda m: tokens.keep(f"`{_escape(m.group(2))}`"), line)
    line = _LINK.sub(lambda m: tokens.keep(f"<{m.group(2)}|{_escape(m.group(1))}>"), line)
    line = _AUTOLINK.sub(lambda m: tokens.keep(f"<{m.group(1)}>"), line)
    line = _SLACK_TOKEN.sub(lambda m: tokens.keep(m.group(0)), line)
    line = _escape(line)
    line = _BOLD.sub(lambda m: tokens.keep(f"*{m.group(2)}*"), line)
    line = _ITALIC_STAR.sub(r"_\1_", line)
    line = _STRIKE.sub(r"~\1~", line)
    return tokens.restore(tokens.restore(line))


def _block_line(line: str) -> str:
    """Convert a line's block structure (heading, bullet, quote, rule), then its inline text."""
    if heading := _HEADING.match(line):
        return f"*{_inline(heading.group(1)).replace('*', '')}*"
    if _RULE.match(line):
        return "──────────"
    if bullet := _BULLET.match(line):
        return f"{bullet.group(1)}• {_inline(bullet.group(2))}"
    if line.startswith(">"):
        return ">" + _inline(line[1:])
    return _inline(line)


def to_mrkdwn(markdown: str, asked: Collection[str] = ()) -> str:
    """Convert Claude's Markdown to Slack mrkdwn, leaving code untouched but escaped.

    Code fences lose their language tag (Slack shows it as code otherwise); tables are shown
    as code blocks so their columns stay aligned. Mentions are neutralized (``neutralize``):
    only users in ``asked`` may be pinged.
    """
    out: list[str] = []
    fence: str | None = None
    in_table = False
    for line in neutralize(markdown, asked).split("\n"):
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(2)
            out.append("```")
        elif fence is not None:
            closes = bool(match and match.group(2).startswith(fence) and not match.group(3).strip())
            out.append("```" if closes else _escape(line).replace("```", "`\u200b``"))
            fence = None if closes else fence
        elif line.lstrip().startswith("|"):
            out.extend([] if in_table else ["```"])
            out.append(_escape(line))
            in_table = True
        else:
            out.extend(["```"] if in_table else [])
            in_table = False
            out.append(_block_line(line))
    if fence is not None or in_table:
        out.append("```")
    return "\n".join(out)


def open_fence(text: str) -> str | None:
    """The opening line of a code fence left open at the end of ``text``, if any."""
    opener: str | None = None
    for line in text.split("\n"):
        match = _FENCE.match(line)
        if match is None:
            continue
        if opener is None:
            opener = line.strip()
        elif match.group(2).startswith(opener.lstrip()[:3]) and not match.group(3).strip():
            opener = None
    return opener


def _best_cut(text: str, limit: int, min_cut: int) -> int:
    """Where to cut ``text`` so the head fits ``limit``: paragraph, line, word, or hard."""
    window = text[:limit]
    for sep in ("\n\n", "\n", " "):
        at = window.rfind(sep)
        while at > min_cut and sep == "\n\n" and open_fence(text[:at]) is not None:
            at = window.rfind(sep, 0, at)
        if at > min_cut:
            return at
    return max(limit, min_cut + 1)


def take_chunk(text: str, limit: int, *, min_cut: int = 0) -> tuple[str, str, str]:
    """Split off the first message-sized piece of ``text``.

    Args:
        text: Markdown or mrkdwn.
        limit: the largest head allowed, in characters (room for a fence close is kept).
        min_cut: the head must be longer than this.

    Returns:
        ``(head, rest, reopen)``. ``head`` is at most ``limit`` characters. When the cut falls
        inside a code block, ``head`` closes the fence and ``reopen`` is the fence's opening
        line, to put before ``rest`` in the next message; otherwise ``reopen`` is empty.
    """
    if len(text) <= limit:
        return text, "", ""
    cut = _best_cut(text, max(limit - 4, 1), min_cut)
    head, rest = text[:cut].rstrip(" "), text[cut:].lstrip("\n ")
    fence = open_fence(head)
    if fence is None:
        return head, rest, ""
    return head.rstrip("\n") + "\n```", rest, fence + "\n"


def split_message(text: str, limit: int) -> list[str]:
    """Cut ``text`` into pieces of at most ``limit`` characters (see ``take_chunk``)."""
    chunks: list[str] = []
    rest = text
    while rest:
        head, tail, reopen = take_chunk(rest, limit)
        if head.strip():
            chunks.append(head)
        rest = reopen + tail if tail else ""
    return chunks or [""]
