"""veilbot's own recognizers: the hard cases chat contains that Presidio's defaults miss.

Each ``Rule`` is a compiled regular expression with a score, an optional named group ``v``
(the value, when the pattern also matches its context, as in "born 1987-03-14") and an
optional validator (Luhn, IBAN mod-97, phone number plausibility). ``build_recognizers`` turns
the rules of the enabled types, plus the policy's deny list and extra patterns, into Presidio
ad-hoc recognizers, built once per policy.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from guardrails.engine import offline

offline()  # before presidio (and its tldextract) is imported

import tldextract  # noqa: E402
from presidio_analyzer import (  # noqa: E402
    AnalysisExplanation,
    EntityRecognizer,
    Pattern,
    PatternRecognizer,
    RecognizerResult,
)

from guardrails.engine import Vocabulary  # noqa: E402
from guardrails.policy import Policy  # noqa: E402
from guardrails.rules import (  # noqa: E402
    accounts,
    addresses,
    birthdates,
    blocks,
    cards,
    coordinates,
    credentials,
    emails,
    ibans,
    ips,
    licences,
    local,
    macs,
    nino,
    phones,
    precision,
    records,
    urls,
)
from guardrails.rules.cards import luhn  # noqa: E402
from guardrails.rules.names import (  # noqa: E402
    ACCENTED_NAME,
    ASKING_CONTEXT,
    COMMON_WORDS,
    FOR_NAME,
    NAME_PATTERNS,
    SELF_CONTEXT,
    STRONG_CONTEXT,
    WEAK_CONTEXT,
)
from guardrails.rules.people import NEEDS as PEOPLE_NEEDS  # noqa: E402
from guardrails.rules.places import (  # noqa: E402
    CARE_PATTERN,
    PLACE_PATTERN,
    STATE_AFTER_PLACE_WORD,
    care_place,
    care_places,
    hashtags,
    known_place,
    named_regions,
    town_and_state,
)
from guardrails.rules.structure import NEEDS as STRUCTURE_NEEDS  # noqa: E402
from guardrails.rules.structure import StructureReader  # noqa: E402
from guardrails.text.language import ENGLISH  # noqa: E402

Validator = Callable[[str], bool]


def _lower_case_named(name_word: Validator, first_name: Validator | None, value: str) -> bool:
    """Whether a value in lower case has a word of the name lexicon; any other value is kept.

    A word English has too counts when it is a first name common enough to be one in lower
    case (``first_name``; given after a word of asking or meeting only): after "met", "ask"
    or "cc", "bob", "mark" and "sue" are people.
    """
    if not value.islower():
        return True
    words = value.split()
    return (
        any(name_word(w) for w in words)
        or first_name is not None
        and any(first_name(w) and w not in COMMON_WORDS for w in words)
    )


def _introduced(first_name: Validator, english: Validator, value: str) -> bool:
    """Whether a word after "it's" or "i'm" is a first name, not English ("priya"; not "wrong")."""
    return first_name(value) and not english(value) and value not in COMMON_WORDS


def _lower_case_plausible(plausible: Validator, value: str) -> bool:
    """Whether a value in lower case may be a name ("call me crazy" is none); others are kept."""
    return not value.islower() or plausible(value)


Finder = Callable[[str], Iterable[tuple[int, int, float]]]
"""Finds values in a text: ``text -> (start, end, score)`` for each."""


@dataclass(frozen=True)
class Rule:
    """One pattern for one entity type."""

    type: str
    regex: re.Pattern[str]
    score: float
    validate: Validator | None = None
    shrink: bool = False
    """Whether a value that fails validation is retried without its last separated group."""
    max_digits: int = 0
    """When set, a match with more digits is no candidate (a card or IBAN, not a phone)."""
    finder: Finder | None = None
    """Finds the values itself (``regex``, ``validate`` and ``shrink`` are then unused)."""
    needs: re.Pattern[str] | None = None
    """A class of characters (one character) every match contains: a text with none of them
    is not scanned.

    Checked on the text's distinct characters, gathered once for all the rules: most rules
    try a match at every position, and a text none of them can match (a long run of
    dot-joined words, with no space, digit or capital) cost each rule its full scan."""

    def find(self, text: str) -> Iterable[tuple[int, int, float]]:
        """``(start, end, score)`` of each value of this rule in ``text``."""
        if self.needs is not None and self.needs.search(_characters(text)) is None:
            return ()
        if self.finder is not None:
            return self.finder(text)
        return ((start, end, self.score) for start, end in _spans(self, text))


@functools.lru_cache(maxsize=8)
def _characters(text: str) -> str:
    """The distinct characters of ``text``: every rule of a chunk checks its ``needs`` here."""
    return "".join(set(text))


_PRESIDIO_NEEDS = {
    "IpRecognizer": r"[\d:]",  # IPv4 digits, IPv6 colons
    "IbanRecognizer": r"\d",
    "UsPassportRecognizer": r"\d",
    "UsSsnRecognizer": r"\d",
    "UsBankRecognizer": r"\d",
    "CryptoRecognizer": r"\d",  # "bc1…", "1…", "3…"
    "EmailRecognizer": "@",
}
"""What every match of Presidio's own pattern recognizers contains (their ``PATTERNS``)."""

