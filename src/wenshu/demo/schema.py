"""Table definitions of the demo database, with Chinese comments and enum annotations.

The comments and enums are written into the sidecar tables `_wenshu_tables` / `_wenshu_columns`
documented in `wenshu.catalog.model`, because SQLite has no `COMMENT` syntax.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from wenshu.demo.reference import CHANNELS

ORDER_STATUS = {"0": "待支付", "1": "已支付", "2": "已取消", "3": "已退款"}
CHANNEL_LABELS = dict(CHANNELS)
GENDER = {"M": "男", "F": "女"}
MEMBER_LEVEL = {"0": "普通会员", "1": "银卡", "2": "金卡", "3": "钻石"}
CITY_TIER = {"1": "一线", "2": "新一线", "3": "二线", "4": "其他"}


@dataclass(frozen=True)
class Column:
    name: str
    decl: str
    comment: str
    enum: dict[str, str] | None = None


@dataclass(frozen=True)
class Table:
    name: str
    comment: str
    columns: tuple[Column, ...]
    constraints: tuple[str, ...] = ()
    indexes: tuple[str, ...] = ()  # single-column indexes

    def create_sql(self) -> str:
        parts = [f"    {c.name} {c.decl}" for c in self.columns]
        parts += [f"    {c}" for c in self.constraints]
        return f"CREATE TABLE {self.name} (\n" + ",\n".join(parts) + "\n)"

    def index_sql(self) -> list[str]:
        return [f"CREATE INDEX idx_{self.name}_{col} ON {self.name}({col})" for col in self.indexes]


def _fk(column: str, target: str) -> str:
    return f"FOREIGN KEY ({column}) REFERENCES {target}({column})"


TABLES: tuple[Table, ...] = (
    Table("regions", "大区表：全国七大销售大区", (
        Column("region_id", "INTEGER PRIMARY KEY", "大区ID"),
        Column("region_name", "TEXT NOT NULL UNIQUE", "大区名称，如 华东、华北、华南"),
    )),
    Table("cities", "城市表：城市及其所属大区和城市等级", (
        Column("city_id", "INTEGER PRIMARY KEY", "城市ID"),
        Column("city_name", "TEXT NOT NULL UNIQUE", "城市名称，如 上海、北京、成都"),
        Column("region_id", "INTEGER NOT NULL", "所属大区ID，关联 regions.region_id"),
        Column("city_tier", "INTEGER NOT NULL", "城市等级", CITY_TIER),
    ), (_fk("region_id", "regions"),), ("region_id",)),
    Table("customers", "客户表：注册用户（会员）信息", (
        Column("customer_id", "INTEGER PRIMARY KEY", "客户ID"),
        Column("customer_name", "TEXT NOT NULL", "客户姓名"),
        Column("gender", "TEXT NOT NULL", "性别", GENDER),
        Column("city_id", "INTEGER NOT NULL", "客户所在城市ID，关联 cities.city_id"),
        Column("member_level", "INTEGER NOT NULL", "会员等级", MEMBER_LEVEL),
        Column("register_date", "TEXT NOT NULL", "注册日期，格式 YYYY-MM-DD"),
        Column("phone", "TEXT NOT NULL", "手机号（已脱敏，中间四位为*）"),
    ), (_fk("city_id", "cities"),), ("city_id", "register_date")),
    Table("categories", "商品品类表", (
        Column("category_id", "INTEGER PRIMARY KEY", "品类ID"),
        Column("category_name", "TEXT NOT NULL UNIQUE", "品类名称，如 手机数码、服装鞋帽"),
    )),
    Table("products", "商品表：在售商品及其价格", (
        Column("product_id", "INTEGER PRIMARY KEY", "商品ID"),
        Column("product_name", "TEXT NOT NULL", "商品名称"),
        Column("category_id", "INTEGER NOT NULL", "所属品类ID，关联 categories.category_id"),
        Column("brand", "TEXT NOT NULL", "品牌"),
        Column("unit_price", "REAL NOT NULL", "标价（元）"),
        Column("cost_price", "REAL NOT NULL", "成本价（元）；毛利 = (order_items.unit_price - cost_price) × quantity"),
    ), (_fk("category_id", "categories"),), ("category_id",)),
    Table("orders", "订单表：每行一个订单；统计销售额、订单量时通常只计已支付订单（status=1）", (
        Column("order_id", "INTEGER PRIMARY KEY", "订单ID"),
        Column("customer_id", "INTEGER NOT NULL", "下单客户ID，关联 customers.customer_id"),
        Column("city_id", "INTEGER NOT NULL", "收货城市ID，关联 cities.city_id"),
        Column("order_time", "TEXT NOT NULL", "下单时间，格式 YYYY-MM-DD HH:MM:SS"),
        Column("order_date", "TEXT NOT NULL", "下单日期，格式 YYYY-MM-DD"),
        Column("status", "INTEGER NOT NULL", "订单状态", ORDER_STATUS),
        Column("channel", "TEXT NOT NULL", "下单渠道", CHANNEL_LABELS),
        Column("total_amount", "REAL NOT NULL", "订单商品总金额（元），等于订单明细 数量×成交单价 之和"),
        Column("pay_amount", "REAL NOT NULL",
               "实付金额（元），扣除优惠券后的金额；仅已支付和已退款订单非0"),
    ), (_fk("customer_id", "customers"), _fk("city_id", "cities")),
        ("customer_id", "city_id", "order_date")),
    Table("order_items", "订单明细表：订单中的每个商品一行", (
        Column("item_id", "INTEGER PRIMARY KEY", "明细ID"),
        Column("order_id", "INTEGER NOT NULL", "订单ID，关联 orders.order_id"),
        Column("product_id", "INTEGER NOT NULL", "商品ID，关联 products.product_id"),
        Column("quantity", "INTEGER NOT NULL", "购买数量（件）"),
        Column("unit_price", "REAL NOT NULL", "成交单价（元），促销期间可能低于商品标价"),
    ), (_fk("order_id", "orders"), _fk("product_id", "products")), ("order_id", "product_id")),
    Table("refunds", "退款表：每个已退款订单（orders.status=3）一行", (
        Column("refund_id", "INTEGER PRIMARY KEY", "退款ID"),
        Column("order_id", "INTEGER NOT NULL UNIQUE", "订单ID，关联 orders.order_id"),
        Column("refund_time", "TEXT NOT NULL", "退款时间，格式 YYYY-MM-DD HH:MM:SS"),
        Column("refund_date", "TEXT NOT NULL", "退款日期，格式 YYYY-MM-DD"),
        Column("refund_amount", "REAL NOT NULL", "退款金额（元），不超过订单实付金额"),
        Column("reason", "TEXT NOT NULL", "退款原因"),
    ), (_fk("order_id", "orders"),), ("refund_date",)),
    Table("daily_traffic", "每日流量表：每天每个渠道一行", (
        Column("stat_date", "TEXT NOT NULL", "统计日期，格式 YYYY-MM-DD"),
        Column("channel", "TEXT NOT NULL", "渠道", CHANNEL_LABELS),
        Column("uv", "INTEGER NOT NULL", "访客数（UV，独立访客）"),
        Column("pv", "INTEGER NOT NULL", "浏览量（PV，页面浏览次数）"),
    ), ("PRIMARY KEY (stat_date, channel)",)),
)

SIDECAR_DDL = (
    "CREATE TABLE _wenshu_tables (table_name TEXT PRIMARY KEY, comment TEXT)",
    "CREATE TABLE _wenshu_columns (table_name TEXT, column_name TEXT, comment TEXT, enum_json TEXT, "
    "PRIMARY KEY (table_name, column_name))",
    "CREATE TABLE _wenshu_build (key TEXT PRIMARY KEY, value TEXT)",
)


def table_names() -> list[str]:
    return [t.name for t in TABLES]


def create_tables(conn: sqlite3.Connection) -> None:
    """Create the business tables and the sidecar tables (no indexes: those come after the load)."""
    for table in TABLES:
        conn.execute(table.create_sql())
    for ddl in SIDECAR_DDL:
        conn.execute(ddl)


def create_indexes(conn: sqlite3.Connection) -> None:
    for table in TABLES:
        for sql in table.index_sql():
            conn.execute(sql)


def write_annotations(conn: sqlite3.Connection) -> None:
    """Write table/column comments and enum labels into the sidecar tables."""
    conn.executemany(
        "INSERT INTO _wenshu_tables (table_name, comment) VALUES (?, ?)",
        [(t.name, t.comment) for t in TABLES],
    )
    conn.executemany(
        "INSERT INTO _wenshu_columns (table_name, column_name, comment, enum_json) VALUES (?, ?, ?, ?)",
        [
            (t.name, c.name, c.comment, json.dumps(c.enum, ensure_ascii=False) if c.enum else None)
            for t in TABLES
            for c in t.columns
        ],
    )
