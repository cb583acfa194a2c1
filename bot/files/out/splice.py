"""Placeholders put into text held in several pieces (a paragraph's runs), formatting kept.

A value may span runs of different formatting ("Maria" bold, " Oliveira" plain): its
placeholder goes into the run where the value starts, and the value's text is removed from
the others, so each run keeps its own formatting and no piece of the value is left.
"""

from __future__ import annotations

from collections.abc import Sequence

Edit = tuple[int, int, str]
"""``(start, end, placeholder)``: a value's span in a unit's text and what replaces it."""


def spliced(texts: Sequence[str], fixed: Sequence[bool], edits: Sequence[Edit]) -> list[str]:
    """Each piece's new text after ``edits`` to the text the pieces make together.

    Args:
        texts: the pieces' texts, in order; the unit's text is their concatenation.
        fixed: per piece, whether it cannot be changed (a tab or a break mark): it stays as
            it is, and a placeholder whose value starts on it goes to the next piece.
        edits: non-overlapping, in order, in offsets of the unit's text.

    Returns:
        the new text of every piece.
    """
    out: list[str] = []
    pending = ""  # a placeholder whose value began on a fixed piece
    start = 0
    for text, frozen in zip(texts, fixed, strict=True):
        end = start + len(text)
        if frozen:
            pending += "".join(p for s, _, p in edits if start <= s < end)
            out.append(text)
        else:
            out.append(pending + _cut(text, start, edits))
            pending = ""
        start = end
    if pending and out:  # a value that began on a trailing mark: its placeholder still shows
        last = max((i for i, frozen in enumerate(fixed) if not frozen), default=None)
        if last is not None:
            out[last] += pending
    return out


def _cut(text: str, offset: int, edits: Sequence[Edit]) -> str:
    """``text`` (at ``offset`` in the unit) with its share of each edit applied."""
    end = offset + len(text)
    parts: list[str] = []
    position = offset
    for s, e, placeholder in edits:
        if e <= offset or s >= end:
            continue
        parts.append(text[position - offset : max(s, position) - offset])
        if s >= offset:
            parts.append(placeholder)
        position = max(position, min(e, end))
    parts.append(text[position - offset :])
    return "".join(parts)