_PRESIDIO_DIGITS = {"UsPassportRecognizer": 8, "UsSsnRecognizer": 9, "UsBankRecognizer": 8}
"""How many digits 0-9 each of those matches holds at least: a text with fewer (most chat
messages and answers) is not scanned by them."""


def gate_presidio(recognizers: Iterable[Any]) -> None:
    """Give Presidio's pattern recognizers the ``Rule.needs`` check of veilbot's rules.

    Each scans the whole text whatever it holds; a text without the character every match
    contains (a digit for Presidio's number patterns), or with fewer digits than a match
    holds, is skipped. Results are unchanged.
    """
    for recognizer in recognizers:
        name = type(recognizer).__name__
        needs = _PRESIDIO_NEEDS.get(name)
        if needs is not None and not getattr(recognizer, "veilbot_gated", False):
            digits = _PRESIDIO_DIGITS.get(name, 0)
            recognizer.analyze = _gated(recognizer.analyze, re.compile(needs), digits)
            recognizer.veilbot_gated = True


def _gated(
    analyze: Callable[..., list[Any]], needs: re.Pattern[str], digits: int
) -> Callable[..., list[Any]]:
    def gated(text: str, entities: list[str], *args: Any, **kwargs: Any) -> list[Any]:
        if needs.search(_characters(text)) is None or (digits and _digits(text) < digits):
            return []
        return analyze(text, entities, *args, **kwargs)

    return gated


@functools.lru_cache(maxsize=8)
def _digits(text: str) -> int:
    """How many of the digits 0-9 ``text`` holds (the ones Presidio's patterns match)."""
    return sum(map(text.count, "0123456789"))


def maestro(value: str) -> bool:
    """Whether 12 digits are a Maestro card number (IIN 5 or 6, Luhn)."""
    digits = re.sub(r"\D", "", value)
    return len(digits) == 12 and digits[0] in "56" and luhn(digits, minimum=12)


def iban(value: str) -> bool:
    """Whether ``value`` is an IBAN: country, length, mod-97 (``guardrails.rules.ibans``)."""
    return ibans.valid(value)


_I = re.IGNORECASE


def _whole_runs(run: str, rest: str) -> str:
    """A pattern for ``run`` then ``rest`` whose value is group ``v``, tried once per run.

    ``run`` must be possessive and must match the same maximal run from any start inside it:
    a start inside a run would fail where the run's own start failed, but the regex engine
    would try each one, scanning to the run's end every time (quadratic in a long run of
    words and separators). A run not followed by ``rest`` is consumed without a value, so the
    search resumes after it.
    """
    return rf"(?P<v>{run}{rest})|{run}"


