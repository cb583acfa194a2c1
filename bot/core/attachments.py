"""A file attached to a message, as the adapter read it from the platform event (not yet fetched).

The name is the user's and may hold personal data: it is never logged, and reaches the model
only after the guardrail (``bot.files.intake``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Attachment:
    """One attached file.

    Attributes:
        name: the file name the user gave. Never logged.
        url: where the bytes are fetched (Slack ``url_private_download``, which needs the bot
            token; Discord's CDN URL); empty when the platform offers none (a deleted file).
        size: the size the platform announces, checked against the limit before the download.
    """

    name: str
    url: str
    size: int
