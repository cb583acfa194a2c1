"""Precision: trim what the NER model glues to a name, and drop what is not personal data.

Small spaCy models tag code identifiers (``my_module.py``, ``FooBarService``), version strings
and product names as people or places, and swallow neighbouring words ("Email John Smith",
"cc jane", "*Jane Doe*"). These checks run on every detection, on the analysis text.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import replace
from importlib import resources
from typing import TypeVar

from guardrails.rules import places
from guardrails.rules.casing import foreign_function_words
from guardrails.rules.names import CJK, COMMON_WORDS, PARTICLES
from guardrails.rules.stopwords import STOP_WORDS
from guardrails.text.spans import Detection

_D = TypeVar("_D", bound="Detection")

NAME_TYPES = frozenset({"PERSON", "LOCATION", "NRP", "ORGANIZATION"})
"""Types found by the NER model: trimmed, and never taken from code."""

_EDGE = " \t\n*_~()[]{}\"'“”‘’<>.,:;!?@#|"
_LEADING_VERBS = frozenset(
    "ask cc ping tell email e-mail call thanks thx hi hey hello dear dm message meet met".split()
)
_CODE_LIKE = re.compile(
    r"[_/\\=@]|[A-Za-z]\d|\d(?!(?:st|nd|rd|th)\b)[A-Za-z]|[a-z]\.[a-z]|^v?\d+(?:\.\d+)+"
    r"|[a-z][A-Z].*[a-z][A-Z]"
    r"|\.(?:py|js|ts|md|go|rs|java|json|ya?ml|txt)\b"
    r"|\b[A-Z][A-Z0-9]+-\d+\b"  # an issue key: "JIRA-77", "OPS-1234"
)
_ACRONYM = re.compile(r"[A-Z]{1,4}")
# What ends a URL path or a key before an address: "/", "?", ":", or "=" after a key that
# starts the span or follows a URL's separators ("?a=1&email=", "EMAIL=", "user.email=").
# Not "&" or "=" after other characters: RFC 5322 allows them in a local part ("j&j@",
# "7a!=x@", "|FM=}x"), and cutting there left the start of the address in clear.
_URL_TAIL = re.compile(r"[/?:]|(?:^|(?<=[?&;/.:]))[^\W\d][\w\-]*=|\|(?=[\w.+\-]+\Z)")
_HAS_WORD = re.compile(r"\w")


_BROADCAST = frozenset("here channel everyone all".split())
"""Mentions of everyone in a channel ("@here Kwame's farewell"), which name no one."""


def trim(text: str, start: int, end: int) -> tuple[int, int]:
    """A name span without markup, punctuation, possessive, a leading verb or "@here"."""
    while start < end and text[start] in _EDGE:
        start += 1
    while end > start and text[end - 1] in _EDGE:
        end -= 1
    if text[start:end].lower().endswith(("'s", "’s")):
        end -= 2
    first, _, rest = text[start:end].partition(" ")
    broadcast = first.lower() in _BROADCAST and text[start - 1 : start] == "@"
    if rest and (first.lower() in _LEADING_VERBS or broadcast):
        start += len(first) + 1
        while start < end and text[start] in _EDGE:
            start += 1
    return start, _cut_tail(text, start, end)


def closed(text: str, start: int, end: int) -> int:
    """Where a name ends with the bracket it opened ("Frankfurt (Oder)", "Halle (Saale)")."""
    if text.startswith(")", end) and text.count("(", start, end) > text.count(")", start, end):
        return end + 1
    return end


def _cut_tail(text: str, start: int, end: int) -> int:
    """Where a name span ends once the words the model ran on with are dropped.

    "John Nguyen about HTTP 503": the span stops before the first common word, code-like
    word or acronym after the first word (not an initial or a joining word such as "of"
    before a further capitalised word: "Thomas A Edison", "Gulf of Mexico"; nor an initial
    with its full stop that ends the span: "Susanne R."), so the name survives the checks
    that would otherwise throw the whole span away.
    """
    position = start
    shouted = text[start:end].isupper()  # "NEW YORK": capitals are no acronym there
    words = list(re.finditer(r"\S+", text[start:end]))
    for i, word in enumerate(words):
        last = i + 1 == len(words)
        if _INITIAL.fullmatch(word.group()):  # "Nico G.": a surname's initial ends it too
            inside = not last or text[start + word.end() : start + word.end() + 1] == "."
        else:
            inside = not last and word.group() in _JOINS and words[i + 1].group()[:1].isupper()
        if word.start() and not inside and _not_name_word(word.group().strip(_EDGE), shouted):
            return position
        position = start + word.end()
    return end


_INITIAL = re.compile(r"[A-Z]\.?")
"""A middle initial ("George W. Bush", "Thomas A Edison", "Bairro de S. Tomé"): no acronym
or article inside a name."""
_JOINS = frozenset({"of", "y", *PARTICLES})
"""Lower-case words that join a name's capitalised words ("Gulf of Mexico", "Rio de Janeiro")."""


