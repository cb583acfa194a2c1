"""What a language's training text says about its capitalised words, shipped with its model.

German capitalises every noun, and the name lexicon lists many German nouns as surnames
somewhere ("Steuer", "Platz", "Zeitung"): a listed surname says "person" in a German sentence
only when German does not use it as a word, and the lexicon misses many German surnames
("Matschke"). The training parts a language's model learns from
(``corpora.TRAINING_BY_LANGUAGE``) say both:

- its **words**: the capitalised words written inside a sentence (not opening it) outside every
  labelled name more often than in the names of people and places ("Platz"; "Haus", though
  in "Weißes Haus" and "Haus der Kunst" too: organizations are named with words);
- its **names**: the capitalised words written inside people's names more often than anywhere
  else ("Matschke", "Hitzfeld");
- the words it writes in lower case outside names: one of them capitalised to open a sentence
  is no name there ("Durante", "Acho").

The build writes them beside the model (``words.txt.gz``, ``names.txt.gz`` and
``lower.txt.gz``, a word per line, as written); ``python -m guardrails.ner.words --language
de`` rewrites those files alone from the same pinned corpora, without training. Test parts are
never read.
"""

from __future__ import annotations

import argparse
import gzip
import re
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from guardrails.ner import corpora
from guardrails.ner.readers import MISSING, Sentence
from guardrails.ner.shipped import LOWER, NAMES, WORDS, Vocabulary, language_model

_WORD = re.compile(r"[^\W\d_]+")
_OPENS = ".!?:;\"'«»“”„-–—("


def vocabulary(sentences: Iterable[Sentence]) -> Vocabulary:
    """The words and names of labelled sentences (see the module docstring).

    A word is as written ("Platz"); unlabelled spans (``missing``) count for neither. A word
    that opens the sentence or follows a sentence's end, a colon or a quotation mark is
    capitalised for its place: it is not counted as a word there (a name there counts).
    """
    outside: Counter[str] = Counter()
    person: Counter[str] = Counter()
    place: Counter[str] = Counter()
    other: Counter[str] = Counter()
    lower: set[str] = set()
    for sentence in sentences:
        mark = [""] * len(sentence.text)
        for start, end, label in sentence.spans:
            mark[start:end] = [label] * (end - start)
        for start, end in sentence.missing:
            mark[start:end] = [MISSING] * (end - start)
        for match in _WORD.finditer(sentence.text):
            word, label = match.group(), mark[match.start()]
            if word.islower() and not label:
                lower.add(word)
            if not word[0].isupper() or label == MISSING:
                continue
            if label == "PERSON":
                person[word] += 1
            elif label == "LOC":
                place[word] += 1
            elif label:
                other[word] += 1
            elif (before := sentence.text[: match.start()].rstrip()) and before[-1] not in _OPENS:
                outside[word] += 1
    return Vocabulary(
        frozenset(w for w, count in outside.items() if count > person[w] + place[w]),
        frozenset(w for w, count in person.items() if count > outside[w] + place[w] + other[w]),
        frozenset(lower),
    )


def write(found: Vocabulary, folder: Path) -> None:
    """``found`` into ``folder``'s three files, reproducibly (sorted, no time stamp)."""
    for name, part in ((WORDS, found.words), (NAMES, found.names), (LOWER, found.lower)):
        data = "".join(f"{w}\n" for w in sorted(part)).encode("utf-8")
        with (folder / name).open("wb") as raw:
            with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out:
                out.write(data)


def main(argv: list[str] | None = None) -> None:
    """Rewrite a shipped model's word list from its pinned training corpora."""
    parser = argparse.ArgumentParser(prog="python -m guardrails.ner.words", description=__doc__)
    parser.add_argument("--language", required=True,
                        choices=sorted(set(corpora.TRAINING_BY_LANGUAGE) - {"en"}))  # fmt: skip
    parser.add_argument("--sources", type=Path, default=Path.home() / ".cache/veilbot/corpora",
                        help="folder of corpus checkouts and downloads")  # fmt: skip
    parser.add_argument("--out", type=Path, default=None, help="default: the shipped folder")
    parser.add_argument("--no-download", action="store_true", help="read --sources only")
    args = parser.parse_args(argv)
    store = corpora.Store(args.sources, download=not args.no_download)
    names = corpora.TRAINING_BY_LANGUAGE[args.language]
    found = vocabulary(s for name in names for s in corpora.BY_NAME[name].sentences(store, "train"))
    folder = args.out or language_model(args.language)
    write(found, folder)
    counts = f"{len(found.words)} words, {len(found.names)} names, {len(found.lower)} in lower case"
    print(f"{counts} to {folder}")  # noqa: T201


if __name__ == "__main__":
    main(sys.argv[1:])
