"""The human-labelled NER corpora ``guardrails.ner.corpora`` pins, as cases: dev and test only.

- ``tweebank``: Tweebank-NER v1.0 (mit-ccc/TweebankNLP), tweets; dev and test, for measuring
  only (the model never learns from its tweets).
- ``uner-ewt``: Universal NER on the English Web Treebank (reviews, e-mails, answers, blogs);
  dev and test, for measuring only.
- ``gum``: GUM (amir-zeldes/gum): conversations, interviews, vlogs, court, letters, speeches,
  how-tos, travel, news; its train part is training.
- ``gentle``: GENTLE, GUM's out-of-genre test set (medical notes, legal, threats, e-sports,
  syllabi, dictionary entries); test only, it has no dev part.
- ``wikigold``: WikiGold, English Wikipedia articles labelled by hand; its one file's articles
  alternate between dev and test, for measuring only.

The sentences are the corpora's own, read at the pinned commits by the model's readers from
the peers folder as a ``corpora.Store`` that never downloads: a mirror ``owner+name/repo`` or a
clone ``owner+name`` holding the commit, or a file copy ``owner+name/<commit>/<path>``. The
training parts are never asked for.

A sentence becomes a case as the tweet corpora do (``conll``): a person is a ``PERSON`` label,
a place a ``LOCATION`` label, an organization a keep of kind ``organization``; a span of
missing annotation (a proper noun the corpus does not call a person, place or organization
plainly, or a tweet's ``@handle``, which the model's reader leaves to the guardrail) is a label
of type ``AMBIGUOUS`` or ``HANDLE``: not scored, and a detection on it is no false alarm.
Labels are complete for PERSON and LOCATION.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from guardrails.ner.corpora import BY_NAME, Corpus, CorpusMissing, Store
from guardrails.ner.readers import Sentence
from tests.perf.sources.cases import Case, Keep, Label, Origin, keep, label
from tests.perf.sources.peers import PeerMissing

TWEEBANK, UNER, GUM, GENTLE, WIKIGOLD = "tweebank", "uner-ewt", "gum", "gentle", "wikigold"
NAMES = (TWEEBANK, UNER, GUM, GENTLE, WIKIGOLD)
EVAL_SPLITS = ("dev", "test")
"""The parts read here; a corpus without one of them gives nothing for it."""
FILES = {
    TWEEBANK: "Tweebank-NER-v1.0/{split}.bio",
    UNER: "en_ewt-ud-{split}.iob2",
    GUM: "dep/{document}.conllu",
    GENTLE: "dep/{document}.conllu",
    WIKIGOLD: "data/wikigold/en/test.conllu",
}
"""The file a sentence comes from, for its origin (GUM's sentence ids name the document)."""
LABELS = {"PERSON": "PERSON", "LOC": "LOCATION"}
KEEPS = {"ORG": "organization"}
COMPLETE = frozenset({"PERSON", "LOCATION"})

_HANDLE = re.compile(r"@\w+")


def as_case(corpus: Corpus, split: str, sentence: Sentence) -> Case:
    """One sentence of a corpus part as a case of that split."""
    text = sentence.text
    labels: list[Label] = []
    keeps: list[Keep] = []
    for start, end, kind in sentence.spans:
        if kind in LABELS:
            labels.append(label(LABELS[kind], text, start, end))
        elif kind in KEEPS:
            keeps.append(keep(KEEPS[kind], text, start, end))
    for start, end in sentence.missing:
        unsure = "HANDLE" if _HANDLE.fullmatch(text[start:end]) else "AMBIGUOUS"
        labels.append(label(unsure, text, start, end))
    local = sentence.id.removeprefix(f"{corpus.name}:")
    return Case(
        source=corpus.name,
        id=f"{corpus.name}:{split}:{local.removeprefix(f'{split}:')}",
        origin=Origin(corpus.repo, corpus.commit, _file(corpus.name, split, local), sentence.id),
        text=text,
        labels=tuple(sorted(labels, key=lambda i: (i.start, i.end, i.type))),
        keeps=tuple(keeps),
        complete=COMPLETE,
        fixed_split=split,
    )


def _file(name: str, split: str, local_id: str) -> str:
    """The corpus file of a sentence (``document:index`` ids for GUM and GENTLE)."""
    document = local_id.rsplit(":", 1)[0]
    return FILES[name].format(split=split, document=document)


def load(name: str, store: Store) -> Iterator[Case]:
    """The dev and test cases of the corpus ``name``.

    Raises:
        PeerMissing: a file of it is not in the store (nothing is downloaded).
    """
    corpus = BY_NAME[name]
    for split in EVAL_SPLITS:
        try:
            sentences = list(corpus.sentences(store, split))
        except CorpusMissing as exc:
            raise PeerMissing(f"{name}: {exc} (docs/guardrail.md, Rerun)") from exc
        yield from (as_case(corpus, split, s) for s in sentences)


def store(root: Path) -> Store:
    """The peers folder as a store of corpus files that never downloads."""
    return Store(root, download=False)