def _not_name_word(word: str, shouted: bool) -> bool:
    return (
        word.lower() in COMMON_WORDS
        or bool(_CODE_LIKE.search(word))
        or not shouted
        and _ACRONYM.fullmatch(word) is not None
    )


def is_not_a_name(span: str) -> bool:
    """Whether an NER span is code, a version or a phone word.

    Code and versions: "my_module.py", "FooBarService", "v2.3". A phone word with its
    article or possessive ("Tel", "mein Handy", "Meine Nummer"): the English model reads
    those as a person in other languages' messages.
    """
    return bool(_CODE_LIKE.search(span)) or _phone_words(span)


_CJK_SPAN = re.compile(f"[{CJK}]+")
_AS_WORD_BEFORE = re.compile(
    r"(?i:\btranslat\w*|\bhow[ \t]+(?:do|would|to)[ \t]+(?:you[ \t]+|i[ \t]+)?say|\bpronounc\w*"
    r"|\bmeaning[ \t]+of|\bthe[ \t]+(?:word|phrase|character|characters|term|expression|idiom))"
    r"[ \t]*[:\"'“‘「『]?[ \t]*\Z"
)
"""What asks about the word right after it: "translate", "how do you say", "the word"."""
_AS_WORD_AFTER = re.compile(r"[\"'”’」』]?[ \t]*(?i:means?|meant|stands[ \t]+for)\b")
"""What asks about the word right before it: "… mean?"."""


def said_as_word(text: str, start: int, end: int) -> bool:
    """Whether a name in Chinese, Japanese or Korean script is a word the sentence asks about.

    "translate [你好] into English", "what does [谢谢] mean?", "the word [学习]": the script's
    rule takes any two to four characters for a name, and the model could not answer about a
    placeholder. A name's possessive stays one ("translate 王伟's message"), and a name the
    sentence only goes on about stays ("what does 王伟 think", "I met 王伟 in Chinese class").
    """
    if _CJK_SPAN.fullmatch(text, start, end) is None or text.startswith(("'s", "’s"), end):
        return False
    return bool(
        _AS_WORD_BEFORE.search(text, max(0, start - 24), start) or _AS_WORD_AFTER.match(text, end)
    )


_TO_LABEL = re.compile(r"[ \t]+(?i:to)[ \t]*:")


def to_label(text: str, start: int, end: int) -> bool:
    """Whether a one-word name is a form's label: "[Bill] to:", "[Ship] To:", "[Remit] to:"."""
    return not any(c.isspace() for c in text[start:end]) and bool(_TO_LABEL.match(text, end))


_STORM_BEFORE = re.compile(r"(?:(?i:hurricane|cyclone|typhoon|tropical[ \t]+storm)|Storm)[ \t]+$")
_STORM_IN = re.compile(r"(?i:hurricane|cyclone|typhoon|tropical[ \t]+storm)[ \t]")


def named_storm(text: str, start: int, end: int) -> bool:
    """Whether a name is a storm's ("Hurricane [Katrina]", "[Cyclone Phailin]", "Storm Ciarán")."""
    return bool(
        _STORM_IN.match(text, start, end) or _STORM_BEFORE.search(text, max(0, start - 20), start)
    )


_PHONE_WORD = re.compile(
    r"t[eé]l|t[eé]l[eé]phone|telefon\w*|tel[eé]fono|telem[oó]vel|telefoon|phone|fax|whatsapp"
    r"|handy\w*|mobil|mobiel|m[oó]vil|celular|cellulare|gsm|tlf|num[eé]ro|n[uú]mero|\w*nummer",
    re.IGNORECASE,
)
"""Words for a phone (number) in the languages the phone rules read context in; not "call",
"ring" or "mobile", which are English words a name can be (``rules.phones.CONTEXT``)."""


def _phone_words(span: str) -> bool:
    words = [w.casefold() for w in re.findall(r"[^\W\d_]+", span)]
    return any(_PHONE_WORD.fullmatch(w) for w in words) and all(
        _PHONE_WORD.fullmatch(w) or w in _function_words() for w in words
    )


@functools.cache
def _function_words() -> frozenset[str]:
    """Articles, possessives and other stop words of English and the languages around it."""
    return foreign_function_words() | STOP_WORDS


@functools.cache
def products() -> frozenset[str]:
    """Lower-case names of ``data/products.txt``: companies, products and services."""
    text = resources.files("guardrails").joinpath("data/products.txt").read_text("utf-8")
    lines = (line.strip() for line in text.splitlines())
    return frozenset(line.casefold() for line in lines if line and not line.startswith("#"))


