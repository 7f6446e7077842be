# SPDX-License-Identifier: GPL-2.0-only
"""A small SVG renderer for the benchmark report: grouped bar charts with
min-max whiskers and per-second line charts. No dependencies."""

from xml.sax.saxutils import escape

# One colour per configuration (bench/configs.sh CONFIGS), others in turn.
PALETTE = ["#7f7f7f", "#d62728", "#9467bd", "#1f77b4", "#2ca02c",
           "#ff7f0e", "#8c564b", "#e377c2"]
FONT = 'font-family="sans-serif" font-size="12"'


def _nice_max(v):
    """A round axis maximum at or above v."""
    if v <= 0:
        return 1.0
    step = 10 ** (len(str(int(v))) - 1) if v >= 1 else 0.1
    for m in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if m * step >= v:
            return m * step
    return 10 * step


def _text(x, y, s, anchor="middle", extra=""):
    return '<text x="%.1f" y="%.1f" text-anchor="%s" %s %s>%s</text>' % (
        x, y, anchor, FONT, extra, escape(str(s)))


def _legend(names, x, y):
    out = []
    for i, n in enumerate(names):
        out.append('<rect x="%.1f" y="%.1f" width="12" height="12" fill="%s"/>'
                   % (x, y + 18 * i, PALETTE[i % len(PALETTE)]))
        out.append(_text(x + 18, y + 18 * i + 10, n, "start"))
    return out


def _frame(width, height, title, body):
    return "\n".join(
        ['<?xml version="1.0" encoding="UTF-8"?>',
         '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
         'viewBox="0 0 %d %d">' % (width, height, width, height),
         '<rect width="100%" height="100%" fill="white"/>',
         _text(width / 2, 20, title, extra='font-weight="bold"')]
        + body + ["</svg>", ""])


def _axis(x0, y0, w, h, ymax, label, ref=None):
    """Y axis with 5 ticks from 0 to ymax; a dashed line at ref."""
    out = ['<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>'
           % (x0, y0, x0, y0 - h),
           '<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>'
           % (x0, y0, x0 + w, y0)]
    for i in range(6):
        v = ymax * i / 5
        y = y0 - h * i / 5
        out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" '
                   'stroke="#ddd"/>' % (x0, y, x0 + w, y))
        out.append(_text(x0 - 6, y + 4, ("%.0f" if ymax >= 10 else "%.2g") % v,
                         "end"))
    if ref is not None and ref <= ymax:
        y = y0 - h * ref / ymax
        out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" '
                   'stroke="black" stroke-dasharray="4 3"/>'
                   % (x0, y, x0 + w, y))
    out.append(_text(16, y0 - h / 2, label, extra='transform="rotate(-90 16 %.1f)"'
                     % (y0 - h / 2)))
    return out


def bar_chart(title, groups, series, values, ylabel, ref=1.0):
    """Grouped bars: for each group (tenant) one bar per series
    (configuration). values[(group, series)] = (median, min, max) or None.
    A dashed line marks ref (1.0 = the default scheduler)."""
    bw = 18
    gw = bw * len(series) + 24
    x0, y0, h = 60, 250, 200
    w = max(gw * len(groups), 200)
    width = x0 + w + 130
    vmax = max([v[2] for v in values.values() if v] + [ref or 0, 0.1])
    ymax = _nice_max(vmax * 1.05)
    body = _axis(x0, y0, w, h, ymax, ylabel, ref)
    for gi, g in enumerate(groups):
        gx = x0 + gi * gw + 12
        for si, s in enumerate(series):
            v = values.get((g, s))
            x = gx + si * bw
            if not v:
                body.append(_text(x + bw / 2, y0 - 4, "-"))
                continue
            med, lo, hi = v
            bh = h * med / ymax
            body.append('<rect x="%.1f" y="%.1f" width="%d" height="%.1f" '
                        'fill="%s"><title>%s %s: %.3f (%.3f-%.3f)</title></rect>'
                        % (x, y0 - bh, bw - 2, bh,
                           PALETTE[si % len(PALETTE)], escape(g), escape(s),
                           med, lo, hi))
            cx = x + (bw - 2) / 2
            ylo, yhi = y0 - h * lo / ymax, y0 - h * hi / ymax
            body.append('<path d="M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f" '
                        'stroke="black" fill="none"/>'
                        % (cx, ylo, yhi, cx - 4, ylo, cx + 4, cx - 4, yhi, cx + 4))
        body.append(_text(gx + bw * len(series) / 2, y0 + 18, g))
    body += _legend(series, x0 + w + 16, 40)
    return _frame(width, y0 + 40, title, body)


def line_chart(title, panels, names, ylabel):
    """One panel per (subtitle, {name: [y per second]}) in panels, stacked;
    one line per name (configuration), x = seconds."""
    x0, w, h, gap = 60, 420, 150, 40
    width = x0 + w + 130
    body = []
    top = 56
    for sub, lines in panels:
        y0 = top + h
        pts = [y for v in lines.values() for y in v]
        ymax = _nice_max(max(pts + [1e-9]) * 1.05)
        n = max([len(v) for v in lines.values()] + [2])
        body += _axis(x0, y0, w, h, ymax, ylabel)
        body.append(_text(x0 + w / 2, top - 6, sub))
        for i in range(n):
            body.append(_text(x0 + w * i / (n - 1), y0 + 14, str(i + 1)))
        for ni, name in enumerate(names):
            v = lines.get(name)
            if not v:
                continue
            path = " ".join("%s%.1f %.1f" % ("M" if i == 0 else "L",
                                             x0 + w * i / (n - 1),
                                             y0 - h * y / ymax)
                            for i, y in enumerate(v))
            colour = PALETTE[ni % len(PALETTE)]
            body.append('<path d="%s" stroke="%s" stroke-width="2" fill="none"/>'
                        % (path, colour))
            # A dot per second, so that a one-second series shows too.
            body += ['<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>'
                     % (x0 + w * i / (n - 1), y0 - h * y / ymax, colour)
                     for i, y in enumerate(v)]
        top = y0 + gap
    body.append(_text(x0 + w / 2, top - 8, "second"))
    body += _legend(names, x0 + w + 16, 40)
    return _frame(width, top + 10, title, body)
