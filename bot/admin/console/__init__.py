"""The admin console: server-rendered pages at ``/admin/`` over the redacted audit log.

Admins sign in with a token of ``VEILBOT_ADMIN_TOKENS`` and get a session cookie; the pages
browse runs and threads, chart usage, download exports and erase users or threads. A token
limited to workspaces gets every page confined to them, as in the admin API
(``bot.admin.confine``). Every page view, export and erasure is recorded in the admin action
log (who, what, when; ids only). The console reads the audit log only: it never holds the
vault, so nothing on these pages can turn a placeholder back into the value it stands for.

Modules: ``routes`` (``add_console_routes``), ``web`` (session guard, CSRF, headers,
rendering), ``filters`` (the URL's run filter), ``pages`` (read-only pages), ``forms``
(sign-in, sign-out, export, erase), ``charts`` (server-side SVG).
"""
