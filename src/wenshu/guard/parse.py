"""Layer 1a: turn text into exactly one sqlglot tree, or a refusal.

Empty text, oversized text, nesting too deep for the parser, MySQL executable comments (`/*! */`),
text sqlglot cannot parse and several statements are refused here; sqlglot is never allowed to raise
past this module.
"""

from __future__ import annotations

import logging
import re

import sqlglot
from sqlglot import exp

from wenshu.guard.dialects import rules, shown
from wenshu.guard.outcome import Problem

# sqlglot warns on stderr when it falls back to a raw Command; the guard refuses those anyway.
logging.getLogger("sqlglot").setLevel(logging.ERROR)

MAX_SQL_CHARS = 20_000  # model-written analytics SQL is far shorter; sqlglot parses ~40k chars/s
MAX_DEPTH = 64  # parentheses nesting; deeper than any real query, shallow enough for the parser
WRITE_ONE = "Write one SELECT query that answers the question."


def _too_deep(text: str, limit: int) -> bool:
    depth, quoted = 0, False
    for ch in text:
        if ch == "'":
            quoted = not quoted
        elif quoted:
            continue
        elif ch == "(":
            depth += 1
            if depth > limit:
                return True
        elif ch == ")":
            depth -= 1
    return False


def _parse_error_text(err: Exception) -> str:
    errors = getattr(err, "errors", None) or []
    if errors:
        e = errors[0]
        near = (e.get("highlight") or "").strip()[:60]
        where = f" near `{near}`" if near else ""
        desc = e.get("description") or "syntax error"
        if "<" in desc or "Required keyword" in desc:  # sqlglot internals mean nothing to a model
            desc = "syntax error"
        return f"{desc}{where} (line {e.get('line')}, column {e.get('col')})"
    text = str(err).splitlines()[0] if str(err) else type(err).__name__
    return text[:200]


def _executable_comment(text: str, dialect: str) -> bool:
    """A `/*! ... */` or `/*M! ... */` comment: MySQL and MariaDB run its text as part of the statement, so
    what the parser sees as a comment may be a UNION over `mysql.user`. Refused in every dialect (a query
    never needs one), since the same text could be sent to a MySQL datasource."""
    try:
        tokens = sqlglot.tokenize(text, read=dialect or None)
    except Exception:  # noqa: BLE001 - the parser reports the syntax error
        return "/*!" in text or "/*M!" in text.upper()
    return any(c.lstrip().startswith(("!", "M!", "m!")) for t in tokens for c in t.comments)


_QUOTED = re.compile(r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\"|`[^`]*`")


def _dash_not_comment(text: str) -> bool:
    """`--` followed by something other than a blank, outside quotes: a comment to the parser, an
    expression to MySQL (`1 --+0 UNION SELECT ...` runs the UNION)."""
    return re.search(r"--(?![ \t\r\n\f\v]|$)", _QUOTED.sub("''", text)) is not None


def too_complex(why: str) -> Problem:
    return Problem(
        "sql_too_complex", f"The SQL is too complex to check safely: {why}.",
        "Write a simpler query: fewer nested subqueries or parentheses (use WITH to name steps).",
    )  # fmt: skip


def parse_one(sql: str, dialect: str, *, max_chars: int = MAX_SQL_CHARS) -> exp.Expression | Problem:
    """The single statement in `sql`, or the Problem that refuses it."""
    text = (sql or "").strip()
    if not text or not text.replace("\x00", "").strip():
        return Problem("sql_empty", "The SQL text is empty.", WRITE_ONE)
    if len(text) > max_chars:
        return Problem(
            "sql_too_long", f"The SQL is {len(text):,} characters long; at most {max_chars:,} are allowed.",
            "Write a much shorter query; do not inline long value lists or data.",
        )  # fmt: skip
    if _too_deep(text, MAX_DEPTH):
        return too_complex(f"parentheses are nested more than {MAX_DEPTH} levels deep")
    if _executable_comment(text, dialect):
        return Problem(
            "sql_executable_comment", "The SQL contains a /*! ... */ comment, which MySQL and MariaDB execute as code.",
            "Return the query without comments.",
        )  # fmt: skip
    if rules(dialect).executable_comments and _dash_not_comment(text):
        return Problem(
            "sql_executable_comment",
            "The SQL has `--` without a space after it: MySQL and MariaDB read that as code, not as a comment.",
            "Return the query without comments; write subtraction of a negative number as `- (-1)`.",
        )  # fmt: skip
    try:
        statements = [s for s in sqlglot.parse(text, read=dialect or None) if s is not None]
    except RecursionError:
        return too_complex("the parser ran out of recursion depth")
    except Exception as err:  # noqa: BLE001 - ParseError/TokenError, or sqlglot failing on odd input
        detail = _parse_error_text(err)
        return Problem(
            "sql_parse_error", f"The SQL could not be parsed as {shown(dialect)}: {detail}.",
            f"Fix the syntax error ({detail}) and return one valid {shown(dialect)} SELECT query.",
        )  # fmt: skip
    if not statements:
        return Problem("sql_empty", "The SQL text contains only comments.", WRITE_ONE)
    if len(statements) > 1:
        return Problem(
            "sql_multiple_statements", f"The SQL contains {len(statements)} statements; exactly one is allowed.",
            "Return exactly one SELECT statement, with no second statement after a semicolon.",
        )  # fmt: skip
    return statements[0]
