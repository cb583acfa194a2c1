"""``veilbot redact FILE... [--out PATH] [--jsonl]``: files and folders redacted in one start.

The guardrail loads once, at the first text, and serves every file; each file has its own
numbering (``bot.cli.redact_file``). A folder is read whole (its hidden files left out), and
its files are written under ``--out`` where they stand below it. One file: ``--out`` is the
output file, or a folder that exists (without it the redacted text goes to stdout). Several:
``--out`` is a folder.

stderr has a line per file (its path, kind, what it was written as and where, the entity
counts; never a value), or its refusal, and a progress bar while a terminal watches. With
``--jsonl`` stdout has one JSON object per file instead, for scripts; without ``--out`` the
object carries the redacted text. A file that fails gets its line and the others go on; the
exit status is 0 when every file was redacted, 2 when any was not.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from bot.cli import loop
from bot.cli.redact_file import FileDone, Guard, counts_line, output_path, redact_one, refusal
from bot.config.settings import Settings
from bot.core.errors import FileRejected, GuardrailError, InputRejected
from bot.files.confine import Readers
from bot.files.limits import FileLimits


@dataclass(frozen=True, slots=True)
class Source:
    """A file to redact, and where its output goes (``None``: the text to stdout)."""

    path: Path
    out: Path | None


def redact_files(
    settings: Settings,
    paths: Sequence[Path],
    out: Path | None,
    *,
    jsonl: bool = False,
    languages: Sequence[str] = (),
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
) -> int:
    """Redact ``paths`` (files or folders); 0 when every file was redacted, else 2.

    ``languages``: those the files may be written in besides English (``Guard``).
    """
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    several = len(paths) > 1 or any(p.is_dir() for p in paths)
    if several and out is None and not jsonl:
        print("veilbot: several files: give --out FOLDER (or --jsonl)", file=stderr)
        return 2
    if several and out is not None and out.exists() and not out.is_dir():
        print(f"veilbot: --out {out} is a file; several files need a folder", file=stderr)
        return 2
    sources = list(_sources(paths, out, several=several))
    report = _Report(stdout, stderr, jsonl=jsonl, several=several)
    return loop.run(_redact_all(settings, sources, report, languages), settings.event_loop)


async def _redact_all(
    settings: Settings, sources: list[Source], report: _Report, languages: Sequence[str]
) -> int:
    guard = Guard(settings, languages)
    readers = Readers(FileLimits.of(settings))
    failed = 0
    with report.progress(len(sources)) as advance:
        for position, source in enumerate(sources, start=1):
            try:
                done = await _one(settings, guard, readers, source, position)
            except (InputRejected, GuardrailError, OSError) as exc:
                failed += 1
                report.failed(source, exc)
            else:
                report.done(source, done)
            advance(source.path.name)
    return 2 if failed else 0


async def _one(
    settings: Settings, guard: Guard, readers: Readers, source: Source, position: int
) -> FileDone:
    """Read, redact and write one file; nothing is written when it fails."""
    data = source.path.read_bytes()
    if source.out is not None and source.out.resolve() == source.path.resolve():
        raise FileRejected("the output would overwrite the file itself", reason="same_file")
    done, written = await redact_one(
        settings, guard, readers, data, position, source.path.suffix, source.out
    )
    if written is not None and source.out is not None:
        done.out = output_path(source.out, done)
        try:
            done.out.parent.mkdir(parents=True, exist_ok=True)
            done.out.write_bytes(written)
        except OSError as exc:
            raise FileRejected(
                f"cannot write the result: {exc.strerror}", reason="unwritable"
            ) from None
    return done


def _sources(paths: Sequence[Path], out: Path | None, *, several: bool) -> Iterator[Source]:
    """Each file of ``paths`` (a folder's files, sorted) with its output path.

    A folder's files are written under ``out`` as they stand below it (below its own name
    when several paths are given); hidden files, and the output folder, are left out.
    """
    skipped = out.resolve() if out is not None else None
    taken: set[Path] = set()
    for source in _found(paths, out, skipped, several=several):
        target = source.out
        if target is not None and several:
            target = _free(target, taken)
        yield Source(source.path, target)


def _free(target: Path, taken: set[Path]) -> Path:
    """``target``, or ``name-2.ext``, ``name-3.ext``... when another file took it in this run."""
    free, number = target, 1
    while free in taken:
        number += 1
        free = target.with_name(f"{target.stem}-{number}{target.suffix}")
    taken.add(free)
    return free


def _found(
    paths: Sequence[Path], out: Path | None, skipped: Path | None, *, several: bool
) -> Iterator[Source]:
    """Each file of ``paths`` with the output path its place gives it."""
    for path in paths:
        if path.is_dir():
            base = out if out is None or len(paths) == 1 else out / path.name
            for found in sorted(path.rglob("*")):
                relative = found.relative_to(path)
                if skipped is not None and found.resolve().is_relative_to(skipped):
                    continue
                if found.is_file() and not any(p.startswith(".") for p in relative.parts):
                    yield Source(found, base / relative if base is not None else None)
        elif out is not None and (several or out.is_dir()):
            yield Source(path, out / path.name)
        else:
            yield Source(path, out)


class _Report:
    """Where each file's outcome goes: a stderr line, or a JSON object on stdout."""

    def __init__(self, stdout: IO[str], stderr: IO[str], *, jsonl: bool, several: bool) -> None:
        self._stdout = stdout
        self._stderr = stderr
        self._jsonl = jsonl
        self._several = several
        self.console: Any = None
        """rich's console while a progress bar shows: lines go above the bar."""

    def progress(self, total: int) -> Any:
        """A progress bar on stderr while a terminal watches; ``advance(name)`` per file."""
        if not self._stderr.isatty():
            return nullcontext(lambda _name: None)
        return _Progress(self, self._stderr, total)

    def done(self, source: Source, done: FileDone) -> None:
        """A file redacted: its text (no ``--out``), then its line or object."""
        if self._jsonl:
            self._object(source, done=done)
            return
        if done.text is not None:
            self._stdout.write(done.text + ("\n" if done.kind in _TEXT_AFTER else ""))
            self._stdout.flush()
        if done.pictures:
            self._line(f"veilbot: {done.pictures}")
        where = f" -> {done.out}" if done.out is not None else ""
        written = f" as {done.written_as}" if done.written_as not in (None, done.kind) else ""
        name = f"{source.path}: " if self._several else ""
        self._line(
            f"veilbot: {name}{done.kind}{written}, {counts_line(done.counts, done.faces)}{where}"
        )

    def failed(self, source: Source, exc: Exception) -> None:
        """A file not redacted: one line naming the file, and why (never its content)."""
        reason = exc.reason if isinstance(exc, InputRejected) else type(exc).__name__
        if isinstance(exc, OSError):
            message = f"cannot read the file: {exc.strerror}"
        else:
            message = refusal(exc)
        if self._jsonl:
            self._object(source, error={"reason": reason, "message": message})
            return
        name = f"{source.path}: " if self._several else ""
        self._line(f"veilbot: {name}{message}")

    def _object(
        self, source: Source, done: FileDone | None = None, error: dict[str, str] | None = None
    ) -> None:
        item: dict[str, Any] = {"file": str(source.path)}
        if done is not None:
            item |= {
                "kind": done.kind,
                "written_as": done.written_as,
                "out": str(done.out) if done.out is not None else None,
                "counts": dict(sorted(done.counts.items())),
            }
            if done.text is not None:
                item["text"] = done.text
        item["error"] = error
        self._stdout.write(json.dumps(item, ensure_ascii=False) + "\n")
        self._stdout.flush()

    def _line(self, line: str) -> None:
        if self.console is not None:
            self.console.print(line, markup=False, highlight=False, soft_wrap=True)
        else:
            print(line, file=self._stderr)


_TEXT_AFTER = frozenset({"png", "jpeg", "gif", "webp"})
"""An image's text ends with a line break on stdout (other files' text is written as is)."""


class _Progress:
    """rich's progress bar on stderr; lines printed meanwhile go above it."""

    def __init__(self, report: _Report, stderr: IO[str], total: int) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self._report = report
        console = Console(file=stderr, stderr=True)
        self._bar = Progress(
            TextColumn("redacting"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.description}"),
            console=console,
            transient=True,
        )
        self._task = self._bar.add_task("", total=total)

    def __enter__(self) -> Any:
        self._bar.__enter__()
        self._report.console = self._bar.console
        return self._advance

    def __exit__(self, *exc: object) -> None:
        self._bar.__exit__(None, None, None)
        self._report.console = None

    def _advance(self, name: str) -> None:
        self._bar.update(self._task, advance=1, description=name)
