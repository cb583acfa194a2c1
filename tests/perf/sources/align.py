"""Labelled spans from an (original, expected redacted) pair of texts (pure).

Peer suites often state their expectation as the redacted text: ``"Name is
[REDACTED_PERSON_1]."`` for ``"Name is John Doe."``. ``align`` walks both texts and returns
the span of the original that each placeholder stands for. Placeholders with nothing between
them (``[REDACTED_PERSON_1][REDACTED_PERSON_2]`` for one full name) make one span, typed by the
first. The literal text after a placeholder is looked for at each of its occurrences in turn,
so a value that contains the same characters as what follows it still aligns.
"""

from __future__ import annotations

import re

LLM_GUARD = re.compile(r"\[REDACTED_([A-Z0-9_]+?)_\d+\]")
PRESIDIO = re.compile(r"<([A-Z][A-Z0-9_]*)>")
SCRUBADUB = re.compile(r"\{\{([A-Z][A-Z0-9_]*?)(?:-\d+)?\}\}")

_MAX_TRIES = 10_000


def _pieces(redacted: str, placeholder: re.Pattern[str]) -> list[tuple[str, str | None]]:
    """``(literal, type)`` pairs: each literal is followed by a placeholder of ``type``."""
    pieces: list[tuple[str, str | None]] = []
    position = 0
    for match in placeholder.finditer(redacted):
        literal = redacted[position : match.start()]
        if pieces and pieces[-1][1] is not None and literal == "":
            position = match.end()  # adjacent placeholder: same value as the one before
            continue
        pieces.append((literal, match.group(1)))
        position = match.end()
    pieces.append((redacted[position:], None))
    return pieces


def align(
    original: str, redacted: str, placeholder: re.Pattern[str]
) -> list[tuple[str, int, int]] | None:
    """The ``(type, start, end)`` spans of ``original`` that ``redacted`` replaced.

    Returns ``None`` when the two texts do not align (the expectation was not made from
    this text).
    """
    pieces = _pieces(redacted, placeholder)
    tries = [0]

    def walk(index: int, position: int) -> list[tuple[str, int, int]] | None:
        tries[0] += 1
        if tries[0] > _MAX_TRIES:
            return None
        literal, kind = pieces[index]
        if not original.startswith(literal, position):
            return None
        position += len(literal)
        if kind is None:
            return [] if position == len(original) else None
        follow = pieces[index + 1][0]
        if follow == "":  # the placeholder ends the text
            end = len(original)
            rest = walk(index + 1, end) if end > position else None
            return None if rest is None else [(kind, position, end), *rest]
        end = original.find(follow, position + 1)
        while end != -1:
            rest = walk(index + 1, end)
            if rest is not None:
                return [(kind, position, end), *rest]
            end = original.find(follow, end + 1)
        return None

    return walk(0, 0)
