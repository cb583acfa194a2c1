"""Phone numbers: a wide net of digit groups, then libphonenumber decides.

Chat writes numbers every way a country does: ``+4915112345678`` (E.164, no separators),
``+44 20 7946 0958``, ``(415) 555-0123``, ``030/1234567``, ``06.12.34.56.78``,
``0049 151 1234 5678``, ``(+44) 20 7946 0958``, with an extension (``x204``), broken across a
line, with the dashes word processors put for hyphens (``415–555–0123``). The candidate
pattern takes any run of digit groups with those separators; a candidate is a phone number
when libphonenumber accepts it:

- with an international prefix (``+``, ``(+44)`` or ``00``): a possible number of the country
  it names;
- otherwise: a valid national number of one of ``REGIONS`` (the EU, the UK, the US and Canada,
  India, Brazil, China and a few more); ten digits in the North American grouping
  (``415-555-0123``, ``(212) 555 0187``) count even when no area code matches, since examples
  and test data use fictional ones;
- digits without any separator are a phone number only when international, a valid North
  American number, a number of a country whose numbers all have one length and are written
  in one run (ten digits in India and Mexico, an eleven-digit mobile in China and Brazil), or
  a valid national number with its trunk ``0`` (``07700900123``): other runs of digits are
  order ids, and ten digits from 1 are Unix times.

A national number right after a word that names it as an id of something else ("order",
"ticket #", "invoice no.", "build", "ts=") is that id, not a phone number; an international
one is a phone number whatever names it. A candidate that fails is retried without its last
and then its first digit group, so a number glued to a neighbouring figure is still found; a
line break ends a candidate whose line is a phone number on its own or whose next line is
printed in fours like a card (that line is no part of any phone number), and a comma ends it
(a CSV cell) unless it groups thousands. Whole dates, times, IP and version strings, SSNs and
money amounts are never phone numbers, nor are the digits inside a British driving licence or
National Insurance number ("MORGA 753116 SM9IJ", "AB 12 34 56 C").
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator

import phonenumbers

from guardrails.rules import addresses, nino, records
from guardrails.rules.licences import UK_PATTERN
from guardrails.rules.names import CJK, RELATIVES

REGIONS = (
    "US", "CA", "GB", "IE", "DE", "AT", "CH", "FR", "BE", "NL", "LU", "ES", "PT", "IT", "MT",
    "DK", "SE", "NO", "FI", "IS", "PL", "CZ", "SK", "HU", "SI", "HR", "RO", "BG", "GR", "CY",
    "EE", "LV", "LT", "IN", "BR", "CN", "AU", "NZ", "MX", "JP", "SG", "ZA", "IL",
)  # fmt: skip
"""Regions whose national formats are recognized without an international prefix."""

# Hyphens, and the dashes and minus sign word processors put for them ("415–555–0123").
_DASH = "\\-\u2010-\u2015\u2212"
# A tab is no separator within a number: it ends a cell of a tab-separated row (a TSV file, a
# spreadsheet's or a document table's row), and the next cell is often a figure of its own.
_SEP = rf"(?:[ ]*[./{_DASH}][ ]*| +|[ ]*\n[ ]*|(?<=\))|(?=\())"
# "(06 1) 234 5678", "(0-312) 34567": the trunk and area code in brackets, as libphonenumber
# prints Hungarian and Lithuanian numbers.
_GROUP = r"(?:\(\d{1,5}(?:[ \-]\d{1,4})?\)|\d{1,15})"
_EXTENSION = r"(?:[ \t]*(?:x|ext\.?|extension|#)[ \t]*\d{1,6}(?![\w@]))?"
_ALPHABETIC = rf"[^\W{CJK}]"
"""A word's character in a script that spaces its words: Chinese, Japanese and Korean glue a
number to the word before it ("电话13812345678"), which ends there all the same."""
CANDIDATE = re.compile(
    rf"(?<!{_ALPHABETIC})(?<![+@/{_DASH}$€£¥])(?<!{_ALPHABETIC}\.)(?:(?<!\d,)|(?!\d{{3}}[,.]\d))"
    rf"(?:\(\+\d{{1,3}}\)[ ]?|\+|00)?[ \t]?{_GROUP}(?:{_SEP}{_GROUP}){{0,7}}"
    rf"(?P<ext>{_EXTENSION})(?!{_ALPHABETIC}|@|\.\d)",
    re.IGNORECASE,
)
"""Digit groups that could be a phone number (validated by ``PhoneCheck``)."""

_BREAK = re.compile(r"[ ]*\n[ ]*")
_ISO_DATE = re.compile(
    rf"(?<!\d)(?:\d{{4}}[./{_DASH}]\d{{1,2}}[./{_DASH}]\d{{1,2}}|\d{{1,2}}([./{_DASH}])\d{{1,2}}\1\d{{4}})"
    r"(?!\d)"
)
"""A date with its year's four digits, either way round ("2024-06-30", "08/16/2000")."""
_GROUPS = re.compile(r"\(?\d+\)?")
_NOT_PHONE = re.compile(
    rf"\d{{4}}[./{_DASH}]\d{{1,2}}[./{_DASH}]\d{{1,2}}"  # dates
    rf"|\d{{1,2}}[./{_DASH}]\d{{1,2}}[./{_DASH}](?:\d{{4}}|\d{{2}})"
    r"|\d{1,3}(?:\.\d{1,3}){3}|\d{1,3}(?:\.\d{1,3}){1,2}"  # IP addresses, versions
    rf"|\d{{3}}[{_DASH}]\d{{2}}[{_DASH}]\d{{4}}"  # SSN
)
_NANP_GROUPING = re.compile(
    rf"(?:\+?1[ .{_DASH}]?)?(?:\(\d{{3}}\)[ .{_DASH}]?|\d{{3}}[ .{_DASH}])\d{{3}}[ .{_DASH}]\d{{4}}"
)
MIN_DIGITS, MAX_DIGITS = 6, 15
_CHUNKED = re.compile(rf"[ \t]?\d{{4}}(?:[ \t.{_DASH}]\d{{4}}){{2,}}(?:[ \t.{_DASH}]\d{{1,4}})?")
"""Digits in fours, the way cards and IBANs are printed: too long for a phone number, it is a
card or an account (valid or not), and no part of it is a phone number."""


