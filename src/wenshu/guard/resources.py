"""Layer 3 resource bombs: functions that build huge values or row sets from a small constant.

A call is refused when a constant size argument exceeds `max_size` (default
`settings.guard_max_size`, 1,000,000): blob and string builders (`randomblob`, `zeroblob`,
`repeat`/`replicate`, `lpad`/`rpad`, `space`, ClickHouse pads and random strings), row-set builders
(`generate_series`, `range`, `sequence`, `numbers`: the span end - start over the step), and format
functions (`printf`, `format`, `sprintf`) whose width or precision, or whose `*` width argument, is
that large. Names are matched without case in every dialect. Sizes that depend on data pass here;
the plan check and the read-only connection's time limit still bound them.
"""

from __future__ import annotations

import math
import re

from sqlglot import exp

from wenshu.guard.constants import fold
from wenshu.guard.functions import function_names
from wenshu.guard.outcome import Problem

DEFAULT_MAX_SIZE = 1_000_000
# name -> positions of the arguments that are sizes (bytes, characters or elements)
SIZE_ARGS = {
    "randomblob": (0,), "zeroblob": (0,), "repeat": (1,), "replicate": (1,), "lpad": (1,),
    "rpad": (1,), "pad": (1,), "space": (0,), "leftpad": (1,), "rightpad": (1,), "leftpadutf8": (1,),
    "rightpadutf8": (1,), "randomstring": (0,), "randomprintableascii": (0,),
    "randomstringutf8": (0,), "randomfixedstring": (0,), "arraywithconstant": (0,), "zeros": (0,),
    "zeros_mt": (0,), "array_repeat": (1,), "list_repeat": (1,),
}  # fmt: skip
SERIES = {"generate_series", "range", "sequence", "generate_array"}
COUNTED_SERIES = {"numbers", "numbers_mt"}  # numbers(count) or numbers(offset, count)
FORMATS = {"printf", "format", "sprintf", "format_string"}
_SPEC = re.compile(r"%%|%(?:\d+\$)?[-+ #0']*(\*(?:\d+\$)?|\d+)?(?:\.(\*(?:\d+\$)?|\d+))?")


def arguments(node: exp.Func) -> list[exp.Expression]:
    """A call's arguments in the order they were written."""
    if isinstance(node, exp.Anonymous):
        return list(node.expressions)
    out: list[exp.Expression] = []
    for key in type(node).arg_types:
        value = node.args.get(key)
        if isinstance(value, list):
            out += [v for v in value if isinstance(v, exp.Expression)]
        elif isinstance(value, exp.Expression):
            out.append(value)
    return out


def _series_span(node: exp.Func, args: list[exp.Expression]) -> float | None:
    if isinstance(node, exp.GenerateSeries):
        start, end, step = node.args.get("start"), node.args.get("end"), node.args.get("step")
        values = [fold(start) if start is not None else 0.0, fold(end), fold(step) if step is not None else 1.0]
    elif len(args) == 1:
        values = [0.0, fold(args[0]), 1.0]
    else:
        values = [fold(a) for a in args[:2]] + [fold(args[2]) if len(args) > 2 else 1.0]
    start, end, step = values
    if start is None or end is None:
        return None
    if step is None or step == 0:
        return abs(end - start)
    return abs((end - start) / step)


def _format_size(args: list[exp.Expression]) -> float | None:
    """The largest width or precision a constant format string asks for."""
    if not args or not (isinstance(args[0], exp.Literal) and args[0].is_string):
        return None
    sizes: list[float] = []
    star = False
    for m in _SPEC.finditer(args[0].this):
        for part in m.groups():
            if part and part.startswith("*"):
                star = True
            elif part:
                sizes.append(float(part))
    if star:
        sizes += [abs(v) for v in (fold(a) for a in args[1:]) if v is not None]
    return max(sizes, default=None)


def call_size(node: exp.Func) -> tuple[str, float] | None:
    """(name, size) for a call that builds a value or row set of a constant size, else None."""
    args = arguments(node)
    if isinstance(node, exp.GenerateSeries):
        span = _series_span(node, args)
        return None if span is None else ("generate_series", span)
    for name in sorted(function_names(node)):
        if name in SIZE_ARGS:
            sizes = [fold(args[i]) for i in SIZE_ARGS[name] if i < len(args)]
            sizes = [abs(s) for s in sizes if s is not None]
            return (name, max(sizes)) if sizes else None
        if name in SERIES and args:
            span = _series_span(node, args)
            return None if span is None else (name, span)
        if name in COUNTED_SERIES and args:
            count = fold(args[1] if len(args) > 1 else args[0])
            return None if count is None else (name, abs(count))
        if name in FORMATS:
            size = _format_size(args)
            return None if size is None else (name, size)
    return None


def _shown(node: exp.Func, name: str) -> str:
    if isinstance(node, exp.Pad):
        return "lpad" if node.args.get("is_left") else "rpad"
    return str(node.name).lower() if isinstance(node, exp.Anonymous) else name


def _fmt(n: float) -> str:
    return "an unbounded number" if math.isinf(n) or math.isnan(n) else f"{n:,.0f}"


def resource_problem(tree: exp.Expression, max_size: int = DEFAULT_MAX_SIZE) -> Problem | None:
    for node in tree.find_all(exp.Func):
        found = call_size(node)
        if found is None:
            continue
        name, size = _shown(node, found[0]), found[1]
        if not size <= max_size:  # NaN and infinity refuse too
            return Problem(
                "sql_resource_bomb",
                f"{name}() with a constant size of {_fmt(size)} would build a huge value or row set "
                f"(at most {max_size:,} allowed).",
                f"Do not call {name}() with sizes above {max_size:,}; compute the answer from the "
                "datasource's tables instead.",
            )  # fmt: skip
    return None
