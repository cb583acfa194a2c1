"""veilbot's entity model: the corpora it learns from, how it is trained, and where it ships.

``corpora`` pins the human-labelled corpora, ``readers`` reads their formats, ``examples`` and
``swaps`` make training documents (copies in other letter cases and with other names),
``vectors`` the starting pipeline, ``score`` measures a pipeline on a corpus part, and
``build`` rebuilds the model (``python -m guardrails.ner.build``). Only ``shipped`` is read at
run time: where the trained pipeline that ships with the package is.
"""
