"""Forking a thread: which turns a fork keeps, and the fork made (``bot.core.thread_fork``).

A turn is a user message with the answers after it. A fork keeps the source's first ``k``
(``first_k``) or last ``n`` (``last_n``) turns as the source keeps them (placeholder text),
and its vault holds the values those turns refer to, under the same placeholders, and nothing
else (``VaultCopier``). The source is untouched. The audit records a run of status ``forked``
in the new thread: the source, the selection and the counts, no text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.core.errors import InputRejected
from bot.core.types import ChatMessage, ThreadId

FORK_USAGE = (
    "Say which turns to keep: `first_k=K` (the first K turns) or `last_n=N` (the last N), "
    "one of them, with a whole number of at least 1."
)


@dataclass(frozen=True, slots=True)
class ForkSpan:
    """Which turns a fork keeps: the first ``first_k`` or the last ``last_n``."""

    first_k: int | None = None
    last_n: int | None = None

    def __post_init__(self) -> None:
        if (self.first_k is None) == (self.last_n is None):
            raise InputRejected(
                "give first_k or last_n, not both (and not neither)", reason="invalid"
            )
        count = self.first_k if self.first_k is not None else self.last_n
        if count is None or count < 1:
            raise InputRejected("the number of turns must be at least 1", reason="invalid")

    @classmethod
    def parse(cls, words: Sequence[str]) -> ForkSpan:
        """From chat words: ``first_k=2``, ``last_n=3`` (or ``first 2``, ``last 3``).

        Raises:
            InputRejected: not exactly one well-formed selection (the message never repeats
                the user's words).
        """
        pairs = [w.lower().partition("=") for w in words]
        flat = [part for name, _, value in pairs for part in (name, value) if part]
        if len(flat) % 2:
            raise InputRejected(FORK_USAGE, reason="invalid")
        found: dict[str, int] = {}
        for name, value in zip(flat[::2], flat[1::2], strict=True):
            key = {"first": "first_k", "last": "last_n"}.get(name, name)
            if key not in ("first_k", "last_n") or key in found:
                raise InputRejected(FORK_USAGE, reason="invalid")
            found[key] = _count(key, value)
        return cls(found.get("first_k"), found.get("last_n"))

    def describe(self) -> str:
        """``first_k=2`` or ``last_n=3``."""
        return f"first_k={self.first_k}" if self.first_k is not None else f"last_n={self.last_n}"

    def pick(self, turns: Sequence[Sequence[ChatMessage]]) -> Sequence[Sequence[ChatMessage]]:
        """The chosen turns.

        Raises:
            InputRejected: the thread has fewer turns than asked for.
        """
        wanted = self.first_k if self.first_k is not None else self.last_n
        if wanted is None or wanted > len(turns):
            raise InputRejected(
                f"that thread has {len(turns)} turns kept; {self.describe()} asks for more",
                reason="invalid",
            )
        return turns[:wanted] if self.first_k is not None else turns[len(turns) - wanted :]


@dataclass(frozen=True, slots=True)
class Fork:
    """A fork made: where from, where to, how many turns and vault values it kept."""

    source: ThreadId
    target: ThreadId
    span: ForkSpan
    turns: int
    values: int


def turns_of(history: Sequence[ChatMessage]) -> list[list[ChatMessage]]:
    """The history as turns: each user message with the answers that follow it."""
    turns: list[list[ChatMessage]] = []
    for message in history:
        if message.role == "user" or not turns:
            turns.append([message])
        else:
            turns[-1].append(message)
    return turns


def _count(name: str, value: str) -> int:
    if not value.strip().isdigit():  # "-1", "two", "1.5"
        raise InputRejected(f"{name} must be a whole number of at least 1", reason="invalid")
    return int(value)
