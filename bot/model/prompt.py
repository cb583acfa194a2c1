"""The system prompt: how the model is told to treat placeholders.

Every model client sends it unchanged (Claude as the system blocks, OpenAI-compatible servers
as the first message); it is prompt-cached, so it must not vary per turn. The worked example
is for smaller self-hosted models, which follow an example better than a rule; what they
still get wrong the tolerant restore reads, and the audit counts as mangled.
"""

from __future__ import annotations

PERSONA = "You are veilbot, a helpful assistant in a team chat (Slack or Discord)."

PLACEHOLDER_RULES = """\
Personal data in this conversation has been replaced by placeholders such as <PERSON_1>, \
<EMAIL_ADDRESS_2> or <USER_1>. Each placeholder stands for a real value that the people in \
the chat know; it is put back before they read your answer. When you refer to one of these \
values:
- copy its placeholder verbatim: the exact spelling, number and angle brackets;
- do not put quotes, backticks, bold or other markdown around a placeholder;
- never invent a placeholder that does not appear in the conversation;
- do not ask for the real value behind a placeholder or guess it;
- treat two different placeholders as two different entities.

For example, asked "Can you email <PERSON_1> at <EMAIL_ADDRESS_1>?", write "I'll email \
<PERSON_1> at <EMAIL_ADDRESS_1>.", never "PERSON_1", "[EMAIL_ADDRESS_1]" or "<person 1>"."""
"""What the model must know of placeholders; kept whatever a scope's prompt replaces."""

STYLE = "Answer concisely, in the plain conversational style of a chat message."

SYSTEM_PROMPT = f"{PERSONA}\n\n{PLACEHOLDER_RULES}\n\n{STYLE}"


def build_system_prompt(extra: str = "", *, replace: str | None = None) -> str:
    """The system prompt, with an operator's extra instructions appended.

    Args:
        extra: text added after the standard prompt (``VEILBOT_SYSTEM_PROMPT_EXTRA``, a
            scope's appended prompt).
        replace: a scope's own prompt instead of veilbot's persona and style; the
            placeholder rules stay, since restoring the answer depends on them.

    Returns:
        A stable prompt (it is prompt-cached, so it must not vary per turn).
    """
    base = SYSTEM_PROMPT if replace is None else f"{PLACEHOLDER_RULES}\n\n{replace.strip()}"
    extra = extra.strip()
    return f"{base}\n\n{extra}" if extra else base
