"""UK National Insurance numbers: two letters, six digits, a suffix letter A to D.

HMRC's published format ("AB 12 34 56 C", also written "AB123456C") is specific enough to
stand without a context word: the first letter is never D, F, I, Q, U or V, the second never
those or O, and the prefixes BG, GB, KN, NK, NT, TN and ZZ are never issued. Upper case only:
"ab123456c" in chat is a code or a hash, and HMRC prints the number in capitals. Without its
suffix letter the number is an order id's shape, so the suffix is required.
"""

from __future__ import annotations

import re

PATTERN = re.compile(
    r"(?<![\w\-])(?P<v>[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]"
    r"(?: ?\d{2} ?\d{2} ?\d{2} ?| \d{6} )[A-D])(?![\w\-])"
)
"""A candidate: letters and digits in HMRC's shape, spaced in pairs or not at all."""
_NEVER_ISSUED = frozenset({"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"})


def valid(value: str) -> bool:
    """Whether a candidate's prefix is one HMRC issues."""
    return value[:2] not in _NEVER_ISSUED
