"""What makes two detected values "the same" within a thread.

``identity`` is the form a value is looked up by in the vault: the address of a Slack mailto
link or of one written out ("jane at acme dot com"), the digits of a phone number, the user
id of a mention; hidden characters, letter spacing, spelled digits and letters typed for
digits folded first (``guardrails.text.folding``), as the analysis folds them.
``name_tokens`` are the words of a message looked up as the words of a known person's name
(``guardrails.rules.parts``), so a later "Jane" reuses the placeholder of "Jane Doe", unless
two people share the word.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from guardrails.rules.names import COMMON_WORDS
from guardrails.rules.ocr import lookalike_digits
from guardrails.rules.parts import NAME_TOKEN, PROPER, TITLES, written_as_name
from guardrails.text.folding import plain

_MAILTO = re.compile(r"<mailto:([^|>]+)(?:\|[^>]*)?>|\[[^\]]*\]\(mailto:([^)]+)\)")
_TEL = re.compile(r"<tel:([^|>]+)(?:\|[^>]*)?>")
_MENTION = re.compile(r"<@!?([A-Z0-9]+)(?:\|[^>]*)?>")
_SPACED_AT = re.compile(r"\s*[@＠]\s*")
_WRITTEN_AT = re.compile(r"\s*(?:[\[({<]\s*at\s*[\])}>]|\bat\b)\s*", re.IGNORECASE)
_WRITTEN_DOT = re.compile(r"\s*(?:[\[({<]\s*dot\s*[\])}>]|\bdot\b)\s*", re.IGNORECASE)
"""How an e-mail address is written out: "jane at acme dot com", "jane [at] acme.com"."""
_COMPACT_TYPES = frozenset({"CREDIT_CARD", "IBAN_CODE", "US_SSN", "US_BANK_NUMBER"})


def identity(entity_type: str, value: str) -> str:
    """The form of a value its placeholder is looked up by (before the vault normalizes it)."""
    if mention := _MENTION.fullmatch(value):
        return f"<@{mention.group(1)}>"
    if mailto := _MAILTO.fullmatch(value):
        return mailto.group(1) or mailto.group(2)
    value = plain(value, lookalike_digits)  # "j a n e @ …", "four one five …", "555-O199"
    if tel := _TEL.fullmatch(value):
        value = tel.group(1)
    if entity_type == "PHONE_NUMBER" or tel:
        digits = re.sub(r"\D", "", value)
        return f"tel:{digits}" if len(digits) >= 6 else value
    if entity_type in _COMPACT_TYPES:
        return re.sub(r"[\s.\-]", "", value).upper()
    if entity_type == "EMAIL_ADDRESS":
        if "@" in value or "＠" in value:  # "at" and "dot" may be words of a real address
            return _SPACED_AT.sub("@", value, count=1).strip()
        return _WRITTEN_DOT.sub(".", _WRITTEN_AT.sub("@", value, count=1)).strip()
    return value


def name_tokens(text: str) -> Iterator[tuple[int, int, str]]:
    """Word tokens that could be part of a known name: ``(start, end, casefolded token)``.

    A word written as a name comes twice, the second time in its ``PROPER`` form.
    """
    for match in NAME_TOKEN.finditer(text):
        token = match.group().casefold()
        if len(token) >= 2 and token not in COMMON_WORDS and token not in TITLES:
            yield match.start(), match.end(), token
            if written_as_name(text, match.start(), match.end()):
                yield match.start(), match.end(), PROPER + token


MAX_GRAM_WORDS = 4
MAX_GRAMS = 2000
"""At most this many word sequences of a message are looked up as known values."""


def value_grams(text: str) -> list[tuple[int, int]]:
    """Runs of one to four words joined by blanks, that could be a value the vault knows.

    Runs made only of common words ("in the") are left out, and a long message stops at
    ``MAX_GRAMS``.
    """
    # Each word's facts once (every turn of a thread with a vault asks this of its message):
    # whether it is common, and whether only blanks separate it from the word before.
    matches = list(NAME_TOKEN.finditer(text))
    starts, ends = [m.start() for m in matches], [m.end() for m in matches]
    common = [m.group().casefold() in COMMON_WORDS for m in matches]
    joined = [
        False,
        *(not text[ends[j - 1] : starts[j]].strip(" \t") for j in range(1, len(matches))),
    ]
    grams: list[tuple[int, int]] = []
    for i, start in enumerate(starts):
        all_common = True
        for j in range(i, min(i + MAX_GRAM_WORDS, len(starts))):
            if j > i and not joined[j]:
                break
            all_common = all_common and common[j]
            if not all_common:
                grams.append((start, ends[j]))
        if len(grams) >= MAX_GRAMS:
            break
    return grams[:MAX_GRAMS]


def known_name_spans(
    text: str, tokens: list[tuple[int, int, str]], owners: list[str | None]
) -> list[tuple[int, int, str, tuple[str, ...]]]:
    """Runs of tokens that belong to one known person, joined across spaces only.

    Each run comes with its owner and the token forms that named it (its ``name_parts``).
    """
    runs: list[tuple[int, int, str, tuple[str, ...]]] = []
    for (start, end, token), owner in zip(tokens, owners, strict=True):
        if owner is None:
            continue
        if runs and runs[-1][2] == owner and not text[runs[-1][1] : start].strip():
            last = runs[-1]
            runs[-1] = (last[0], max(end, last[1]), owner, (*last[3], token))
        else:
            runs.append((start, end, owner, (token,)))
    return runs
