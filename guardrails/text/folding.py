"""Evasion folded out of the analysis text, through the offset map of ``guardrails.text.normalize``.

People (and scripts) hide a value from a detector by writing it so a reader still sees it
but a pattern does not match. Each form below is folded in the analysis text only: a
detection maps back onto the user's own characters, so the whole written form, spacing and
hidden characters included, becomes one placeholder, and the model gets the user's text
with placeholders in it.

- tag characters (U+E0020-U+E007E, which mirror ASCII and show nothing: "ASCII
  smuggling"): read as the ASCII they mirror, so what they hide is analysed like the rest;
  a run of them inside a word reads as part of the word, its tag spaces dropped, so one
  hidden space cannot split "jane.doe@…";
- combining marks on an ASCII character ("4111\u0301 1111 ..."): dropped (a mark
  belongs to the character before it, so a span that ends there takes it along);
- digit groups joined by ``/``, ``_``, ``|``, ``,``, ``;``, ``:`` or ``*`` that hold a card's
  13 to 19 digits ("4111/1111/1111/1111"): the joiners read as spaces;
- digits spelled out, seven or more in a row ("four one five five five five zero ...",
  "oh seven seven double oh 123456"): each word reads as its digits, the separators dropped;
- letter and digit spacing, four or more single characters in a row ("j a n e . d o e @ …",
  "4 1 5 5 5 5 0 1 9 9"): the single spaces dropped; a wider gap, or a capital after a small
  letter ("J a n e D o e"), stays one space, so the words stay words. Digits that count
  ("1 2 3 4 5", a rating scale) stay apart.
- letters for digits in a group of a phone or card number ("+44 20 7946 O958"): read as
  the digits, when the whole then is one (``fold``'s ``also``: the rules decide).

Invisible and format characters are dropped while ``guardrails.text.normalize`` builds the text.
``mostly_hidden`` tells a message that is mostly such characters: it is refused, not
analysed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from guardrails.text.normalize import HIDDEN_RE, INVISIBLE_RE, Normalized

Edit = tuple[int, int, str]
"""``(start, end, replacement)`` in analysis offsets; an empty replacement drops the span."""

_TAG_RUN = re.compile("[\U000e0020-\U000e007e]+")
_MARK = r"[\u0300-\u036f\u0483-\u0489\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]"
_MARKS = re.compile(_MARK + "+")
_JOINED_DIGITS = re.compile(r"(?<![\w/_|,;:*])\d{1,6}(?:[/_|,;:*]\d{1,6}){2,7}(?![\w/_|,;:*])")
_JOINER = re.compile(r"[/_|,;:*]")
_DIGIT_WORDS = {
    "zero": "0", "oh": "0", "o": "0", "one": "1", "two": "2", "three": "3", "four": "4",
    "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9",
}  # fmt: skip
_DIGIT_WORD = re.compile(
    r"\b(?:(?P<times>double|triple)[ \t]+)?"
    r"(?P<w>zero|oh|o|one|two|three|four|five|six|seven|eight|nine)\b|\b\d{1,6}\b",
    re.I,
)
_TIMES = {"double": 2, "triple": 3}
_SPACED = re.compile(r"(?<!\S)\S \S \S")
_DIGIT_GAP = re.compile(r"[ \t]*[,\-.]?[ \t]*")
_TOKEN = re.compile(r"\S+")
_BLANK = re.compile(r"\s")
_MAY_HIDE = re.compile(r"&[lg]t;|_\s|\s_|\S \S \S \S|" + HIDDEN_RE.pattern + "|" + _MARK)
_FIRST = re.compile(r"[(\[{<\"'“‘]*\S")
_LAST = re.compile(r"\S[)\]}>\"'”’.,;:!?]+")
MIN_SPELLED = 7
"""Spelled digits in a row that read as a number (the shortest phone numbers)."""
MIN_SPACED = 4
"""Single characters in a row, one space apart, that read as one word."""
HIDDEN_SHARE = 0.5
"""A message whose characters (blanks aside) are at least this share hidden is refused."""
MIN_HIDDEN = 16
"""... when it holds at least this many (an emoji flag carries a few tag characters)."""


def fold(norm: Normalized, *also: Callable[[str], Iterator[Edit]]) -> Normalized:
    """``norm`` with the evasion forms of the module docstring folded, offsets kept.

    ``also``: finders of forms that only a rule can tell (letters typed for the digits of a
    phone number, ``guardrails.rules.ocr.lookalike_digits``), run after this module's own.
    """
    for finder in (*_FINDERS, *also):
        edits = list(finder(norm.text))
        if edits:
            norm = _apply(norm, edits)
    return norm


def plain(value: str, *also: Callable[[str], Iterator[Edit]]) -> str:
    """A detected value as a reader sees it: hidden characters out, evasion forms folded.

    "jane\u200b.doe@…", "j a n e . d o e @ …" and "jane.doe@…" are one value, as are
    "four one five five five five …" and "415 555 …" (``guardrails.vault.linking.identity``).
    ``also``: as ``fold``'s.
    """
    kept = [i for i, c in enumerate(value) if not INVISIBLE_RE.match(c)]
    text = "".join(value[i] for i in kept)
    return fold(Normalized(text, kept, [i + 1 for i in kept]), *also).text


def may_hide(text: str) -> bool:
    """Whether folding (or the platform's escapes) may show a reader text the raw one lacks.

    A cheap test, so that the full analysis form is built only for such texts.
    """
    return _MAY_HIDE.search(text) is not None


def mostly_hidden(text: str) -> bool:
    """Whether ``text`` is mostly characters nobody sees (it is then refused, not analysed)."""
    hidden = HIDDEN_RE.subn("", text)[1]
    if hidden < MIN_HIDDEN:
        return False
    written = len(text) - _BLANK.subn("", text)[1]
    return hidden >= HIDDEN_SHARE * written


def _tags(text: str) -> Iterator[Edit]:
    for run in _TAG_RUN.finditer(text):
        start, end = run.span()
        inside = 0 < start and end < len(text)
        inside = inside and not text[start - 1].isspace() and not text[end].isspace()
        for i in range(start, end):
            ascii_char = chr(ord(text[i]) - 0xE0000)
            yield i, i + 1, "" if inside and ascii_char == " " else ascii_char


def _marks(text: str) -> Iterator[Edit]:
    for match in _MARKS.finditer(text):
        if match.start() > 0 and "\x21" <= text[match.start() - 1] <= "\x7e":
            yield match.start(), match.end(), ""


def _joined_digits(text: str) -> Iterator[Edit]:
    for match in _JOINED_DIGITS.finditer(text):
        groups = _JOINER.split(match.group())
        if all(len(g) == 3 for g in groups[1:]):
            continue  # thousands separators: an amount, not a card
        if 13 <= sum(map(len, groups)) <= 19:
            for joiner in _JOINER.finditer(text, match.start(), match.end()):
                yield joiner.start(), joiner.end(), " "


def _spelled_digits(text: str) -> Iterator[Edit]:
    if sum(word.strip(",.-") in _DIGIT_WORDS for word in text.lower().split()) < 3:
        return  # the usual text: too few digit words for a spelled number
    run: list[re.Match[str]] = []
    for word in _DIGIT_WORD.finditer(text):
        if run and not _DIGIT_GAP.fullmatch(text, run[-1].end(), word.start()):
            yield from _spelled_run(run)
            run = []
        run.append(word)
    yield from _spelled_run(run)


def _spelled_run(run: list[re.Match[str]]) -> Iterator[Edit]:
    """A run of digit words and digits: each word its digits, the gaps dropped.

    "double oh" and "triple five" say a digit twice or three times, as numbers are read
    out in Britain and India; groups of digits may stand between the words ("oh seven
    seven double oh 123456").
    """
    if sum(w["w"] is not None for w in run) < 3 or sum(len(_read(w)) for w in run) < MIN_SPELLED:
        return
    for i, word in enumerate(run):
        if word["w"] is not None:
            yield word.start(), word.end(), _read(word)
        if i + 1 < len(run) and word.end() < run[i + 1].start():
            yield word.end(), run[i + 1].start(), ""


def _read(word: re.Match[str]) -> str:
    """The digits a word of ``_DIGIT_WORD`` stands for."""
    if word["w"] is None:
        return word.group()
    times = _TIMES[word["times"].lower()] if word["times"] else 1
    return _DIGIT_WORDS[word["w"].lower()] * times


def _spacing(text: str) -> Iterator[Edit]:
    """Runs of single characters one or a few spaces apart: the letters of spaced words.

    The first may follow an opening bracket or quote, the last be followed by punctuation
    ("(j a n e @ x . o r g)," reads as "(jane@x.org),").
    """
    if _SPACED.search(text) is None:
        return  # the usual text: no four single characters in a row
    run: list[re.Match[str]] = []
    for token in _TOKEN.finditer(text):
        if run and _spaced_gap(text[run[-1].end() : token.start()]):
            if token.end() - token.start() == 1:
                run.append(token)
                continue
            if _LAST.fullmatch(token.group()):
                run.append(token)
                yield from _spaced_run(run)
                run = []
                continue
        yield from _spaced_run(run)
        run = [token] if _FIRST.fullmatch(token.group()) else []
    yield from _spaced_run(run)


def _spaced_gap(gap: str) -> bool:
    return 0 < len(gap) <= 3 and gap.strip(" ") == ""


def _spaced_run(run: list[re.Match[str]]) -> Iterator[Edit]:
    """The gaps of a run: a single space dropped; a wider one, or a case change, one space."""
    gaps = [
        (a.end(), b.start(), a.group()[-1].islower() and b.group()[0].isupper())
        for a, b in _pairs(run)
    ]
    if len(run) < MIN_SPACED or sum(end - start == 1 for start, end, _ in gaps) < MIN_SPACED - 1:
        return
    if _counting([token.group() for token in run]):
        return  # "rate it 1 2 3 4 5": a scale, not a number
    for start, end, camel in gaps:
        if end - start > 1:
            yield start + 1, end, ""  # a word gap: one space stays
        elif not camel:
            yield start, end, ""


def _counting(tokens: list[str]) -> bool:
    """Whether single digits count up or down by one ("1 2 3 4 5", "5 4 3 2 1")."""
    if not all(t.isdigit() for t in tokens):
        return False
    steps = {int(b) - int(a) for a, b in zip(tokens, tokens[1:], strict=False)}
    return steps in ({1}, {-1})


def _pairs(run: list[re.Match[str]]) -> Iterator[tuple[re.Match[str], re.Match[str]]]:
    return zip(run, run[1:], strict=False)


_FINDERS: tuple[Callable[[str], Iterator[Edit]], ...] = (
    _tags,
    _marks,
    _joined_digits,
    _spelled_digits,
    _spacing,
)


@dataclass
class _Rebuilt:
    """A normalized text being rewritten: its new characters and their original spans."""

    chars: list[str]
    starts: list[int]
    ends: list[int]
    new_index: list[int]


def _apply(norm: Normalized, edits: list[Edit]) -> Normalized:
    """``norm`` with non-overlapping ``edits`` applied; every new character keeps its span."""
    out = _Rebuilt([], [], [], [])
    position = 0
    for start, end, replacement in sorted(edits):
        if start < position:
            continue  # overlaps an earlier edit: that one stands
        _keep(norm, out, position, start)
        out.new_index.extend([len(out.chars)] * (end - start))
        if replacement:
            out.chars.extend(replacement)
            out.starts.extend([norm.starts[start]] * len(replacement))
            out.ends.extend([norm.ends[end - 1]] * len(replacement))
        elif out.ends:  # dropped: the character before takes its span along
            out.ends[-1] = max(out.ends[-1], norm.ends[end - 1])
        position = end
    _keep(norm, out, position, len(norm.text))
    out.new_index.append(len(out.chars))
    code = [(out.new_index[a], out.new_index[b]) for a, b in norm.code]
    return Normalized(
        text="".join(out.chars),
        starts=out.starts,
        ends=out.ends,
        users=norm.users,
        links=norm.links,
        protected=norm.protected,
        code=[(a, b) for a, b in code if b > a],
        fields=[(key, out.new_index[a], out.new_index[b]) for key, a, b in norm.fields],
    )


def _keep(norm: Normalized, out: _Rebuilt, start: int, end: int) -> None:
    out.new_index.extend(range(len(out.chars), len(out.chars) + end - start))
    out.chars.extend(norm.text[start:end])
    out.starts.extend(norm.starts[start:end])
    out.ends.extend(norm.ends[start:end])
