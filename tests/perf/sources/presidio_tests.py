"""Presidio's recognizer tests (``presidio-analyzer/tests/test_*_recognizer.py``) as cases.

Only the recognizers of types veilbot redacts. Each parametrize entry gives a text, the number
of results the recognizer must return and their positions; the type comes from a per-entry
``entities`` list, an ``entity_num`` index into the ``entities`` fixture, or the fixture alone.
A text that several entries share (other recognizer settings) is one case with the union of
their expected values. An entry that expects no result is a negative case: its whole text is
a ``negative`` keep span. A value the test expects only at a very low score (a score range
ending below 0.5, "weak match" in the tests' own words, or an exact score below 0.4) is marked
weak. Labels are complete for the file's type only.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from tests.perf.sources.cases import Case, Origin, keep, label, merge_labels, veilbot_type
from tests.perf.sources.peers import Checkout
from tests.perf.sources.pyast import Param, fixture_list, parametrize

NAME = "presidio-tests"
FOLDER = "presidio-analyzer/tests"
FILES = {
    "test_credit_card_recognizer.py": "CREDIT_CARD",
    "test_email_recognizer.py": "EMAIL_ADDRESS",
    "test_phone_recognizer.py": "PHONE_NUMBER",
    "test_ip_recognizer.py": "IP_ADDRESS",
    "test_us_ssn_recognizer.py": "US_SSN",
    "test_iban_recognizer.py": "IBAN_CODE",
    "test_crypto_recognizer.py": "CRYPTO",
    "test_us_passport_recognizer.py": "US_PASSPORT",
    "test_us_bank_recognizer.py": "US_BANK_NUMBER",
    "test_us_driver_license_recognizer.py": "US_DRIVER_LICENSE",
    "test_uk_postcode_recognizer.py": "UK_POSTCODE",
    "test_spacy_recognizer.py": "PERSON",
}
"""Test file -> the type it tests (the fixture's, where a fixture names it)."""

_POSITIONS = ("expected_positions", "expected_res", "expected_position")
_TEXT = ("text", "iban")


def _types(values: dict[str, Any], fixture: list[Any] | None, default: str) -> list[str]:
    if isinstance(values.get("entities"), list | tuple):
        return [str(e) for e in values["entities"]]
    if fixture and "entity_num" in values:
        return [str(fixture[int(values["entity_num"])])]
    return [str(fixture[0])] if fixture else [default]


def _upper_scores(values: dict[str, Any], count: int) -> list[tuple[float, bool]]:
    """Per expected value: (upper score bound, whether it is a range)."""
    if isinstance(values.get("expected_score_ranges"), list | tuple):
        ranges = list(values["expected_score_ranges"])
        uppers = [(1.0 if hi == "max" else float(hi), True) for _, hi in ranges]
    elif isinstance(values.get("expected_scores"), list | tuple) and values["expected_scores"]:
        uppers = [(float(s), False) for s in values["expected_scores"]]
    elif isinstance(values.get("score", values.get("expected_score")), int | float):
        uppers = [(float(values.get("score", values.get("expected_score", 1.0))), False)]
    else:
        uppers = []
    return (uppers + [uppers[-1] if uppers else (1.0, False)] * count)[:count]


def _weak(upper: float, is_range: bool) -> bool:
    return upper < 0.5 if is_range else upper < 0.4


def expected_spans(
    values: dict[str, Any], fixture: list[Any] | None, default: str
) -> tuple[str, list[tuple[str, int, int, bool]]] | None:
    """The text and its ``(type, start, end, weak)`` expectations; ``None`` if unreadable."""
    text = next((values[k] for k in _TEXT if isinstance(values.get(k), str)), None)
    count = values.get("expected_len")
    if text is None or not isinstance(count, int):
        return None
    positions = next((values[k] for k in _POSITIONS if k in values), [])
    if not isinstance(positions, list | tuple):
        return None
    positions = list(positions)
    if not positions and count == 1 and text.strip() and len(text.split()) == 1:
        positions = [(0, len(text))]  # the entry names no position: the text is the value
    types = _types(values, fixture, default)
    scores = _upper_scores(values, len(positions))
    spans = []
    for i, (start, end) in enumerate(positions[:count]):
        kind = types[i] if i < len(types) else types[-1]
        spans.append((kind, int(start), int(end), _weak(*scores[i])))
    return text, spans


def load(peer: Checkout) -> Iterator[Case]:
    """The cases of every test file in ``FILES`` that the checkout has."""
    commit = peer.commit()
    present = set(peer.files(FOLDER))
    for name, default in FILES.items():
        path = f"{FOLDER}/{name}"
        if path in present:
            yield from _file_cases(peer.read(path), path, commit, default)


def _file_cases(source: str, path: str, commit: str, default: str) -> Iterator[Case]:
    fixture = fixture_list(source, "entities")
    by_text: dict[str, list[tuple[Param, list[tuple[str, int, int, bool]]]]] = defaultdict(list)
    for param in parametrize(source):
        if param.values is None:
            continue
        found = expected_spans(param.values, fixture, default)
        if found is not None and found[0].strip():
            by_text[found[0]].append((param, found[1]))
    tested = veilbot_type(default)
    for text, entries in by_text.items():
        first = entries[0][0]
        test = f"{first.function}[{first.index}]"
        labels = [
            label(kind, text, start, end, weak=weak)
            for _, spans in entries
            for kind, start, end, weak in spans
        ]
        keeps = () if labels else (keep(f"negative:{tested}", text, 0, len(text)),)
        yield Case(
            source=NAME,
            id=f"{NAME}:{path.rsplit('/', 1)[-1]}:{test}",
            origin=Origin("microsoft/presidio", commit, path, test),
            text=text,
            labels=merge_labels(labels),
            keeps=keeps,
            complete=frozenset({tested} | {lb.type for lb in labels}),
        )
