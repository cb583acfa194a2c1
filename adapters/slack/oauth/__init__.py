"""Slack OAuth (issue 29): installations sealed in the audit database, install state in Redis."""
