"""Configuration: the settings, the config file, and what is rebuilt from them while running.

Owns ``settings`` (the one ``Settings`` class, read from ``VEILBOT_*`` variables, ``.env`` and
the file; ``require``), ``tables`` (its structured tables: ``[access]``, ``[rate_limits]``,
``[budgets]``, ``[scopes."…"]``), ``file`` (the TOML file, each key's line known), ``scopes``
(the configured scopes resolved into ``bot.core.scopes.Scopes``) and ``reload`` (the file read
again on ``SIGHUP`` or when it changes, the running controls swapped).

``settings``, ``tables`` and ``file`` import only ``bot.core`` and pydantic: adapters read them,
and the CLI loads them before anything heavy, to report a mistake at once. ``scopes`` and
``reload`` build from them and belong to the composition root (``reload`` calls ``bot.app``).
"""
