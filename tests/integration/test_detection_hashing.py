"""The same message is redacted the same way in every process.

Replicas and detection processes each start with their own string hashing; a finding that
depended on it (two equal findings, one of the model's and one of a rule's, of which Presidio
keeps either) would give one thread's value a placeholder in one process and none in another.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.fixtures.guardrail import TEST_MODEL

TEXTS = [
    "sometimes people call me višeslav",  # the model's lower-case person and "call me"
    "my name is tariq kimura, ping me",
    "Onboarding call booked with the Customer Success team for Maria Oliveira",
]
SCRIPT = """
import json, sys
from guardrails.engine import build_analyzer
from guardrails.detect.detection import detect
analyzer = build_analyzer(sys.argv[1])
texts = json.loads(sys.stdin.read())
found = [detect(analyzer, text, "console") for text in texts]
print(json.dumps([[(d.type, d.start, d.end, d.score) for d in each] for each in found]))
"""


def _detected(seed: int) -> list[list[list[object]]]:
    environ = {**os.environ, "PYTHONHASHSEED": str(seed), "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS": ""}
    done = subprocess.run(  # noqa: S603 - this interpreter, a fixed script
        [sys.executable, "-c", SCRIPT, TEST_MODEL],
        input=json.dumps(TEXTS),
        capture_output=True,
        text=True,
        env=environ,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_two_processes_with_other_string_hashing_find_the_same_values() -> None:
    first, second = _detected(0), _detected(2)
    assert first == second
    assert first[0] == [["PERSON", 25, 33, 0.9]], "the name after 'call me' is found"
