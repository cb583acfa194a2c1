"""Discord (discord.py): mentions answered in a thread, follow-ups, DMs, slash commands.

``events`` translates without a network; ``handler`` wires the client to the core's
``MessageHandler``; ``replies`` posts and edits answers; ``commands`` and ``admin`` register
``/forget``, ``/help`` and ``/audit export``.
"""
