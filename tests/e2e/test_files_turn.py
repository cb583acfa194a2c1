"""Files shared in a thread, through the real adapters, the real guardrail and the fake model.

Slack: the real slack-bolt app against the fake Slack, which serves ``url_private_download``
to the bot token only; Discord: the real discord.py client against the fake gateway and CDN.
What the fake model received holds no seeded value from the file, the person sees the answer
restored, and Redis, the audit database and the logs hold none either.
"""

from __future__ import annotations

import json
import re

import pytest
from aiohttp import web

from bot.app import App
from tests.e2e.conftest import MakeApp, audit_dump, audit_rows
from tests.e2e.discord_harness import StartBot
from tests.e2e.slack_harness import slack_harness
from tests.e2e.test_guarded_turn import leaked
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.discord_server import FakeDiscord
from tests.fakes.slack_payloads import mention
from tests.fixtures.documents import CARD as DOC_CARD
from tests.fixtures.documents import NAME as DOC_NAME
from tests.fixtures.documents import PHONE as DOC_PHONE
from tests.fixtures.documents import SEEDED as DOCUMENT_SEEDED
from tests.fixtures.documents import annotated_docx, mixed_pdf, seeded_xlsx
from tests.fixtures.images import encoded, ocr_text, screenshot, tesseract_or_skip
from tests.fixtures.services import free_port, redis_dump

NAME, EMAIL, PHONE = "Maria Gonzalez", "maria.gonzalez@example.com", "+1 415 555 0123"
IBAN = "DE89 3704 0044 0532 0130 00"
SEEDED = [NAME, EMAIL, PHONE, IBAN]
CSV = (
    f"name,email,phone,iban,city\n{NAME},{EMAIL},{PHONE},{IBAN},Lisbon\nTotal,,,,3 rows\n"
).encode()
FILE_NAME = "Maria Gonzalez contacts.csv"
XLSX_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


async def every_store(app: App, logs: pytest.LogCaptureFixture) -> str:
    """What the service keeps: its Redis keys, the audit database and the DEBUG log lines."""
    redis = redis_dump(app.settings.redis_url or "", app.settings.redis_prefix)
    return "\n".join((redis, await audit_dump(app), logs.text))


async def test_a_csv_shared_in_a_slack_thread_reaches_the_model_redacted_and_is_answered(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, debug_logs: pytest.LogCaptureFixture
) -> None:
    async with slack_harness(make_app) as h:
        shared = h.slack.host_file(FILE_NAME, CSV, mimetype="text/csv")
        event = mention(f"Whose row is this? I'm {NAME}.", files=[shared])
        ts = event["event"]["ts"]
        await h.send(event)
        await h.until(lambda: bool(h.slack.thread("C1", ts)), "answer")
        await h.settle()

        sent = fake_anthropic.all_text_sent()
        assert leaked(SEEDED, sent) == [], "no value of the file or its name reaches the model"
        assert '<file name="<PERSON_1> contacts.csv">' in sent, sent
        assert "name,email,phone,iban,city" in sent, "what is not personal reaches the model"
        assert sent.count("<PERSON_1>") >= 3, "the person in message, name and row: one placeholder"
        answer = "\n".join(h.slack.thread("C1", ts))
        assert EMAIL in answer, "the answer is restored for the thread"
        assert NAME in answer
        (fid,) = h.slack.hosted
        assert h.slack.downloads == [(fid, "Bearer xoxb-test")]

        stores = await every_store(h.app, debug_logs)
        assert leaked(SEEDED, stores) == []
        assert "Gonzalez" not in stores
        (row,) = await audit_rows(h.app, f"slack:T1:C1:{ts}")
        assert "Lisbon" not in row["prompt"], "the audit keeps the message, not the file's text"
        (fact,) = json.loads(row["metadata"])["files"]
        assert fact == {
            "kind": "text",
            "size": len(CSV),
            "pages": 1,
            "entities": {
                "PERSON": 2,
                "EMAIL_ADDRESS": 1,
                "PHONE_NUMBER": 1,
                "IBAN_CODE": 1,
                "LOCATION": 1,  # Lisbon, under the city column; the totals row is no person
            },
        }


async def test_a_spreadsheet_shared_in_a_slack_thread_reaches_the_model_redacted(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, debug_logs: pytest.LogCaptureFixture
) -> None:
    workbook = seeded_xlsx()
    async with slack_harness(make_app) as h:
        shared = h.slack.host_file("accounts.xlsx", workbook, mimetype=XLSX_MIME)
        event = mention("Which card is on file?", files=[shared])
        ts = event["event"]["ts"]
        await h.send(event)
        await h.until(lambda: bool(h.slack.thread("C1", ts)), "answer")
        await h.settle()

        sent = fake_anthropic.all_text_sent()
        assert leaked(list(DOCUMENT_SEEDED), sent) == [], "no value of the workbook"
        assert "# Summary\nQuarter\tRevenue\nQ1\t1200\n# Contacts\n" in sent, "every sheet"
        assert "\t<PHONE_NUMBER_1>\t<CREDIT_CARD_1>\t<IBAN_CODE_1>\n" in sent, "cell by cell"
        stores = await every_store(h.app, debug_logs)
        assert leaked(list(DOCUMENT_SEEDED), stores) == []
        (row,) = await audit_rows(h.app, f"slack:T1:C1:{ts}")
        (fact,) = json.loads(row["metadata"])["files"]
        assert (fact["kind"], fact["size"], fact["pages"]) == ("xlsx", len(workbook), 2)


