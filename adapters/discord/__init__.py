"""Discord (discord.py): mentions answered in a thread, follow-ups, DMs, slash commands.

``events`` translates without a network; ``handler`` takes the gateway's events (``client``
connects) to the core's ``MessageHandler``, through ``turns`` in this process or ``queueing``
(``queued``: the payload) via the turn queue; ``destinations`` says where an answer goes;
``replies`` posts and edits answers; ``commands`` and ``admin`` register ``/forget``, ``/help``
and ``/audit export``.
"""
