"""``veilbot redact --jsonl``: the admins' tool, run as the console script it ships as."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

LINES = [
    {
        "id": "a",
        "platform": "slack",
        "text": "Hi, I'm Maria Gonzalez: maria@example.com, again maria@example.com",
    },
    {
        "id": "b",
        "platform": "discord",
        "text": "card 4111 1111 1111 1111 and IBAN DE89 3704 0044 0532 0130 00",
    },
    {
        "id": "c",
        "platform": "slack",
        "text": "please mail jo\u200bhn.smith@example.org now",
    },
]


def run(stdin: str, tmp_path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "VEILBOT_DATA_DIR": str(tmp_path),
        "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS": "",
    }
    return subprocess.run(
        [sys.executable, "-m", "bot", "redact", "--jsonl", *options],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_redacts_each_line_numbering_placeholders_per_message(tmp_path: Path) -> None:
    done = run("".join(json.dumps(line) + "\n" for line in LINES), tmp_path)

    assert done.returncode == 0, done.stderr
    a, b, c = (json.loads(line) for line in done.stdout.splitlines())
    assert a == {
        "id": "a",
        "text": "Hi, I'm <PERSON_1>: <EMAIL_ADDRESS_1>, again <EMAIL_ADDRESS_1>",
        "entities": [
            {"type": "PERSON", "start": 8, "end": 22, "placeholder": "<PERSON_1>"},
            {"type": "EMAIL_ADDRESS", "start": 24, "end": 41, "placeholder": "<EMAIL_ADDRESS_1>"},
            {"type": "EMAIL_ADDRESS", "start": 49, "end": 66, "placeholder": "<EMAIL_ADDRESS_1>"},
        ],
    }
    assert b["text"] == "card <CREDIT_CARD_1> and IBAN <IBAN_CODE_1>"
    # Offsets are in the text as given, invisible characters included.
    (mail,) = c["entities"]
    assert LINES[2]["text"][mail["start"] : mail["end"]] == "jo\u200bhn.smith@example.org"
    assert c["text"] == "please mail <EMAIL_ADDRESS_1> now"
    assert "Maria" not in done.stdout
    assert "4111" not in done.stdout
    assert "smith" not in done.stdout


SPANISH = (
    "Nacido en Barcelona, Herrera ha desarrollado la mayor parte de su trayectoria ligado al "
    "Badajoz."
)
"""From CoNLL-2002 Spanish's dev part (``esp.testa``), never its test part."""


def test_languages_reads_each_line_in_its_own_language(tmp_path: Path) -> None:
    """With ``--languages es`` a Spanish line is read by the Spanish model and rules, which
    find the town and the person the English model misses; an English line is read as
    before. Without it the Spanish line keeps both."""
    lines = [{"id": "es", "text": SPANISH}, LINES[0]]
    stdin = "".join(json.dumps(line) + "\n" for line in lines)
    done = run(stdin, tmp_path, "--languages", "es,de")
    english = run(stdin, tmp_path)

    assert done.returncode == 0, done.stderr
    spanish, other = (json.loads(line) for line in done.stdout.splitlines())
    assert "Barcelona" not in spanish["text"]
    assert "Herrera" not in spanish["text"]
    assert other["text"] == "Hi, I'm <PERSON_1>: <EMAIL_ADDRESS_1>, again <EMAIL_ADDRESS_1>"
    before = json.loads(english.stdout.splitlines()[0])
    assert "Barcelona" in before["text"]
    assert "Herrera" in before["text"]


def test_an_unknown_language_is_refused_with_the_ones_it_reads(tmp_path: Path) -> None:
    done = run("", tmp_path, "--languages", "es,xx")
    assert done.returncode == 2
    assert "unknown language xx; one of en, de, fr, es, it, nl, pt, pl" in done.stderr


def test_bad_lines_become_errors_with_their_number_and_the_run_goes_on(tmp_path: Path) -> None:
    stdin = "\n".join(
        [
            "{not json: Maria Gonzalez",
            json.dumps(LINES[0]),
            '["list"]',
            "",
            json.dumps({"text": "x", "platform": "irc"}),
        ]
    )
    done = run(stdin + "\n", tmp_path)

    assert done.returncode == 1
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert [o.get("line") for o in out] == [1, None, 3, 5]
    assert out[1]["id"] == "a"
    assert "Maria" not in done.stdout  # an error never quotes the line
    assert "Maria" not in done.stderr


# Runs veilbot with an audit hook that refuses (and reports) any lookup or connection beyond
# loopback, as a machine with no network would, before any of veilbot is imported.
_OFFLINE = """
import ipaddress, runpy, sys

def _loopback(host):
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host in ("localhost", None)

def _refuse(event, args):
    if event == "socket.getaddrinfo" and not _loopback(args[0]):
        host = args[0]
    elif event == "socket.connect" and isinstance(args[1], tuple) and not _loopback(args[1][0]):
        host = args[1][0]
    else:
        return
    sys.stderr.write(f"NETWORK {host}\\n")
    raise OSError("no network")

sys.addaudithook(_refuse)
sys.argv = ["veilbot", "redact", "--jsonl"]
runpy.run_module("bot", run_name="__main__")
"""


def test_redact_offline_never_asks_for_the_public_suffix_list(tmp_path: Path) -> None:
    # As a user's shell has it: nothing said about tldextract, and its cache empty.
    env = {k: v for k, v in os.environ.items() if k != "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"}
    env |= {"VEILBOT_DATA_DIR": str(tmp_path), "TLDEXTRACT_CACHE": str(tmp_path / "tld")}
    line = {"id": "a", "text": "write to jane at gmail.com or jane@gmail.com"}
    done = subprocess.run(
        [sys.executable, "-c", _OFFLINE],
        input=json.dumps(line) + "\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    assert "NETWORK" not in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr == ""
    out = json.loads(done.stdout)
    assert out["text"] == "write to <EMAIL_ADDRESS_1> or <EMAIL_ADDRESS_2>"
