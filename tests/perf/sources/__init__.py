"""Outside labelled sources for the guardrail evaluation: one loader module per source.

Nothing here is data: each loader reads its source at run time, from a peer's checkout
(``--peers DIR``, see ``peers``), from the same folder as a store of the pinned NER corpora
(``ner_corpora``), or from an installed package (the ``eval`` extra), and yields
``cases.Case`` objects with their origin recorded. ``SOURCES`` names them in report order.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from tests.perf.sources import (
    conll,
    detect_secrets,
    evaluator,
    generators,
    llm_guard,
    ner_corpora,
    piighost,
    presidio_demo,
    presidio_research,
    presidio_tests,
    scrubadub,
)
from tests.perf.sources.cases import Case
from tests.perf.sources.peers import Checkout, PeerMissing, checkout


@dataclass(frozen=True)
class Source:
    """A named source and where it is read from.

    ``peer``: the peer checkout it reads. ``None`` with ``corpus``: a pinned NER corpus in the
    peers folder (``ner_corpora``); ``None`` without: an installed package.
    """

    name: str
    peer: str | None
    loader: Callable[..., Iterable[Case]]
    about: str
    corpus: bool = False


def _corpus(name: str, about: str) -> Source:
    return Source(name, None, functools.partial(ner_corpora.load, name), about, corpus=True)


SOURCES = (
    Source(evaluator.NAME, None, evaluator.load, "presidio-evaluator generator + templates"),
    Source(presidio_research.NAME, "presidio-research", presidio_research.load, "synth_dataset_v2"),
    Source(presidio_tests.NAME, "presidio", presidio_tests.load, "Presidio recognizer tests"),
    Source(presidio_demo.NAME, "presidio", presidio_demo.load, "Presidio e2e demo text"),
    Source(llm_guard.TESTS, "llm-guard", llm_guard.load_tests, "LLM Guard anonymize tests"),
    Source(llm_guard.SECRETS, "llm-guard", llm_guard.load_secrets, "LLM Guard secrets tests"),
    Source(llm_guard.PATTERNS, "llm-guard", llm_guard.load_patterns, "LLM Guard pattern examples"),
    Source(conll.BTC, "broad_twitter_corpus", conll.load_btc, "Broad Twitter Corpus, F and H"),
    Source(conll.WNUT16, "twitter_nlp", conll.load_wnut16, "WNUT 2016 Twitter NER, dev, test"),
    _corpus(ner_corpora.TWEEBANK, "Tweebank-NER v1.0 tweets, dev and test"),
    _corpus(ner_corpora.UNER, "Universal NER, English Web Treebank, dev and test"),
    _corpus(ner_corpora.GUM, "GUM, 12 genres of English, dev and test"),
    _corpus(ner_corpora.GENTLE, "GENTLE, GUM's out-of-genre test set"),
    _corpus(ner_corpora.WIKIGOLD, "WikiGold, Wikipedia articles, dev and test"),
    Source(scrubadub.NAME, "scrubadub", scrubadub.load, "scrubadub detector tests"),
    Source(detect_secrets.NAME, "detect-secrets", detect_secrets.load, "detect-secrets plugins"),
    Source(piighost.NAME, "piighost", piighost.load, "piighost regex pattern tests"),
    Source(generators.HYPOTHESIS, None, generators.load_hypothesis, "hypothesis e-mails, IPs"),
    Source(generators.FAKER, None, generators.load_faker, "Faker e-mails, IPs, 20 locales"),
    Source(generators.FORMS_SOURCE, None, generators.load_forms, "Faker e-mails, IPs, forms"),
)
NAMES = tuple(s.name for s in SOURCES)
PEER_NAMES = frozenset(s.name for s in SOURCES if s.peer is not None)
"""Sources read from peers' checkouts: the ones the "peers combined" row adds up."""
HUMAN_NAMES = frozenset({conll.BTC, conll.WNUT16, *ner_corpora.NAMES})
"""Text written and labelled by people: the "human-written sources combined" row."""


def load(source: Source, peers: Path | None) -> list[Case]:
    """Every case of a source.

    Raises:
        PeerMissing: the source's checkout is not in ``peers``.
        ImportError: the package the source needs is not installed.
    """
    if source.corpus:
        if peers is None:
            raise PeerMissing(f"no peers folder for {source.name}: pass --peers DIR")
        return list(source.loader(ner_corpora.store(peers)))
    if source.peer is None:
        return list(source.loader())
    peer: Checkout = checkout(peers, source.peer)
    return list(source.loader(peer))
