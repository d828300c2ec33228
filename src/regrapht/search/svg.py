"""Small inline SVG charts for the HTML reports: no scripts, no external resources.

Every function returns one `<svg>` element as a string, with all text escaped, sized by a viewBox so
it scales with the page. Charts carry `class="chart"` and a `data-chart` name (the report tests count
them in a real browser).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

PALETTE = ("#3366aa", "#dd8833", "#2e7d32", "#aa3377", "#66aacc", "#997700", "#777777", "#cc4444")
W, H = 640, 260
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 28, 58


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _open(name: str, title: str, width: int = W, height: int = H) -> list[str]:
    return [
        f'<svg class="chart" data-chart="{_e(name)}" xmlns="http://www.w3.org/2000/svg" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" aria-label="{_e(title)}">',
        f"<title>{_e(title)}</title>",
        f'<text x="{LEFT}" y="16" font-size="13" font-weight="600">{_e(title)}</text>',
    ]


def _nice_max(v: float) -> float:
    if v <= 0:
        return 1.0
    exp = 10 ** math.floor(math.log10(v))
    for m in (1, 2, 2.5, 5, 10):
        if v <= m * exp:
            return m * exp
    return 10 * exp


def _y_axis(parts: list[str], top: float, fmt: str, label: str, log: bool = False, low: float = 0.0) -> None:
    plot_h = H - TOP - BOTTOM
    ticks = 4
    for i in range(ticks + 1):
        frac = i / ticks
        y = H - BOTTOM - frac * plot_h
        value = low * (top / low) ** frac if log else top * frac
        parts.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{W - RIGHT}" y2="{y:.1f}" stroke="#e3e6ec"/>')
        parts.append(
            f'<text x="{LEFT - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end">{_e(format(value, fmt))}</text>'
        )
    parts.append(
        f'<text x="12" y="{TOP + plot_h / 2:.1f}" font-size="11" transform="rotate(-90 12 {TOP + plot_h / 2:.1f})" '
        f'text-anchor="middle">{_e(label)}</text>'
    )


def bar_chart(
    name: str,
    title: str,
    labels: Sequence[str],
    series: dict[str, Sequence[float | None]],
    *,
    y_label: str = "",
    fmt: str = ".2f",
    y_max: float | None = None,
) -> str:
    """Grouped bars: one group per label, one bar per series. None draws no bar (and says n/a)."""
    parts = _open(name, title)
    values = [v for vs in series.values() for v in vs if v is not None]
    top = y_max if y_max is not None else _nice_max(max(values, default=1.0))
    _y_axis(parts, top, fmt, y_label)
    plot_w, plot_h = W - LEFT - RIGHT, H - TOP - BOTTOM
    n_groups, n_series = max(1, len(labels)), max(1, len(series))
    group_w = plot_w / n_groups
    bar_w = max(2.0, min(40.0, group_w * 0.8 / n_series))
    for gi, label in enumerate(labels):
        gx = LEFT + gi * group_w + (group_w - bar_w * n_series) / 2
        for si, (sname, vs) in enumerate(series.items()):
            v = vs[gi] if gi < len(vs) else None
            x = gx + si * bar_w
            color = PALETTE[si % len(PALETTE)]
            if v is None:
                parts.append(
                    f'<text x="{x + bar_w / 2:.1f}" y="{H - BOTTOM - 4}" font-size="9" text-anchor="middle" fill="#999">n/a</text>'
                )
                continue
            h = max(0.0, min(1.0, v / top)) * plot_h
            parts.append(
                f'<rect class="bar" x="{x:.1f}" y="{H - BOTTOM - h:.1f}" width="{bar_w - 1:.1f}" height="{h:.1f}" '
                f'fill="{color}"><title>{_e(sname)} {_e(label)}: {_e(format(v, fmt))}</title></rect>'
            )
        parts.append(
            f'<text x="{LEFT + gi * group_w + group_w / 2:.1f}" y="{H - BOTTOM + 14}" font-size="11" '
            f'text-anchor="middle">{_e(label[:18])}</text>'
        )
    _legend(parts, list(series))
    parts.append("</svg>")
    return "\n".join(parts)


def _legend(parts: list[str], names: Sequence[str]) -> None:
    if len(names) <= 1:
        return
    x = LEFT
    for i, n in enumerate(names):
        parts.append(
            f'<rect x="{x}" y="{H - 18}" width="10" height="10" fill="{PALETTE[i % len(PALETTE)]}"/>'
        )
        parts.append(f'<text x="{x + 14}" y="{H - 9}" font-size="11">{_e(n[:28])}</text>')
        x += 24 + 7 * min(len(n), 28)


def line_chart(
    name: str,
    title: str,
    series: dict[str, Sequence[tuple[float, float]]],
    *,
    x_label: str = "",
    y_label: str = "",
    fmt: str | None = None,
    markers: dict[str, Sequence[tuple[float, float, str]]] | None = None,
    steps: bool = False,
    y_min: float | None = None,
    y_max: float | None = None,
) -> str:
    """Lines through (x, y) points, one per series; `markers` adds labelled points. The y range fits
    the data unless `y_min` / `y_max` fix it."""
    parts = _open(name, title)
    pts = [p for s in series.values() for p in s] + [
        (x, y) for m in (markers or {}).values() for x, y, _ in m
    ]
    xs = [p[0] for p in pts] or [0.0, 1.0]
    ys = [p[1] for p in pts] or [0.0, 1.0]
    x_lo, x_hi = min(xs), max(xs)
    y_lo, y_hi = min(ys), max(ys)
    pad = 0.05 * (y_hi - y_lo) if y_hi > y_lo else 0.5
    y_lo = y_lo - pad if y_min is None else y_min
    y_hi = y_hi + pad if y_max is None else y_max
    if fmt is None:  # enough decimals to tell the grid lines apart
        fmt = f".{max(0, min(6, 2 - math.floor(math.log10(max(y_hi - y_lo, 1e-12)))))}f"
    if x_hi == x_lo:
        x_hi = x_lo + 1
    plot_w, plot_h = W - LEFT - RIGHT, H - TOP - BOTTOM

    def sx(x: float) -> float:
        return LEFT + (x - x_lo) / (x_hi - x_lo) * plot_w

    def sy(y: float) -> float:
        return H - BOTTOM - (y - y_lo) / (y_hi - y_lo) * plot_h

    for i in range(5):
        y = y_lo + (y_hi - y_lo) * i / 4
        parts.append(
            f'<line x1="{LEFT}" y1="{sy(y):.1f}" x2="{W - RIGHT}" y2="{sy(y):.1f}" stroke="#e3e6ec"/>'
        )
        parts.append(
            f'<text x="{LEFT - 6}" y="{sy(y) + 4:.1f}" font-size="11" text-anchor="end">{_e(format(y, fmt))}</text>'
        )
    if y_lo < 0 < y_hi:
        parts.append(f'<line x1="{LEFT}" y1="{sy(0):.1f}" x2="{W - RIGHT}" y2="{sy(0):.1f}" stroke="#888"/>')
    for i in range(5):
        x = x_lo + (x_hi - x_lo) * i / 4
        parts.append(
            f'<text x="{sx(x):.1f}" y="{H - BOTTOM + 14}" font-size="11" text-anchor="middle">{_e(format(x, ".3g"))}</text>'
        )
    parts.append(
        f'<text x="{LEFT + plot_w / 2:.1f}" y="{H - BOTTOM + 30}" font-size="11" text-anchor="middle">{_e(x_label)}</text>'
    )
    parts.append(
        f'<text x="12" y="{TOP + plot_h / 2:.1f}" font-size="11" transform="rotate(-90 12 {TOP + plot_h / 2:.1f})" '
        f'text-anchor="middle">{_e(y_label)}</text>'
    )
    for si, (sname, pts_) in enumerate(series.items()):
        color = PALETTE[si % len(PALETTE)]
        if not pts_:
            continue
        coords: list[tuple[float, float]] = []
        for j, (x, y) in enumerate(pts_):
            if steps and j:
                coords.append((sx(x), sy(pts_[j - 1][1])))
            coords.append((sx(x), sy(y)))
        d = " ".join(f"{'M' if j == 0 else 'L'}{x:.1f},{y:.1f}" for j, (x, y) in enumerate(coords))
        parts.append(
            f'<path class="line" d="{d}" fill="none" stroke="{color}" stroke-width="2"><title>{_e(sname)}</title></path>'
        )
    for mi, (mname, mpts) in enumerate((markers or {}).items()):
        color = PALETTE[(mi + len(series)) % len(PALETTE)]
        for x, y, label in mpts:
            parts.append(
                f'<circle class="marker" cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="4" fill="{color}">'
                f"<title>{_e(mname)}: {_e(label)}</title></circle>"
            )
    _legend(parts, list(series) + list(markers or {}))
    parts.append("</svg>")
    return "\n".join(parts)


def histogram(
    name: str, title: str, values: Sequence[float], *, x_label: str = "speedup (log scale)", bins: int = 12
) -> str:
    """A histogram of positive values on log-spaced bins."""
    vals = [v for v in values if v is not None and v > 0]
    if not vals:
        parts = _open(name, title)
        parts.append(
            f'<text x="{W / 2}" y="{H / 2}" text-anchor="middle" fill="#999">no correct samples</text></svg>'
        )
        return "\n".join(parts)
    lo, hi = math.log10(min(vals)), math.log10(max(vals))
    if hi - lo < 1e-9:
        lo, hi = lo - 0.5, hi + 0.5
    edges = [lo + (hi - lo) * i / bins for i in range(bins + 1)]
    counts = [0] * bins
    for v in vals:
        i = min(bins - 1, int((math.log10(v) - lo) / (hi - lo) * bins))
        counts[i] += 1
    labels = [f"{10 ** edges[i]:.3g}" for i in range(bins)]
    top = 4 * math.ceil(max(counts) / 4)  # whole numbers on the four grid lines
    return bar_chart(
        name,
        title,
        labels,
        {"samples": [float(c) for c in counts]},
        y_label="samples",
        fmt=".0f",
        y_max=float(top),
    ).replace(
        "</svg>",
        f'<text x="{LEFT + (W - LEFT - RIGHT) / 2:.1f}" y="{H - 4}" font-size="11" text-anchor="middle">{_e(x_label)}</text></svg>',
    )


def path_diagram(name: str, title: str, steps: Sequence[tuple[str, str, str]]) -> str:
    """A left-to-right chain of boxes: (label, sub-label, status) per step; status colours the box."""
    box_w, box_h, gap = 150, 44, 28
    width = max(W, LEFT + len(steps) * (box_w + gap))
    height = 110
    parts = _open(name, title, width, height)
    colors = {"correct": "#e6f4e7", "start": "#fdf1d6"}
    for i, (label, sub, status) in enumerate(steps):
        x = 16 + i * (box_w + gap)
        y = 36
        fill = colors.get(status, "#fbe9e9")
        parts.append(
            f'<rect class="pathbox" x="{x}" y="{y}" width="{box_w}" height="{box_h}" rx="6" fill="{fill}" stroke="#35507a">'
            f"<title>{_e(label)}: {_e(sub)}</title></rect>"
        )
        parts.append(
            f'<text x="{x + box_w / 2}" y="{y + 18}" font-size="12" text-anchor="middle">{_e(label[:22])}</text>'
        )
        parts.append(
            f'<text x="{x + box_w / 2}" y="{y + 34}" font-size="11" text-anchor="middle" fill="#444">{_e(sub[:24])}</text>'
        )
        if i:
            x0 = x - gap
            parts.append(
                f'<path d="M{x0 + 2},{y + box_h / 2} L{x - 4},{y + box_h / 2}" stroke="#35507a" stroke-width="1.5"/>'
                f'<path d="M{x - 4},{y + box_h / 2 - 4} L{x},{y + box_h / 2} L{x - 4},{y + box_h / 2 + 4}" fill="#35507a"/>'
            )
    parts.append("</svg>")
    return "\n".join(parts)
