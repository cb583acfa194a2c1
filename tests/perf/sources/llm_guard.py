"""LLM Guard's anonymize tests and its regex pattern examples as cases.

``tests/input_scanners/test_anonymize.py``: each entry pairs a prompt with the expected
anonymized prompt (``[REDACTED_PERSON_1]``); aligning the two gives the labelled values. A
prompt several entries share is one case with the union of their values. Entries that hide
names of the test's choosing (``hidden_names`` -> ``CUSTOM``) label configuration, not data:
those values are dropped. The expectations leave some values in (a street address, a date of
birth), so labels are incomplete: no span precision. A prompt no entry redacts, under no
restriction of types or names, is a negative keep span.

``tests/input_scanners/test_secrets.py``: each entry pairs a prompt with the prompt the
Secrets scanner should return, each secret masked by a run of asterisks; aligning the two gives
the values, typed ``SECRET`` (an API key, a token, the password of a URL). A prompt it leaves
as it is is a negative keep span. The scanner's masks say nothing about names or places in
the prompt: no span precision.

``llm_guard/input_scanners/anonymize_helpers/regex_patterns.py``: each pattern group lists
examples; the value is the part its own expression matches. UUIDs, colours, prices and clock
times are labelled there too: they are not personal data, so each such example is a keep span.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from tests.perf.sources.align import LLM_GUARD, align
from tests.perf.sources.cases import (
    Case,
    Keep,
    Label,
    Origin,
    keep,
    label,
    merge_labels,
    veilbot_type,
)
from tests.perf.sources.peers import Checkout
from tests.perf.sources.pyast import UNREADABLE, Param, literal, module_constants, parametrize

TESTS = "llm-guard-tests"
SECRETS = "llm-guard-secrets"
PATTERNS = "llm-guard-patterns"
TEST_FILE = "tests/input_scanners/test_anonymize.py"
SECRETS_FILE = "tests/input_scanners/test_secrets.py"
_MASK = re.compile(r"()\*{6,}")
"""The Secrets scanner's mask, a run of asterisks: it names no type."""
PATTERN_FILE = "llm_guard/input_scanners/anonymize_helpers/regex_patterns.py"
REPO = "protectai/llm-guard"
CONFIG_TYPES = {"CUSTOM"}
KEEP_TYPES = {"ORGANIZATION"}
KEEP_KINDS = {"UUID", "HEX_COLOR", "PRICE", "TIME"}
_RESTRICTING = ("entity_types", "allowed_names", "hidden_names")


def load_tests(peer: Checkout) -> Iterator[Case]:
    """One case per distinct prompt of the anonymize tests."""
    commit = peer.commit()
    entries: dict[str, list[tuple[Param, list[Label], bool]]] = defaultdict(list)
    for param in parametrize(peer.read(TEST_FILE)):
        read = _read_entry(param)
        if read is not None:
            entries[read[0]].append((param, read[1], read[2]))
    for prompt, found in entries.items():
        first = found[0][0]
        test = f"{first.function}[{first.index}]"
        labels, keeps = _split(
            list(merge_labels([lb for _, lbs, _ in found for lb in lbs])), prompt
        )
        if not labels and not any(restricted for _, _, restricted in found):
            keeps.append(keep("negative", prompt, 0, len(prompt)))
        if not labels and not keeps:
            continue  # e.g. a name left in because the entry allows it: says nothing
        yield Case(
            source=TESTS,
            id=f"{TESTS}:{test}",
            origin=Origin(REPO, commit, TEST_FILE, test),
            text=prompt,
            labels=tuple(labels),
            keeps=tuple(keeps),
            complete=frozenset(),
            tags=("zh",) if first.function.endswith("_zh") else (),
        )


