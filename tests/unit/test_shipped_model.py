"""veilbot's entity model ships with the package, says where it came from, and loads offline."""

from __future__ import annotations

import fnmatch
import json
import tomllib
from pathlib import Path

import spacy

from guardrails.ner import corpora
from guardrails.ner.shipped import MODEL_DIR, MODEL_NAME
from guardrails.ner.vectors import LOWER

ROOT = Path(__file__).resolve().parents[2]
MAX_MB = 60


def _files() -> list[str]:
    return sorted(str(p.relative_to(MODEL_DIR.parent)) for p in MODEL_DIR.rglob("*") if p.is_file())


def test_every_file_of_the_model_is_package_data_and_the_whole_is_small():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = config["tool"]["setuptools"]["package-data"]["guardrails.ner"]
    files = _files()
    assert "model/meta.json" in files
    missing = [f for f in files if not any(fnmatch.fnmatchcase(f, g) for g in globs)]
    assert not missing, f"not installed with the package: {missing}"
    size = sum(p.stat().st_size for p in MODEL_DIR.rglob("*") if p.is_file())
    assert size <= MAX_MB * 1_000_000


def test_the_model_names_the_corpora_and_commits_it_was_trained_on():
    meta = json.loads((MODEL_DIR / "meta.json").read_text(encoding="utf-8"))
    assert meta["name"] == MODEL_NAME
    trained = {c["name"]: c["commit"] for c in meta["veilbot_corpora"]}
    assert trained == {name: corpora.BY_NAME[name].commit for name in corpora.TRAINING}
    assert not {"gentle", "uner-ewt"} & set(trained)  # measured on, never trained on
    assert isinstance(meta["veilbot_training"]["seed"], int)


def test_the_model_reads_names_and_places_in_any_letter_case():
    nlp = spacy.load(MODEL_DIR)
    assert nlp.pipe_names == ["ner"]  # the lemmatizer's word lists are kept, never run
    assert "lemmatizer" in nlp.component_names
    assert nlp.vocab.vectors.attr == LOWER  # one vector for "Paris", "paris" and "PARIS"
    for text in ("She flew from Paris to meet Jane Doe", "she flew from paris to meet jane doe"):
        for written in (text, text.upper()):
            ents = nlp(written).ents
            assert [e.text.lower() for e in ents if e.label_ in ("GPE", "LOC")] == ["paris"]
            assert [e.text.lower() for e in ents if e.label_ == "PERSON"][0] in ("jane", "jane doe")
