"""The evaluation's splits and its human-written NER corpora (no network, no mirrors).

Corpora with their own parts are scored in them; the parts veilbot's entity model trains on
are never read, scored or shown.
"""

import hashlib
import textwrap
from collections import Counter

import pytest

from guardrails.ner import corpora
from guardrails.ner.readers import Sentence, bio
from tests.perf import eval_guardrail
from tests.perf.eval_detectors import Output
from tests.perf.eval_score import Score, run, score_case
from tests.perf.sources import conll, ner_corpora
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


GUM_DOCUMENT = textwrap.dedent(
    """\
    # sent_id = GUM_news_x-1
    # text = Maria Lopez flew to Paris for Acme Corp and the Hoover office.
    1	Maria	Maria	PROPN	NNP	_	3	nsubj	_	Entity=(1-person-new-s-c-1,2
    2	Lopez	Lopez	PROPN	NNP	_	1	flat	_	Entity=1)
    3	flew	fly	VERB	VBD	_	0	root	_	_
    4	to	to	ADP	IN	_	5	case	_	_
    5	Paris	Paris	PROPN	NNP	_	3	obl	_	Entity=(2-place-new-s-c-1)
    6	for	for	ADP	IN	_	8	case	_	_
    7	Acme	Acme	PROPN	NNP	_	8	compound	_	Entity=(3-organization-new-s-c-1,2
    8	Corp	Corp	PROPN	NNP	_	3	obl	_	Entity=3)
    9	and	and	CCONJ	CC	_	12	cc	_	_
    10	the	the	DET	DT	_	12	det	_	Entity=(4-place-new-s-c-3
    11	Hoover	Hoover	PROPN	NNP	_	12	compound	_	_
    12	office	office	NOUN	NN	_	8	conj	_	Entity=4)|SpaceAfter=No
    13	.	.	PUNCT	.	_	3	punct	_	_
    """
)
GUM_SPLITS = """\
# Splits

## train

  * GUM_news_train

## dev

  * GUM_news_x

## test

## test2

  * GENTLE_news_x
"""


def gum_store(tmp_path):
    """A sources folder with file copies of GUM at its pinned commit (no training file)."""
    folder = tmp_path / "amir-zeldes+gum" / corpora.GUM_COMMIT
    (folder / "dep").mkdir(parents=True)
    (folder / "splits.md").write_text(GUM_SPLITS)
    for document in ("GUM_news_x", "GENTLE_news_x"):
        (folder / "dep" / f"{document}.conllu").write_text(GUM_DOCUMENT)
    return ner_corpora.store(tmp_path)


def test_a_gum_sentence_becomes_a_case_of_its_part_and_training_files_are_never_read(tmp_path):
    store = gum_store(tmp_path)
    (case,) = ner_corpora.load("gum", store)  # reading the train part would fail
    assert case.text == "Maria Lopez flew to Paris for Acme Corp and the Hoover office."
    assert [(lb.type, lb.value) for lb in case.labels] == [
        ("PERSON", "Maria Lopez"),
        ("LOCATION", "Paris"),
        ("AMBIGUOUS", "Hoover"),  # a proper noun in a place that is no name: neither way
    ]
    assert [(k.kind, k.value) for k in case.keeps] == [("organization", "Acme Corp")]
    assert (case.split, case.id, case.complete) == (
        "dev",
        "gum:dev:GUM_news_x:0",
        {"PERSON", "LOCATION"},
    )
    assert case.origin == Origin(
        "amir-zeldes/gum", corpora.GUM_COMMIT, "dep/GUM_news_x.conllu", "gum:GUM_news_x:0"
    )
    (gentle,) = ner_corpora.load("gentle", store)
    assert (gentle.split, gentle.origin.file) == ("test", "dep/GENTLE_news_x.conllu")


def test_a_bio_sentence_becomes_a_case_with_handles_and_unsure_spans_unscored():
    content = "Ann\tB-person\nat\tO\nJoe's\tB-facility\nfor\tO\nAcme\tB-company\n"
    (sentence,) = bio(content, corpora.WNUT16_LABELS, "tweebank:dev")
    handle = (len(sentence.text) + 1, len(sentence.text) + 5)  # as the tweet reader marks it
    text, missing = f"{sentence.text} @bob", (*sentence.missing, handle)
    case = ner_corpora.as_case(
        corpora.BY_NAME["tweebank"], "dev", Sentence(sentence.id, text, sentence.spans, missing)
    )
    assert case.text == "Ann at Joe's for Acme @bob"
    assert [(lb.type, lb.value) for lb in case.labels] == [
        ("PERSON", "Ann"),
        ("AMBIGUOUS", "Joe's"),  # a facility: a place to some, an organization to others
        ("HANDLE", "@bob"),
    ]
    assert [(k.kind, k.value) for k in case.keeps] == [("organization", "Acme")]
    assert (case.id, case.split) == ("tweebank:dev:0", "dev")


WIKIGOLD = """\
0\tAnn\tB-PER
1\tLee\tI-PER
2\tlives\tO
3\tin\tO
4\tOslo\tB-LOC
5\t.\tO

0\tShe\tO
1\tworks\tO
2\tfor\tO
3\tAcme\tB-ORG
4\t.\tO

0\t-DOCSTART-\tO

0\tThe\tO
1\tJapanese\tB-MISC
2\tband\tO
3\tplayed\tO
4\tin\tO
5\tKyoto\tB-LOC
6\t.\tO

0\t-DOCSTART-\tO

0\tBo\tB-PER
1\tsang\tO
2\t.\tO
"""


def test_wikigold_articles_go_whole_to_the_smaller_part_so_far(tmp_path, monkeypatch):
    path = "data/wikigold/en/test.conllu"
    copy = tmp_path / "Babelscape+wikineural" / corpora.WIKINEURAL_COMMIT / path
    copy.parent.mkdir(parents=True)
    copy.write_text(WIKIGOLD)
    digest = hashlib.sha256(WIKIGOLD.encode()).hexdigest()
    monkeypatch.setattr(corpora, "WIKIGOLD_FILE", (path, digest))
    cases = list(ner_corpora.load("wikigold", ner_corpora.store(tmp_path)))
    assert [(c.split, c.text) for c in cases] == [
        ("dev", "Ann Lee lives in Oslo."),  # the first article: two sentences
        ("dev", "She works for Acme."),
        ("test", "The Japanese band played in Kyoto."),  # test had fewer
        ("test", "Bo sang."),  # test (one sentence) still had fewer than dev (two)
    ]
    first, second, third, _ = cases
    assert [(lb.type, lb.value) for lb in first.labels] == [
        ("PERSON", "Ann Lee"),
        ("LOCATION", "Oslo"),
    ]
    assert [(k.kind, k.value) for k in second.keeps] == [("organization", "Acme")]
    assert [(lb.type, lb.value) for lb in third.labels] == [
        ("AMBIGUOUS", "Japanese"),  # MISC: neither rewarded nor punished
        ("LOCATION", "Kyoto"),
    ]
    assert (third.id, third.origin.file) == ("wikigold:test:1:0", path)
