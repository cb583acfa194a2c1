"""The ``/veilbot`` command and the in-thread ``forget``/``help`` words: texts and Block Kit.

Slack does not deliver custom slash commands from inside threads, so ``forget`` works two
ways: mention the bot in the thread with ``forget``, or run ``/veilbot forget <thread link>``.
Both answer with a confirmation only the requester sees; the button carries the thread id.
"""

from __future__ import annotations

from typing import Any

from bot.core.types import ThreadId

FORGET_CONFIRM = "veilbot_forget_confirm"
FORGET_CANCEL = "veilbot_forget_cancel"

SETTINGS_ADMINS_ONLY = "Sorry, only veilbot admins can see its settings."


def help_text(command: str) -> str:
    """What the bot does and how to use it, in mrkdwn."""
    return (
        "*veilbot* answers in threads. Personal data in your messages is replaced by "
        "placeholders before it reaches the model, and restored in my answers.\n"
        "• Mention me in a channel to start a thread; reply in the thread to continue.\n"
        "• Send me a direct message to talk privately.\n"
        "• Share a file with your message (text, CSV, JSON, code) and ask about it: I read it "
        "through the same guardrail as your words.\n"
        "• `forget` (mention me with it in a thread) erases that thread's history.\n"
        f"• `{command} forget <link to a thread message>` does the same from anywhere.\n"
        f"• `{command} fork <link to a thread message> first_k=K` (or `last_n=N`), run in "
        "that thread's channel, starts a new thread there with its first K (last N) turns.\n"
        f"• `{command} audit export [since] [thread:ID|channel:ID|user:ID]` (admins only) "
        "sends you the redacted audit log in a direct message.\n"
        f"• `{command} settings` (admins only) shows my settings in this channel.\n"
        f"• `{command} budget show | raise KIND ID USD | reset KIND ID` (admins only) shows "
        "this month's spend against each budget, or raises one for the month.\n"
        f"• `{command} help` shows this message."
    )


def forget_usage(command: str) -> str:
    """Shown when ``forget`` is given no thread."""
    return (
        "Slack doesn't send slash commands from inside threads, so tell me which thread: "
        "mention me with `forget` in that thread, or run "
        f"`{command} forget <link to a message in the thread>` (Copy link on the message)."
    )


def forget_confirmation(tid: ThreadId) -> list[dict[str, Any]]:
    """Block Kit asking the requester to confirm erasing a thread's history."""
    return [
        {
            "type": "section",
            "text": {
                "type": "mrkdwn",
                "text": "Erase what I remember of this thread? I won't recall earlier messages.",
            },
        },
        {
            "type": "actions",
            "elements": [
                {
                    "type": "button",
                    "action_id": FORGET_CONFIRM,
                    "style": "danger",
                    "text": {"type": "plain_text", "text": "Forget this thread"},
                    "value": tid,
                },
                {
                    "type": "button",
                    "action_id": FORGET_CANCEL,
                    "text": {"type": "plain_text", "text": "Cancel"},
                    "value": "cancel",
                },
            ],
        },
    ]


FORGET_DONE = "Done: I no longer remember this thread. New messages start a fresh conversation."
FORGET_CANCELLED = "OK, I kept this thread's history."
ERASE_REFUSAL = (
    "Sorry, only the people who wrote in that thread (or a veilbot admin) can make me forget it."
)


def parse_command(text: str) -> tuple[str, str]:
    """``("forget", "<link>")`` from the text after the command name."""
    verb, _, arg = (text or "").strip().partition(" ")
    return verb.lower() or "help", arg.strip()
