"""presidio-research's ``data/synth_dataset_v2.json`` (1 500 template sentences) as cases.

Every template slot is labelled, so labels are complete. ORGANIZATION spans are keep spans
(companies are not personal data; the policy leaves them alone). Street addresses are labelled
whole, cities and countries (``GPE``) on their own: both become LOCATION as the source gives
them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from tests.perf.sources.cases import Case, Origin, keep, label, merge_labels
from tests.perf.sources.peers import Checkout

NAME = "presidio-research"
PATH = "data/synth_dataset_v2.json"
KEEP_TYPES = {"ORGANIZATION"}


def load(peer: Checkout) -> Iterator[Case]:
    """One case per sentence of the dataset."""
    commit = peer.commit()
    for index, row in enumerate(json.loads(peer.read(PATH))):
        text = row["full_text"]
        spans = [(s["entity_type"], s["start_position"], s["end_position"]) for s in row["spans"]]
        labels = [label(t, text, a, b) for t, a, b in spans if t not in KEEP_TYPES]
        keeps = [keep(t.lower(), text, a, b) for t, a, b in spans if t in KEEP_TYPES]
        yield Case(
            source=NAME,
            id=f"{NAME}:{index}",
            origin=Origin(
                "microsoft/presidio-research",
                commit,
                PATH,
                f"[{index}] template {row['template_id']}",
            ),
            text=text,
            labels=merge_labels(labels),
            keeps=tuple(keeps),
        )
