"""The context window: token estimates and trimming of the history."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.attachments import ImagePart
from bot.core.types import ChatMessage, ModelRequest
from bot.core.window import (
    IMAGE_MAX_TOKENS,
    MESSAGE_OVERHEAD_TOKENS,
    estimate_tokens,
    fit_to_window,
    max_input_tokens,
    message_tokens,
    repair_history,
)


def u(text: str) -> ChatMessage:
    return ChatMessage("user", text)


def a(text: str) -> ChatMessage:
    return ChatMessage("assistant", text)


def turns(n: int, size: int = 35) -> list[ChatMessage]:
    """``n`` complete turns whose texts are ``size`` characters long (10 tokens at 35)."""
    out: list[ChatMessage] = []
    for i in range(n):
        out += [u(f"q{i}".ljust(size, ".")), a(f"a{i}".ljust(size, "."))]
    return out


def assert_valid(messages: tuple[ChatMessage, ...], new: ChatMessage) -> None:
    assert messages[-1] is new
    assert [m.role for m in messages] == ["user", "assistant"] * (len(messages) // 2) + ["user"]


@pytest.mark.parametrize(
    ("text", "tokens"), [("", 0), ("a", 1), ("abc", 1), ("abcd", 2), ("x" * 35, 10), ("x" * 36, 11)]
)
def test_estimate_rounds_up(text, tokens):
    assert estimate_tokens(text) == tokens


def test_message_tokens_add_overhead():
    assert message_tokens(u("x" * 35)) == 10 + MESSAGE_OVERHEAD_TOKENS


def test_everything_fits():
    history, new = turns(3), u("now")
    result = fit_to_window(history, new, window_tokens=10_000, system="sys")
    assert result == (*history, new)


def test_oldest_turns_are_dropped_first():
    history, new = turns(5), u("x" * 35)
    per_message = 10 + MESSAGE_OVERHEAD_TOKENS
    # the system (1 token), the new message and exactly two turns fit
    budget = 1 + per_message + 4 * per_message
    result = fit_to_window(history, new, window_tokens=budget, system="s")
    assert result == (*history[-4:], new)
    assert_valid(result, new)
    assert fit_to_window(history, new, window_tokens=budget - 1, system="s") == (
        *history[-2:],
        new,
    )


def test_the_system_prompt_counts():
    history, new = turns(2), u("hi")
    roomy = fit_to_window(history, new, window_tokens=70, system="")
    tight = fit_to_window(history, new, window_tokens=70, system="s" * 70)
    assert (len(roomy), len(tight)) == (5, 3)


def test_new_alone_is_returned_when_nothing_fits():
    new = u("x" * 10_000)
    assert fit_to_window(turns(3), new, window_tokens=10, system="sys") == (new,)
    assert fit_to_window([], new, window_tokens=10, system="sys") == (new,)


def test_input_is_not_mutated():
    history = [u("a"), u("b"), a("c"), a("d")]
    before = list(history)
    fit_to_window(history, u("e"), window_tokens=5, system="")
    fit_to_window(history, u("e"), window_tokens=10_000, system="")
    assert history == before


def test_new_must_be_a_user_message():
    with pytest.raises(ValueError, match="user role"):
        fit_to_window([], a("no"), window_tokens=100, system="")


@pytest.mark.parametrize(
    ("history", "expected"),
    [
        # a failed turn left an unanswered user message: the answered one is kept
        ([u("q1"), u("q2"), a("a2")], [u("q2"), a("a2")]),
        # the newest history message is an unanswered user message
        ([u("q1"), a("a1"), u("q2")], [u("q1"), a("a1")]),
        # history starting with the assistant
        ([a("hello"), u("q1"), a("a1")], [u("q1"), a("a1")]),
        # two answers in a row are merged
        ([u("q1"), a("a1"), a("more")], [u("q1"), a("a1\n\nmore")]),
        # blank messages are dropped
        ([u("q1"), a("  "), u("q2"), a("a2")], [u("q2"), a("a2")]),
        ([u(""), a("a0"), u("q1"), a("a1")], [u("q1"), a("a1")]),
        ([], []),
    ],
)
def test_malformed_histories_are_repaired(history, expected):
    new = u("new")
    result = fit_to_window(history, new, window_tokens=10_000, system="")
    assert result == (*expected, new)
    assert_valid(result, new)


def test_repair_returns_turns():
    assert repair_history([u("q"), a("a")]) == ((u("q"), a("a")),)


def test_trimming_after_repair_keeps_alternation():
    history = [a("x"), *turns(3), u("dangling"), u("again")]
    for budget in range(0, 200, 7):
        result = fit_to_window(history, u("n"), window_tokens=budget, system="")
        assert_valid(result, result[-1])


def _whole_history_fit(
    history: list[ChatMessage], new: ChatMessage, budget: int, system: str
) -> tuple[ChatMessage, ...]:
    """The rule as written: repair the whole history, keep the newest turns that fit."""
    remaining = budget - estimate_tokens(system) - message_tokens(new)
    kept: list[tuple[ChatMessage, ChatMessage]] = []
    for turn in reversed(repair_history(history)):
        remaining -= message_tokens(turn[0]) + message_tokens(turn[1])
        if remaining < 0:
            break
        kept.append(turn)
    return (*(m for turn in reversed(kept) for m in turn), new)


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["user", "assistant"]),
            st.sampled_from(["", " ", "x" * 7, "y" * 40, "z" * 300]),
        ),
        max_size=60,
    ),
    st.integers(min_value=0, max_value=2000),
)
@settings(max_examples=400, deadline=None)
def test_fitting_only_the_newest_messages_chooses_what_the_whole_history_would(
    shape: list[tuple[str, str]], budget: int
) -> None:
    """Only a tail of the history is repaired (a turn's cost does not grow with the thread's
    age); blank, merged, unanswered and cut messages choose exactly the same request."""
    history = [ChatMessage(role, text) for role, text in shape]  # type: ignore[arg-type]
    new = u("the question")
    assert fit_to_window(history, new, window_tokens=budget, system="sys") == _whole_history_fit(
        history, new, budget, "sys"
    )


def test_the_most_input_tokens_of_a_request_bound_any_tokenizer_count() -> None:
    """A token is at least one byte: text in other scripts takes more tokens than the
    estimate's 3.5 characters each, never more than its bytes."""
    text = "日本語のテキスト" * 10
    request = ModelRequest(system="be brief", messages=(u(text),))
    most = max_input_tokens(request)
    assert most >= len(text.encode()) + len(b"be brief")
    assert most > estimate_tokens(text) * 3
    image = ImagePart("image/png", b"\x89PNG")
    with_images = ModelRequest(system="be brief", messages=(u(text),), images=(image, image))
    assert max_input_tokens(with_images) == most + 2 * IMAGE_MAX_TOKENS
