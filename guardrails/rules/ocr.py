"""Text read by OCR, read back as it was printed, one character for one.

Tesseract slips where a person would not, and a slip inside a value hides it from the rules
that check the value's grammar or checksum. Each slip below is undone only inside the shape
of a value, and only where the value then checks:

- an e-mail address with a space at its "@" or at a dot of its domain
  ("jane.doe@example. com"), or a top-level domain with "o" read as "0" or "O", "l" as "1"
  or "m" as "rn" ("c0m", "cOm", "0rg", "corn"): the top-level label must then be a public
  suffix in lower case;
- an IPv6 address broken by spaces after its colons ("fe80:: 1ff: fe23:4567:890a"), when
  the whole is an address and the rest is no time (``ips.broken_rest``);
- an IBAN with "O" read for 0 or "I", "l" or "i" for 1 ("DE89 37O4 …"), when the IBAN
  then has its country's length and checksum;
- "@" read for "ø" inside a capitalized word that is no address ("S@rensen");
- "O" or "o" read for 0, "I" or "l" for 1 in a group of a phone or card number ("+44 20 7946
  O958"), when the whole is then a phone number (libphonenumber) or a card (its checksum).

A misread character is replaced by the one meant; a character OCR added (a space, one of
the two letters of "rn") by ``GAP``, a zero-width space, which the analysis reads as nothing
(``guardrails.text.normalize`` drops invisible characters). The reading is as long as the OCR
text, so a finding in it is the same span of the OCR text, and that whole span is replaced.
Typed text is not read so; it gets only the tolerance that costs no precision (``emails``,
``ips.continued``, ``ibans.misread``, and the last slip above, ``lookalike_digits``): a
person who types "S@rensen" or "c0m" means it, one who types "555-O199" means a number.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator

from guardrails.rules import cards, ibans, ips, phones
from guardrails.rules.emails import one_domain, public_suffix
from guardrails.text.normalize import GAP

Edit = tuple[int, str]
"""A replacement at an offset, as long as what it replaces."""

_EMAIL = re.compile(
    r"(?<![\w.+\-%@])\w[\w.+\-]*+[ \t]?@[ \t]?"
    r"(?P<domain>[\w\-]++(?:[ \t]?\.[ \t]?[\w\-]++)*+)"
)
"""An address with its "@" and the dots of its domain maybe spaced."""
_SPACE = re.compile(r"[ \t]")
_DOTS = re.compile(r"[ \t]?\.[ \t]?")
_TLD_SLIPS = (("rn", GAP + "m"), ("0", "o"), ("1", "l"))
"""What OCR reads in a top-level label, and what was printed; an added character is read
first, so that it never ends a value."""
_NAME_AT = re.compile(r"(?<![\w@.+\-])[A-Z][^\W\d_]*+@(?=[^\W\d_]{2,}+(?![\w@\-]|\.\w))")
_HEX_RUN = re.compile(r"(?<![0-9A-Za-z:.])[0-9A-Fa-f:]++(?![0-9A-Za-z.])")
"""Hex digits and colons: an IPv6 address or a piece of one OCR broke off."""
_LONGEST_ADDRESS = 45
"""The longest IPv6 address written out (39 characters), with room for a trailing colon."""


def as_printed(text: str) -> str:
    """``text`` with the OCR slips of the module docstring undone, offsets kept."""
    chars = list(text)
    for finder in _FINDERS:
        for start, replacement in finder(text):
            chars[start : start + len(replacement)] = replacement
    return "".join(chars)


def _emails(text: str) -> Iterator[Edit]:
    """Spaces at the "@" and the dots of an address dropped, its top-level label mended.

    A sentence may go on after the address ("example. com. Thanks"): a last label that is
    no top-level domain is left out, and the label before it tried.
    """
    if "@" not in text:
        return
    for match in _EMAIL.finditer(text):
        domain = match.group("domain")
        for _ in range(2):
            head, dot, label = domain.rpartition(".")
            tld = _mended_tld(label.lstrip(" \t"))
            if not dot or tld is not None:
                break
            domain = head.rstrip(" \t")
        if not dot or tld is None or not _one_domain(domain):
            continue
        end = match.start("domain") + len(domain)
        mended = _SPACE.sub(GAP, text[match.start() : end - len(tld)]) + tld
        if mended != text[match.start() : end]:
            yield match.start(), mended


def _mended_tld(label: str) -> str | None:
    """A top-level label as printed (as long as ``label``), or ``None`` if it is none.

    It starts in lower case: a capital after the dot starts a sentence ("acme. It was").
    """
    mended = label[:1] + label[1:].replace("O", "o")  # "cOm"
    for slip, meant in _TLD_SLIPS:
        mended = mended.replace(slip, meant)
    printed = mended.replace(GAP, "")
    return mended if printed.islower() and public_suffix(printed) else None


def _one_domain(domain: str) -> bool:
    """Whether the spaced dots of ``domain`` are its own (``emails.one_domain``)."""
    spaced = next((m for m in _DOTS.finditer(domain) if m.group() != "."), None)
    if spaced is None:
        return True
    before, after = domain[: spaced.start()], _SPACE.sub("", domain[spaced.end() :])
    head, _, last = after.rpartition(".")
    tld = (_mended_tld(last) or last).replace(GAP, "")
    return one_domain(before, f"{head}.{tld}" if head else tld)


def _ipv6(text: str) -> Iterator[Edit]:
    """The spaces after the colons that broke an IPv6 address, dropped.

    "fe80:: 1ff: fe23:4567:890a" is one address when its pieces joined are one, and the
    pieces after the first hold a hex letter or a group of four: "…::1: 10:30" is a time.
    """
    if ":" not in text:
        return
    chain: list[re.Match[str]] = []
    for run in _HEX_RUN.finditer(text):
        if chain and _broken_after(text, chain[-1], run):
            chain.append(run)
            continue
        yield from _joined(text, chain)
        chain = [run]
    yield from _joined(text, chain)


def _broken_after(text: str, before: re.Match[str], run: re.Match[str]) -> bool:
    """Whether only blanks after a colon stand between two runs."""
    return before.group().endswith(":") and not text[before.end() : run.start()].strip(" \t")


def _joined(text: str, chain: list[re.Match[str]]) -> Iterator[Edit]:
    """Edits that join each longest stretch of ``chain`` that is one address."""
    first = 0
    while first < len(chain) - 1:
        count = _address_runs(chain, first)
        for before, after in itertools.pairwise(chain[first : first + count]):
            yield before.end(), GAP * (after.start() - before.end())
        first += max(count, 1)


def _address_runs(chain: list[re.Match[str]], first: int) -> int:
    """How many runs from ``chain[first]`` on join into one address (0: not two or more).

    Only as many as an address can be long are tried, so a long chain costs linear time.
    """
    last, length = first + 1, len(chain[first].group())
    while last < len(chain) and length + len(chain[last].group()) <= _LONGEST_ADDRESS:
        length += len(chain[last].group())
        last += 1
    for end in range(last, first + 1, -1):
        rest = "".join(run.group() for run in chain[first + 1 : end])
        if ips.valid((chain[first].group() + rest).rstrip(":")) and ips.broken_rest(rest):
            return end - first
    return 0


def _ibans(text: str) -> Iterator[Edit]:
    """An IBAN's digits read as letters, read as digits (``ibans.misread``)."""
    for start, _, printed in ibans.misread(text):
        yield start, printed


