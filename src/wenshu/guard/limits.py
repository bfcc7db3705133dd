"""Layer 3 row limit: add a LIMIT when absent, lower it when larger, and keep the model's formatting
(append `LIMIT n` or replace the number) whenever such a small text edit gives the same tree."""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import TokenType

from wenshu.guard.outcome import Problem


def int_literal(node: exp.Expression | None) -> int | None:
    if isinstance(node, exp.Neg):
        inner = int_literal(node.this)
        return None if inner is None else -inner
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return int(node.this)
        except ValueError:
            return None
    return None


def apply_limit(tree: exp.Expression, row_limit: int) -> tuple[exp.Expression, str]:
    """The tree with a top-level limit of at most `row_limit`, and a note ('' when unchanged)."""
    if isinstance(tree, exp.Values):
        alias = exp.TableAlias(this=exp.to_identifier("_wenshu_values"))
        wrapped = exp.select("*").from_(exp.Subquery(this=tree, alias=alias)).limit(row_limit)
        return wrapped, f"LIMIT {row_limit} was added."
    limit = tree.args.get("limit")
    if limit is None:
        return tree.limit(row_limit, copy=False), f"LIMIT {row_limit} was added."
    key = "count" if isinstance(limit, exp.Fetch) else "expression"
    current = int_literal(limit.args.get(key))
    if current is not None and 0 <= current <= row_limit:
        return tree, ""
    limit.set(key, exp.Literal.number(row_limit))
    was = f"LIMIT {current}" if current is not None else "a non-constant limit"
    return tree, f"{was} was lowered to the row limit {row_limit}."


def _parses_to(candidate: str, dialect: str, target: exp.Expression) -> bool:
    try:
        parsed = [e for e in sqlglot.parse(candidate, read=dialect or None) if e is not None]
    except (ParseError, TokenError):
        return False
    return len(parsed) == 1 and parsed[0] == target


def _number_replaced(text: str, dialect: str, row_limit: int) -> str | None:
    """`text` with the number of its top-level LIMIT / FETCH replaced by `row_limit`."""
    try:
        tokens = sqlglot.tokenize(text, read=dialect or None)
    except (TokenError, ValueError):
        return None
    depth, last = 0, None
    for i, tok in enumerate(tokens):
        if tok.token_type == TokenType.L_PAREN:
            depth += 1
        elif tok.token_type == TokenType.R_PAREN:
            depth -= 1
        elif depth == 0 and tok.token_type in (TokenType.LIMIT, TokenType.FETCH):
            last = i
    if last is None:
        return None
    for j in range(last + 1, min(last + 4, len(tokens))):
        tok = tokens[j]
        if tok.token_type == TokenType.NUMBER:
            start = tokens[j - 1].start if tokens[j - 1].token_type == TokenType.DASH else tok.start
            return text[:start] + str(row_limit) + text[tok.end + 1 :]
        if tok.token_type == TokenType.L_PAREN:
            return None
    return None


def edited_text(sql: str, dialect: str, target: exp.Expression, row_limit: int) -> str | None:
    """`sql` changed as little as possible (append a LIMIT, or replace the limit's number) so that
    it parses to `target`; None when no such small edit is found. Keeps the model's formatting.

    Each candidate is re-parsed and kept only when it gives exactly `target` (appending is wrong,
    for example, before ClickHouse SETTINGS or after a trailing line comment)."""
    text = sql.strip()
    while text.endswith(";"):
        text = text[:-1].rstrip()
    last_line = text.rsplit("\n", 1)[-1]
    if target.args.get("limit") is not None:
        sep = "\n" if ("--" in last_line or "#" in last_line) else " "
        appended = f"{text}{sep}LIMIT {row_limit}"
        if _parses_to(appended, dialect, target):
            return appended
    replaced = _number_replaced(text, dialect, row_limit)
    return replaced if replaced is not None and _parses_to(replaced, dialect, target) else None


def limit_problem(err: Exception, row_limit: int) -> Problem:
    return Problem(
        "sql_limit_unsupported", f"A row limit could not be applied to this query ({err}).",
        f"Add `LIMIT {row_limit}` at the end of the query yourself.",
    )  # fmt: skip
