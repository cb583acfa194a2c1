"""The committed corpus is what its seeded generator makes, and is well formed."""

import json
import random
from pathlib import Path

import pytest

from tests.data import make_corpus
from tests.data.threads import make_threads

DATA = Path(make_corpus.__file__).parent


def rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines()]


def test_the_committed_files_are_what_the_seeded_generator_makes():
    rng = random.Random(make_corpus.SEED)
    messages = [make_corpus._message(i, rng) for i in range(make_corpus.MESSAGES)]
    messages += make_corpus.regression_messages()
    assert rows("corpus.jsonl") == json.loads(json.dumps(messages))
    threads = make_threads(random.Random(make_corpus.SEED + 1))
    assert rows("threads.jsonl") == json.loads(json.dumps(threads))


def test_the_held_out_files_are_what_the_generator_makes_from_fresh_pools():
    with make_corpus.holdout_pools():
        messages, threads = make_corpus.generate(make_corpus.HOLDOUT_SEED)
    assert rows("corpus_holdout.jsonl") == json.loads(json.dumps(messages))
    assert rows("threads_holdout.jsonl") == json.loads(json.dumps(threads))
    dev = {
        item["value"] for m in rows("corpus.jsonl") for item in m["pii"] if item["type"] != "USER"
    }
    fresh = {item["value"] for m in messages for item in m["pii"] if item["type"] != "USER"}
    assert len(fresh & dev) <= 0.02 * len(fresh)  # a few shared values at most


@pytest.mark.parametrize("name", ["corpus.jsonl", "corpus_holdout.jsonl"])
def test_corpus_size_hard_share_platforms_and_offsets(name):
    messages = rows(name)
    assert len(messages) >= 400
    assert sum(1 for m in messages if m["hard"]) >= 0.3 * len(messages)
    assert {m["platform"] for m in messages} == {"slack", "discord"}
    for m in messages:
        for item in m["pii"] + m["keep"]:
            assert m["text"][item["start"] : item["end"]] == item["value"]
    kinds = {k["kind"] for m in messages for k in m["keep"]}
    assert {"product", "company", "code", "version", "date"} <= kinds


def test_threads_label_every_user_value_and_reply_marker():
    for thread in rows("threads.jsonl"):
        assert len(thread["turns"]) >= 3
        for turn in thread["turns"]:
            for item in turn["pii"]:
                assert turn["user"][item["start"] : item["end"]] == item["value"]
