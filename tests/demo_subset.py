"""The demo database's subset every engine's tests load (every 15th order, with what it references), and
the query plans run on each engine with the same results expected as on SQLite."""

from __future__ import annotations

import sqlite3
from datetime import date, timedelta
from pathlib import Path

from engine_data import Table

TODAY = date.today()
THIS_MONTH = TODAY.replace(day=1)
LAST_MONTH = (THIS_MONTH - timedelta(days=1)).replace(day=1)
WINDOW = {"start": LAST_MONTH.isoformat(), "end": THIS_MONTH.isoformat()}
YEAR_AGO = {"start": (THIS_MONTH.replace(year=THIS_MONTH.year - 1)).isoformat(), "end": THIS_MONTH.isoformat()}

COLUMNS = {  # the columns the semantic model uses, with portable types (and each table's key, as in the demo)
    "regions": "region_id INTEGER PRIMARY KEY, region_name TEXT",
    "cities": "city_id INTEGER PRIMARY KEY, city_name TEXT, region_id INTEGER, city_tier INTEGER",
    "categories": "category_id INTEGER PRIMARY KEY, category_name TEXT",
    "products": "product_id INTEGER PRIMARY KEY, product_name TEXT, category_id INTEGER, brand TEXT, unit_price REAL, cost_price REAL",
    "customers": "customer_id INTEGER PRIMARY KEY, customer_name TEXT, gender TEXT, city_id INTEGER, member_level INTEGER, "
                 "register_date DATE",
    "orders": "order_id INTEGER PRIMARY KEY, customer_id INTEGER, city_id INTEGER, order_date DATE, status INTEGER, channel TEXT, "
              "total_amount REAL, pay_amount REAL",
    "order_items": "item_id INTEGER PRIMARY KEY, order_id INTEGER, product_id INTEGER, quantity INTEGER, unit_price REAL",
    "refunds": "refund_id INTEGER PRIMARY KEY, order_id INTEGER, refund_time TEXT, refund_date DATE, refund_amount REAL, reason TEXT",
    "daily_traffic": "stat_date DATE, channel TEXT, uv INTEGER, pv INTEGER",
}
SUBSET = {  # every 15th order of the demo, with what it references
    "orders": "SELECT {cols} FROM orders WHERE order_id % 15 = 0",
    "order_items": "SELECT {cols} FROM order_items WHERE order_id % 15 = 0",
    "refunds": "SELECT {cols} FROM refunds WHERE order_id % 15 = 0",
    "customers": "SELECT {cols} FROM customers WHERE customer_id IN (SELECT customer_id FROM orders WHERE order_id % 15 = 0)",
}

