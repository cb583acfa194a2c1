r"""IP addresses where Presidio's ``IpRecognizer`` cannot see their edges; ``ipaddress`` decides.

Presidio's patterns bound an address with ``\b`` (IPv4) or ``(?<![\w:])``/``(?![\w:])``
(IPv6). Both fail where chat puts addresses:

- between CJK characters, which are word characters and are written without spaces
  ("见40.88.216.218谢谢", "IPアドレスは192.168.0.1です");
- right after a label of letters and a colon ("to:fe80::1", "addr:2001:db8::1"; not
  "text2001:db8::1", which Presidio's tests keep);
- before a colon that ends a clause ("it was 2001:db8::1: then it dropped"), or before a port
  on a full, unbracketed IPv6 address ("…:e8a8:529f:8080").

A candidate is a maximal run of hex digits, colons and dots (plus a zone id ``%eth0`` and a
prefix length ``/24``) not glued to ASCII letters or digits; a leading label's colon, a
trailing colon, dot or port are shed until the standard library's ``ipaddress`` accepts it.
A run that is not an address stays out (version strings with letters, hashes, clock times).
``::`` (unspecified) names no host and is kept, as by the rest of veilbot.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator

SCORE = 0.6
"""Presidio's own score for an IP address pattern."""

_RUN = re.compile(
    r"(?<![0-9A-Fa-f:.])(?=[0-9A-Fa-f]*+[:.])[0-9A-Fa-f:.]++"
    r"(?:%[0-9A-Za-z]{1,16})?(?:/\d{1,3})?"
)
"""A whole run of hex digits, colons and dots with a colon or dot in it: the only places an
address can be. Possessive and anchored at the run's start, so a long word costs linear time."""
_ASCII_ALNUM = re.compile(r"[0-9A-Za-z]")
_PORT = re.compile(r":\d{1,5}$")


def find(text: str) -> Iterator[tuple[int, int, float]]:
    """``(start, end, score)`` of each IP address in ``text``."""
    for run in _RUN.finditer(text):
        start, end = run.span()
        while text.startswith(".", start) and start < end:
            start += 1  # "...10.0.0.1": an ellipsis before it
        if end < len(text) and _ASCII_ALNUM.match(text, end):
            continue  # glued to a word after it: "3af5:beef" in an identifier
        if start > 0 and _ASCII_ALNUM.match(text, start - 1):
            colon = text.find(":", start, end)
            if colon < 0 or text.startswith("::", colon) or not _label(text, start, colon):
                continue  # glued to a word before it ("text2001:db8::1"): no address
            start = colon + 1  # "to:fe80::1", "road:…": the label ends at its colon
        elif text.startswith(":", start) and not text.startswith("::", start):
            start += 1
        span = _address(text, start, end)
        if span is not None:
            yield span[0], continued(text, *span), SCORE


_BROKEN = re.compile(
    r":[ \t]+(?P<rest>[0-9A-Fa-f]{1,4}(?::{1,2}[0-9A-Fa-f]{1,4})*)(?![0-9A-Za-z:.%/])"
)
"""A colon, spaces, and hex groups: the rest of an IPv6 address broken after a colon."""
_HEX_LETTER = re.compile("[A-Fa-f]")
_GROUP_OF_FOUR = re.compile("(?<![0-9A-Fa-f])[0-9A-Fa-f]{4}")


def continued(text: str, start: int, end: int, *, strict: bool = True) -> int:
    """The end of the IPv6 address at ``[start, end)`` with the groups a space cut off.

    "fe80::1ff: fe23:4567:890a" (pasted from a PDF, or read by OCR) is one address when the
    whole is one and the rest does not read as a time ("…::1: 10:30"; ``broken_rest``): with
    ``strict`` (typed text) it holds a colon and a hex letter, without (OCR) a hex letter or
    a group of four ("…:8a2e: 0370:7334").
    """
    broken = _BROKEN.match(text, end)
    if broken is None or ":" not in text[start:end]:
        return end
    rest = broken.group("rest")
    if not broken_rest(rest, strict=strict):
        return end
    return broken.end() if valid(f"{text[start:end]}:{rest}") else end


def broken_rest(rest: str, *, strict: bool = False) -> bool:
    """Whether the groups after a break can be the rest of an IPv6 address, not a time.

    A hex letter (and, ``strict``, a colon), or else (not ``strict``) a group of four.
    """
    if strict:
        return ":" in rest and _HEX_LETTER.search(rest) is not None
    return bool(_HEX_LETTER.search(rest) or _GROUP_OF_FOUR.search(rest))


def _label(text: str, start: int, colon: int) -> bool:
    """Whether the word that ends at ``colon`` (and began before ``start``) is all letters."""
    first = start
    while first > 0 and _ASCII_ALNUM.match(text, first - 1):
        first -= 1
    return text[first:colon].isalpha()


def _address(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The longest address at ``start``: the run, then shed of a trailing separator or port."""
    value = text[start:end]
    for candidate in (value, value.rstrip(".:"), _PORT.sub("", value.rstrip(".:"))):
        if "." not in candidate and ":" not in candidate:
            continue
        if valid(candidate):
            return start, start + len(candidate)
    return None


def valid(value: str) -> bool:
    """Whether ``value`` is an IP address (with a prefix length, ``::`` left out)."""
    address, _, prefix = value.partition("/")
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return False
    if prefix and int(prefix) > parsed.max_prefixlen:
        return False
    return not parsed.is_unspecified or "." in address
