"""Calendar patterns of the demo business: the order window, daily volume weights, promotions.

Only plain arithmetic is used (no transcendental functions), so the weights are bit-identical on
every platform.
"""

from __future__ import annotations

from datetime import date, timedelta

WINDOW_MONTHS = 25  # the month of end_date plus the 24 months before it

# Monday..Sunday: weekends sell more.
WEEKDAY_FACTOR = (0.94, 0.92, 0.95, 0.98, 1.05, 1.16, 1.12)

# Chinese New Year's Day (正月初一): order volume dips around it while logistics stop.
SPRING_FESTIVAL = {
    2019: date(2019, 2, 5), 2020: date(2020, 1, 25), 2021: date(2021, 2, 12),
    2022: date(2022, 2, 1), 2023: date(2023, 1, 22), 2024: date(2024, 2, 10),
    2025: date(2025, 1, 29), 2026: date(2026, 2, 17), 2027: date(2027, 2, 6),
    2028: date(2028, 1, 26), 2029: date(2029, 2, 13), 2030: date(2030, 2, 3),
    2031: date(2031, 1, 23), 2032: date(2032, 2, 11), 2033: date(2033, 1, 31),
    2034: date(2034, 2, 19), 2035: date(2035, 2, 8),
}

SUMMER_MONTHS = (5, 6, 7, 8)
WINTER_MONTHS = (11, 12, 1, 2)


def window_start(end: date) -> date:
    """First day of the month WINDOW_MONTHS - 1 months before end's month."""
    months = end.year * 12 + (end.month - 1) - (WINDOW_MONTHS - 1)
    return date(months // 12, months % 12 + 1, 1)


def window_days(end: date) -> list[date]:
    start = window_start(end)
    return [start + timedelta(days=i) for i in range((end - start).days + 1)]


def festival_factor(d: date) -> float:
    """Shopping festivals: 双11 (the November peak), 双12, 618, and the Spring Festival dip."""
    m, day = d.month, d.day
    f = 1.0
    if m == 11:
        f = 4.0 if day == 11 else (1.55 + 0.05 * day if day < 11 else 1.3)
    elif m == 12:
        f = 1.8 if day == 12 else 1.1
    elif m == 6 and day <= 18:
        f = 2.6 if day == 18 else 1.25
    sf = SPRING_FESTIVAL.get(d.year)
    if sf is not None:
        offset = (d - sf).days
        if -4 <= offset <= 6:
            f *= 0.55
        elif -20 <= offset < -4:
            f *= 1.15  # 年货节: stocking up before the holiday
    return f


def day_weight(d: date, t: float) -> float:
    """Relative order volume of day d; t in [0, 1] is the position in the window (growth)."""
    growth = 1.0 + 1.2 * t
    return growth * WEEKDAY_FACTOR[d.weekday()] * festival_factor(d)


def price_factor(d: date) -> float:
    """Promotional price multiplier for order items sold on day d."""
    m, day = d.month, d.day
    if m == 11 and day <= 11:
        return 0.80 if day == 11 else 0.88
    if m == 6 and day <= 18:
        return 0.85 if day == 18 else 0.92
    if m == 12 and day == 12:
        return 0.9
    return 1.0


def season_factor(season: str, month: int) -> float:
    if not season:
        return 1.0
    months = SUMMER_MONTHS if season == "summer" else WINTER_MONTHS
    return 3.0 if month in months else 0.4


def allocate(weights: list[float], total: int, minimum: int = 1) -> list[int]:
    """Split `total` into integer counts proportional to `weights`, each at least `minimum`.

    Largest-remainder rounding with index tie-breaking, so the result is deterministic.
    """
    n = len(weights)
    if total < minimum * n:
        raise ValueError(f"need at least {minimum * n} items for {n} slots, got {total}")
    extra = total - minimum * n
    wsum = sum(weights)
    shares = [extra * w / wsum for w in weights]
    counts = [minimum + int(s) for s in shares]
    left = total - sum(counts)
    order = sorted(range(n), key=lambda i: (-(shares[i] - int(shares[i])), i))
    for i in order[:left]:
        counts[i] += 1
    return counts
