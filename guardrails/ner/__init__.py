"""veilbot's entity model: the corpora it learns from, how it is trained, and where it ships.

``corpora`` pins the human-labelled corpora, ``readers`` reads their formats, ``examples``
makes training documents (with copies in other letter cases), ``score`` measures a pipeline on
a corpus part, and ``build`` rebuilds the model (``python -m guardrails.ner.build``). Only
``MODEL_DIR`` is read at run time: the trained pipeline that ships with the package.
"""

from pathlib import Path

MODEL_NAME = "veilbot_ner"
MODEL_DIR = Path(__file__).with_name("model")
"""The shipped spaCy pipeline (the small English model with veilbot's NER in it)."""