_WRAP_SEP = r"(?:[ .\-]|[ \t]*\n[ \t]*)"
"""Between digit groups of an IBAN: a space, dot or hyphen, or a line break."""
_URL_PART = r"[^\s&#/?<>|()\[\]]+"
_SEP_DOT = r"\s*(?:\.|\bdot\b|\(dot\)|\[dot\])\s*"
# A spelled local part may also spell its underscores and hyphens ("jane underscore doe").
_SEP_LOCAL = r"\s*(?:\.|\b(?:dot|underscore|dash|hyphen)\b|\(dot\)|\[dot\])\s*"
# Any alphabetic top-level label: internal and reserved domains (corp.example, acme.internal)
# are as personal as public ones; "at" plus at least one spelled "dot" is the evidence.
_TLD = r"[a-z]{2,24}"
_SPELLED_EMAIL = _whole_runs(
    rf"\b[\w+\-]++(?:{_SEP_LOCAL}[\w+\-]++)*+",
    rf"\s*(?:\bat\b|\(at\)|\[at\])\s*"
    rf"[\w\-]+(?:{_SEP_DOT}[\w\-]+)*?(?:\s+dot\s+|\s*\(dot\)\s*|\s*\[dot\]\s*){_TLD}\b"
    r"(?!\s*(?:\bat\b|\(at\)|\[at\]|\bdot\b|\(dot\)|\[dot\]))",  # the last label, not a local part
)
# "jane.doe@acme[DOT]com", "jane [at] acme [dot] com", a defanged "jane@acme[.]com": an
# address with bracketed words or marks.
_BRACKETED_EMAIL = (
    r"(?<![\w.+\-])[\w.+\-]*\w\s*(?:@|[\[(](?:at|@)[\])])\s*[\w\-]+"
    r"(?:\s*(?:\.|[\[(](?:dot|\.)[\])])\s*[\w\-]+)*\s*[\[(](?:dot|\.)[\])]\s*[a-z]{2,24}\b"
)
# "jane(at)acme.com", "jane [at] acme.com", "jane<at>acme.com", "jane[@]acme.com": the "at"
# bracketed, the domain written as usual.
_AT_BRACKETED_EMAIL = (
    r"(?<![\w.+\-])[\w.+\-]*\w\s*[\[({<](?:at|@)[\])}>]\s*[\w\-]+(?:\.[\w\-]+)*\.[a-z]{2,24}\b"
)
# "john at gmail.com" (scrubadub's EmailDetector reads it so), "jane.doe @ example.com",
# "jane.doe@ example.com": the "@" written as a word or spaced, the domain as usual. Which
# local parts are addresses, not "look at github.com", decides ``_word_at_emails``.
_WORD_AT_EMAIL = (
    r"(?<![\w.+\-%@'’])\w(?:[\w.+\-]*\w)?(?:[ \t]+(?:at|@)[ \t]+|[ \t]+@|@[ \t]+)"
    r"[\w\-]+(?:\.[\w\-]+)*\.[^\W\d_]{2,24}(?![\w\-@]|\.\w)"
)
_WORD_AT_EMAIL_RE = re.compile(_WORD_AT_EMAIL, re.IGNORECASE)
_WORD_AT = re.compile(r"[ \t]+(?:at|@)[ \t]+|[ \t]+@|@[ \t]+", re.IGNORECASE)
_MAIL_WORD = re.compile(r"\b(?:e-?mail|mail|contact|reach|write)", re.IGNORECASE)
# RFC 5321 address literals: "postmaster@[192.0.2.1]", "jane@[IPv6:2001:db8::1]".
_LITERAL_EMAIL = (
    r"(?<![\w.+\-%])[\w.+\-]*\w@\[(?:IPv6:[0-9A-Fa-f:.]{2,45}|\d{1,3}(?:\.\d{1,3}){3})\]"
)
# An age: "a 74 year old", "aged 45", "31 y/o", "I'll turn 23", "age: 52".
_AGE = (
    r"(?P<v>\b\d{1,3})(?=[ \-]?(?:years?|yrs?)[ \-]?old\b|[ \-]?y/?o\b)"
    r"|\b(?:aged?|turn(?:ed|s|ing)?|age\s+is|age\s*:)\s+(?P<w>\d{1,3})\b(?![.,:]\d|\s*(?:%|percent"
    r"|minutes?|hours?|days?|weeks?|months?|times|degrees|am|pm|o'clock|th|st|nd|rd)\b)"
)
# Presidio's e-mail recognizer only accepts public suffixes; this one takes any domain. A local
# part is RFC 5322's dot-atom: letters, digits and "!#$%&'*+-/=?^_`{|}~" ("o'brien", "j!smith",
# "p=q", "}x47", even "$" alone). It may not begin with a quote or markup ("'", "*", "`", "~"),
# which stay outside. A key or URL path in front ("email=", "/users/") is cut off afterwards
# (``precision.trim_email``).
_LOCAL_EXTRA = r"!#$%&'*^`{|}~=/?"
_LOCAL_LEAD = r"!#$%&/=?^{|}"
# A quoted local part (RFC 5321): '"john doe"@example.com'; Presidio's recognizer covers
# only "doe"@…, its NER the name, and the domain stayed in clear between them.
_QUOTED_EMAIL = r'"[^"\n@]{1,64}"@[\w\-]+(?:\.[\w\-]+)*\.[^\W\d_]{2,24}(?![\w\-@])'
_EMAIL = (
    rf"(?<![\w.+\-%])[.+\-]*+[\w{_LOCAL_LEAD}][\w.+\-{_LOCAL_EXTRA}]*+"
    r"@[\w\-]+(?:\.[\w\-]+)*\.[^\W\d_]{2,24}(?![\w\-@])"
)

