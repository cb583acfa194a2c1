"""What ``veilbot run`` loads: detection runs in worker processes, so not its libraries."""

from __future__ import annotations

import subprocess
import sys

_PROBE = """
import os, sys
os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""
import bot.cli.run, bot.app, bot.service, adapters.slack.handler, adapters.discord.handler
print(sorted(m for m in ("spacy", "presidio_analyzer", "thinc") if m in sys.modules))
"""


def test_the_service_does_not_load_spacy_or_presidio() -> None:
    """spaCy, thinc and Presidio's analyzer held some 50 MB in every service process whose
    detection runs in worker processes (the default); they load where detection runs."""
    done = subprocess.run(  # noqa: S603  (this interpreter, a fixed script)
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "[]"
