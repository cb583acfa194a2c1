"""Made-up customers for the file benchmarks (``bench_files``, ``bench_files_out``).

Light to import: the file benchmarks' reader processes import the benchmark module again.
"""

from __future__ import annotations

import random

FIRST = ["Maria", "John", "Priya", "Chen", "Olu", "Anna", "Luis", "Fatima", "Tom", "Sara"]
LAST = ["Gonzalez", "Smith", "Raghunathan", "Wei", "Adeyemi", "Novak", "Ortega", "Khan"]
ITEMS = ["invoice", "refund", "renewal", "upgrade", "support", "onboarding"]


def customer(rng: random.Random) -> tuple[str, str, str, str, str]:
    """One customer: name, e-mail, phone, item, amount."""
    first, last = rng.choice(FIRST), rng.choice(LAST)
    return (
        f"{first} {last}",
        f"{first.lower()}.{last.lower()}@example.com",
        f"+1 415 555 {rng.randint(0, 9999):04d}",
        rng.choice(ITEMS),
        f"{rng.randint(5, 900)}.00",
    )