_EMAIL_RE = re.compile(_EMAIL)


def _emails(text: str) -> Iterator[tuple[int, int, float]]:
    """E-mail addresses of the RFC 5322 grammar, a key or URL path in front cut off."""
    for match in _EMAIL_RE.finditer(text):
        yield precision.trim_email(text, match.start(), match.end()), match.end(), 1.0


_NEVER = re.compile(r"(?!)")
_DIGIT = re.compile(r"\d")
_BLANK = re.compile(r"[ \t]")
_AT = re.compile("@")
_QUERY = re.compile("=")
_PARAM = r"(?:[?&]|(?<!\S)(?=[\w\-]+=[^\s&=]*&))"
"""Where a link's or a form body's parameter starts: after "?" or "&", or at a body's first
key when another follows ("name=Elif%20Kaya&email=…", as a pasted request holds it)."""
_CAPITAL = re.compile("[A-Z]")
BUILTIN_RULES: tuple[Rule, ...] = (
    Rule("CREDIT_CARD", _NEVER, 0.0, finder=cards.find, needs=_DIGIT),
    Rule(  # twelve digits are a card only after a card word: else they are ids
        "CREDIT_CARD",
        re.compile(
            r"(?i:\b(?:card|cc|visa|mastercard|maestro|debit|credit)\b[^\n\d]{0,30}?)"
            r"(?P<v>(?<![\w.\-+/])\d{4}[ \-]?\d{4}[ \-]?\d{4})(?![\w\-])"
        ),
        0.9,
        maestro,
        needs=_DIGIT,
    ),
    Rule(  # after a card word, a card's length of digits is the card even mistyped (no Luhn)
        "CREDIT_CARD",
        re.compile(
            r"(?i:\b(?:card|cc|visa|mastercard|amex|maestro|debit|credit)\b[^\n\d]{0,30}?)"
            r"(?P<v>(?<![\w.\-+/])\d{4}(?:[ \-]?\d){9,15})(?![\w\-])"
        ),
        0.6,
        needs=_DIGIT,
    ),
    Rule(
        "IBAN_CODE",
        re.compile(rf"\b[A-Z]{{2}}\d{{2}}(?:{_WRAP_SEP}?[A-Z0-9]{{1,4}}){{3,8}}\b", _I),
        0.95,
        iban,
        shrink=True,
        needs=_DIGIT,
    ),
    # Its digits read as letters ("DE89 37O4 …", copied out of a scan): the checksum decides.
    Rule("IBAN_CODE", _NEVER, 0.0, finder=ibans.find_misread, needs=_DIGIT),
    Rule("IBAN_CODE", _NEVER, 0.0, finder=ibans.find_mistyped, needs=_DIGIT),
    Rule("PHONE_NUMBER", _NEVER, 0.0, finder=phones.find, needs=_DIGIT),
    # A pager's or beeper's number ("PAGER 45872", "pgr #4-5872"), too short for a phone plan:
    # its word says it is someone's line.
    Rule(
        "PHONE_NUMBER",
        re.compile(
            r"\b(?i:pager|beeper|pgr|bleep)(?:[ \t]*(?i:no\.?|number|num|nr|is|at|:|#))*[ \t]*"
            r"(?P<v>\d{3,8}|\d{1,4}-\d{3,5})(?![\w\-]|[.,/:]\d)"
        ),
        0.8,
        needs=_DIGIT,
    ),
    # A social security number after its word, whatever its digits ("my ssn is 123-45-6789"):
    # Presidio's recognizer drops published samples and areas never issued, which people type
    # as their number all the same, and "123-" stayed beside a phone number "45-6789".
    Rule(
        "US_SSN",
        re.compile(
            r"\b(?i:ssn|social[ \t]+security(?:[ \t]+(?:number|num|no\.?|nr|#))?|social)"
            r"(?:[ \t]*(?i:no\.?|number|num|#|:|is|was|=))*[ \t]*"
            r"(?P<v>(?<![\w.\-+/])\d{3}(?P<s>[ .\-]?)\d{2}(?P=s)\d{4})(?![\w\-]|[.,/:]\d)"
        ),
        0.9,
        needs=_DIGIT,
    ),
    # Its last four, which banks and phone lines ask for as proof ("last 4 of my SSN: 6789",
    # "my SSN ends in 6789").
    Rule(
        "US_SSN",
        re.compile(
            r"(?i:\blast[ \t]+(?:four|4)(?:[ \t]+digits)?[ \t]+(?:of[ \t]+)?(?:my[ \t]+|the[ \t]+)?"
            r"(?:ssn|social(?:[ \t]+security(?:[ \t]+number)?)?)(?:[ \t]+(?:is|are))?[ \t]*:?"
            r"|\b(?:ssn|social[ \t]+security(?:[ \t]+number)?)[ \t]+(?:ends|ending)"
            r"[ \t]+(?:in|with))"
            r"[ \t]*(?P<v>\d{4})(?![\w\-]|[.,/:]\d)"
        ),
        0.9,
        needs=_DIGIT,
    ),
    Rule("IP_ADDRESS", _NEVER, 0.0, finder=ips.find, needs=re.compile(r"[\d:]")),
    Rule("MAC_ADDRESS", _NEVER, 0.0, finder=macs.find, needs=re.compile(r"[\dA-Fa-f]")),
    Rule("LOCATION", _NEVER, 0.0, finder=coordinates.find, needs=_DIGIT),
    Rule(records.ID_NUMBER, _NEVER, 0.0, finder=records.find, needs=records.NEEDS),
    Rule(
        "PERSON",
        re.compile(
            rf"/(?:users?|u|people|person|profiles?|members?|employees?|staff|in|~)"
            rf"/(?P<v>{_URL_PART})|/[~@](?![-+]?\d+\.\d+,)(?P<w>{_URL_PART})"
        ),
        0.9,  # above NER: its span over the whole URL would hide this one, then be dropped
        needs=re.compile("/"),  # a map's "/@52.52,13.40,15z" is a place (rules.coordinates)
    ),
    # A Reddit user named in a post ("thanks u/throwaway_8812"): 3 to 20 letters, digits,
    # "_" or "-" ("u/s", an ultrasound in a clinical note, is too short).
    Rule(
        "PERSON",
        re.compile(r"(?<![\w/])u/(?P<v>[A-Za-z0-9_\-]{3,20})(?![\w/\-])"),
        0.9,
        needs=re.compile("/"),
    ),
    Rule(
        "EMAIL_ADDRESS",
        re.compile(rf"{_PARAM}(?i:e?-?mail\w*)=(?P<v>{_URL_PART})"),
        0.9,
        needs=_QUERY,
    ),
    Rule("PHONE_NUMBER", re.compile(r"\bwa\.me/(?P<v>\+?\d{7,15})\b"), 0.9, needs=_DIGIT),
    Rule(
        "PHONE_NUMBER",
        re.compile(rf"{_PARAM}(?i:phone|tel|mobile|cell)\w*=(?P<v>{_URL_PART})"),
        0.8,
        needs=_QUERY,
    ),
    Rule(
        "PERSON",
        re.compile(rf"{_PARAM}(?i:(?:first|last|full|user)?_?name|user|login)=(?P<v>{_URL_PART})"),
        0.9,
        needs=_QUERY,
    ),
    # Presidio's own e-mail score: of its match and ours, the longer then wins, and ours
    # holds the local parts its grammar cuts ("}x@…", "&k|@…").
    Rule("EMAIL_ADDRESS", _NEVER, 0.0, finder=_emails, needs=_AT),
    Rule("EMAIL_ADDRESS", _NEVER, 0.0, finder=emails.spaced, needs=_AT),
    Rule(
        "EMAIL_ADDRESS",
        re.compile(_whole_runs(r"\b[\w.+\-]++", r"%40[\w\-]+(?:\.[\w\-]+)+\b")),
        0.9,
        needs=re.compile("%"),
    ),
    # The top-level label of a spelled address follows a spaced or bracketed "dot".
    Rule("EMAIL_ADDRESS", re.compile(_SPELLED_EMAIL, _I), 0.95, needs=re.compile(r"[\s(\[]")),
    Rule("EMAIL_ADDRESS", re.compile(_BRACKETED_EMAIL, _I), 0.95, needs=re.compile(r"[\[(]")),
    Rule("EMAIL_ADDRESS", re.compile(_AT_BRACKETED_EMAIL, _I), 0.95, needs=re.compile(r"[\[({<]")),
    Rule("EMAIL_ADDRESS", re.compile(_LITERAL_EMAIL, _I), 0.95, needs=_AT),
    Rule("EMAIL_ADDRESS", re.compile(_QUOTED_EMAIL), 0.95, needs=_AT),
    Rule("AGE", re.compile(_AGE, _I), 0.6, needs=_DIGIT),
    # An age in apposition after a name: "Mr. Delgado, 72, presents", "Jane Smith, 45, of".
    Rule(
        "AGE",
        re.compile(
            r"(?<![\w.])[A-Z][a-z]+,[ \t](?P<v>\d{1,3}),[ \t]+(?=(?:of|from)[ \t]+[A-Z]"
            r"|(?:who|was|is|has|had|presents|presented|died|lives|said|says)\b)"
        ),
        0.6,
        needs=_DIGIT,
    ),
    Rule("CRYPTO", re.compile(r"\b0x[0-9a-fA-F]{40}\b"), 0.9, needs=_DIGIT),
    # A number with no digit has a state and a separator before it ("NY DL ABCDEFGH").
    Rule("DRIVER_LICENSE", _NEVER, 0.0, finder=licences.find, needs=re.compile(r"[\d\s#:()\-]")),
    Rule("DRIVER_LICENSE", _NEVER, 0.0, finder=licences.find_uk, needs=_DIGIT),
    Rule("DATE_OF_BIRTH", _NEVER, 0.0, finder=birthdates.find, needs=_DIGIT),
    Rule("UK_NINO", nino.PATTERN, 0.85, nino.valid, needs=_DIGIT),
    Rule("UK_NINO", _NEVER, 0.0, finder=nino.find_trn, needs=_DIGIT),
)


