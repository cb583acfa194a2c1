"""What the entity model learns from: corpus readers, case and name copies, pinned files."""

from __future__ import annotations

import subprocess

import pytest
import spacy
from spacy.training import offsets_to_biluo_tags

from guardrails.ner import corpora, readers, words
from guardrails.ner.examples import docs, recased, to_doc, variants
from guardrails.ner.readers import Sentence
from guardrails.ner.shipped import LOWER, NAMES, WORDS, Vocabulary, read_vocabulary
from guardrails.ner.silver import with_silver
from guardrails.ner.swaps import swapped

GUM_DOC = """# newdoc id = GUM_test_doc
# sent_id = GUM_test_doc-1
# text = The Queen met Anna Berg of the University of Leeds in York.
1	The	the	DET	DT	_	2	det	_	Entity=(1-person-new-nnnnn-cf1-2-sgl
2	Queen	Queen	PROPN	NNP	_	3	nsubj	_	Entity=1)
3	met	meet	VERB	VBD	_	0	root	_	_
4	Anna	Anna	PROPN	NNP	_	3	obj	_	Entity=(2-person-new-nnnnn-cf2-1,2-coref
5	Berg	Berg	PROPN	NNP	_	4	flat	_	Entity=2)
6	of	of	ADP	IN	_	9	case	_	_
7	the	the	DET	DT	_	9	det	_	Entity=(3-organization-new-nnnnn-cf3-2-sgl
8	University	University	PROPN	NNP	_	4	nmod	_	_
9	of	of	ADP	IN	_	10	case	_	_
10	Leeds	Leeds	PROPN	NNP	_	8	nmod	_	Entity=(4-place-new-nnnnn-cf4-1-sgl)3)
11	in	in	ADP	IN	_	12	case	_	_
12	York	York	PROPN	NNP	_	3	obl	_	Entity=(5-place-new-nnnnn-cf5-1-sgl)|SpaceAfter=No
13	.	.	PUNCT	.	_	3	punct	_	_

"""


def _spans(sentence: Sentence) -> list[tuple[str, str]]:
    return [(sentence.text[a:b], label) for a, b, label in sentence.spans]


def test_a_gum_document_gives_named_people_places_and_organizations():
    (sentence,) = readers.gum(GUM_DOC, "GUM_test_doc")
    assert sentence.text == "The Queen met Anna Berg of the University of Leeds in York."
    assert _spans(sentence) == [
        ("Anna Berg", "PERSON"),
        ("University of Leeds", "ORG"),  # the organization, not the town inside its name
        ("York", "LOC"),
    ]
    assert [sentence.text[a:b] for a, b in sentence.missing] == ["Queen"]  # a role, not a name


def test_a_gum_document_whose_words_are_withheld_gives_nothing():
    withheld = GUM_DOC.replace("\tAnna\t", "\t____\t")
    assert list(readers.gum(withheld, "GUM_reddit_doc")) == []


def test_a_universal_ner_file_keeps_its_own_text_and_offsets():
    content = (
        "# sent_id = s1\n# text = ask tom about tampa bay , ok?\n"
        "1\task\tO\t-\t-\n2\ttom\tB-PER\t-\t-\n3\tabout\tO\t-\t-\n4\ttampa\tB-LOC\t-\t-\n"
        "5\tbay\tI-LOC\t-\t-\n6\t,\tO\t-\t-\n7\tok\tO\t-\t-\n8\t?\tO\t-\t-\n\n"
    )
    (sentence,) = readers.bio(content, corpora.CONLL_LABELS, "uner")
    assert sentence.id == "s1"
    assert _spans(sentence) == [("tom", "PERSON"), ("tampa bay", "LOC")]


def test_tweets_keep_handles_as_missing_annotation():
    content = "RT\tO\n@\tB-PER\njane_d\tI-PER\n:\tO\nLondon\tB-LOC\nrocks\tO\n\n"
    (sentence,) = readers.bio(content, corpora.BTC_LABELS, "btc")
    tweet = corpora._tweets(sentence)
    assert tweet.text == "RT @jane_d: London rocks"
    assert _spans(tweet) == [("London", "LOC")]
    assert [tweet.text[a:b] for a, b in tweet.missing] == ["@jane_d"]


