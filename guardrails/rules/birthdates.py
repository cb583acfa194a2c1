"""Dates of birth: a date after a birth word ("DOB:", "born", "date of birth", "birthday").

The policy turns plain dates off (a deadline or a release date is nobody's personal data), so
a date is a ``DATE_OF_BIRTH`` only after a word that says whose birth it is, in English or in
the languages of the EU phone regions ("geboren am", "né le", "nacido el", "nata il", "data
de nascimento", "geboren op", "urodzony"; as chat says it, "nací el", "nasci a", "urodziłem
się", "am … geboren"), with their month names. Every common way of
writing the date counts: ISO and its slashes or dots
(``1969-05-12``, ``1969/05/12``), day-month-year with any separator, two-digit years, month
names (``12 May 1969``, ``May 12th, 1969``, ``12-May-69``), eight digits after ``dob``; after
"born" or "birthday" also a day without a year ("birthday is May 12", "bday: 03/14", "her
birthday is on 14 Feb"; "she turns 40 on 12 May", where the age gives the year) and a year
alone ("born in 1985", "b. 1969"). Between "born" and its
date may stand a few words without a sentence end ("born in Boston on 12 May 2001").
``PATTERN``'s group ``v`` is the date.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
    r"|januar|februar|märz|mai|juni|juli|oktober|dezember"  # German
    r"|janvier|février|mars|avril|juin|juillet|août|septembre|octobre|novembre|décembre"
    r"|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre"
    r"|diciembre|gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|ottobre|dicembre"
    r"|januari|februari|maart|mei|augustus"  # Dutch
    r"|janeiro|fevereiro|março|maio|junho|julho|setembro|outubro|novembro|dezembro"  # Portuguese
    r"|stycznia|lutego|marca|kwietnia|maja|czerwca|lipca|sierpnia|września|października"
    r"|listopada|grudnia)\.?"  # Polish, in the genitive dates take
)
_ORDINAL = r"(?:st|nd|rd|th|\.|er|º)?"
_YEAR = r"(?:1[89]\d\d|20\d\d|\d\d)"
_FULL_DATE = (
    r"(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}"
    rf"|\d{{1,2}}[-/.]\d{{1,2}}[-/.]{_YEAR}|\d{{1,2}}[ ]\d{{1,2}}[ ](?:1[89]|20)\d\d"
    rf"|\d{{1,2}}{_ORDINAL}[ \t]*[-/.]?[ \t]*(?:of[ \t]+|de[ \t]+)?{_MONTH}[ \t]*[-/.,]?"
    rf"[ \t]*(?:de[ \t]+)?{_YEAR}"
    rf"|{_MONTH}[ \t]*[-/.]?[ \t]*\d{{1,2}}{_ORDINAL},?[ \t]*[-/.]?[ \t]*{_YEAR})(?![\w/])"
)
_DAY = (
    rf"(?:\d{{1,2}}{_ORDINAL}[ \t]+(?:of[ \t]+)?{_MONTH}|{_MONTH}[ \t]+\d{{1,2}}{_ORDINAL}"
    r"|\d{1,2}[/.\-]\d{1,2}(?:\.(?!\d))?)"
    r"(?![\w/]|[ \t,]+\d|[.\-]\d)"
)
_CONTEXT = (
    r"(?:\bd\.?o\.?b\b\.?|\bdate[ \t]+of[ \t]+birth|\bbirth[ \t]?date|\bbirthday|\bb-?day"
    r"|\bgeburtsdatum|\bgeb\.|\bgeboren(?:[ \t]+am)?|\bn[ée]e?[ \t]+le"
    r"|\bdate[ \t]+de[ \t]+naissance"
    r"|\bfecha[ \t]+de[ \t]+nacimiento|\bnacid[oa][ \t]+el|\bnac[ií][ \t]+el"
    r"|\bdata[ \t]+di[ \t]+nascita"
    r"|\bnat[oa][ \t]+il|\bdata[ \t]+de[ \t]+nascimento|\bnascid[oa][ \t]+(?:em|a)"
    r"|\bnasci[ \t]+(?:em|a|no[ \t]+dia)"
    r"|\bgeboortedatum|\bgeboren[ \t]+op"
    r"|\bdata[ \t]+urodzenia|\burodzon[ya](?:[ \t]+dnia)?|\bur\."
    r"|\burodzi[łl](?:em|am|a)?[ \t]+si[ęe](?:[ \t]+dnia)?)"
)
_SEPARATOR = (
    r"[ \t]*(?:is|was|of|:|=|-|\"|'|\(|,)?[ \t]*[\"'(]?[ \t]*(?:on[ \t]+(?:the[ \t]+)?|the[ \t]+)?"
)
_BORN = r"(?:\bborn\b[^.!?\n\d]{0,40}?|\bb\.[ \t]*)"
_BIRTHDAY = (
    r"(?:\bbirthday|\bb-?day|\bborn\b[^.!?\n\d]{0,40}?"
    r"|\bturn(?:s|ed|ing)?[ \t]+\d{1,3}(?:[ \t]+years?[ \t]+old)?(?=[ \t]+on\b))"
)
"""A birth word before a day without its year, or an age turned on it ("she turns 40 on 12
May": with the age, the day is the whole date of birth)."""
PATTERN = re.compile(
    rf"(?:{_CONTEXT}{_SEPARATOR}(?P<v>{_FULL_DATE}|\d{{8}}(?!\d))"
    rf"|{_BORN}(?:(?:on|in)[ \t]+)?(?:the[ \t]+)?(?P<w>{_FULL_DATE}|(?:1[89]|20)\d\d(?![\w/.\-]))"
    rf"|{_BIRTHDAY}{_SEPARATOR}(?P<x>{_DAY})"
    rf"|\bam[ \t]+(?P<y>{_FULL_DATE})[ \t]+(?:in[ \t]+\S+[ \t]+)?geboren\b)",
    re.IGNORECASE,
)
"""A birth word and its date (group ``v``, ``w``, ``x``, or ``y`` for German's date before
its word: "am 3. April 1985 geboren")."""


def find(text: str) -> Iterator[tuple[int, int, float]]:
    """``(start, end, score)`` of each date of birth in ``text``."""
    for match in PATTERN.finditer(text):
        group = next(g for g in ("v", "w", "x", "y") if match.group(g) is not None)
        yield match.start(group), match.end(group), 0.9
