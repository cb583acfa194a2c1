"""Presidio's end-to-end demo text (``e2e-tests/resources/demo.txt``) as cases.

The expected output (``demo_anonymized.txt``) is aligned with the input line by line; each
non-empty line is a case. A line with no placeholder in its expected output is a keep span
(the source says nothing in it is personal). Labels are complete.
"""

from __future__ import annotations

from collections.abc import Iterator

from tests.perf.sources.align import PRESIDIO, align
from tests.perf.sources.cases import Case, Origin, keep, label, merge_labels
from tests.perf.sources.peers import Checkout

NAME = "presidio-demo"
INPUT = "e2e-tests/resources/demo.txt"
EXPECTED = "e2e-tests/resources/demo_anonymized.txt"


def load(peer: Checkout) -> Iterator[Case]:
    """One case per non-empty line of the demo text."""
    commit = peer.commit()
    lines = peer.read(INPUT).splitlines()
    expected = peer.read(EXPECTED).splitlines()
    if len(lines) != len(expected):
        raise ValueError(f"{INPUT} and {EXPECTED} differ in line count")
    for number, (text, redacted) in enumerate(zip(lines, expected, strict=True), start=1):
        if not text.strip():
            continue
        spans = align(text, redacted, PRESIDIO)
        if spans is None:
            raise ValueError(f"{INPUT} line {number} does not align with {EXPECTED}")
        labels = merge_labels([label(kind, text, start, end) for kind, start, end in spans])
        keeps = () if spans else (keep("no-pii-line", text, 0, len(text)),)
        yield Case(
            source=NAME,
            id=f"{NAME}:line{number}",
            origin=Origin("microsoft/presidio", commit, INPUT, f"line {number}"),
            text=text,
            labels=labels,
            keeps=keeps,
        )