PLANS = [
    {"measures": ["gmv"], "dimensions": ["region"], "window": WINDOW, "share": True},
    {"measures": ["gmv", "units_sold"], "dimensions": ["city"], "window": WINDOW, "order": "desc", "limit": 5},
    {"measures": ["item_sales", "gross_margin"], "dimensions": ["category"], "window": WINDOW},
    {"measures": ["aov", "refund_rate", "buyers"], "window": WINDOW, "filters": [{"dimension": "channel", "values": ["小程序"]}]},
    {"measures": ["all_orders"], "dimensions": ["order_status", "member_level"], "window": WINDOW},
    {"measures": ["gmv"], "dimensions": ["region"], "window": WINDOW, "compare": "previous"},
    {"measures": ["paid_orders", "uv", "conversion_rate"], "grain": "month", "window": YEAR_AGO},
    {"measures": ["refund_amount"], "grain": "quarter", "window": YEAR_AGO, "dimensions": ["refund_reason"]},
    {"measures": ["new_customers"], "grain": "year", "dimensions": ["gender"]},
    {"measures": ["gmv"], "grain": "day", "window": WINDOW, "filters": [{"dimension": "city_tier", "values": ["一线"]}]},
    {"measures": ["paid_orders", "aov"], "window": WINDOW, "filters": [{"dimension": "category", "values": ["母婴玩具"]}]},
    {"measures": ["gmv"], "share": True, "window": WINDOW, "filters": [{"dimension": "member_level", "values": ["钻石"]}]},
    {"measures": ["paid_orders", "uv"], "dimensions": ["channel"], "window": WINDOW, "per": "day"},
    {"records": "refund", "window": WINDOW, "order_by": "refund_amount", "order": "desc", "limit": 5,
     "filters": [{"dimension": "region", "values": ["华东"]}]},
    {"measures": ["gmv"], "dimensions": ["customer"], "window": YEAR_AGO, "order": "desc", "limit": 5},  # by key
    {"records": "refund", "window": YEAR_AGO, "columns": ["order_id", "refund_amount", "refund_reason"],
     "filters": [{"dimension": "refund_amount", "op": "gt", "values": [2000]}]},  # named fields and a bound
    {"measures": ["gmv", "aov"], "dimensions": ["channel"], "grain": "month", "window": YEAR_AGO, "compare": "previous"},
    {"measures": ["paid_orders"], "grain": "quarter", "window": YEAR_AGO, "compare": "yoy"},  # each period vs its own
    {"measures": ["repeat_buyers", "repeat_rate"], "dimensions": ["channel"], "window": YEAR_AGO},  # keys with 2+ rows
    {"measures": ["refund_rate", "aov"], "window": WINDOW, "compare": "previous"},  # a rate changes by points
    {"measures": ["gmv"], "dimensions": ["city"], "window": YEAR_AGO,  # the members whose total passes a bound
     "having": [{"dimension": "gmv", "op": "gt", "values": [1000]}]},
    {"measures": ["paid_orders"], "dimensions": ["customer"], "window": YEAR_AGO, "count_members": True,
     "having": [{"dimension": "paid_orders", "op": "gte", "values": [2]}]},  # how many members pass
    {"measures": ["gmv"], "grain": "day", "window": WINDOW, "count_members": True,
     "having": [{"dimension": "gmv", "op": "gt", "values": [500]}]},  # how many days pass
    {"measures": ["gmv"], "dimensions": ["city", "region"], "window": YEAR_AGO, "count_members": True,
     "having": [{"dimension": "gmv", "op": "gt", "values": [1000]}]},  # how many pass in each group
    {"measures": ["unit_selling_price", "orders_per_buyer"], "dimensions": ["channel"], "window": YEAR_AGO},
    {"measures": ["gmv", "refund_rate"], "dimensions": ["region"], "window": YEAR_AGO, "difference": True,
     "filters": [{"dimension": "region", "values": ["华东", "华南"]}]},  # two members side by side, and the gaps
    {"measures": ["paid_orders"], "dimensions": ["city_tier"], "window": YEAR_AGO, "difference": True,
     "filters": [{"dimension": "city_tier", "values": ["一线", "二线"]}]},  # coded members, matched by label
    {"measures": ["buyers"], "dimensions": ["member_level"], "window": YEAR_AGO,  # the year's buyers with no paid
     "presence": [{"measure": "paid_orders", "window": WINDOW}]},  # order last month (one table inside and out)
    {"measures": ["new_customers"], "presence": [{"measure": "refund_count", "has": True}]},  # refunded, via orders
    {"measures": ["item_sales"], "dimensions": ["category", "brand"], "window": YEAR_AGO, "order": "desc", "limit": 2,
     "limit_per": True},  # the top two in each group
    {"measures": ["gmv"], "dimensions": ["city_tier"], "window": YEAR_AGO, "rank_of": True,
     "filters": [{"dimension": "city_tier", "values": ["二线"]}]},  # one member's rank among all
    {"records": "categories", "presence": [{"measure": "units_sold", "window": WINDOW,  # nothing sold in a region
                                            "filters": [{"dimension": "region", "values": ["华东"]}]}]},
]


def columns(table: str) -> list[tuple[str, str]]:
    return [tuple(c.split(" ", 1)) for c in COLUMNS[table].split(", ")]  # (name, "INTEGER PRIMARY KEY")


def demo_tables(demo_db: Path) -> dict[str, Table]:
    """The subset of the demo database, as portable tables."""
    with sqlite3.connect(demo_db) as conn:
        out = {}
        for table in COLUMNS:
            cols = columns(table)
            names = ", ".join(c for c, _ in cols)
            out[table] = (cols, conn.execute(SUBSET.get(table, "SELECT {cols} FROM " + table).format(cols=names)).fetchall())
        return out