async def test_slack_files_are_refused_past_the_limits_and_nothing_reaches_the_model(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    async with slack_harness(make_app, files_max_count=1, files_max_bytes=64) as h:
        two = [h.slack.host_file("a.txt", b"one"), h.slack.host_file("b.txt", b"two")]
        first = mention("read both", files=two)
        big = mention("and this", files=[h.slack.host_file("big.log", b"x" * 65)])
        for event in (first, big):
            await h.send(event)
        await h.until(lambda: bool(h.slack.thread("C1", big["event"]["ts"])), "second answer")
        await h.until(lambda: bool(h.slack.thread("C1", first["event"]["ts"])), "first answer")

        assert "I read at most 1 at a time" in h.slack.thread("C1", first["event"]["ts"])[0]
        too_big = h.slack.thread("C1", big["event"]["ts"])[0]
        assert "File 1 is 65 bytes; I read files up to 64 bytes." in too_big
        assert fake_anthropic.requests == []
        assert h.slack.downloads == [], "limits are checked on the announced sizes first"


async def test_a_slack_connect_file_named_by_id_only_is_looked_up_then_read(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    async with slack_harness(make_app) as h:
        hosted = h.slack.host_file(FILE_NAME, CSV, mimetype="text/csv")
        only_id = {"id": hosted["id"], "file_access": "check_file_info"}
        gone = {"id": "F404", "file_access": "check_file_info"}
        event = mention("what is in it?", files=[only_id])
        missing = mention("and this?", files=[gone])
        await h.send(event)
        await h.until(lambda: bool(h.slack.thread("C1", event["event"]["ts"])), "answer")
        await h.send(missing)
        await h.until(lambda: bool(h.slack.thread("C1", missing["event"]["ts"])), "2nd answer")

        assert [c["file"] for c in h.slack.calls_to("files.info")] == [hosted["id"], "F404"]
        assert leaked(SEEDED, fake_anthropic.all_text_sent()) == []
        assert "<EMAIL_ADDRESS_1>" in fake_anthropic.all_text_sent()
        assert EMAIL in h.slack.thread("C1", event["event"]["ts"])[0]
        assert "deleted or hidden" in h.slack.thread("C1", missing["event"]["ts"])[0]
        assert len(fake_anthropic.requests) == 1


async def test_a_failed_download_is_told_and_nothing_reaches_the_model(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, debug_logs: pytest.LogCaptureFixture
) -> None:
    async with slack_harness(make_app) as h:
        shared = h.slack.host_file(FILE_NAME, CSV)
        del h.slack.hosted[shared["id"]]  # Slack answers 404 from now on
        event = mention("what is in it?", files=[shared])
        await h.send(event)
        await h.until(lambda: bool(h.slack.thread("C1", event["event"]["ts"])), "answer")
        reply = h.slack.thread("C1", event["event"]["ts"])[0]
    assert "I couldn't download the file from Slack" in reply
    assert fake_anthropic.requests == []
    assert "HTTP 404" in debug_logs.text or "AdapterError" in debug_logs.text
    assert "Gonzalez" not in debug_logs.text, "the file's name is never logged"


async def test_the_bot_token_goes_only_to_slacks_file_host(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    seen: list[str | None] = []

    async def elsewhere(request: web.Request) -> web.Response:
        seen.append(request.headers.get("Authorization"))
        return web.Response(body=CSV)

    app = web.Application()
    app.router.add_get("/{tail:.*}", elsewhere)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        async with slack_harness(make_app) as h:
            url = f"http://127.0.0.1:{port}/steal/notes.csv"
            shared = {"id": "F9", "name": "notes.csv", "size": len(CSV), "url_private": url}
            event = mention("what is in it?", files=[shared])
            await h.send(event)
            await h.until(lambda: bool(h.slack.thread("C1", event["event"]["ts"])), "answer")
            reply = h.slack.thread("C1", event["event"]["ts"])[0]
    finally:
        await runner.cleanup()
    assert "not on Slack's file host" in reply
    assert seen == [], "nothing was fetched from another host, so no token went there"
    assert fake_anthropic.requests == []


async def test_a_file_url_with_credentials_before_the_host_is_refused_as_a_file_elsewhere(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    async with slack_harness(make_app) as h:
        shared = h.slack.host_file("notes.csv", CSV, mimetype="text/csv")
        host = f"//127.0.0.1:{h.slack.port}/"  # the configured API URL's host: an allowed one
        for key in ("url_private", "url_private_download"):
            shared[key] = shared[key].replace(host, f"//files.slack.com@{host[2:]}")
        event = mention("what is in it?", files=[shared])
        await h.send(event)
        await h.until(lambda: bool(h.slack.thread("C1", event["event"]["ts"])), "answer")
        reply = h.slack.thread("C1", event["event"]["ts"])[0]
        assert h.slack.downloads == [], "nothing fetched, so no token sent"
    assert "File 1 is not on Slack's file host, so I did not fetch it." in reply, reply
    assert fake_anthropic.requests == []


async def test_a_file_attached_in_discord_is_read_through_the_guardrail(
    start_bot: StartBot, fake_discord: FakeDiscord, fake_anthropic: FakeAnthropic
) -> None:
    bot = await start_bot()
    dm = 650000000000000002
    posts = await bot.say(
        fake_discord.message("see file", channel=dm, guild=None, files=((FILE_NAME, CSV),)),
        channel=dm,
    )
    sent = fake_anthropic.all_text_sent()
    assert leaked(SEEDED, sent) == []
    assert "<file name=" in sent
    assert "<EMAIL_ADDRESS_1>" in sent
    assert EMAIL in posts[-1].body["content"], "restored in the answer"
    assert len(fake_discord.cdn_requests) == 1
    dump = redis_dump(bot.app.settings.redis_url or "", bot.app.settings.redis_prefix)
    assert leaked(SEEDED, dump + await audit_dump(bot.app)) == []


async def test_a_screenshot_shared_in_slack_reaches_the_model_painted(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    tesseract_or_skip()
    shot = encoded(screenshot([f"Customer: {NAME}", f"Email: {EMAIL}", "Error 502 since Monday"]))
    async with slack_harness(make_app) as h:
        shared = h.slack.host_file("screenshot.png", shot, mimetype="image/png")
        event = mention("why does this fail?", files=[shared])
        await h.send(event)
        await h.until(lambda: bool(h.slack.thread("C1", event["event"]["ts"])), "answer")
        await h.settle()

        ((media_type, painted),) = fake_anthropic.images_sent()
        assert media_type == "image/png"
        readable = ocr_text(painted)
        assert "Error 502" in readable, "what is not personal stays readable"
        assert leaked([NAME, EMAIL], readable) == []
        assert "Gonzalez" not in readable
        sent = fake_anthropic.all_text_sent()
        assert leaked([NAME, EMAIL], sent) == []
        assert "<EMAIL_ADDRESS_1>" in sent, "the image's redacted text goes beside it"
        assert EMAIL in h.slack.thread("C1", event["event"]["ts"])[0]
        dump = redis_dump(h.app.settings.redis_url or "", h.app.settings.redis_prefix)
        assert leaked([NAME, EMAIL], dump + await audit_dump(h.app)) == []


async def test_a_word_files_comments_and_a_pdfs_scanned_page_reach_the_model_redacted(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, debug_logs: pytest.LogCaptureFixture
) -> None:
    tesseract_or_skip()
    review = annotated_docx()
    strips = [[f"Signed by {DOC_NAME}", f"Phone: {DOC_PHONE}"], [f"Card: {DOC_CARD}"]]
    letter = mixed_pdf([f"Letter from {DOC_NAME}"], strips, ["Kind regards"])
    async with slack_harness(make_app) as h:
        shared = [
            h.slack.host_file("review.docx", review, mimetype=DOCX_MIME),
            h.slack.host_file("letter.pdf", letter, mimetype="application/pdf"),
        ]
        event = mention("Summarise both, please.", files=shared)
        ts = event["event"]["ts"]
        await h.send(event)
        await h.until(lambda: bool(h.slack.thread("C1", ts)), "answer")
        await h.settle()

        sent = fake_anthropic.all_text_sent()
        assert leaked(list(DOCUMENT_SEEDED), sent) == [], "no value of either file"
        assert "# Comments\n<PERSON_1>: Call her on <PHONE_NUMBER_1> first" in sent
        assert "# Footnotes\n Source: interview with <PERSON_1>, <EMAIL_ADDRESS_1>" in sent
        assert re.search(
            r"\[page 2 is scanned: its text was read by OCR\]\n\n"
            r"\[image sent with [^\]]* painted over\]\nSigned by <PERSON_1>",
            sent,
        ), "each strip's text under the line that says what of it was painted"
        pictures = fake_anthropic.images_sent()
        assert len(pictures) == 2, "the scanned page's two strips, painted"
        for _, picture in pictures:
            assert leaked(list(DOCUMENT_SEEDED), ocr_text(picture)) == []
        stores = await every_store(h.app, debug_logs)
        assert leaked(list(DOCUMENT_SEEDED), stores) == []
        (row,) = await audit_rows(h.app, f"slack:T1:C1:{ts}")
        word, pdf = json.loads(row["metadata"])["files"]
        assert (word["kind"], word["pages"], pdf["kind"], pdf["pages"]) == ("docx", 1, "pdf", 3)
        assert (pdf["entities"]["PHONE_NUMBER"], pdf["entities"]["CREDIT_CARD"]) == (1, 1)
