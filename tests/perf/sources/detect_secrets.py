"""detect-secrets' plugin tests (``tests/plugins/*_test.py``) as cases.

Each plugin's tests list lines with whether the plugin must flag them (``payload`` or
``line``, and ``should_flag``; a test with no flag lists lines that are all flagged). A flagged
line is a case whose whole text is one ``SECRET`` label: the tests say that the line holds a
secret, not where, so a detection anywhere in it catches it, and the partial-leak figure says
how much of it stayed readable. A line the plugin must not flag is a negative keep span. The
labels say nothing of other personal data in a line: no span precision. The public-IP
plugin's tests are left out (an IP address is personal data whether public or private), as are
tests of helper functions (``content``/``expected_output``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tests.perf.sources.cases import Case, Origin, keep, label
from tests.perf.sources.peers import Checkout
from tests.perf.sources.pyast import parametrize

NAME = "detect-secrets"
FOLDER = "tests/plugins"
REPO = "Yelp/detect-secrets"
_NOT_SECRETS = {"ip_public_test.py", "base_test.py"}
_RUN = re.compile(r"[^\s\"'`=:,;]+")
_LAST_VALUE = re.compile(r"[=:][ \t]*[\"'`]?(?P<v>[^\s\"'`=]+)[\"'`]?[ \t]*$")


def load(peer: Checkout) -> Iterator[Case]:
    """One case per line a plugin test lists."""
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


def _value(text: str) -> tuple[int, int]:
    """The span of a flagged line's keyed value, else of its longest run (the first)."""
    keyed = _LAST_VALUE.search(text)
    if keyed:
        return keyed.span("v")
    longest = max(_RUN.finditer(text), key=lambda m: len(m[0]), default=None)
    return longest.span() if longest else (0, len(text))
