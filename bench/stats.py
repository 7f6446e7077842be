# SPDX-License-Identifier: GPL-2.0-only
"""Statistics of the benchmark: medians with min and max, spread."""

import math


def median(xs):
    """Median of a non-empty list (mean of the two middle values)."""
    s = sorted(xs)
    n = len(s)
    if n == 0:
        return None
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def stdev(xs):
    """Population standard deviation (0 for fewer than two values)."""
    if len(xs) < 2:
        return 0.0
    m = sum(xs) / len(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / len(xs))


def cov_pct(xs):
    """Coefficient of variation in percent (None if the mean is 0)."""
    if not xs:
        return None
    m = sum(xs) / len(xs)
    return 100.0 * stdev(xs) / m if m else None


def summary(xs):
    """{median, min, max, n} of the values that are not None."""
    v = [x for x in xs if x is not None]
    if not v:
        return None
    return {"median": median(v), "min": min(v), "max": max(v), "n": len(v)}
