"""piighost's regex pattern tests (``tests/components/detector/``) as cases.

``test_patterns.py`` lists its golden examples as module-level literals: ``TRUE_POSITIVES``
(a label and a value that must be matched whole: the value alone is the text),
``TRUE_NEGATIVES`` (a value the pattern must not match: a negative keep span) and the
resilience set, each of ``RESILIENCE_VALUES`` put into each of ``RESILIENCE_WRAPPERS``
(``"Reach me at {v}."``): the value is the label. ``test_regex.py`` tests the detector
itself, mostly with made-up labels (``DIGITS``, ``CODE``): only its tests whose pattern is a
personal-data type (IBAN, EMAIL) are read, the text given to ``detect`` and the value the test
expects back. Both files are read with ``ast``; nothing of piighost runs. URLs are an off
type; French NIR and SIRET numbers are listed as types of their own (veilbot has none).
Labels are complete: every text holds one value and nothing else.

The figures in docs/guardrail.md were read from
``test_patterns.py`` at ``223fcb53757888ed03e4ee5a868917ec95d0fbc4`` and ``test_regex.py`` at
``34dae67618ad2d6acf2b0ab181fe38383687a11c`` of ``Athroniaeth/piighost``; a clone of a later
commit reads what the tests say then.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Any

from tests.perf.sources.cases import Case, Origin, keep, label, veilbot_type
from tests.perf.sources.peers import Checkout
from tests.perf.sources.pyast import NotLiteral, literal

NAME = "piighost"
REPO = "Athroniaeth/piighost"
PATTERNS = "tests/components/detector/test_patterns.py"
REGEX = "tests/components/detector/test_regex.py"
TYPES = {
    "IPV4": "IP_ADDRESS",
    "US_PHONE": "PHONE_NUMBER",
    "FR_PHONE": "PHONE_NUMBER",
    "US_ZIP": "ZIP_CODE",
    "FR_IBAN": "IBAN_CODE",
}
"""piighost's label names that ``cases.veilbot_type`` does not know."""


def kind_of(name: str) -> str:
    """A piighost label in veilbot's vocabulary."""
    return veilbot_type(TYPES.get(name, name))


def constants(tree: ast.Module) -> dict[str, Any]:
    """Module-level names bound to a literal, annotated (``X: list[...] = [...]``) or not."""
    found: dict[str, Any] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            target, value = statement.target, statement.value
        else:
            continue
        if isinstance(target, ast.Name):
            try:
                found[target.id] = literal(value, found)
            except NotLiteral:
                continue
    return found


def load(peer: Checkout) -> Iterator[Case]:
    """The cases of both files (a text that comes twice is one case)."""
    commit = peer.commit()
    seen: set[str] = set()
    for case in [*pattern_cases(peer.read(PATTERNS), commit), *regex_cases(peer, commit)]:
        if case.text not in seen:
            seen.add(case.text)
            yield case


def _case(test: str, file: str, commit: str, text: str, kind: str, value: str) -> Case:
    start = text.index(value)
    return Case(
        source=NAME,
        id=f"{NAME}:{file.rsplit('/', 1)[-1]}:{test}",
        origin=Origin(REPO, commit, file, test),
        text=text,
        labels=(label(kind_of(kind), text, start, start + len(value)),),
    )


def pattern_cases(source: str, commit: str) -> Iterator[Case]:
    """True positives, true negatives, and every resilience value in every wrapper."""
    names = constants(ast.parse(source))
    for index, (kind, value) in enumerate(names.get("TRUE_POSITIVES", [])):
        yield _case(f"TRUE_POSITIVES[{index}]", PATTERNS, commit, value, kind, value)
    for index, (kind, value) in enumerate(names.get("TRUE_NEGATIVES", [])):
        test = f"TRUE_NEGATIVES[{index}]"
        yield Case(
            source=NAME,
            id=f"{NAME}:test_patterns.py:{test}",
            origin=Origin(REPO, commit, PATTERNS, test),
            text=value,
            keeps=(keep(f"negative:{kind_of(kind)}", value, 0, len(value)),),
            complete=frozenset({kind_of(kind)}),
        )
    wrappers = names.get("RESILIENCE_WRAPPERS", [])
    for v, (kind, value) in enumerate(names.get("RESILIENCE_VALUES", [])):
        for w, wrapper in enumerate(wrappers):
            test = f"RESILIENCE_VALUES[{v}]-RESILIENCE_WRAPPERS[{w}]"
            yield _case(test, PATTERNS, commit, wrapper.format(v=value), kind, value)


def regex_cases(peer: Checkout, commit: str) -> Iterator[Case]:
    """Tests of ``test_regex.py`` whose pattern is a personal-data type."""
    if REGEX not in peer.files(REGEX.rsplit("/", 1)[0]):
        return
    tree = ast.parse(peer.read(REGEX))
    for node in ast.walk(tree):
        if isinstance(node, ast.AsyncFunctionDef | ast.FunctionDef):
            read = _regex_test(node)
            if read is not None:
                yield _case(node.name, REGEX, commit, *read)


def _regex_test(node: ast.AsyncFunctionDef | ast.FunctionDef) -> tuple[str, str, str] | None:
    """(text, label, expected value) of one test, if it names a personal-data pattern."""
    local: dict[str, Any] = {}
    kinds: list[str] = []
    texts: list[str] = []
    compared: list[str] = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Assign) and isinstance(sub.targets[0], ast.Name):
            try:
                local[sub.targets[0].id] = literal(sub.value, local)
            except NotLiteral:
                pass
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and getattr(sub.func, "id", "") == "RegexDetector":
            if sub.args and isinstance(sub.args[0], ast.Dict):
                kinds += [k.value for k in sub.args[0].keys if isinstance(k, ast.Constant)]
        elif isinstance(sub, ast.Call) and getattr(sub.func, "attr", "") == "detect":
            texts += [t for a in sub.args if (t := _string(a, local)) is not None]
        elif isinstance(sub, ast.Compare) and isinstance(sub.ops[0], ast.Eq):
            compared += [t for c in sub.comparators if (t := _string(c, local)) is not None]
    personal = [k for k in kinds if kind_of(k) in {"IBAN_CODE", "EMAIL_ADDRESS"}]
    if len(personal) != 1 or len(texts) != 1:
        return None
    value = next((c for c in compared if c and c in texts[0]), None)
    return (texts[0], personal[0], value) if value else None


def _string(node: ast.AST, local: dict[str, Any]) -> str | None:
    """A string literal, a local name bound to one, or an f-string of those."""
    if isinstance(node, ast.JoinedStr):
        parts = [v.value if isinstance(v, ast.Constant) else _string(v, local) for v in node.values]
        return None if None in parts else "".join(str(p) for p in parts)
    if isinstance(node, ast.FormattedValue):
        return _string(node.value, local)
    if isinstance(node, ast.Name):
        value = local.get(node.id)
        return value if isinstance(value, str) else None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None
