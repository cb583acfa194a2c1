"""The console adapter: talk to veilbot in a terminal, or script it with JSON Lines.

In a terminal it is interactive (``/attach PATH``, ``/forget``, ``/thread NAME``, ``/quit``)
and streams answers.
The prompt has line editing and the session's history (GNU readline; nothing is written to
disk, since the lines hold personal data); Ctrl-C or Ctrl-D ends the session at once. Log
lines are held while the console owns the screen and printed between an answer and the next
prompt, never inside an answer.
When stdin is not a terminal it reads ``{"thread": ..., "text": ...}`` lines and writes
``{"thread": ..., "reply": ..., "status": ..., "run_id": ...}`` lines, one per input line.
A line may add ``"platform": "slack"`` or ``"discord"``: its text is then read as that
platform's adapter reads it (mentions, ``<mailto:...|...>`` links, escapes), so a transcript
can be replayed through the whole pipeline, and ``"files": ["PATH", ...]`` attaches files on
this machine. Thread names map to ``console:{name}`` thread
ids, so a thread continues across runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import itertools
import json
import logging
import sys
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from adapters.downloads import LocalFiles
from bot.core.attachments import Attachment
from bot.core.errors import InputRejected
from bot.core.ports import MessageHandler
from bot.core.types import InboundMessage, Platform, Reply, ThreadId, thread_id

HELP = (
    "Commands: /attach PATH adds a file to your next message, /forget erases this thread, "
    "/thread NAME switches thread, /quit exits."
)
PROMPT = "you> "


class _PrintSink:
    """Prints a streamed answer as it arrives."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self.started = False

    async def delta(self, text: str) -> None:
        if not self.started:
            self._out.write("bot> ")
            self.started = True
        self._out.write(text)
        self._out.flush()


class ConsoleAdapter:
    """Reads messages from a text stream and writes the answers to another."""

    name = "console"

    def __init__(
        self,
        handler: MessageHandler,
        *,
        thread: str = "default",
        show_redactions: bool = False,
        stdin: TextIO,
        stdout: TextIO,
        interactive: bool,
    ) -> None:
        self._handler = handler
        self._thread = thread
        self._show = show_redactions
        self._in = stdin
        self._out = stdout
        self._interactive = interactive
        self._user = _local_user()
        self._ids = itertools.count(1)
        self._attached: list[Path] = []

    async def run(self) -> None:
        """Serve until end of input (or ``/quit``)."""
        thread_id_of(self._thread)  # fail early on a bad --thread
        if self._interactive:
            await self._interactive_loop()
        else:
            await self._jsonl_loop()

    def _message(
        self, name: str, text: str, platform: Platform = "console", files: Sequence[Path] = ()
    ) -> InboundMessage:
        return InboundMessage(
            thread_id=thread_id_of(name),
            platform=platform,
            workspace="local",
            channel=name,
            user_id=self._user,
            message_id=str(next(self._ids)),
            text=text,
            private=True,
            files=tuple(_attachment(path) for path in files),
            file_source=_LOCAL_FILES,
        )

    async def _readline(self) -> str | None:
        line = await asyncio.to_thread(self._in.readline)
        return line if line else None

    async def _interactive_loop(self) -> None:
        with _held_logs() as logs, _terminal_kept(self._in):
            self._write(f"veilbot console, thread '{self._thread}'. {HELP}\n")
            while True:
                logs.write_out()
                line = await _prompt(PROMPT)
                if line is None or line.strip() == "/quit":
                    self._write("\n" if line is None else "")
                    return
                if line.strip() and not await self._command(line.strip()):
                    await self._interactive_turn(line)

    async def _command(self, line: str) -> bool:
        command, _, name = line.partition(" ")
        if line == "/forget":
            await self._handler.forget(thread_id_of(self._thread))
            self._write(f"Thread '{self._thread}' forgotten: history and vault erased.\n")
        elif command == "/thread":
            self._switch(name.strip())
        elif command == "/attach":
            self._attach(name.strip())
        elif line in ("/help", "/?"):
            self._write(HELP + "\n")
        else:
            return False
        return True

    def _switch(self, name: str) -> None:
        if not name:
            self._write(f"Usage: /thread NAME (now in thread '{self._thread}').\n")
            return
        try:
            thread_id_of(name)
        except InputRejected:
            self._write("Thread names may use letters, digits, '_', '.', ':' and '-'.\n")
            return
        self._thread = name
        self._write(f"Now in thread '{name}'.\n")

    def _attach(self, name: str) -> None:
        if not name:
            self._write("Usage: /attach PATH (the file goes with your next message).\n")
            return
        path = Path(name).expanduser()
        if not path.is_file():
            self._write(f"No file at {path}.\n")
            return
        self._attached.append(path)
        count = len(self._attached)
        self._write(f"{count} file{'s' if count > 1 else ''} will go with your next message.\n")

    async def _interactive_turn(self, text: str) -> None:
        sink = _PrintSink(self._out)
        files, self._attached = self._attached, []
        reply = await self._handler.handle(self._message(self._thread, text, files=files), sink)
        if reply is None:
            return
        if reply.streamed:
            self._write("\n")
        elif sink.started:
            self._write(f"\n{reply.text}\n")
        else:
            self._write(f"bot> {reply.text}\n")
        if self._show and reply.redacted:
            self._write(f"     [the model saw] {reply.redacted}\n")

    async def _jsonl_loop(self) -> None:
        for number in itertools.count(1):
            line = await self._readline()
            if line is None:
                return
            if line.strip():
                self._emit(await self._jsonl_turn(number, line))

    async def _jsonl_turn(self, number: int, line: str) -> dict[str, Any]:
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            return {"line": number, "error": "not a JSON object"}
        if not isinstance(data, dict) or not isinstance(data.get("text"), str):
            return {"line": number, "error": 'expected {"thread": "name", "text": "message"}'}
        platform = data.get("platform", "console")
        if platform not in _MARKUPS:
            return {"line": number, "error": 'platform must be "slack", "discord" or "console"'}
        name = data.get("thread", self._thread)
        files = data.get("files", [])
        if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
            return {"line": number, "error": '"files" must be a list of paths'}
        try:
            message = self._message(str(name), data["text"], platform, [Path(f) for f in files])
        except InputRejected:
            return {"line": number, "error": "invalid thread name: use [A-Za-z0-9_.:-]"}
        reply = await self._handler.handle(message)
        return _reply_json(name, reply, self._show)

    def _emit(self, obj: dict[str, Any]) -> None:
        self._write(json.dumps(obj, ensure_ascii=False) + "\n")

    def _write(self, text: str) -> None:
        self._out.write(text)
        self._out.flush()


