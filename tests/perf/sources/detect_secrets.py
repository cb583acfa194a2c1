"""detect-secrets' plugin tests (``tests/plugins/*_test.py``) as cases.

Each plugin's tests list lines with whether the plugin must flag them (``payload`` or
``line``, and ``should_flag``; a test with no flag lists lines that are all flagged). They say
that a line holds a secret, not where: a flagged line is a case with one ``SECRET`` label, the
value that ends the line after a ``=`` or ``:`` (``api_key = "…"``, ``X-Api: …``), else the
line's longest run of characters other than blanks, quotes, ``=``, ``:``, ``,`` and ``;`` (the
token of a line that is only a token). A line the plugin must not flag is a negative keep
span: many hold what a chat's guardrail should still hide (a key one character short of its
vendor's length, ``cloudant_password = "…"``), so over-redaction here counts values the
plugin's narrower rule lets pass.

``tests/plugins/keyword_test.py`` lists lines of config files and source code (Go, C, C++,
and languages where a secret must be quoted) with the secret the keyword plugin must read in
each, or none: a line with a secret is a case labelled at that value, a line with none a
negative keep span (among them unquoted values in Python or Java, which are variables there,
and keys the test's own configuration excludes: ``.*fake.*``). A line two lists expect
differently (a bare value is a secret in a config file, a variable in Python) is a case per
list.

The labels say nothing of other personal data in a line: no span precision. The public-IP
plugin's tests are left out (an IP address is personal data whether public or private), as are
tests of helper functions (``content``/``expected_output``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from tests.perf.sources.cases import Case, Origin, keep, label
from tests.perf.sources.peers import Checkout
from tests.perf.sources.pyast import NotLiteral, literal, module_constants, parametrize

NAME = "detect-secrets"
FOLDER = "tests/plugins"
REPO = "Yelp/detect-secrets"
_NOT_SECRETS = {"ip_public_test.py", "base_test.py"}
KEYWORD_FILE = "tests/plugins/keyword_test.py"
_CASE_LISTS = "_TEST_CASES"
_RUN = re.compile(r"[^\s\"'`=:,;]+")
_LAST_VALUE = re.compile(r"[=:][ \t]*[\"'`]?(?P<v>[^\s\"'`=]+)[\"'`]?[ \t]*$")


def load(peer: Checkout) -> Iterator[Case]:
    """One case per line a plugin test lists, and per line of the keyword plugin's lists."""
    yield from _plugin_lines(peer)
    yield from load_keywords(peer)


def _plugin_lines(peer: Checkout) -> Iterator[Case]:
    commit = peer.commit()
    seen: set[str] = set()
    for path in peer.files(FOLDER):
        file = path.rsplit("/", 1)[-1]
        if not file.endswith("_test.py") or file in _NOT_SECRETS:
            continue
        for param in parametrize(peer.read(path)):
            values = param.values or {}
            text = values.get("payload", values.get("line"))
            flag = values.get("should_flag", True)
            if not isinstance(text, str) or not text.strip() or not isinstance(flag, bool):
                continue
            if text in seen:
                continue
            seen.add(text)
            test = f"{file}:{param.function}[{param.index}]"
            yield Case(
                source=NAME,
                id=f"{NAME}:{test}",
                origin=Origin(REPO, commit, path, f"{param.function}[{param.index}]"),
                text=text,
                labels=(label("SECRET", text, *_value(text)),) if flag else (),
                keeps=() if flag else (keep("negative", text, 0, len(text)),),
                complete=frozenset(),
            )


def load_keywords(peer: Checkout) -> Iterator[Case]:
    """One case per line of each list of the keyword plugin's tests."""
    commit = peer.commit()
    tree = ast.parse(peer.read(KEYWORD_FILE))
    names = module_constants(tree)
    for statement in tree.body:
        if not (isinstance(statement, ast.Assign) and isinstance(statement.value, ast.List)):
            continue
        target = statement.targets[0]
        if not (isinstance(target, ast.Name) and target.id.endswith(_CASE_LISTS)):
            continue
        for index, node in enumerate(statement.value.elts):
            try:
                line, secret = literal(node, names)
            except (NotLiteral, ValueError, TypeError):
                continue  # a line built at test time (a random long line)
            if not isinstance(line, str) or not line.strip():
                continue
            test = f"{target.id}[{index}]"
            at = line.find(secret) if isinstance(secret, str) and secret else -1
            yield Case(
                source=NAME,
                id=f"{NAME}:keyword_test.py:{test}",
                origin=Origin(REPO, commit, KEYWORD_FILE, test),
                text=line,
                labels=(label("SECRET", line, at, at + len(secret)),) if at >= 0 else (),
                keeps=() if secret else (keep("negative", line, 0, len(line)),),
                complete=frozenset(),
            )


def _value(text: str) -> tuple[int, int]:
    """The span of a flagged line's keyed value, else of its longest run (the first)."""
    keyed = _LAST_VALUE.search(text)
    if keyed:
        return keyed.span("v")
    longest = max(_RUN.finditer(text), key=lambda m: len(m[0]), default=None)
    return longest.span() if longest else (0, len(text))
