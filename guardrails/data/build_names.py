"""Build ``names.tsv.gz``, the name lexicon, from the ``names-dataset`` package (MIT licence).

Not imported at run time: veilbot ships the result. ``names-dataset`` (Philippe Remy,
https://github.com/philipperemy/name-dataset) lists 730 000 first names and 980 000 last names
with their rank in each of 105 countries; loading it takes two minutes and 2 GB, so veilbot
keeps only names written in the Latin alphabet that rank in some country's top
``FIRST_RANK`` (first names) or ``LAST_RANK`` (last names)::

    pip install names-dataset==3.3.1
    python guardrails/data/build_names.py

Each line is ``name<TAB>best first-name rank<TAB>best last-name rank<TAB>best first-name rank
in an English-speaking country`` (0: not one within the limit), the name in lower case, NFC.
The last column tells a name English speakers give ("Grace", "Hope", "Will", "Blessing") from
an English noun that is a first name elsewhere only ("Boy", "Law", "Fun").
"""

from __future__ import annotations

import gzip
import pickle
import re
import unicodedata
from pathlib import Path

FIRST_RANK = 1000
LAST_RANK = 2000
ENGLISH_SPEAKING = ("US", "GB", "CA", "IE", "JM", "NG", "GH", "ZA")
"""The countries of the dataset where English is what most people speak or the language of
everyday public life (it has no AU or NZ)."""
_LATIN = re.compile(r"[a-zß-öø-ÿā-ž](?:[a-zß-öø-ÿā-žșț]|['\-](?=[a-zß-öø-ÿā-ž]))+")


def _best(info: dict[str, dict[str, int]], countries: tuple[str, ...] = ()) -> int:
    ranks = info.get("rank") or {}
    if countries:
        ranks = {c: r for c, r in ranks.items() if c in countries}
    return min(ranks.values()) if ranks else 10**9


def main() -> None:
    """Write ``names.tsv.gz`` beside this file."""
    import names_dataset

    source = Path(names_dataset.__file__).parent / "v3"
    ranks: dict[str, list[int]] = {}
    english: dict[str, int] = {}
    for column, (name, limit) in enumerate(
        (("first_names", FIRST_RANK), ("last_names", LAST_RANK))
    ):
        with gzip.open(source / f"{name}.pkl.gz") as handle:
            data = pickle.load(handle)  # noqa: S301 - the package's own data file
        for raw, info in data.items():
            key = unicodedata.normalize("NFC", raw.strip()).casefold()
            best = _best(info)
            if best > limit or not _LATIN.fullmatch(key):
                continue
            entry = ranks.setdefault(key, [0, 0])
            entry[column] = min(entry[column] or best, best)
            spoken = _best(info, ENGLISH_SPEAKING)
            if column == 0 and spoken <= FIRST_RANK:
                english[key] = min(english.get(key) or spoken, spoken)
        del data
    lines = [
        f"{k}\t{first}\t{last}\t{english.get(k, 0)}\n" for k, (first, last) in sorted(ranks.items())
    ]
    target = Path(__file__).with_name("names.tsv.gz")
    payload = "".join(lines).encode("utf-8")
    target.write_bytes(gzip.compress(payload, compresslevel=9, mtime=0))  # reproducible
    print(f"{len(lines)} names -> {target}")  # noqa: T201


if __name__ == "__main__":
    main()
