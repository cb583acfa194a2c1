"""Admin access to the audit log: the HTTP admin API and the admin chat commands.

Owns ``api`` (the aiohttp routes ``/admin/*``, plus the ``/healthz`` and ``/readyz`` probes),
``openapi`` (the API's OpenAPI 3.1 document), ``auth`` (bearer tokens stored as hashes) and
``commands`` (``AdminService``: who is an admin in chat, and the export they get).

Imports ``bot.core`` and ``bot.audit`` (plus aiohttp for the API); never the model, Redis,
guardrails or adapters. Adapters reach the chat commands through ``bot.core.ports``.
"""
