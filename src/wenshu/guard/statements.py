"""Layer 1b: the statement class. Only read queries pass: SELECT, WITH ... SELECT, set operations
and VALUES; a write, DDL, session or transaction node anywhere in the tree (a CTE, a subquery)
refuses the whole statement, as do `SELECT ... INTO`, row locks and denied functions."""

from __future__ import annotations

from sqlglot import exp

from wenshu.guard.functions import function_problem, table_source_problem
from wenshu.guard.outcome import Problem

READ_ROOTS = (exp.Select, exp.SetOperation, exp.Values, exp.Subquery)
_WRITE_NAMES = (
    "DML", "DDL", "Insert", "Update", "Delete", "Merge", "Copy", "Create", "Drop", "Alter",
    "TruncateTable", "Command", "Pragma", "Attach", "Detach", "LoadData", "Set", "Grant", "Revoke",
    "Kill", "Analyze", "Refresh", "Cache", "Uncache", "Transaction", "Commit", "Rollback", "Use",
    "Declare", "Execute", "Export", "Install", "Comment", "Describe", "Show", "Summarize", "Put", "Get",
)  # fmt: skip
WRITE_NODES = tuple(c for c in (getattr(exp, n, None) for n in _WRITE_NAMES) if isinstance(c, type))
_KEYWORD = {
    "Insert": "INSERT", "Update": "UPDATE", "Delete": "DELETE", "Merge": "MERGE", "Create": "CREATE",
    "Drop": "DROP", "Alter": "ALTER", "TruncateTable": "TRUNCATE", "Pragma": "PRAGMA", "Copy": "COPY",
    "Attach": "ATTACH", "Detach": "DETACH", "Transaction": "BEGIN", "LoadData": "LOAD DATA",
    "Commit": "COMMIT", "Rollback": "ROLLBACK", "Execute": "EXECUTE", "Install": "INSTALL",
}  # fmt: skip
READ_ONLY_HINT = "Write a single read-only SELECT query (WITH ... SELECT is fine); never modify data or schema."


def _kind(node: exp.Expression) -> str:
    if isinstance(node, exp.Command):
        return " ".join(str(node.this).upper().split()[:2]) or "COMMAND"
    return _KEYWORD.get(type(node).__name__, type(node).__name__.upper())


def _not_read_only(reason: str) -> Problem:
    return Problem("sql_not_read_only", reason, f"{reason} {READ_ONLY_HINT}")


def statement_problem(tree: exp.Expression, dialect: str) -> Problem | None:
    """The first reason the statement is not a plain, side-effect-free read, or None."""
    if not isinstance(tree, READ_ROOTS):
        return _not_read_only(f"{_kind(tree)} statements are not allowed; only read queries (SELECT) may run.")
    for node in tree.walk():
        if isinstance(node, WRITE_NODES):
            return _not_read_only(
                f"The query contains a {_kind(node)} statement (for example inside a CTE); only reads are allowed."
            )
        if isinstance(node, exp.Into):
            return _not_read_only("SELECT ... INTO creates or writes a table or file; only plain reads are allowed.")
        if isinstance(node, exp.Lock):
            return _not_read_only("Row locking (FOR UPDATE / FOR SHARE) is not allowed in a read-only query.")
        if isinstance(node, exp.QueryTransform):  # Spark/Hive SELECT TRANSFORM(...) USING 'program'
            return _not_read_only("SELECT TRANSFORM ... USING runs a program on the server; only reads are allowed.")
        if isinstance(node, exp.Func):
            problem = function_problem(node, dialect)
            if problem:
                return problem
        elif isinstance(node, exp.Table):
            problem = table_source_problem(node, dialect)
            if problem:
                return problem
    return None
