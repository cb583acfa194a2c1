"""The evaluation's splits (no network, no mirrors).

Corpora with their own parts are scored in them; the parts veilbot's entity model trains on
are never read, scored or shown.
"""

from collections import Counter

import pytest

from guardrails.ner import corpora
from tests.perf import eval_guardrail
from tests.perf.eval_detectors import Output
from tests.perf.eval_score import Score, run, score_case
from tests.perf.sources import conll
from tests.perf.sources.cases import Case, Label, Origin, split_of


def tweets(count):
    """A CoNLL file of ``count`` one-token tweets."""
    return "".join(f"tweet{i}\tO\n\n" for i in range(count))


class FileCheckout:
    """A peer checkout serving files from memory; it records what was read, at which commit."""

    def __init__(self, files):
        self.files = files
        self.reads = []

    def read_at(self, commit, path):
        self.reads.append((commit, path))
        return self.files[path]


class Echo:
    """A detector that finds nothing."""

    name = "echo"
    model = "none"

    def run(self, text, platform):
        return Output(text, ())


def sentence_index(case):
    return int(case.origin.test.removeprefix("sentence "))


SPLITS = ("dev", "test", "both")


def test_btc_section_f_is_test_the_second_half_of_h_dev_and_the_rest_never_read():
    peer = FileCheckout({"f.conll": tweets(3), "h.conll": tweets(1600)})
    cases = {(c.origin.file, sentence_index(c)): c for c in conll.load_btc(peer)}
    assert cases[("f.conll", 0)].split == "test"
    assert cases[("h.conll", 1500)].split == "dev"
    assert corpora.btc_split("h", 10) == "train"
    assert ("h.conll", 10) not in cases  # training data: no case is made of it
    assert Counter(c.split for c in cases.values()) == {"test": 3, "dev": 600}
    assert peer.reads == [(corpora.BTC_COMMIT, "f.conll"), (corpora.BTC_COMMIT, "h.conll")]


def test_wnut16_reads_its_dev_and_test_files_only():
    files = {f"data/annotated/wnut16/data/{part}": tweets(2) for part in ("dev", "test")}
    cases = list(conll.load_wnut16(FileCheckout(files)))  # reading "train" would fail
    assert Counter(c.split for c in cases) == {"dev": 2, "test": 2}


def test_a_fixed_split_wins_over_the_hash_and_training_cases_are_never_scored():
    dev_id = next(f"btc:{i}" for i in range(100) if split_of(f"btc:{i}") == "dev")
    origin = Origin("r", "c", "f", "t")
    fixed = Case("btc", dev_id, origin, "Ann", (Label("PERSON", 0, 3, "Ann"),), fixed_split="test")
    assert fixed.split == "test"
    score = Score()
    score_case(fixed, "Ann", (), score)
    assert score.recall.total["all"] == 1
    assert score.failures == []  # a test case: figures only
    train = Case("btc", "btc:h.conll:10", origin, "Ann", fixed_split="train")
    assert all(train.split not in eval_guardrail.parse(["--split", s]).splits for s in SPLITS)
    with pytest.raises(ValueError, match="training data"):
        run(Echo(), [train])


def test_show_failures_is_refused_for_the_test_split(capsys):
    with pytest.raises(SystemExit):
        eval_guardrail.parse(["--show-failures", "--split", "test"])
    assert "test cases are never shown" in capsys.readouterr().err
    assert eval_guardrail.parse(["--show-failures", "--split", "dev"]).splits == ("dev",)