def _read_entry(param: Param) -> tuple[str, list[Label], bool] | None:
    """(prompt, labels, whether the entry restricts what is redacted) of one entry."""
    values = param.values or {}
    prompt, expected = values.get("prompt"), values.get("expected_prompt")
    settings = values.get("settings")
    if not isinstance(prompt, str) or not isinstance(expected, str) or not prompt.strip():
        return None
    settings = settings if isinstance(settings, dict) else {}
    preamble = settings.get("preamble")
    if isinstance(preamble, str) and expected.startswith(preamble):
        expected = expected[len(preamble) :]
    elif preamble is not None:
        return None  # a preamble we cannot read: the expectation cannot be aligned
    spans = align(prompt, expected, LLM_GUARD)
    if spans is None:
        return None
    labels = [label(k, prompt, a, b) for k, a, b in spans if veilbot_type(k) not in CONFIG_TYPES]
    restricted = any(k in settings for k in _RESTRICTING) or UNREADABLE in settings.values()
    return prompt, labels, restricted


def _split(labels: list[Label], text: str) -> tuple[list[Label], list[Keep]]:
    """Organizations out of the labels, as keep spans."""
    keeps = [
        keep(lb.type.lower(), text, lb.start, lb.end) for lb in labels if lb.type in KEEP_TYPES
    ]
    return [lb for lb in labels if lb.type not in KEEP_TYPES], keeps


def load_secrets(peer: Checkout) -> Iterator[Case]:
    """One case per entry of the Secrets scanner's tests."""
    commit = peer.commit()
    for param in parametrize(peer.read(SECRETS_FILE)):
        values = param.values or {}
        prompt, expected = values.get("prompt"), values.get("expected_prompt")
        if not isinstance(prompt, str) or not isinstance(expected, str):
            continue
        spans = align(prompt, expected, _MASK)
        if spans is None:
            continue
        test = f"{param.function}[{param.index}]"
        labels = tuple(label("SECRET", prompt, a, b) for _, a, b in spans)
        yield Case(
            source=SECRETS,
            id=f"{SECRETS}:{test}",
            origin=Origin(REPO, commit, SECRETS_FILE, test),
            text=prompt,
            labels=labels,
            keeps=() if labels else (keep("negative", prompt, 0, len(prompt)),),
            complete=frozenset(),
        )


def load_patterns(peer: Checkout) -> Iterator[Case]:
    """One case per distinct example of the pattern groups."""
    commit = peer.commit()
    seen: set[str] = set()
    for group in _pattern_groups(peer.read(PATTERN_FILE)):
        name = str(group.get("name", ""))
        expressions = [str(e) for e in group.get("expressions", [])]
        for index, example in enumerate(group.get("examples", [])):
            if not isinstance(example, str) or example in seen:
                continue
            seen.add(example)
            start, end = _matched(example, expressions)
            kind = veilbot_type(name)
            test = f"{name}.examples[{index}]"
            personal = kind not in KEEP_KINDS
            yield Case(
                source=PATTERNS,
                id=f"{PATTERNS}:{test}",
                origin=Origin(REPO, commit, PATTERN_FILE, test),
                text=example,
                labels=(label(name, example, start, end),) if personal else (),
                keeps=() if personal else (keep(kind.lower(), example, 0, len(example)),),
            )


def _pattern_groups(source: str) -> list[dict[str, Any]]:
    tree = ast.parse(source)
    for statement in tree.body:
        target = getattr(statement, "target", None) or next(
            iter(getattr(statement, "targets", [])), None
        )
        if isinstance(target, ast.Name) and target.id == "DEFAULT_REGEX_PATTERNS":
            value = literal(statement.value, module_constants(tree))  # type: ignore[attr-defined]
            return [g for g in value if isinstance(g, dict)]
    return []


def _matched(example: str, expressions: list[str]) -> tuple[int, int]:
    """Where the group's own expression matches in its example (the whole text otherwise)."""
    for expression in expressions:
        try:
            match = re.search(expression, example)
        except re.error:
            continue
        if match:
            return match.start(), match.end()
    return 0, len(example)