def is_product(span: str) -> bool:
    """Whether a name span is a listed product or company ("Apple", "@YouTube", "#Spotify").

    A listed name with a known place after it is its branch there ("Kmart Australia").
    """
    words = span.strip(_EDGE).split()
    if " ".join(words).casefold() in products():
        return True
    return any(
        " ".join(words[:cut]).casefold() in products() and places.known_place(" ".join(words[cut:]))
        for cut in range(1, len(words))
    )


_JOINED_BEFORE = re.compile(r"(?:[A-Z][\w'’\-]*[ \t]+){0,2}[A-Z][\w'’\-]*[ \t]*&[ \t]*\Z")
_JOINED_AFTER = re.compile(r"[ \t]*&[ \t]*[A-Z][\w'’\-]*(?:[ \t]+[A-Z][\w'’\-]*){0,2}")
_POSSESSIVE = re.compile(r"['’]s\Z")


def in_joined_product(text: str, start: int, end: int) -> bool:
    """Whether a name is one side of a listed company's "A & B" name ("[Marks] & Spencer").

    The "&" and the words on each side of it, with the span's among them, are a listed name
    (``data/products.txt``), a possessive after it too ("Procter & Gamble's results"); a pair
    of people ("Anna & Tom") is no company.
    """
    before = _JOINED_BEFORE.search(text, max(0, start - 60), start)
    after = _JOINED_AFTER.match(text, end)
    if before is None and after is None:
        return False
    first = before.start() if before else start
    words = re.sub(r"[ \t]*&[ \t]*", " & ", text[first : after.end() if after else end]).split()
    own = set(text[start:end].split())
    cuts = range(len(words) + 1)
    names = (words[lead:cut] for lead in cuts for cut in cuts if cut >= lead + 3)
    return any(
        "&" in name and own <= set(name) and is_product(_POSSESSIVE.sub("", " ".join(name)))
        for name in names
    )


def trim_email(text: str, start: int, end: int) -> int:
    """Where an e-mail address found inside a URL or a row really starts.

    After ``?email=`` and the like, or a pipe that separates fields ("Maria|maria@acme.com",
    Slack's ``<mailto:…|…>`` pasted elsewhere) when a plain local part follows it ("x|fm=}c"
    is one, as RFC 5322 allows): the last such cut that leaves a local part with a letter or
    digit ("P=@x.io" and "a/@x.io" are whole addresses).
    """
    local = text[start:end].rpartition("@")[0]
    cut = 0
    for key in _URL_TAIL.finditer(local):
        if _HAS_WORD.search(local, key.end()):
            cut = key.end()
    return start + cut


def inside(start: int, end: int, ranges: Sequence[tuple[int, int]]) -> bool:
    """Whether ``[start, end)`` overlaps any of ``ranges``."""
    return any(start < r_end and r_start < end for r_start, r_end in ranges)


_PLACE_GAP = re.compile(r"[ \t]+(?:[^\W\d_A-ZÀ-ÖØ-Þ][\w'’]*[ \t]+){1,3}")
"""One to three lower-case words between two names: "am", "im", "ob der", "upon"."""


def merge_places(spans: list[_D], text: str) -> list[_D]:
    """A known place cut into pieces is one place ("Frankfurt am Main", "Freiburg im Breisgau").

    The model reads the words around "am" as two names, and often the second as a person;
    the gazetteer knows the whole. ``spans``: in reading order, not overlapping.
    """
    merged: list[_D] = []
    for span in spans:
        last = merged[-1] if merged else None
        if (
            last
            and last.type in NAME_TYPES
            and span.type in NAME_TYPES
            and _PLACE_GAP.fullmatch(text, last.end, span.start)
            and places.known_place(text[last.start : span.end])
        ):
            merged[-1] = replace(
                last, type="LOCATION", end=span.end, score=max(last.score, span.score)
            )
        else:
            merged.append(span)
    return merged


def merge_names(spans: list[_D], text: str) -> list[_D]:
    """Overlapping name spans of one type become one ("cc jane" + "jane doe" -> "jane doe").

    So do two people one space apart: the model's "Kelly" and the lexicon's "Cloud" are one
    person, "Kelly Cloud", not two (two places stay two: "Springfield Illinois").
    """
    merged: list[_D] = []
    for span in sorted(spans, key=lambda s: (s.type, s.start)):
        last = merged[-1] if merged else None
        if (
            last
            and span.type in NAME_TYPES
            and last.type == span.type
            and (
                span.start < last.end
                or span.type == "PERSON"
                and text[last.end : span.start] == " "  # a tab ends a table's cell
            )
        ):
            merged[-1] = replace(
                last, end=max(last.end, span.end), score=max(last.score, span.score)
            )
        else:
            merged.append(span)
    return merged
