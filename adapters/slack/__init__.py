"""Slack (slack-bolt): mentions, threads, DMs and the assistant view; Events API or Socket Mode.

``events`` and ``formatting`` translate without a network; ``handler`` wires bolt's app to
the core's ``MessageHandler``; ``replies`` streams or edits answers; ``commands``,
``interactions`` and ``admin`` serve ``/veilbot``, its buttons and the admin export.
"""