CONTEXT = re.compile(
    r"\b(?:phone|call|tel|telephone|mobile|cell|cellphone|number|no|whatsapp|text|sms|fax"
    r"|ring|reach|contact|landline|extension|ext|hotline|dial|answering|registered|messages?"
    r"|texting|calling"
    # a family member's line, as notes and forms list them ("SON JAMES 555-3421")
    rf"|{'|'.join(RELATIVES)}"
    # the same words in the EU's and Latin America's languages
    r"|t[eé]l|t[eé]l[eé]phone|telefon\w*|tel[eé]fono|telemóvel|telemovel|telefoon"
    r"|handy\w*|mobil|mobiel|m[oó]vil|celular|cellulare|portable|natel|gsm|puhelin|tlf"
    r"|num[eé]ro|n[uú]mero|\w*nummer|nr|anrufen|llamar|appeler|chiamare|ligar|bellen"
    r"|zadzwoń|komórka)\b",
    re.IGNORECASE,
)
"""Words shortly before a weak candidate (a short national number) that make it count."""
IDENTIFIER = re.compile(
    r"\b(?:order|invoice|inv|ticket|tkt|case|ref|reference|tracking|shipment|parcel|package"
    r"|awb|booking|reservation|confirmation|transaction|txn|receipt|sku|item|part|batch|build"
    r"|version|release|job|run|pid|pr|issue|bug|commit|request|req|po|ts|timestamp|epoch"
    r"|incident|error|errno|port)"
    r"(?:[ \t]*(?:number|num|nr|no|id|code)\b\.?)?(?:[ \t]*[#:=]){0,2}[ \t]*\Z",
    re.IGNORECASE,
)
"""A word right before a number that says what it is: an id that is not personal data.
Words for personal ids (account, customer, member, patient, policy, ID) are left out: a
number after them is somebody's record (``records``)."""
_IDENTIFIER_WINDOW = 40
_CONTEXT_WINDOW = 40
WEAK, CONTEXT_BOOST = 0.35, 0.35


