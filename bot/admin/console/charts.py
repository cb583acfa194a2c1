"""Charts as inline SVG, drawn on the server: no script, no library, nothing inline to allow.

Colours come from classes in ``console.css`` (``s0`` … ``s8``), so the markup carries no
``style`` attribute and the strict CSP holds. Every label is XML-escaped; a ``<title>`` on
each bar gives its exact value on hover.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from markupsafe import Markup

WIDTH, HEIGHT = 480, 200
LEFT, RIGHT, TOP, BOTTOM = 52, 8, 10, 26
SERIES_CLASSES = 9
Format = Callable[[float], str]


@dataclass(frozen=True, slots=True)
class Series:
    """One named series of values, one per category (day, workspace)."""

    name: str
    values: Sequence[float]


def count(value: float) -> str:
    """A whole number with thousands separators."""
    return f"{value:,.0f}"


def usd(value: float) -> str:
    """A cost in dollars, with cents for small amounts."""
    return f"${value:,.2f}" if value >= 1 or value == 0 else f"${value:.4f}"


def _frame(body: list[str], label: str, height: float = HEIGHT) -> Markup:
    head = (
        f'<svg class="chart" viewBox="0 0 {WIDTH} {height:.0f}" role="img" '
        f'aria-label={quoteattr(label)} xmlns="http://www.w3.org/2000/svg">'
    )
    return Markup(head + "".join(body) + "</svg>")  # noqa: S704  (every label escaped above)


def stacked_bars(
    categories: Sequence[str], series: Sequence[Series], *, fmt: Format, label: str
) -> Markup:
    """Vertical bars, one per category, the series stacked (a single series: plain bars)."""
    if not categories:
        return Markup('<p class="empty">No runs in this range.</p>')
    totals = [sum(s.values[i] for s in series) for i in range(len(categories))]
    top = max(totals) or 1.0
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    step = plot_w / len(categories)
    bar = min(40.0, max(1.0, step * 0.8))
    body = [
        f'<line class="axis" x1="{LEFT}" y1="{TOP + plot_h}" '
        f'x2="{WIDTH - RIGHT}" y2="{TOP + plot_h}"/>',
        f'<text x="{LEFT - 4}" y="{TOP + 8}" text-anchor="end">{escape(fmt(top))}</text>',
        f'<text x="{LEFT - 4}" y="{TOP + plot_h}" text-anchor="end">{escape(fmt(0))}</text>',
    ]
    for i, name in enumerate(categories):
        x, y = LEFT + i * step + (step - bar) / 2, float(TOP + plot_h)
        for n, s in enumerate(series):
            value = s.values[i]
            if value <= 0:
                continue
            h = value / top * plot_h
            y -= h
            tip = escape(f"{name} · {s.name}: {fmt(value)}")
            body.append(
                f'<rect class="s{n % SERIES_CLASSES}" x="{x:.1f}" y="{y:.1f}" '
                f'width="{bar:.1f}" height="{h:.1f}"><title>{tip}</title></rect>'
            )
    body += _x_labels(categories, step, TOP + plot_h + 14)
    return _frame(body, label)


def _x_labels(categories: Sequence[str], step: float, y: float) -> list[str]:
    every = max(1, len(categories) // 6)
    out = []
    for i in range(0, len(categories), every):
        x = LEFT + i * step + step / 2
        out.append(
            f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="middle">{escape(categories[i])}</text>'
        )
    return out


def horizontal_bars(items: Sequence[tuple[str, float]], *, fmt: Format, label: str) -> Markup:
    """One horizontal bar per item (largest first), its label on the left, value on the right."""
    if not items:
        return Markup('<p class="empty">No runs in this range.</p>')
    row = 24.0
    top = max(v for _, v in items) or 1.0
    left, right = 120, 70
    body = []
    for i, (name, value) in enumerate(items):
        y = TOP + i * row
        w = value / top * (WIDTH - left - right)
        tip = escape(f"{name}: {fmt(value)}")
        body += [
            f'<text x="{left - 4}" y="{y + row * 0.65:.1f}" '
            f'text-anchor="end">{escape(name[:20])}</text>',
            f'<rect class="s0" x="{left}" y="{y + row * 0.15:.1f}" width="{max(w, 1):.1f}" '
            f'height="{row * 0.7:.1f}"><title>{tip}</title></rect>',
            f'<text x="{left + w + 4:.1f}" y="{y + row * 0.65:.1f}">{escape(fmt(value))}</text>',
        ]
    return _frame(body, label, TOP + row * len(items) + 4)


def legend(names: Sequence[str]) -> Markup:
    """The colour key of a chart's series, in series order."""
    items = "".join(
        f'<span><i class="swatch s{n % SERIES_CLASSES}"></i>{escape(name)}</span>'
        for n, name in enumerate(names)
    )
    return Markup(f'<div class="legend">{items}</div>')  # noqa: S704  (names escaped)
