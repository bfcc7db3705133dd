"""Row generators for the demo database.

Each generator takes its own `random.Random`, and only draws from it in a fixed order, so the
same seed and end date always give the same rows. Money is computed in integer cents and only
converted to yuan when a row is emitted, so totals add up exactly.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from itertools import accumulate

from wenshu.demo import reference as ref
from wenshu.demo.seasonality import allocate, day_weight, price_factor, season_factor, window_days

STATUS_CUM, STATUS_CODES = (80, 88, 95, 100), (1, 0, 2, 3)  # 已支付 / 待支付 / 已取消 / 已退款
ITEMS_CUM = (55, 82, 94, 100)  # 1..4 distinct draws per order
QTY_CUM = (72, 91, 97, 100)  # 1..4 units per draw
MEMBER_CUM = (55, 80, 94, 100)  # 普通会员 / 银卡 / 金卡 / 钻石
COUPONS = ((100000, 8000), (50000, 4000), (30000, 3000), (20000, 2000), (10000, 1000), (5000, 500))
CHANNEL_IDS = tuple(c for c, _ in ref.CHANNELS)
DAY = 86400


def _pick(rng: random.Random, cum) -> int:
    """Index drawn from cumulative weights (same method as random.choices)."""
    return bisect_right(cum, rng.random() * cum[-1])


@dataclass
class Reference:
    regions: list[tuple] = field(default_factory=list)
    cities: list[tuple] = field(default_factory=list)
    categories: list[tuple] = field(default_factory=list)
    products: list[tuple] = field(default_factory=list)
    city_cum: list[float] = field(default_factory=list)
    price_cents: list[int] = field(default_factory=list)
    product_cum: dict[int, list[float]] = field(default_factory=dict)  # month -> cumulative weights


def build_reference(rng: random.Random) -> Reference:
    out = Reference()
    out.regions = [(i + 1, name) for i, (name, _) in enumerate(ref.REGIONS)]
    region_ids = {name: rid for rid, name in out.regions}
    region_weight = dict(ref.REGIONS)
    out.cities = [(i + 1, name, region_ids[r], tier) for i, (name, r, tier) in enumerate(ref.CITIES)]
    out.city_cum = list(accumulate(region_weight[r] * ref.TIER_WEIGHT[t] for _, r, t in ref.CITIES))

    out.categories = [(i + 1, name) for i, (name, _, _) in enumerate(ref.CATEGORIES)]
    category_ids = {name: cid for cid, name in out.categories}
    popularity = {name: w for name, w, _ in ref.CATEGORIES}
    cost_ratio = {name: r for name, _, r in ref.CATEGORIES}
    # Within a category cheaper products sell more (weight ~ 1/sqrt(price)).
    inv_sqrt = [1.0 / math.sqrt(p[3]) for p in ref.PRODUCTS]
    cat_norm: dict[str, float] = {}
    for p, w in zip(ref.PRODUCTS, inv_sqrt):
        cat_norm[p[0]] = cat_norm.get(p[0], 0.0) + w
    base = []
    for i, (cat, brand, name, price, _season) in enumerate(ref.PRODUCTS):
        cents = int(round(price * 100))
        cost = int(cents * cost_ratio[cat] * (0.9 + 0.2 * rng.random()) + 0.5)
        out.products.append((i + 1, name, category_ids[cat], brand, cents / 100, cost / 100))
        out.price_cents.append(cents)
        base.append(popularity[cat] * inv_sqrt[i] / cat_norm[cat])
    for month in range(1, 13):
        weights = (b * season_factor(p[4], month) for b, p in zip(base, ref.PRODUCTS))
        out.product_cum[month] = list(accumulate(weights))
    return out


@dataclass
class Customers:
    rows: list[tuple]
    register_ordinals: list[int]  # sorted; customer_id == index + 1
    city_ids: list[int]


def gen_customers(rng: random.Random, reference: Reference, start: date, end: date, n: int) -> Customers:
    """Customers in registration order: ~30% joined in the two years before the order window."""
    before, first, last = start.toordinal() - 730, start.toordinal(), end.toordinal()
    ordinals = []
    for _ in range(n):
        if rng.random() < 0.3:
            ordinals.append(before + int((first - before) * rng.random()))
        else:
            u = rng.random()
            t = u if rng.random() < 0.5 else max(u, rng.random())  # density grows over time
            ordinals.append(min(last, first + int((last - first + 1) * t)))
    ordinals.sort()
    ordinals[0] = min(ordinals[0], first - 1)  # somebody can order on the first day
    iso: dict[int, str] = {}
    rows, cities = [], []
    for i, o in enumerate(ordinals):
        name = rng.choice(ref.SURNAMES) + rng.choice(ref.GIVEN_CHARS)
        if rng.random() < 0.6:
            name += rng.choice(ref.GIVEN_CHARS)
        gender = "M" if rng.random() < 0.48 else "F"
        city_id = _pick(rng, reference.city_cum) + 1
        level = _pick(rng, MEMBER_CUM)
        phone = f"{rng.choice(ref.PHONE_PREFIXES)}****{rng.randrange(10000):04d}"
        day = iso.get(o) or iso.setdefault(o, date.fromordinal(o).isoformat())
        rows.append((i + 1, name, gender, city_id, level, day, phone))
        cities.append(city_id)
    return Customers(rows, ordinals, cities)


@dataclass
class DayBatch:
    day: str
    orders: list[tuple]
    items: list[tuple]
    refunds: list[tuple]
    channel_orders: list[int]  # per CHANNEL_IDS


def _clock(sec: int) -> str:
    return f"{sec // 3600:02d}:{sec // 60 % 60:02d}:{sec % 60:02d}"


def _coupon(rng: random.Random, total: int) -> int:
    if rng.random() >= 0.35:
        return 0
    return next((off for threshold, off in COUPONS if total >= threshold), 0)


def gen_orders(
    rng: random.Random, reference: Reference, customers: Customers, end: date, n_orders: int
) -> Iterator[DayBatch]:
    """Yield the orders of each day of the window, oldest first, with their items and refunds."""
    days = window_days(end)
    span = max(len(days) - 1, 1)
    weights = [day_weight(d, i / span) * (0.9 + 0.2 * rng.random()) for i, d in enumerate(days)]
    counts = allocate(weights, n_orders)
    hour_cum = list(accumulate(ref.HOUR_WEIGHTS))
    reason_cum = list(accumulate(w for _, w in ref.REFUND_REASONS))
    end_limit = (end.toordinal() + 1) * DAY - 1
    price_cents = reference.price_cents
    order_id = item_id = refund_id = 0

    for i, (d, count) in enumerate(zip(days, counts)):
        t = i / span
        channel_cum = list(accumulate((0.55, 0.23 - 0.12 * t, 0.22 + 0.12 * t)))
        product_cum = reference.product_cum[d.month]
        promo = price_factor(d)
        ds, base = d.isoformat(), d.toordinal() * DAY
        eligible = bisect_right(customers.register_ordinals, d.toordinal())
        secs = sorted(_pick(rng, hour_cum) * 3600 + rng.randrange(3600) for _ in range(count))
        batch = DayBatch(ds, [], [], [], [0] * len(CHANNEL_IDS))
        for sec in secs:
            order_id += 1
            u = rng.random()
            c = int(eligible * u * u) if rng.random() < 0.35 else int(eligible * u)  # loyal old buyers
            city_id = customers.city_ids[c] if rng.random() < 0.88 else _pick(rng, reference.city_cum) + 1
            ch = _pick(rng, channel_cum)
            batch.channel_orders[ch] += 1
            lines: dict[int, int] = {}
            for _ in range(_pick(rng, ITEMS_CUM) + 1):
                p = _pick(rng, product_cum)
                qty = 1 if price_cents[p] >= 100000 else _pick(rng, QTY_CUM) + 1
                lines[p] = lines.get(p, 0) + qty
            total = 0
            for p, qty in lines.items():
                item_id += 1
                cents = price_cents[p] * promo * (0.95 if rng.random() < 0.15 else 1.0)
                unit = int(cents + 0.5)
                total += unit * qty
                batch.items.append((item_id, order_id, p + 1, qty, unit / 100))
            status = STATUS_CODES[_pick(rng, STATUS_CUM)]
            pay = total - _coupon(rng, total) if status in (1, 3) else 0
            when = f"{ds} {_clock(sec)}"
            batch.orders.append(
                (order_id, c + 1, city_id, when, ds, status, CHANNEL_IDS[ch], total / 100, pay / 100)
            )
            if status == 3:
                refund_id += 1
                refund = _refund(rng, refund_id, order_id, base + sec, end_limit, pay, reason_cum)
                batch.refunds.append(refund)
        yield batch


def _refund(
    rng: random.Random, refund_id: int, order_id: int, order_ts: int, end_limit: int, pay: int, reason_cum
) -> tuple:
    """A refund 1 hour to 15 days after the order, never later than the end of the window."""
    ts = order_ts + rng.randrange(3600, 15 * DAY)
    if ts > end_limit:
        ts = order_ts + int((end_limit - order_ts) * rng.random())
    amount = pay if rng.random() < 0.8 else max(1, int(pay * (0.3 + 0.6 * rng.random())))
    reason = ref.REFUND_REASONS[_pick(rng, reason_cum)][0]
    day = date.fromordinal(ts // DAY).isoformat()
    return (refund_id, order_id, f"{day} {_clock(ts % DAY)}", day, amount / 100, reason)


# Conversion rate (orders / UV) and PV-per-UV range of each channel.
TRAFFIC = {"app": (0.045, 6.0, 9.0), "web": (0.018, 3.0, 5.0), "mini_program": (0.032, 4.0, 6.0)}


def gen_traffic(rng: random.Random, daily: list[tuple[str, list[int]]]) -> list[tuple]:
    """One (stat_date, channel, uv, pv) row per day and channel, consistent with the order counts."""
    rows = []
    for day, counts in daily:
        for ch, n in zip(CHANNEL_IDS, counts):
            cr, lo, hi = TRAFFIC[ch]
            uv = int((n + 2) / cr * (0.85 + 0.3 * rng.random()))
            pv = int(uv * (lo + (hi - lo) * rng.random()))
            rows.append((day, ch, uv, pv))
    return rows
