"""Platform adapters: events in, replies out. They know only the core types and ports.

One package per platform (``slack``, ``discord``) and the terminal (``console``). Pure
translation lives in ``events``; SDK wiring in ``handler``. Adapters import ``bot.core``,
``bot.config.settings`` (their own settings) and ``bot.http_server`` (the server Slack's endpoint is
added to), plus their platform SDK; never guardrails, Redis, the model or the audit log.
"""