def test_case_copies_keep_every_offset():
    assert recased("Straße in Köln, McDonald", "upper") == "STRAßE IN KÖLN, MCDONALD"
    assert recased("ask McDonald in köln", "title") == "Ask McDonald In Köln"
    sentence = Sentence("x", "Jane went to Köln", ((0, 4, "PERSON"), (13, 17, "LOC")))
    copies = [v for seed in range(40) for v in variants(sentence, 1.0, seed)]
    assert {v.text for v in copies} >= {"JANE WENT TO KÖLN", "jane went to köln"}
    for copy in copies:
        assert _spans(copy) == [(copy.text[0:4], "PERSON"), (copy.text[13:17], "LOC")]


def test_name_copies_put_other_names_where_the_labels_were():
    text = "Mozilla says Brendan Eich moved to Boston with @bob"
    sentence = Sentence(
        "s", text, ((0, 7, "ORG"), (13, 25, "PERSON"), (35, 41, "LOC")), ((47, 51),)
    )
    swap = swapped(sentence, seed=1)
    assert swap is not None
    assert swap.text != text
    spans = _spans(swap)
    assert spans[0] == ("Mozilla", "ORG")
    assert spans[1][1] == "PERSON"
    assert len(spans[1][0].split()) == 2
    assert spans[1][0] != "Brendan Eich"
    assert spans[2][0] != "Boston"
    assert [swap.text[a:b] for a, b in swap.missing] == ["@bob"]
    assert swapped(Sentence("o", "Mozilla rocks", ((0, 7, "ORG"),)), seed=1) is None


def test_training_documents_leave_missing_annotation_unknown():
    nlp = spacy.blank("en")
    sentence = Sentence("s", "ask Jane at the Ritz today", ((4, 8, "PERSON"),), ((16, 20),))
    doc = to_doc(nlp, sentence)
    assert [(e.text, e.label_) for e in doc.ents] == [("Jane", "PERSON")]
    assert [t.ent_iob_ for t in doc] == ["O", "B", "O", "O", "", "O"]  # "Ritz": unknown
    tags = offsets_to_biluo_tags(nlp.make_doc(sentence.text), [(4, 8, "PERSON")])
    assert tags[1] == "U-PERSON"
    made = list(docs(nlp, [sentence], share=1.0, swap=1.0, seed=3))
    assert len(made) == 4  # the sentence, a name copy, and a case copy of each


def _git(repo, *args):
    who = ["-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run(["git", "-C", str(repo), *who, *args], check=True, capture_output=True)


def test_the_store_reads_pinned_files_from_a_checkout_or_a_copy(tmp_path):
    repo = tmp_path / "owner+name"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "data.txt").write_text("first\n", encoding="utf-8")
    _git(repo, "add", "data.txt")
    _git(repo, "commit", "-q", "-m", "one")
    first = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    (repo / "data.txt").write_text("second\n", encoding="utf-8")
    _git(repo, "commit", "-q", "-am", "two")
    store = corpora.Store(tmp_path, download=False)
    assert store.read("owner/name", first, "data.txt") == "first\n"  # the pinned commit
    copy = tmp_path / "other+corpus" / "abc123" / "part.bio"
    copy.parent.mkdir(parents=True)
    copy.write_text("a\tO\n", encoding="utf-8")
    assert store.read("other/corpus", "abc123", "part.bio") == "a\tO\n"
    with pytest.raises(corpora.CorpusMissing):
        store.read("other/corpus", "abc123", "absent.bio")
    with pytest.raises(corpora.CorpusMissing, match="not the pinned file"):
        corpora._pinned(store, "x", "other/corpus", "abc123", "part.bio", "0" * 64)