_MARKUPS: dict[str, Platform] = {"slack": "slack", "discord": "discord", "console": "console"}
"""The markups a JSON line may ask for."""


def _reply_json(name: str, reply: Reply | None, show: bool) -> dict[str, Any]:
    if reply is None:
        return {"thread": name, "duplicate": True}
    out: dict[str, Any] = {
        "thread": name,
        "reply": reply.text,
        "status": str(reply.status),
        "run_id": reply.run_id,
    }
    if show:
        out["redacted"] = reply.redacted
    return out


async def _prompt(prompt: str) -> str | None:
    """One line typed at the terminal (``None`` at end of input), read with readline.

    ``input`` runs in a daemon thread of its own, not the loop's executor: when Ctrl-C ends
    the session the loop does not wait for a line that nobody will type.
    """
    with contextlib.suppress(ImportError):
        import readline  # noqa: F401  (line editing and history for ``input``)
    loop = asyncio.get_running_loop()
    typed: asyncio.Future[str | None] = loop.create_future()

    def settle(line: str | None) -> None:
        if not typed.done():
            typed.set_result(line)

    def read() -> None:
        try:
            line: str | None = input(prompt)
        except (EOFError, OSError, ValueError):
            line = None
        with contextlib.suppress(RuntimeError):  # the loop closed: the session is over
            loop.call_soon_threadsafe(settle, line)

    threading.Thread(target=read, name="console-input", daemon=True).start()
    return await typed


@contextlib.contextmanager
def _terminal_kept(stream: TextIO) -> Iterator[None]:
    """Restore the terminal's modes on the way out, even when readline was interrupted."""
    try:
        import termios

        fd = stream.fileno()
        saved = termios.tcgetattr(fd)
    except (ImportError, OSError, ValueError):
        yield
        return
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)


class _HeldLogs(logging.Handler):
    """Holds the root logger's records while the console writes; ``write_out`` prints them."""

    def __init__(self, targets: list[logging.Handler]) -> None:
        super().__init__()
        self._targets = targets
        self._held: deque[logging.LogRecord] = deque(maxlen=1000)

    def emit(self, record: logging.LogRecord) -> None:
        self._held.append(record)

    def write_out(self) -> None:
        """Write what was held, on its own lines, through the original handlers."""
        while self._held:
            record = self._held.popleft()
            for target in self._targets:
                if record.levelno >= target.level:
                    target.handle(record)


@contextlib.contextmanager
def _held_logs() -> Iterator[_HeldLogs]:
    root = logging.getLogger()
    targets = root.handlers[:]
    held = _HeldLogs(targets)
    root.handlers = [held]
    try:
        yield held
    finally:
        root.handlers = targets
        held.write_out()
        sys.stderr.flush()


_LOCAL_FILES = LocalFiles()


def _attachment(path: Path) -> Attachment:
    """A file on this machine, attached by its path (its size is read when it is fetched)."""
    return Attachment(name=path.name, url=str(path), size=0)


def thread_id_of(name: str) -> ThreadId:
    """The thread id of a console thread name."""
    return thread_id("console", name)


def _local_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "local"
