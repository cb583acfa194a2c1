"""Text hygiene for user input and the short, friendly replies users see when a turn fails.

None of the replies quote the user's text: they are safe to log and to post anywhere.
"""

from __future__ import annotations

import re
import unicodedata

from bot.core.errors import (
    FileRejected,
    InputRejected,
    ModelError,
    ModelMisconfigured,
    ModelOverloaded,
    ModelRateLimited,
    ModelRejected,
    ModelTimeout,
    ModelUnavailable,
    ModelUnreachable,
)
from bot.core.types import TurnStatus

# Zero-width and other invisible format characters that split a value without showing:
# ZWSP, ZWNJ, ZWJ, LRM/RLM, bidi embeddings and isolates, word joiner, invisible operators, BOM.
_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u00ad]")
# C0 and C1 control characters except tab and newline.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_user_text(text: str) -> str:
    """Remove what a person cannot see but a detector would trip on.

    Carriage returns become newlines, lone surrogates (broken UTF-16 from a client) become
    U+FFFD, invisible and control characters are dropped, and the text is NFC-composed and
    stripped. Visible characters are never changed, so the user's meaning is kept.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _SURROGATE.sub("\ufffd", text)
    text = _INVISIBLE.sub("", text)
    text = _CONTROL.sub("", text)
    return unicodedata.normalize("NFC", text).strip()


def check_input(text: str, *, max_chars: int, files: int = 0) -> None:
    """Reject a cleaned message that is empty (and brings no ``files``) or over the size limit.

    Raises:
        InputRejected: with ``reason`` ``empty`` or ``too_long``; the message gives sizes only.
    """
    if not text and not files:
        raise InputRejected("message is empty", reason="empty")
    if len(text) > max_chars:
        raise InputRejected(
            f"message has {len(text)} characters; the limit is {max_chars}", reason="too_long"
        )


def rejection_reply(exc: InputRejected) -> str:
    """What the user is told when their message is not processed."""
    if isinstance(exc, FileRejected):
        return str(exc)
    if exc.reason == "empty":
        return (
            "Your message was empty, so there was nothing to answer. Type a question and I'll help."
        )
    if exc.reason == "too_long":
        return f"Your message is too long ({exc}). Please shorten it or split it into parts."
    if exc.reason == "hidden":
        return (
            "Your message is mostly invisible characters, so I didn't send it to the model. "
            "Please type it again as plain text."
        )
    return "I couldn't process that message. Please rephrase it and try again."


REFUSED_REPLY = (
    "Sorry, I'm not available to you here. If you need me, ask an admin of this workspace "
    "for access."
)


FAILURE_REPLIES: dict[TurnStatus, str] = {
    TurnStatus.GUARDRAIL_ERROR: (
        "I couldn't check your message for personal data, so I didn't send it to the model. "
        "Please try again in a moment."
    ),
    TurnStatus.STORE_ERROR: (
        "I can't reach my conversation store right now, so I didn't process your message. "
        "Please try again shortly."
    ),
}

MODEL_REJECTED_REPLY = (
    "The model couldn't process this request. Try rephrasing it, or start a new thread if "
    "this conversation has grown very long."
)
MODEL_REPLIES: tuple[tuple[type[ModelError], str], ...] = (
    (
        ModelUnreachable,
        "I can't reach the model right now (its service or the network is down). "
        "Please try again in a few minutes.",
    ),
    (
        ModelRateLimited,
        "The model has had too many requests from me (rate limited). Please try again in a minute.",
    ),
    (ModelOverloaded, "The model is overloaded right now. Please try again in a minute."),
    (
        ModelTimeout,
        "The model took too long to answer. Please try again; a shorter question may help.",
    ),
    (
        ModelMisconfigured,
        "I can't use the model: it is set up wrongly here (for example, its key was refused). "
        "Trying again won't help; please tell whoever runs this bot.",
    ),
    (ModelRejected, MODEL_REJECTED_REPLY),
    (
        ModelUnavailable,
        "The model's service had an error and didn't answer. Please try again in a minute.",
    ),
)
"""What a user is told for each model failure, most specific first (see ``model_reply``)."""


def model_reply(exc: ModelError) -> str:
    """The user's answer for a model failure: its own reply for each kind of failure."""
    for kind, reply in MODEL_REPLIES:
        if isinstance(exc, kind):
            return reply
    return MODEL_REPLIES[-1][1]


MODEL_EMPTY_REPLY = "The model returned an empty answer. Please try again."
TOOLS_EXHAUSTED_REPLY = (
    "I kept looking things up and ran out of lookups before I had an answer. "
    "Please ask again, more narrowly."
)
NOT_SAVED_NOTE = "\n\n_(I couldn't save this exchange, so I may not remember it next time.)_"
INTERNAL_REPLY = (
    "Something went wrong on my side and your message was not processed. Please try again."
)