def find(text: str) -> Iterator[tuple[int, int, float]]:
    """``(start, end, score)`` of every phone number in ``text``."""
    taken = (UK_PATTERN, nino.PATTERN, nino.TRN)
    spans = sorted(m.span() for p in taken for m in p.finditer(text))
    for match in CANDIDATE.finditer(text):
        digits_end = match.end() - len(match.group("ext"))
        if _chunked(text, match.start(), digits_end) or _inside(spans, match.start()):
            continue
        for piece_start, piece_end in _pieces(text, match.start(), digits_end):
            if _chunked(text, piece_start, piece_end):
                continue  # a line of its own printed like a card: "…0958\n4111 1111 1111 1111"
            span = _accepted(text, piece_start, piece_end)
            if span is None or _identifier(text, span[0]):
                continue
            start, end, score = span
            if score <= WEAK and CONTEXT.search(text, max(0, start - _CONTEXT_WINDOW), start):
                score += CONTEXT_BOOST
            yield start, match.end() if end == digits_end else end, score


def _identifier(text: str, start: int) -> bool:
    """Whether a national number is named as an id ("order 9876543210", "ticket #415-555-0123").

    Or as a person's record ("account number 12345678": ``records``) or a postal code ("my zip
    is 94103-1234"). An international number ("+91 98765 43210") is a phone number whatever is
    said before it.
    """
    if text.startswith(("+", "00", "(+"), start):
        return False
    window = max(0, start - _IDENTIFIER_WINDOW)
    return (
        bool(IDENTIFIER.search(text, window, start))
        or records.starts_at(text, start)
        or addresses.postal_code_at(text, start)
    )


def _inside(spans: list[tuple[int, int]], position: int) -> bool:
    """Whether ``position`` falls in one of ``spans`` (sorted, not overlapping)."""
    i = bisect.bisect_right(spans, position, key=lambda span: span[0]) - 1
    return i >= 0 and spans[i][0] <= position < spans[i][1]


def _chunked(text: str, start: int, end: int) -> bool:
    """Whether the candidate is a card or account number printed in fours."""
    chunked = _CHUNKED.fullmatch(text, start, end)
    return bool(chunked) and sum(c.isdigit() for c in text[start:end]) > MAX_DIGITS


