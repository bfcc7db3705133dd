"""Explain: a short answer in the user's language, built from the result (no model call, no invention)."""

from __future__ import annotations

from wenshu.i18n import pick


def fmt_value(v) -> str:
    """A result value as the answer shows it: thousands separators, money to 2 decimals."""
    if isinstance(v, float):
        return f"{v:,.2f}"
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}"
    return "NULL" if v is None else str(v)


def _measure_index(rows: list[list]) -> int | None:
    if not rows:
        return None
    for i in range(len(rows[0]) - 1, -1, -1):
        if all(isinstance(r[i], (int, float)) and not isinstance(r[i], bool) for r in rows if r[i] is not None):
            return i
    return None


def summarize(lang: str, query_type: str, columns: list[str], rows: list[list], row_count: int, truncated: bool) -> str:
    if row_count == 0:
        return pick(lang, "The query ran but found no matching rows.", "查询已执行，但没有符合条件的数据。")
    if row_count == 1 and len(columns) <= 3:
        pairs = "，".join if lang == "zh" else ", ".join
        body = pairs(f"{c} = {fmt_value(v)}" for c, v in zip(columns, rows[0]))
        return pick(lang, f"Result: {body}.", f"结果：{body}。")
    m = _measure_index(rows)
    head = pick(lang, f"{row_count:,} rows", f"共 {row_count:,} 行")
    if truncated:
        head += pick(lang, f" (showing the first {len(rows):,})", f"（仅显示前 {len(rows):,} 行）")
    if m is None or len(columns) < 2:
        return head + pick(lang, ".", "。")
    label_i = 0 if m != 0 else 1
    first = rows[0]
    if query_type == "trend":
        last = rows[-1]
        return head + pick(
            lang,
            f"; {columns[m]} went from {fmt_value(first[m])} ({first[label_i]}) to {fmt_value(last[m])} ({last[label_i]}).",
            f"；{columns[m]} 从 {fmt_value(first[m])}（{first[label_i]}）变为 {fmt_value(last[m])}（{last[label_i]}）。",
        )
    top = max(rows, key=lambda r: r[m] if r[m] is not None else float("-inf"))
    return head + pick(
        lang,
        f"; the highest {columns[m]} is {top[label_i]} with {fmt_value(top[m])}.",
        f"；{columns[m]} 最高的是 {top[label_i]}，为 {fmt_value(top[m])}。",
    )


def result_summary(columns: list[str], rows: list[list], row_count: int) -> str:
    """A one-line summary stored in conversation memory for follow-ups."""
    preview = "; ".join(", ".join(fmt_value(v) for v in r) for r in rows[:3])
    return f"{row_count} rows, columns ({', '.join(columns)}); first: {preview}"[:300]


def chitchat_reply(lang: str, intent: str) -> str:
    if intent == "chitchat":
        return pick(
            lang,
            "Hi! I am Wenshu. Ask me about your data, e.g. \"top 10 cities by orders last month\".",
            "你好！我是问数，可以用自然语言查询数据，例如「上个月每个城市的订单量Top10」。",
        )
    return pick(
        lang,
        "That is outside what I can do: I answer questions about the connected database.",
        "这个问题超出了我的能力范围：我只回答与已连接数据库相关的数据问题。",
    )


def nodata_reply(lang: str, words: list[str], closest: list[str]) -> str:
    about, tables = ", ".join(words), ", ".join(closest)
    if lang == "zh":
        return f"这个数据库里没有关于「{about}」的数据。" + (f"最接近的表是：{tables}，可以换个问法试试。" if tables else "")
    return f"This database has no data about {about}." + (f" Its closest tables are {tables}; try asking about those."
                                                         if tables else "")


def fallback_reply(lang: str, tried: list[str]) -> str:
    base = pick(lang, "Sorry, I could not handle this query; please rephrase it.", "暂时无法处理该查询，请换个问法。")
    if tried:
        base += pick(lang, " What I tried: ", " 尝试过：") + "; ".join(tried[-3:])
    return base
