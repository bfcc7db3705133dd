"""Two members of a split side by side, with the gap between them, in one row: "上个月华东和华南各卖了多少钱？差了
多少？", "app比小程序多几单", "Guangzhou versus Shenzhen: each city's average order value, and the gap".

The plan is the usual split by the dimension, filtered to its two members (`QueryPlan.pair`); its compiled rows
(one per member) are turned into one row here: each measure of the first member, of the second, and the first's
minus the second's (a percentage's gap in points, as its change is). The members are matched on the value the
answer shows (a code's label, a keyed member's name), so the pivot works on any engine."""

from __future__ import annotations

from wenshu.semantic.compiled import literal
from wenshu.semantic.labels import GAP, coded, member_column


def _code(d, value):
    """The stored code of `value`, said as the code or as one of its labels."""
    codes = {label: code for code, label in d.labels.items()} | {label: code for code, label in d.labels_en.items()}
    return codes.get(value, value) if isinstance(value, str) else value


def member_shown(d, value, lang: str) -> str:
    """The value `value` (a stored code or its label) shows as in the answer's member column."""
    return d.label(str(_code(d, value)), lang) if coded(d) else _code(d, value)


def member_name(d, value, lang: str) -> str:
    """How a column names the member: its label where it has one (小程序 for mini_program), else as stored."""
    code = _code(d, value)
    return str(d.label(str(code), lang) or code)


def paired(writer, ctes: str, rows: str, metrics, dimension: str, values: list) -> tuple[str, list[str]]:
    """(SQL, columns): `rows` (a SELECT over the `ctes` WITH clause of one row per member, with the member column,
    one column per measure and each measure unrounded as r0, r1, …) turned into one row of both members' values and
    the gaps (of the unrounded values, rounded once)."""
    d = writer.dim(dimension)
    key = writer.q(writer.name(d))
    shown = [member_shown(d, v, writer.lang) for v in values]
    names = [member_name(d, v, writer.lang) for v in values]
    select, columns = [], []
    for i, mt in enumerate(metrics):
        measure = writer.name(mt)
        picks = [f"MAX(CASE WHEN g.{key} = {literal(s)} THEN g.{writer.q(measure)} END)" for s in shown]
        exact = [f"MAX(CASE WHEN g.{key} = {literal(s)} THEN g.r{i} END)" for s in shown]
        for name, pick in zip(names, picks):
            column = member_column(name, measure, writer.lang)
            select.append(f"{pick} AS {writer.q(column)}")
            columns.append(column)
        gap = GAP[writer.lang][writer.in_points(mt)].format(measure)
        raw = f"{exact[0]} - {exact[1]}"
        counted = getattr(mt, "agg", "") in ("count", "count_distinct")  # a count's gap is a whole number
        select.append(f"{raw if counted else writer.engine.round2(raw)} AS {writer.q(gap)}")
        columns.append(gap)
    return f"{ctes}, g AS ({rows}) SELECT {', '.join(select)} FROM g", columns
