"""A message's files redacted with the thread's vault into text blocks for the model.

The name and the text of each file go through the same guardrail as the message, so a value
seen in both gets the same placeholder. What leaves this module holds placeholders only: the
blocks the model receives (and history keeps) and the audit's facts (kind, size, pages, entity
counts; never content or the raw name).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence

from bot.core.attachments import FileFact, FileIntake, IncomingFile
from bot.core.ports import Guardrail
from bot.core.scopes import PolicyOverride
from bot.core.types import Platform, ThreadId
from bot.files.extract import extract
from bot.files.kinds import sniff
from bot.files.limits import FileLimits


async def redact_files(
    guardrail: Guardrail,
    thread_id: ThreadId,
    files: Sequence[IncomingFile],
    *,
    platform: Platform,
    limits: FileLimits,
    policy: PolicyOverride | None = None,
) -> FileIntake:
    """Every file's name and text redacted with the thread's vault.

    Extraction (decoding, parsing a document) runs in a thread, off the event loop.

    Raises:
        FileRejected: too many files, one too large, of a kind not read, or unreadable; the
            message names the file by its position, never by its name.
        GuardrailError: detection could not run; nothing may be sent to the model.
    """
    limits.check_count(len(files))
    limits.check_sizes([len(f.data) for f in files])
    blocks: list[str] = []
    facts: list[FileFact] = []
    total: Counter[str] = Counter()
    for position, incoming in enumerate(files, start=1):
        kind = sniff(incoming.data)
        extracted = await asyncio.to_thread(extract, kind, incoming.data, position, limits)
        limits.check_chars(position, len(extracted.text))
        name = await guardrail.anonymize(thread_id, incoming.name, platform=platform, policy=policy)
        body = await guardrail.anonymize(
            thread_id, extracted.text, platform=platform, policy=policy
        )
        counts = Counter(name.counts()) + Counter(body.counts())
        blocks.append(f'<file name="{_attribute(name.text)}">\n{body.text}\n</file>')
        facts.append(
            FileFact(
                kind=kind, size=len(incoming.data), pages=extracted.pages, entities=dict(counts)
            )
        )
        total += counts
    return FileIntake(blocks=tuple(blocks), facts=tuple(facts), entities=dict(total))


def _attribute(name: str) -> str:
    """A redacted file name fit to stand in the block's quoted attribute.

    A quote or a line break in the name cannot end the attribute or the block early, so a name
    cannot pose as the message's own text.
    """
    return name.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ").replace("\r", " ")