def test_the_shared_tasks_latin1_files_read_with_their_letters_and_entities(tmp_path):
    """CoNLL-2003 German as the shared task built it: Latin-1, five columns, IOB1 tags."""
    lines = [
        "-DOCSTART- -X- -X- -X- O", "",
        "Günter Günter NE I-NC I-PER", "Müller Müller NE I-NC I-PER",
        "Jörg Jörg NE I-NC B-PER", "fuhr fahren VVFIN I-VC O", "nach nach APPR I-PC O",
        "Köln Köln NE I-NC I-LOC", ". . $. O O", "",
    ]  # fmt: skip
    copy = tmp_path / "owner+name" / "abc123" / "deu.testb"
    copy.parent.mkdir(parents=True)
    copy.write_bytes("\n".join(lines).encode("latin-1"))
    store = corpora.Store(tmp_path, download=False)
    text = store.read("owner/name", "abc123", "deu.testb", encoding="latin-1")
    (sentence,) = readers.bio(text, corpora.CONLL02_LABELS, "deu")
    assert sentence.text == "Günter Müller Jörg fuhr nach Köln."
    found = [(sentence.text[a:b], kind) for a, b, kind in sentence.spans]
    assert found == [("Günter Müller", "PERSON"), ("Jörg", "PERSON"), ("Köln", "LOC")]


def test_dates_times_and_nationalities_the_corpus_leaves_out_are_kept_from_the_start_model():
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns(
        [
            {"label": "DATE", "pattern": "Friday"},
            {"label": "NORP", "pattern": "Dutch"},
            {"label": "PERSON", "pattern": "Jane"},  # people come from the corpus alone
        ]
    )
    sentence = Sentence("s", "Jane meets the Dutch team on Friday", ((0, 4, "PERSON"),))
    (kept,) = with_silver(nlp, [sentence])
    assert _spans(kept) == [("Jane", "PERSON"), ("Dutch", "NORP"), ("Friday", "DATE")]


def test_the_vocabulary_says_which_capitalised_words_are_words_and_which_names(tmp_path):
    """What a model's training text says of capitalised words (``guardrails.ner.words``)."""
    text = "Gestern zahlte Weber die Steuer , sagte Frau Steuer ."
    second = text.index("Steuer", text.index("Steuer") + 1)
    weber = text.index("Weber")
    sentences = [
        Sentence("a", text, ((weber, weber + 5, "PERSON"), (second, second + 6, "PERSON"))),
        Sentence("b", "Die Steuer steigt , nicht der Platz .", ()),
        Sentence("c", "Der Platz ist frei , sagte Weber .", (), missing=((4, 9),)),
        Sentence("d", "Wir lesen die Platz Zeitung .", ((14, 27, "ORG"),)),
        Sentence("e", "Nach Berlin , dann wieder nach Berlin .", ((5, 11, "LOC"), (31, 37, "LOC"))),
        Sentence("f", "Das Berlin der Zwanziger .", ()),
    ]
    found = words.vocabulary(sentences)
    # "Steuer": twice outside a name, once in one; "Gestern" and "Die" open their sentences;
    # "Platz" once outside, once in a newspaper's name, once unlabelled ("missing": neither);
    # "Weber" once in a name and once outside one, "Berlin" once outside and twice a place:
    # neither.
    assert found.words == {"Frau", "Platz", "Steuer", "Zwanziger"}
    assert found.names == set()
    found = words.vocabulary(sentences[:2])
    assert found.names == {"Weber"}
    assert {"zahlte", "sagte", "steigt", "nicht"} <= found.lower
    words.write(found, tmp_path)
    assert read_vocabulary(tmp_path) == found
    first = [(tmp_path / name).read_bytes() for name in (WORDS, NAMES, LOWER)]
    words.write(found, tmp_path)
    again = [(tmp_path / name).read_bytes() for name in (WORDS, NAMES, LOWER)]
    assert again == first  # reproducible: sorted, no time stamp
    assert read_vocabulary(tmp_path / "elsewhere") == Vocabulary()
