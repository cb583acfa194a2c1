"""E-mail addresses with a space at a dot of the domain: "jane.doe@example. com".

Text pasted from a PDF or a web page, and text read by OCR, breaks an address at a dot of its
domain. The label after the dot decides: it must end in a public suffix (the Public Suffix
List's snapshot that ships with ``tldextract``, read offline) written in lower case, and no
English stop or chat word, since a sentence may follow an address that ended at the dot
("mail jane@acme. it was down"). An address that is whole before the dot stays whole
("jane@acme.com. net was down"), unless the suffix runs over the dot ("jane@acme.co. uk").
The whole address, spaces included, is one value.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from guardrails.engine import offline

offline()  # before tldextract is imported

import tldextract  # noqa: E402

from guardrails.rules.names import COMMON_WORDS  # noqa: E402

SCORE = 0.9
_DOT = r"(?:[ \t]\.[ \t]?|\.[ \t])"
"""A dot of the domain with a space before or after it."""
SPACED = re.compile(
    r"(?<![\w.+\-%@])\w[\w.+\-]*+@(?P<domain>[\w\-]++(?:\.[\w\-]++)*+)"
    rf"{_DOT}(?P<tld>[a-z]{{2,24}})(?![\w\-@]|\.\w)"
)
"""An address whose last dot is spaced: the domain before it, and its top-level label."""


@functools.cache
def _extractor() -> tldextract.TLDExtract:
    """``tldextract`` on its bundled snapshot: no fetch, no cache directory."""
    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)


@functools.lru_cache(maxsize=1024)
def public_suffix(label: str) -> bool:
    """Whether ``label`` alone is a public suffix ("com", "uk", "io"; not "corn")."""
    return _extractor()(f"example.{label}").suffix == label


def one_domain(before: str, after: str) -> bool:
    """Whether ``before`` and ``after``, with the dot between them spaced, are one domain.

    ``after`` must end in a public suffix, and ``before`` must not be a whole domain already
    ("acme.com" before "net"), unless the public suffix runs over the dot ("acme.co" and "uk").
    """
    if not public_suffix(after.rpartition(".")[2]):
        return False
    labels = before.split(".")
    if len(labels) < 2 or not public_suffix(labels[-1]):
        return True
    suffix = _extractor()(f"{before}.{after}").suffix
    return f".{suffix}".endswith(f".{labels[-1]}.{after}")


def spaced(text: str) -> Iterator[tuple[int, int, float]]:
    """``(start, end, score)`` of each address with a spaced dot before its last label."""
    for match in SPACED.finditer(text):
        tld = match.group("tld")
        if tld not in COMMON_WORDS and one_domain(match.group("domain"), tld):
            yield match.start(), match.end(), SCORE
