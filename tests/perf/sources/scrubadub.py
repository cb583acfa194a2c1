"""scrubadub's detector tests (``tests/test_detector_*.py``) as cases.

Each test states its expectation in its docstring, ``BEFORE: <text>`` and ``AFTER: <text with
{{TYPE}} placeholders>``; aligning the two gives the labelled values. The phone tests fill one
docstring template (``create_docstring``) with each number given to ``check_phone_numbers``.
A ``BEFORE`` that its ``AFTER`` leaves unchanged is a negative keep span. Labels are complete
for the types a file tests. ``test_api*.py`` are left out: their expectations depend on
detectors switched off or renamed by the test, not on the text alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tests.perf.sources.align import SCRUBADUB, align
from tests.perf.sources.cases import Case, Origin, keep, label, merge_labels
from tests.perf.sources.peers import Checkout
from tests.perf.sources.pyast import docstrings, returned_format, string_calls

NAME = "scrubadub"
FOLDER = "tests"
REPO = "LeapBeyond/scrubadub"
_NOT_DATA = {"test_detector_configuration.py"}
"""Expectations that depend on a detector being switched off, not on the text."""
_PAIR = re.compile(r"BEFORE:(.*?)AFTER:(.*)", re.DOTALL)


def before_after(doc: str) -> tuple[str, str] | None:
    """The stripped ``BEFORE``/``AFTER`` texts of a docstring, if it has them."""
    match = _PAIR.search(doc)
    return (match.group(1).strip(), match.group(2).strip()) if match else None


def load(peer: Checkout) -> Iterator[Case]:
    """One case per BEFORE/AFTER pair in the test files."""
    commit = peer.commit()
    for path in peer.files(FOLDER):
        name = path.rsplit("/", 1)[-1]
        if not (name.startswith("test_detector_") and name.endswith(".py")) or name in _NOT_DATA:
            continue
        source = peer.read(path)
        for function, doc in docstrings(source):
            if pair := before_after(doc):
                yield from _case(pair, path, commit, function)
        template = returned_format(source, "create_docstring")
        if template is not None:
            for function, position, value in string_calls(source, "check_phone_numbers"):
                filled = before_after(template.replace("%s", value))
                if filled:
                    yield from _case(filled, path, commit, f"{function}[{position}]")


def _case(pair: tuple[str, str], path: str, commit: str, test: str) -> Iterator[Case]:
    text, expected = pair
    spans = align(text, expected, SCRUBADUB)
    if spans is None or not text:
        return
    labels = merge_labels([label(k, text, a, b) for k, a, b in spans])
    file = path.rsplit("/", 1)[-1]
    yield Case(
        source=NAME,
        id=f"{NAME}:{file}:{test}",
        origin=Origin(REPO, commit, path, test),
        text=text,
        labels=labels,
        keeps=() if labels else (keep("negative", text, 0, len(text)),),
        complete=frozenset(lb.type for lb in labels),
    )
