"""Slack (slack-bolt): mentions, threads, DMs and the assistant view; Events API or Socket Mode.

``events`` and ``formatting`` translate without a network; ``handler`` wires bolt's app to
the core's ``MessageHandler`` (``client``: the Web API client; ``endpoint``: the HTTP events
route, behind ``ingress``'s gate; ``listeners``: which events become work; ``enqueue``: the
queue's ack; ``turns``: one message answered); ``replies`` streams or edits answers;
``assistant`` drives the assistant view; ``commands``, ``interactions`` and ``admin`` serve
``/veilbot``, its buttons and the admin export.
"""
