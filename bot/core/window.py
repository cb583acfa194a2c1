"""The context window: which history messages fit into one model request.

There is no tokenizer offline, so token counts are conservative estimates (about 3.5
characters per token, rounded up, plus a small overhead per message). Trimming drops whole
turns, oldest first, so the request always starts with a user message and alternates.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

from bot.core.types import ChatMessage, ModelRequest

CHARS_PER_TOKEN = 3.5
MESSAGE_OVERHEAD_TOKENS = 4
"""Role markers and separators the API adds around every message."""
IMAGE_MAX_TOKENS = 1600
"""The most one image costs: the API scales an image to about 1.15 megapixels, and bills
an image of that size about 1 600 tokens (width x height / 750)."""

_Turn = tuple[ChatMessage, ChatMessage]


def estimate_tokens(text: str) -> int:
    """A conservative token estimate for a text (no tokenizer needed).

    Args:
        text: any text.

    Returns:
        ``ceil(len(text) / 3.5)``; 0 for an empty text.
    """
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def message_tokens(message: ChatMessage) -> int:
    """The estimated tokens of one message, overhead included."""
    return estimate_tokens(message.all_text) + MESSAGE_OVERHEAD_TOKENS


def max_input_tokens(request: ModelRequest) -> int:
    """The most input tokens ``request`` can be billed: never fewer than the API counts.

    A token is one byte of UTF-8 at the least, so the byte count bounds it from above (the
    estimate above is typical, not a bound: text in other scripts takes more tokens).
    """
    texts = [request.system, *(m.all_text for m in request.messages)]
    texts += [ChatMessage("assistant", "", request.pending).all_text] if request.pending else []
    texts += [f"{t.name}{t.description}{json.dumps(t.schema)}" for t in request.tools]
    text_tokens = sum(len(t.encode("utf-8")) + MESSAGE_OVERHEAD_TOKENS for t in texts)
    return text_tokens + IMAGE_MAX_TOKENS * len(request.images)


def fit_to_window(
    history: Sequence[ChatMessage],
    new: ChatMessage,
    *,
    window_tokens: int,
    system: str,
) -> tuple[ChatMessage, ...]:
    """Choose the messages of one request: as much recent history as fits, then ``new``.

    The history is repaired first (see ``repair_history``), then whole turns are dropped,
    oldest first, until the system prompt and the messages fit the window. When even ``new``
    alone does not fit, ``(new,)`` is returned: the caller's input-size limit bounds it.

    Args:
        history: the thread's messages, oldest first. Not modified.
        new: the user's new message (role ``user``).
        window_tokens: the input tokens the system prompt and messages may take.
        system: the system prompt that will be sent.

    Returns:
        A tuple that starts with a user message, alternates user/assistant and ends with
        ``new``.

    Raises:
        ValueError: when ``new`` is not a user message.
    """
    if new.role != "user":
        raise ValueError("the new message must have the user role")
    remaining = window_tokens - estimate_tokens(system) - message_tokens(new)
    # Only the newest messages can fit: repair and fit a tail that overflows the window, and
    # the whole history only when that tail's repaired turns all fit after all (rare).
    start = _overflowing_tail(history, remaining)
    kept, all_fit = _fit(repair_history(history[start:]), remaining)
    if all_fit and start > 0:
        kept, _ = _fit(repair_history(history), remaining)
    messages = [message for turn in reversed(kept) for message in turn]
    return (*messages, new)


def _overflowing_tail(history: Sequence[ChatMessage], remaining: int) -> int:
    """Where a tail of the history begins whose newest complete turns exceed ``remaining``.

    One message before the first that overflows, so the turn it belongs to is in the tail
    whether it is the question or the answer; 0 when the whole history fits.
    """
    # Inline rather than per-message calls: an old thread's every turn walks 200 messages.
    total = 0
    ceil = math.ceil
    for index in range(len(history) - 1, -1, -1):
        total += ceil(len(history[index].all_text) / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD_TOKENS
        if total > remaining:
            return max(0, index - 1)
    return 0


def _fit(turns: Sequence[_Turn], remaining: int) -> tuple[list[_Turn], bool]:
    """The newest turns that fit, newest first, and whether every turn did."""
    kept: list[_Turn] = []
    ceil, overhead = math.ceil, 2 * MESSAGE_OVERHEAD_TOKENS
    for turn in reversed(turns):
        question, answer = turn[0].all_text, turn[1].all_text
        remaining -= ceil(len(question) / CHARS_PER_TOKEN) + ceil(len(answer) / CHARS_PER_TOKEN)
        remaining -= overhead
        if remaining < 0:
            return kept, False
        kept.append(turn)
    return kept, True


def repair_history(history: Sequence[ChatMessage]) -> tuple[_Turn, ...]:
    """Turn a possibly malformed history into complete (user, assistant) turns.

    A history can break the API's rules after a failed turn or a deleted message. The
    repair: messages with blank text are dropped; consecutive assistant messages are
    merged into one; an assistant message with no user message before it is dropped; a
    user message that was never answered is dropped (the newest one wins when several
    users follow each other).

    Args:
        history: messages, oldest first. Not modified.

    Returns:
        Complete turns, oldest first.
    """
    turns: list[_Turn] = []
    pending_user: ChatMessage | None = None
    for message in history:
        if not message.text.strip():
            continue
        if message.role == "user":
            pending_user = message
        elif pending_user is not None:
            turns.append((pending_user, message))
            pending_user = None
        elif turns:
            user, answer = turns[-1]
            turns[-1] = (user, ChatMessage("assistant", f"{answer.text}\n\n{message.text}"))
    return tuple(turns)