TIE = 0.001
"""What a rule's score is raised by, so that it wins a tie with the model's equal finding.

Of two findings of one type, span and score, Presidio keeps one in an order that changes with
Python's string hashing (a set of its results, then a stable sort), and which one is kept
decides whether the model's checks (lower case, trimming) apply: "call me višeslav" was a
person in some processes and not in others. The detection rounds scores to two decimals,
which takes the raise away again.
"""


class RegexRecognizer(EntityRecognizer):
    """Rules of one entity type, as one Presidio recognizer (context words apply to it)."""

    def __init__(self, name: str, rules: Sequence[Rule], context: Sequence[str] = ()) -> None:
        self._rules = tuple(rules)
        self._name = name
        types = sorted({r.type for r in rules})
        super().__init__(supported_entities=types, name=name, context=list(context))

    @property
    def rules(self) -> tuple[Rule, ...]:
        """The rules it runs, in order."""
        return self._rules

    def load(self) -> None:
        """Nothing to load: the patterns are compiled already."""

    def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None) -> list[Any]:
        """Every validated match of the rules, as Presidio results."""
        metadata = {
            RecognizerResult.RECOGNIZER_NAME_KEY: self._name,
            RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id,
        }
        return [
            RecognizerResult(
                rule.type,
                start,
                end,
                min(1.0, score + TIE),
                analysis_explanation=AnalysisExplanation(self._name, score),
                recognition_metadata=dict(metadata),
            )
            for rule in self._rules
            for start, end, score in rule.find(text)
        ]