def _pieces(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    r"""The candidate without its dates, cut at each line break that ends a number.

    "HTTP 503 2024-06-30" and "on 08/16/2000 03:14" are no number; "call 415-555-0123\n42
    apples" is one and a figure.
    """
    position = start
    for date in _ISO_DATE.finditer(text, start, end):
        if date.start() > position:
            yield from _lines(text, position, date.start())
        position = date.end()
    if position < end:
        yield from _lines(text, position, end)


def _lines(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    r"""The candidate's lines, each a piece if it is a phone number on its own.

    A line that is not runs on into the next, as a number broken across lines does
    ("+49 30\n123456 78"), unless the next line is printed in fours like a card ("Total
    120\n4111 1111 1111 1111"): that line is a value of its own.
    """
    position = start
    for brk in _BREAK.finditer(text, start, end):
        following = _BREAK.search(text, brk.end(), end)
        line_end = following.start() if following else end
        if score_number(text[position : brk.start()]) or _chunked(text, brk.end(), line_end):
            yield position, brk.start()
            position = brk.end()
    yield position, end


def _accepted(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    """The longest sub-span of whole digit groups that is a phone number, with its score."""
    groups = [(start + m.start(), start + m.end()) for m in _GROUPS.finditer(text[start:end])]
    if groups and text[start] in "+(":
        groups[0] = (start, groups[0][1])  # "+44", "(+44)": the prefix and its country code
    for first in range(min(2, len(groups))):
        for last in range(len(groups) - 1, max(first, len(groups) - 3) - 1, -1):
            a, b = groups[first][0], groups[last][1]
            if first and text[a - 1 : a] == "+":
                a -= 1
            score = score_number(text[a:b])
            if score:
                return a, b, score
    return None


def score_number(value: str) -> float:
    """How sure we are that ``value`` (a candidate's digit groups) is a phone number, or 0."""
    digits = re.sub(r"\D", "", value)
    if not MIN_DIGITS <= len(digits) <= MAX_DIGITS or _NOT_PHONE.fullmatch(value.strip()):
        return 0.0
    international = value.lstrip().lstrip("(").startswith(("+", "00"))
    grouped = bool(re.search(rf"\d[ \t./(){_DASH}\n]+\d", value))
    if international:
        e164 = "+" + (digits[2:] if value.lstrip().lstrip("(").startswith("00") else digits)
        return 0.8 if _possible(e164) else 0.0
    if not grouped:
        if len(digits) in (10, 11) and _valid(digits[-10:], "US") or _bare_mobile(digits):
            return 0.6
        national = any(_valid(digits, r) for r in REGIONS)
        # With its trunk 0 ("07700900123") a national number; otherwise ("612345678", a
        # Spanish mobile) it is also an id: it counts with a phone word nearby.
        return (0.5 if digits.startswith("0") else WEAK) if national else 0.0
    if len(digits) < 7:
        return WEAK  # "87 47 98": a short local number, with a phone word only
    if any(_valid(digits, region) for region in REGIONS):
        # Seven or eight digits without a trunk 0 ("4111 1111") are also parts of other
        # figures: they count only with a phone word nearby (the recognizer's context).
        return 0.7 if len(digits) >= 9 or digits.startswith("0") else WEAK
    if _NANP_GROUPING.fullmatch(value.strip()):
        return 0.5
    return 0.0


def _bare_mobile(digits: str) -> bool:
    """Whether ``digits`` is a number written in one run where all numbers have one length.

    Ten digits in India and Mexico ("9876543210"), an eleven-digit mobile in China and Brazil
    ("13812345678", "11984565666"). Ten digits from 1 are a Unix time (2001 to 2033).
    """
    if len(digits) == 10 and digits[0] != "1":
        return any(_valid(digits, region) for region in ("IN", "MX"))
    return len(digits) == 11 and any(_mobile(digits, region) for region in ("CN", "BR"))


_MOBILE_TYPES = frozenset(
    {phonenumbers.PhoneNumberType.MOBILE, phonenumbers.PhoneNumberType.FIXED_LINE_OR_MOBILE}
)


@functools.lru_cache(maxsize=4096)
def _mobile(digits: str, region: str) -> bool:
    try:
        number = phonenumbers.parse(digits, region)
    except phonenumbers.NumberParseException:
        return False
    return (
        str(number.national_number) == digits
        and phonenumbers.is_valid_number(number)
        and phonenumbers.number_type(number) in _MOBILE_TYPES
    )


@functools.lru_cache(maxsize=4096)
def _valid(digits: str, region: str) -> bool:
    try:
        return phonenumbers.is_valid_number(phonenumbers.parse(digits, region))
    except phonenumbers.NumberParseException:
        return False


@functools.lru_cache(maxsize=4096)
def _possible(e164: str) -> bool:
    try:
        number = phonenumbers.parse(e164, None)
    except phonenumbers.NumberParseException:
        return False
    return phonenumbers.is_possible_number(number)