def _names(text: str) -> Iterator[Edit]:
    """An "@" inside a capitalized word with no domain after it, read as "ø"."""
    if "@" not in text:
        return
    for match in _NAME_AT.finditer(text):
        yield match.end() - 1, "ø"


_LOOKALIKE = re.compile(r"(?<![\w+])(?=[\dOoIl]*\d)(?=[\dOoIl]*[OoIl])[\dOoIl]{2,}(?![\w])")
"""A group of digits with letters OCR reads for some of them ("O958", "2O7l"): at least one
of each."""
_AS_DIGIT = str.maketrans("OoIl", "0011")


def _numbers(text: str) -> Iterator[Edit]:
    """Letters read for digits in a group of a phone or card number, read as digits.

    A group is mended only when at least half of it is digits and, mended, it lies inside a
    phone number or card found in the text with every such group mended.
    """
    groups = [
        g
        for g in _LOOKALIKE.finditer(text)
        if 2 * sum(c.isdigit() for c in g.group()) >= len(g.group())
    ]
    if not groups:
        return
    chars = list(text)
    for group in groups:
        chars[group.start() : group.end()] = group.group().translate(_AS_DIGIT)
    mended = "".join(chars)
    found = [(a, b) for a, b, _ in phones.find(mended)] + [(a, b) for a, b, _ in cards.find(mended)]
    for group in groups:
        if any(a <= group.start() and group.end() <= b for a, b in found):
            yield group.start(), group.group().translate(_AS_DIGIT)


def lookalike_digits(text: str) -> Iterator[tuple[int, int, str]]:
    """Letters typed for digits in a group of a phone or card number, as folding edits.

    The same reading as OCR'd text gets (``_numbers``): "+44 20 7946 O958" and
    "4I5-555-0199" are analysed as the numbers they are (``guardrails.text.folding.fold``).
    """
    for start, digits in _numbers(text):
        yield start, start + len(digits), digits


_FINDERS: tuple[Callable[[str], Iterator[Edit]], ...] = (
    _emails,
    _ipv6,
    _ibans,
    _names,
    _numbers,
)
