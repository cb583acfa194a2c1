"""UK National Insurance numbers, and the temporary reference numbers issued in their place.

HMRC's published format ("AB 12 34 56 C", also written "AB123456C") is specific enough to
stand without a context word: the first letter is never D, F, I, Q, U or V, the second never
those or O, and the prefixes BG, GB, KN, NK, NT, TN and ZZ are never issued. Upper case only:
"ab123456c" in chat is a code or a hash, and HMRC prints the number in capitals. Without its
suffix letter the number is an order id's shape, so the suffix is required.

Someone still waiting for a National Insurance number is paid under a temporary reference
number (TRN: two digits, a letter, five digits, "99L 99999"). That shape is any part number's
too, so it counts only after a word of HMRC's paperwork (PAYE, TRN, temporary or tax
reference, National Insurance, payslip, P45, P60, HMRC) in the 80 characters before it. It is
typed ``UK_NINO``, the number it stands in for.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

PATTERN = re.compile(
    r"(?<![\w\-])(?P<v>[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]"
    r"(?: ?\d{2} ?\d{2} ?\d{2} ?| \d{6} )[A-D])(?![\w\-])"
)
"""A candidate: letters and digits in HMRC's shape, spaced in pairs or not at all."""
_NEVER_ISSUED = frozenset({"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"})


def valid(value: str) -> bool:
    """Whether a candidate's prefix is one HMRC issues."""
    return value[:2] not in _NEVER_ISSUED


TRN = re.compile(r"(?<![\w\-])\d{2} ?[A-Z] ?\d{5}(?![\w\-])")
TRN_CONTEXT = re.compile(
    r"(?i:\b(?:paye|trn|hmrc|payslip|p45|p60|national\s+insurance"
    r"|(?:temporary|tax)\s+reference)\b)"
)
TRN_WINDOW = 80


def find_trn(text: str) -> Iterator[tuple[int, int, float]]:
    """``(start, end, score)`` of each temporary reference number after an HMRC word."""
    for match in TRN.finditer(text):
        if TRN_CONTEXT.search(text, max(0, match.start() - TRN_WINDOW), match.start()):
            yield match.start(), match.end(), 0.85
