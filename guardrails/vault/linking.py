"""What makes two detected values "the same" within a thread.

``identity`` is the form a value is looked up by in the vault: the address of a Slack mailto
link or of one written out ("jane at acme dot com"), the digits of a phone number, the user
id of a mention; hidden characters, letter spacing and spelled digits folded first
(``guardrails.text.folding``). ``name_parts`` are the tokens of
a person's name: the vault remembers which placeholder each token belongs to, so a later "Jane"
reuses the placeholder of "Jane Doe", unless two people share the token.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from guardrails.rules.names import COMMON_WORDS
from guardrails.text.folding import plain

_MAILTO = re.compile(r"<mailto:([^|>]+)(?:\|[^>]*)?>|\[[^\]]*\]\(mailto:([^)]+)\)")
_TEL = re.compile(r"<tel:([^|>]+)(?:\|[^>]*)?>")
_MENTION = re.compile(r"<@!?([A-Z0-9]+)(?:\|[^>]*)?>")
_NAME_TOKEN = re.compile(r"[^\W\d_]+(?:['’\-][^\W\d_]+)*")
_NOT_PARTS = re.compile(r"[<>|\[\]()/@:._\d]")
"""A value with these (a handle, a URL part, markup) is no name whose words stand alone."""
_ABBREVIATIONS = re.compile(r"(?i:\b(?:mr|mrs|ms|dr|prof|st|jr|sr)\.|\b[^\W\d_]\.)")
"""Titles and initials, whose dots are part of a name ("Dr. Jane Doe", "John F. Kennedy")."""
_TITLES = frozenset({"mr", "mrs", "ms", "miss", "dr", "prof", "sir", "madam"})
_SPACED_AT = re.compile(r"\s*[@＠]\s*")
_WRITTEN_AT = re.compile(r"\s*(?:[\[({<]\s*at\s*[\])}>]|\bat\b)\s*", re.IGNORECASE)
_WRITTEN_DOT = re.compile(r"\s*(?:[\[({<]\s*dot\s*[\])}>]|\bdot\b)\s*", re.IGNORECASE)
"""How an e-mail address is written out: "jane at acme dot com", "jane [at] acme.com"."""
_COMPACT_TYPES = frozenset({"CREDIT_CARD", "IBAN_CODE", "US_SSN", "US_BANK_NUMBER"})
MAX_PARTS = 4


def identity(entity_type: str, value: str) -> str:
    """The form of a value its placeholder is looked up by (before the vault normalizes it)."""
    if mention := _MENTION.fullmatch(value):
        return f"<@{mention.group(1)}>"
    if mailto := _MAILTO.fullmatch(value):
        return mailto.group(1) or mailto.group(2)
    value = plain(value)  # "j a n e @ …", "four one five …": the value a reader sees
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


def name_parts(entity_type: str, value: str) -> tuple[str, ...]:
    """The tokens of a person's name that a later mention may use alone ("Jane", "Doe")."""
    if entity_type != "PERSON" or _NOT_PARTS.search(_ABBREVIATIONS.sub(" ", value)):
        return ()
    tokens = [t.casefold() for t in _NAME_TOKEN.findall(value)]
    kept = [t for t in tokens if len(t) >= 2 and t not in _TITLES]
    return tuple(dict.fromkeys(kept))[:MAX_PARTS]


def name_tokens(text: str) -> Iterator[tuple[int, int, str]]:
    """Word tokens that could be part of a known name: ``(start, end, casefolded token)``."""
    for match in _NAME_TOKEN.finditer(text):
        token = match.group().casefold()
        if len(token) >= 2 and token not in COMMON_WORDS and token not in _TITLES:
            yield match.start(), match.end(), token


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
    matches = list(_NAME_TOKEN.finditer(text))
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
) -> list[tuple[int, int, str]]:
    """Runs of tokens that belong to one known person, joined across spaces only."""
    runs: list[tuple[int, int, str]] = []
    for (start, end, _), owner in zip(tokens, owners, strict=True):
        if owner is None:
            continue
        if runs and runs[-1][2] == owner and not text[runs[-1][1] : start].strip():
            runs[-1] = (runs[-1][0], end, owner)
        else:
            runs.append((start, end, owner))
    return runs
