"""The audit run of a queued turn dropped unanswered (its workspace uninstalled the app).

Its text was sealed in the queue and is deleted unread, so the run holds ids only: the thread,
workspace and channel (from the thread id), the message's ``ts``, status ``dropped``. Its run id
is the one the turn would have had (``queued_run_id``), so a worker that was running the turn
and stops on seeing it withdrawn writes the same row, kept once.
"""

from __future__ import annotations

from datetime import datetime

from bot.core.types import AuditRecord, TurnStatus, queued_run_id, utcnow


def dropped_run(
    platform: str, event_id: str, thread_id: str, *, reason: str, at: datetime | None = None
) -> AuditRecord:
    """The audit run of one dropped queue entry (``reason``: why, e.g. ``uninstalled``)."""
    parts = thread_id.split(":")
    when = at or utcnow()
    return AuditRecord(
        run_id=queued_run_id(f"{platform}:{event_id}"),
        thread_id=thread_id,
        platform=platform,
        workspace=parts[1] if len(parts) > 2 else "",
        channel=parts[2] if len(parts) > 2 else "",
        user_id="",  # in the sealed text only, which goes unread
        message_id=event_id.split(":")[2] if event_id.count(":") >= 2 else "",
        started_at=when,
        finished_at=when,
        status=TurnStatus.DROPPED,
        metadata={"dropped": reason, "queued_event": event_id},
    )