def _spans(rule: Rule, text: str) -> Iterable[tuple[int, int]]:
    """The value spans of a rule's matches that pass its validator."""
    for match in rule.regex.finditer(text):
        names = [g for g in ("v", "w") if g in rule.regex.groupindex]
        group = next((g for g in names if match.group(g)), None if names else 0)
        if group is None:
            continue  # a run ``_whole_runs`` consumed without a value
        start, end = match.span(group)
        if rule.max_digits and sum(c.isdigit() for c in text[start:end]) > rule.max_digits:
            continue
        if rule.validate is None:
            yield start, end
            continue
        for cut in _cuts(text, start, end, rule.shrink):
            if rule.validate(text[start:cut]):
                yield start, cut
                break


def _cuts(text: str, start: int, end: int, shrink: bool) -> list[int]:
    """``end``, then (when shrinking) each earlier separator position, longest first."""
    if not shrink:
        return [end]
    separators = [i for i in range(end - 1, start, -1) if text[i] in " .-/\n\t"]
    return [end, *(i for i in separators if text[i - 1] not in " .-/\n\t")]


def _word_at_emails(
    name_word: Validator | None, english: Validator | None, text: str
) -> Iterable[tuple[int, int, float]]:
    """E-mail addresses with "at" or a spaced "@" for the "@" ("john at gmail.com").

    The domain must end in a public suffix. A spaced "@" is evidence enough, but for a stop
    word before it ("me @ example.com"). With the word "at", the local part must hold a
    person's name ("john at gmail.com", "jane.doe at …", "adam80 at …", "evanwagner at …"),
    or be no English word after an e-mail word on its line ("email: wmiller at example.com",
    not "my mail is hosted at …"): "look at github.com", "kubectl at k8s.io", "python3 at
    python.org" are not addresses.
    """
    for match in _WORD_AT_EMAIL_RE.finditer(text):
        value = match.group()
        local, domain = _WORD_AT.split(value, maxsplit=1)
        if not tldextract.extract(domain).fqdn:
            continue
        if "@" in value[len(local) : len(value) - len(domain)]:
            if len(local) > 1 and local.casefold() not in COMMON_WORDS:
                yield match.start(), match.end(), 0.9
            continue
        words = re.findall(r"[^\W\d_]{3,}", local)
        named = name_word is not None and any(name_word(w) for w in words)
        line = text[text.rfind("\n", 0, match.start()) + 1 : match.start()]
        unknown = english is not None and not any(english(w) for w in words)
        if named or unknown and _MAIL_WORD.search(line[-40:]):
            yield match.start(), match.end(), 0.9


