"""Doubling check of the structure, address, licence and birth-date finders; run on demand.

```
.venv/bin/python -m tests.perf.growth_structure
```

Each finder reads adversarial texts of 40 000 and 80 000 characters (one repeated unit: keys
without values, headers, hyphen chains, "born" without dates...); the CPU time of this process
(best of three) is printed for the pairs that take 20 ms or more, largest ratio first. A
linear finder stays near 2x.
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""

from guardrails.rules import (
    addresses,  # noqa: E402
    birthdates,  # noqa: E402
    licences,  # noqa: E402
    structure,  # noqa: E402
)
from guardrails.text import fields  # noqa: E402

UNITS = (
    "name: ", "a: b: c: ", '"name": "', "• Name: Ruby ", "Ruby Grant — ", "/Ruby /",
    "license IL DL# ", "license 1-2 3-4 ", "born born 12 ", "dob: 12 12 ", "born May May 1 ",
    "Aa Bb ", "12345 ", "12345 Paris, ", "Via Via de de 12 ", "Berliner Berliner Straße ",
    "Ab-Ab-Ab-", ", , ,", " " * 10, "a" * 50, "ABCDEFGH", "1-2-3-4-", "Am Am Am 1 ",
    "To: Ruby <", "To: a <b@c.d>, ", "Aa-", "Aastr", "1 Aa Aa ", "xxx\n",
)  # fmt: skip
SIZES = (40_000, 80_000)


def _finders() -> dict[str, Callable[[str], object]]:
    reader = structure.StructureReader(
        english=lambda w: w.lower() in {"the", "code"},
        name_word=lambda w: w.lower() in {"ruby", "jane"},
    )

    def read(text: str) -> object:
        fields.fields.cache_clear()
        reader._all.cache_clear()  # noqa: SLF001
        return [list(reader.find(t, text)) for t in ("PERSON", "LOCATION", "DRIVER_LICENSE")]

    def keys(text: str) -> object:
        fields.fields.cache_clear()
        return [fields.outside_keys(text, i, i + 30) for i in range(0, len(text), 500)]

    found: dict[str, Callable[[str], object]] = {
        "structure": read,
        "outside_keys": keys,
        "licences": lambda t: list(licences.find(t)),
        "birthdates": lambda t: list(birthdates.find(t)),
        "postcode_towns": lambda t: list(addresses.postcode_towns(t)),
    }
    for i, (regex, _) in enumerate(addresses.ADDRESS_PATTERNS):
        found[f"address pattern {i}"] = lambda t, r=regex: list(r.finditer(t))
    return found


def _cpu(finder: Callable[[str], object], text: str) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        finder(text)
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    """Print the pairs that take 20 ms or more, largest growth first."""
    gc.disable()
    rows = []
    for name, finder in _finders().items():
        for unit in UNITS:
            times = [_cpu(finder, (unit * (n // len(unit) + 1))[:n]) for n in SIZES]
            rows.append((times[1] / max(times[0], 1e-9), name, unit, times))
    timed = [row for row in rows if row[3][1] >= 0.02]
    print(f"{len(rows)} finder x input pairs, {len(timed)} of them 20 ms or more at 80k")  # noqa: T201
    for ratio, name, unit, (small, large) in sorted(timed, reverse=True)[:12]:
        print(f"{name:18} {unit!r:28} {small * 1e3:8.1f} ms {large * 1e3:8.1f} ms  x{ratio:.2f}")  # noqa: T201


if __name__ == "__main__":
    main()
