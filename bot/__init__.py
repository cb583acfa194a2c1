"""veilbot: a Slack and Discord chat bot for Claude with a Presidio PII guardrail."""

__version__ = "0.1.0"
