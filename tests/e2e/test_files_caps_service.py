"""Hostile files shared in Slack against a real ``veilbot run slack`` process: answered, and small.

One service process (``tests.e2e.replicas``) behind the fake Slack and the fake model. Into
threads of their own come the small files that took the service to gigabytes (a workbook of
14 million empty cells, a document of 9.5 million empty paragraphs, a presentation of 2
million empty shapes), a 39-megapixel screenshot and a dense one under the pixel cap that OCR
cannot finish in the file's time; beside them, a plain question in another thread. Each file
gets its one-line answer naming it, the question is answered while the slow file is still being
read, nothing of the files reaches the model, and the service process's peak resident memory
(``VmHWM``) stays within 400 MB.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import aiohttp
import pytest

from tests.e2e.replicas import Replica, bot_token, running_replicas
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.slack_payloads import mention, signed_headers
from tests.fakes.slack_server import FakeSlack
from tests.fixtures import bombs
from tests.fixtures.images import tesseract_or_skip
from tests.fixtures.processes import until
from tests.fixtures.services import RedisServer

pytestmark = pytest.mark.timeout(600)

SERVICE_MB = 400
ANSWER_SECONDS = 30
SLOW_SECONDS = "5"
"""The file time the service runs with here: the dense screenshot needs far more."""
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

FILES = {
    "cells.xlsx": (
        lambda: bombs.empty_cells_xlsx(14_000_000, per_row=14_000_000),
        "File 1 has a row past Excel's 16,384 columns",
    ),
    "wide.xlsx": (
        lambda: bombs.empty_cells_xlsx(3_000_000),
        "File 1 has more than 500,000 cells; I read up to 500,000 in one file.",
    ),
    "paragraphs.docx": (
        lambda: bombs.empty_paragraphs_docx(9_500_000),
        "File 1 has more than 100,000 paragraphs; I read up to 100,000 in one file.",
    ),
    "shapes.pptx": (
        lambda: bombs.empty_shapes_pptx(2_000_000),
        "File 1 has more than 10,000 shapes; I read up to 10,000 in one file.",
    ),
    "huge.png": (
        lambda: bombs.dense_png(7_200, 5_400),
        "File 1 is an image of more than 24 megapixels; please send a smaller one.",
    ),
    "dense.png": (
        lambda: bombs.dense_png(1_600, 1_000),
        f"File 1 takes more than {SLOW_SECONDS} s to read; I stop there.",
    ),
}


def peak_mb(pid: int) -> float:
    """A process's peak resident memory so far (``VmHWM``), in MB."""
    status = Path(f"/proc/{pid}/status").read_text()
    (line,) = [row for row in status.splitlines() if row.startswith("VmHWM:")]
    return int(line.split()[1]) / 1024


async def deliver(session: aiohttp.ClientSession, replica: Replica, event: dict) -> None:
    body = json.dumps(event)
    async with session.post(replica.events_url, data=body, headers=signed_headers(body)) as r:
        assert r.status == 200, await r.text()


async def test_hostile_files_get_their_answers_while_the_service_stays_small(
    tmp_path: Path, fake_anthropic: FakeAnthropic, redis_server: RedisServer
) -> None:
    tesseract_or_skip()
    async with (
        FakeSlack() as slack,
        running_replicas(
            1,
            data_dir=tmp_path,
            redis_url=redis_server.url,
            prefix="vbfilecaps",
            database_url=None,
            slack=slack,
            model=fake_anthropic,
            VEILBOT_FILES_MAX_SECONDS=SLOW_SECONDS,
        ) as (service,),
    ):
        slack.bot_token = bot_token(service.index)  # the token the fake's file host takes
        started = peak_mb(service.child.proc.pid)
        sent: dict[str, tuple[str, float]] = {}
        async with aiohttp.ClientSession() as session:
            for name, (build, _) in FILES.items():
                shared = slack.host_file(name, build(), mimetype=XLSX)
                event = mention("what is in this file?", files=[shared])
                await deliver(session, service, event)
                sent[name] = (event["event"]["ts"], time.monotonic())
            question = mention("When does the export run?")
            await deliver(session, service, question)
        asked = question["event"]["ts"]
        await until(lambda: bool(slack.thread("C1", asked)), "the plain question's answer", 120)
        assert not slack.thread("C1", sent["dense.png"][0]), "answered while a file is read"

        for name, (_, answer) in FILES.items():
            ts, at = sent[name]
            await until(lambda ts=ts: bool(slack.thread("C1", ts)), f"{name}'s answer", 120)
            took = time.monotonic() - at
            (reply,) = slack.thread("C1", ts)
            assert reply.startswith(answer), (name, reply)
            assert took < ANSWER_SECONDS, f"{name} answered after {took:.0f} s"
        peak = peak_mb(service.child.proc.pid)

    assert len(fake_anthropic.requests) == 1, "only the plain question reached the model"
    assert "export run" in fake_anthropic.all_text_sent()
    assert "<file" not in fake_anthropic.all_text_sent()
    assert peak <= SERVICE_MB, f"the service peaked at {peak:.0f} MB (at start {started:.0f})"