def _url_people(full_name: urls.NameCheck | None, text: str) -> Iterable[tuple[int, int, float]]:
    # Above NER: a span of its over the whole URL would hide this one.
    return ((start, end, 0.9) for start, end in urls.personal_parts(text, full_name))


def _structured(reader: StructureReader) -> tuple[Rule, ...]:
    """A rule per type for the values a text's structure types (``rules.structure``)."""
    types = ("PERSON", "LOCATION", "PHONE_NUMBER", "DATE_OF_BIRTH", "DRIVER_LICENSE")
    return tuple(
        Rule(t, _NEVER, 0.0, finder=functools.partial(reader.find, t), needs=STRUCTURE_NEEDS)
        for t in types
    )


def build_recognizers(
    policy: Policy,
    *,
    prose: bool = True,
    towns: Validator | None = None,
    lone_town: Validator | None = None,
    people: Finder | None = None,
    full_name: urls.NameCheck | None = None,
    name_word: Validator | None = None,
    english: Validator | None = None,
    plausible: Validator | None = None,
    listed: Validator | None = None,
    first_name: Validator | None = None,
    vocabulary: Vocabulary | None = None,
) -> list[EntityRecognizer]:
    """The ad-hoc recognizers a policy needs: built-in rules of enabled types, deny, extras.

    Args:
        policy: what to redact.
        prose: also the name, street-address and town rules; without them only structured
            identifiers (and personal parts of URLs) are found, as in the output scan.
        towns: whether a name after a place word is a town (``guardrails.rules.places``); with
            it, "moved to porto" is a ``LOCATION`` in any case.
        lone_town: whether a capitalized run is a town with no place word before it
            (``places.PlaceCheck.alone``).
        people: names by the name lexicon (``guardrails.rules.people``).
        full_name: whether the words of a URL segment are a full name (the same lexicon).
        name_word: whether a word is a person's name and no English word (the same
            lexicon); without it, "john at gmail.com" is not read as an e-mail address.
        english: whether a word is English (the same lexicon).
        plausible: whether a span could be a name, not only English words (the same lexicon,
            ``PeopleFinder.plausible``).
        listed: whether a word is a first or last name of the lexicon, English or not.
        first_name: whether a word is a first name common enough to be one in lower case;
            with it, first names in lower case are found in other languages
            (``local.lower_names``).
        vocabulary: what the training text of the policy's language's entity model says of
            capitalised words (``guardrails.ner.words``); with it and ``listed``, lone names
            the model left are found (``local.lone_names``).
    """
    checks: dict[re.Pattern[str], Validator] = {}
    if name_word is not None:
        checks[WEAK_CONTEXT] = functools.partial(_lower_case_named, name_word, None)
        checks[ASKING_CONTEXT] = functools.partial(_lower_case_named, name_word, first_name)
    if first_name is not None and english is not None:
        checks[SELF_CONTEXT] = functools.partial(_introduced, first_name, english)
    if plausible is not None:
        checks[STRONG_CONTEXT] = functools.partial(_lower_case_plausible, plausible)
        checks[FOR_NAME] = plausible
    names = tuple(
        Rule("PERSON", regex, score, validate=checks.get(regex), needs=needs)
        for regex, score, needs in NAME_PATTERNS
        if (regex is not ACCENTED_NAME or policy.language == ENGLISH)
        and (regex is not SELF_CONTEXT or regex in checks)  # unchecked, "i'm wrong" is one
    )
    # An address or a block holds a digit or a space: one bare word is neither.
    addressy = re.compile(r"[\d\s:\-]")
    places: tuple[Rule, ...] = (
        Rule("LOCATION", _NEVER, 0.0, finder=addresses.find, needs=addressy),
        Rule(
            "LOCATION",
            _NEVER,
            0.0,
            finder=functools.partial(blocks.find, lines=policy.language not in local.LANGUAGES),
            needs=addressy,
        ),
        Rule("LOCATION", CARE_PATTERN, 0.9, validate=care_place, needs=_CAPITAL),
        Rule(
            "LOCATION",
            _NEVER,
            0.0,
            finder=functools.partial(hashtags, english=english),
            needs=re.compile("#"),
        ),
    )
    if english is not None and listed is not None and policy.language == ENGLISH:
        uncased = functools.partial(care_places, english, listed)  # "al hospital" is Spanish
        places = (*places, Rule("LOCATION", _NEVER, 0.0, finder=uncased, needs=_BLANK))
    if towns is not None:
        town = Rule("LOCATION", PLACE_PATTERN, 0.6, validate=towns, shrink=True, needs=_BLANK)
        with_state = functools.partial(town_and_state, towns)
        state = Rule("LOCATION", _NEVER, 0.0, finder=with_state, needs=_CAPITAL)
        alone = Rule("LOCATION", STATE_AFTER_PLACE_WORD, 0.6, needs=_CAPITAL)
        places = (*places, town, state, alone)
    if people is not None:
        names = (*names, Rule("PERSON", _NEVER, 0.0, finder=people, needs=PEOPLE_NEEDS))
    local_language = policy.language in local.LANGUAGES
    if listed is not None and vocabulary is not None and vocabulary.words and local_language:
        lone = functools.partial(local.lone_names, policy.language, listed, known_place, vocabulary)
        names = (*names, Rule("PERSON", _NEVER, 0.0, finder=lone))
        lone_place = functools.partial(lone, places=True)
        places = (*places, Rule("LOCATION", _NEVER, 0.0, finder=lone_place))
        if first_name is not None:
            lower = functools.partial(
                local.lower_names, policy.language, first_name, listed, vocabulary
            )
            names = (*names, Rule("PERSON", _NEVER, 0.0, finder=lower))
    in_urls = Rule(
        "PERSON",
        _NEVER,
        0.0,
        finder=functools.partial(_url_people, full_name),
        needs=re.compile(r"[:/]|\.(?:github|gitlab|substack|netlify|vercel|wordpress)\."),
    )
    word_at = Rule(
        "EMAIL_ADDRESS",
        _NEVER,
        0.0,
        finder=functools.partial(_word_at_emails, name_word, english),
        needs=_BLANK,  # "at" or a spaced "@" has a space or a tab around it
    )
    accounts_after_platform = Rule(
        "USERNAME",
        _NEVER,
        0.0,
        finder=functools.partial(accounts.find, english=english),
        needs=re.compile("[A-Za-z]"),  # a platform's word
    )
    logins = tuple(
        Rule(kind, _NEVER, 0.0, finder=functools.partial(credentials.find, kind, english=english))
        for kind in (credentials.PASSWORD, credentials.USERNAME, credentials.SECRET)
    )
    if name_word is not None and prose:
        regions = functools.partial(named_regions, name_word, town=lone_town, english=english)
        places = (*places, Rule("LOCATION", _NEVER, 0.0, finder=regions, needs=_CAPITAL))
    if name_word is not None and english is not None:
        reader = StructureReader(english, name_word)
        names = (*names, *_structured(reader))
    heuristics = (*names, *places) if prose else ()
    rules = [
        r
        for r in (*BUILTIN_RULES, word_at, accounts_after_platform, *logins, in_urls, *heuristics)
        if r.type in policy.enabled
    ]
    by_type: dict[str, list[Rule]] = {}
    for rule in rules:
        by_type.setdefault(rule.type, []).append(rule)
    recognizers: list[EntityRecognizer] = [
        RegexRecognizer(f"veilbot_{t.lower()}", rs) for t, rs in by_type.items()
    ]
    for term in policy.deny:
        pattern = rf"(?<!\w){re.escape(term.value)}(?!\w)"
        rule = Rule(term.type, re.compile(pattern, _I), 1.0)
        recognizers.append(RegexRecognizer(f"deny_{term.type.lower()}", [rule]))
    for extra in policy.recognizers:
        recognizers.append(
            PatternRecognizer(
                supported_entity=extra.type,
                name=extra.name,
                patterns=[Pattern(extra.name, extra.pattern, extra.score)],
                context=list(extra.context),
            )
        )
    return recognizers
