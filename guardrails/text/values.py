"""The one form of a value that lookups and allow lists compare."""

from __future__ import annotations

import unicodedata


def normalize_value(value: str) -> str:
    """The form of a value that lookups compare: casefolded, accents off, whitespace collapsed.

    "José Müller", "JOSE MULLER" and "jose  muller" are one value: people type names with
    and without their accents.
    """
    if value.isascii():  # the usual case; the same result without the Unicode passes
        return " ".join(value.lower().split())
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", value).casefold())
    plain = "".join(c for c in folded if not unicodedata.combining(c))
    return " ".join(unicodedata.normalize("NFKC", plain).split())
