"""Record numbers: the number a word names as a person's record, account or membership.

A medical record number, a patient's, member's, customer's or employee's id, an account,
policy, claim or subscriber number: none has a checksum or a shape of its own, so one is
read only right after its word ("MRN 4482910", "patient id: 4482910", "acct # 12-3345-9",
"member ID W123456789", "employee id E-44821"). The value holds four digits or more and may
open with up to four letters or end with up to three; an amount, a date with slashes or a
number glued to a further figure is none. Type ``ID_NUMBER``.

A national number right after such a word is this record, not a phone number
(``phones.find`` leaves it); with an international prefix it is a phone number whatever
names it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

ID_NUMBER = "ID_NUMBER"

_OWNER = (
    r"(?:patient|member|membership|customer|client|employee|staff|student|subscriber"
    r"|beneficiary|insurance|insured|policy(?:holder)?|account|acct|claim|chart"
    r"|(?:medical|health)[ \t]+record|record)"
)
_ID_WORD = r"(?:id|identifier|number|num|nr|no\.?|#|:)"
_KEY = (
    rf"(?i:\bMRN\b(?:[ \t]*{_ID_WORD})*|\b{_OWNER}(?:[ \t]*{_ID_WORD})+)"
    r"(?:[ \t]*(?i:is|was|=))?[ \t]*"
)
KEY = re.compile(rf"{_KEY}\Z")
"""A record's word and what may stand between it and its number, ending where the number
begins ("patient id: ", "MRN ", "acct # ")."""
_CANDIDATE = re.compile(
    rf"{_KEY}(?P<v>(?:[A-Za-z]{{1,4}}[ \-]?)?\d(?:-?\d){{2,19}}(?:[A-Za-z]{{1,3}})?)"
    r"(?![\w\-]|[.,/:]\d)"
)
_MIN_DIGITS = 4
NEEDS = re.compile(r"\d")


def find(text: str) -> Iterator[tuple[int, int, float]]:
    """``(start, end, score)`` of each record number in ``text``."""
    for match in _CANDIDATE.finditer(text):
        value = match.group("v")
        if sum(c.isdigit() for c in value) >= _MIN_DIGITS:
            yield match.start("v"), match.end("v"), 0.9


def named_before(text: str, start: int) -> bool:
    """Whether a record's word ends right before ``start`` ("account number 12345678")."""
    return KEY.search(text, max(0, start - 40), start) is not None
