"""Many statements through one guard: JSON lines in, one outcome per line out, in order.

Each input line is `{"sql": "...", "dialect": "optional"}`. A line that is not such an object
yields an outcome with code `input_invalid_json` (layer 0, not passed) and the run goes on.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from wenshu.catalog import Catalog
from wenshu.guard.guard import Guard
from wenshu.guard.outcome import ValidationOutcome


def _invalid(why: str) -> ValidationOutcome:
    return ValidationOutcome(
        False, 0, "input_invalid_json", f"The input line is not a JSON object with a string `sql`: {why}.",
        'Send one JSON object per line, for example {"sql": "SELECT 1", "dialect": "sqlite"}.', "",
    )  # fmt: skip


def _item(line: str) -> tuple[str, str | None] | ValidationOutcome:
    try:
        item = json.loads(line)
    except ValueError as err:
        return _invalid(str(err).split(":")[0])
    if not isinstance(item, dict) or not isinstance(item.get("sql"), str):
        return _invalid("`sql` is missing or not a string")
    dialect = item.get("dialect")
    if dialect is not None and not isinstance(dialect, str):
        return _invalid("`dialect` is not a string")
    return item["sql"], dialect


def check_lines(lines: Iterable[str], guard: Guard, *, dialect: str = "", catalog: Catalog | None = None,
                url: str | None = None) -> Iterator[ValidationOutcome]:
    """One outcome per non-blank line; a line's own `dialect` overrides the default."""
    for line in lines:
        if not line.strip():
            continue
        parsed = _item(line)
        if isinstance(parsed, ValidationOutcome):
            yield parsed
            continue
        sql, own = parsed
        yield guard.check(sql, dialect=own or dialect, catalog=catalog, url=url)
