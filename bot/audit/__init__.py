"""The audit log: one redacted run per turn, on SQLite or PostgreSQL, and what admins do with it.

Owns ``store`` (``SqlAuditStore``: writes, with a spool while the database is down),
``schema`` (tables, migrations, record <-> row), ``query`` (reading, roll-ups, erasing rows),
``types`` (filters, pages, roll-ups: what admins ask), ``errors`` (database failures mapped
onto the error tree), ``export`` (JSON lines and CSV in constant memory), ``erasure``
(``veilbot forget``) and ``retention`` (the purge by age).

Imports ``bot.core`` and SQLAlchemy only. Every text it holds is placeholder text.
"""
