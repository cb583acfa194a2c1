"""Build ``common-words/<language>.txt.gz``: the words people write often in each language.

Not imported at run time: veilbot ships the result (``guardrails.rules.local.common_word``).
The ``wordfreq`` package (Robyn Speer; code Apache-2.0, data CC BY-SA 4.0, from subtitles,
Wikipedia, news, books, web text and social media) gives, per language, how often each word is
written, in lower case. A sentence of chat in these languages often opens
on a verb or an adverb ("Mieszkam w Krakowie", "Wczoraj rozmawiałem", "Domani chiamo"), which
entity models learnt on news and Wikipedia read as a name; this list lets the rules tell such a
word from a name the lexicon does not know. A file per language besides English, the words of
letters (with an inner apostrophe or hyphen) written at least ``FREQUENCY`` often, a word per
line, sorted::

    pip install wordfreq==3.1.1
    python guardrails/data/build_common_words.py
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

FREQUENCY = 1e-5
"""Ten times per million words (4 on the Zipf scale): "wczoraj", "chiamo" are written more
often, surnames and towns in the news less ("Menem", "Chełm": three times)."""
LANGUAGES = ("de", "es", "fr", "it", "nl", "pl", "pt")
"""The languages besides English that a scope may read (``guardrails.rules.local``)."""
_WORD = re.compile(r"[^\W\d_]{2,}(?:['’\-][^\W\d_]+)*")


def main() -> None:
    """Write ``common-words/<language>.txt.gz`` beside this file."""
    from wordfreq import get_frequency_dict

    folder = Path(__file__).with_name("common-words")
    folder.mkdir(exist_ok=True)
    for language in LANGUAGES:
        frequencies = get_frequency_dict(language, wordlist="small")
        words = {w for w, f in frequencies.items() if f >= FREQUENCY and _WORD.fullmatch(w)}
        text = "".join(f"{word}\n" for word in sorted(words))
        target = folder / f"{language}.txt.gz"
        target.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
        print(f"{len(words)} words -> {target}")  # noqa: T201


if __name__ == "__main__":
    main()
