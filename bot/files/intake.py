"""A message's files redacted with the thread's vault into text blocks for the model.

The name and the text of each file go through the same guardrail as the message, so a value
seen in both gets the same placeholder. What leaves this module holds placeholders only: the
blocks the model receives (and history keeps) and the audit's facts (kind, size, pages, entity
counts; never content or the raw name).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.core.ports import Guardrail
from bot.core.types import Platform, ThreadId
from bot.files.extract import extract
from bot.files.kinds import FileKind, sniff
from bot.files.limits import FileLimits


@dataclass(frozen=True, slots=True)
class IncomingFile:
    """One file as the adapter downloaded it: the name the user gave and its bytes."""

    name: str
    data: bytes


@dataclass(frozen=True, slots=True)
class FileFact:
    """What the audit records about one file."""

    kind: FileKind
    size: int
    pages: int
    entities: dict[str, int]


@dataclass(frozen=True, slots=True)
class FileIntake:
    """A message's files, redacted: one text block per file and the audit's facts."""

    blocks: tuple[str, ...] = ()
    facts: tuple[FileFact, ...] = ()
    entities: dict[str, int] = field(default_factory=dict)

    def as_text(self) -> str:
        """The blocks joined, to follow the message's own text."""
        return "\n\n".join(self.blocks)


async def redact_files(
    guardrail: Guardrail,
    thread_id: ThreadId,
    files: Sequence[IncomingFile],
    *,
    platform: Platform,
    limits: FileLimits,
) -> FileIntake:
    """Every file's name and text redacted with the thread's vault.

    Raises:
        InputRejected: too many files, one too large, of a kind not read, or unreadable; the
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
        extracted = extract(kind, incoming.data, position, limits)
        text = extracted.text
        limits.check_chars(position, len(text))
        name = await guardrail.anonymize(thread_id, incoming.name, platform=platform)
        body = await guardrail.anonymize(thread_id, text, platform=platform)
        counts = Counter(name.counts()) + Counter(body.counts())
        blocks.append(f'<file name="{name.text}">\n{body.text}\n</file>')
        facts.append(
            FileFact(
                kind=kind, size=len(incoming.data), pages=extracted.pages, entities=dict(counts)
            )
        )
        total += counts
    return FileIntake(blocks=tuple(blocks), facts=tuple(facts), entities=dict(total))
