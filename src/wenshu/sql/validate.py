"""Validate a model-written SQL statement before it runs.

Three layers, each refusal carrying a stable code, an English reason and a hint the SQL generator
can act on:

1. syntax and statement class: empty, unparseable, several statements, anything but a read query
   (DML/DDL anywhere in the tree, including inside CTEs), `SELECT ... INTO`, row locking, and
   functions with side effects;
2. catalog names (only when a catalog is given): unknown tables and unknown columns;
3. limits: a `LIMIT row_limit` is added when absent and lowered when larger.

`BasicValidator` is the first implementation of the `SQLValidator` protocol; a stricter guard can
replace it without changing callers.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Protocol

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import TokenType

from wenshu.knowledge.catalog import Catalog
from wenshu.sql.names import unknown_column, unknown_table

DIALECTS = {
    "sqlite": "sqlite",
    "postgresql": "postgres",
    "postgres": "postgres",
    "mysql": "mysql",
    "mariadb": "mysql",
    "duckdb": "duckdb",
    "clickhouse": "clickhouse",
    "clickhousedb": "clickhouse",
    "trino": "trino",
    "mssql": "tsql",
    "oracle": "oracle",
}

READ_ROOTS = (exp.Select, exp.SetOperation, exp.Values, exp.Subquery)
# Statement kinds that must not appear anywhere in the tree (e.g. `WITH x AS (DELETE ...)`).
_WRITE_NAMES = (
    "DML", "DDL", "Drop", "Alter", "TruncateTable", "Command", "Pragma", "Attach", "Detach",
    "LoadData", "Copy", "Grant", "Revoke", "Kill", "Analyze", "Refresh", "Cache", "Uncache",
    "Transaction", "Commit", "Rollback", "Use", "Declare", "Execute", "Export", "Install",
)  # fmt: skip
WRITE_NODES = tuple(c for c in (getattr(exp, n, None) for n in _WRITE_NAMES) if isinstance(c, type))
_KEYWORD = {
    "Insert": "INSERT", "Update": "UPDATE", "Delete": "DELETE", "Merge": "MERGE", "Create": "CREATE",
    "Drop": "DROP", "Alter": "ALTER", "TruncateTable": "TRUNCATE", "Pragma": "PRAGMA",
    "Attach": "ATTACH", "Detach": "DETACH", "Transaction": "BEGIN", "LoadData": "LOAD DATA",
}  # fmt: skip
SIDE_EFFECT_FUNCTIONS = {
    "load_extension", "readfile", "writefile", "edit", "fts3_tokenizer",  # SQLite
    "pg_sleep", "pg_read_file", "pg_read_binary_file", "pg_ls_dir", "pg_stat_file", "lo_import",
    "lo_export", "dblink", "dblink_exec", "pg_terminate_backend", "pg_cancel_backend", "set_config",
    "nextval", "setval", "pg_advisory_lock", "pg_reload_conf", "pg_switch_wal",  # PostgreSQL
    "sleep", "benchmark", "load_file", "get_lock", "release_lock",  # MySQL
}  # fmt: skip

_WRITE_ONE = "Write one SELECT query that answers the question."
_READ_ONLY_HINT = "Write a single read-only SELECT query (WITH ... SELECT is fine); never modify data or schema."


@dataclass
class ValidationOutcome:
    passed: bool
    layer: int  # 0 when passed; 1 syntax/statement class, 2 catalog names, 3 limits
    code: str  # "ok" when passed
    reason: str  # on success: what was rewritten, if anything
    hint_for_model: str
    sql: str  # the statement to run (possibly rewritten); the input when refused

    def to_dict(self) -> dict:
        return asdict(self)


class SQLValidator(Protocol):
    def validate(
        self, sql: str, *, dialect: str, catalog: Catalog | None = None, row_limit: int | None = None
    ) -> ValidationOutcome: ...


def sqlglot_dialect(name: str | None) -> str:
    """The sqlglot dialect for a SQLAlchemy dialect name ('' = sqlglot's generic dialect)."""
    low = (name or "").lower().split("+", 1)[0]
    if low in DIALECTS:
        return DIALECTS[low]
    try:
        sqlglot.Dialect.get_or_raise(low)
    except (ValueError, KeyError):
        return ""
    return low


def _refuse(layer: int, code: str, reason: str, hint: str, sql: str) -> ValidationOutcome:
    return ValidationOutcome(False, layer, code, reason, hint, sql)


def _parse_error_text(err: Exception) -> str:
    errors = getattr(err, "errors", None) or []
    if errors:
        e = errors[0]
        near = (e.get("highlight") or "").strip()
        where = f" near `{near}`" if near else ""
        desc = e.get("description") or "syntax error"
        if "<" in desc or "Required keyword" in desc:  # sqlglot internals mean nothing to a model
            desc = "syntax error"
        return f"{desc}{where} (line {e.get('line')}, column {e.get('col')})"
    return str(err).splitlines()[0] if str(err) else type(err).__name__


def read_only_problem(tree: exp.Expression) -> tuple[str, str] | None:
    """(code, reason) when the statement is not a plain read query, else None."""
    if not isinstance(tree, READ_ROOTS):
        if isinstance(tree, exp.Command):
            kind = str(tree.this).upper()
        else:
            kind = _KEYWORD.get(type(tree).__name__, type(tree).__name__.upper())
        return "sql_not_read_only", f"{kind} statements are not allowed; only read queries (SELECT) may run."
    for node in tree.walk():
        if isinstance(node, WRITE_NODES):
            kind = _KEYWORD.get(type(node).__name__, type(node).__name__.upper())
            reason = f"The query contains a {kind} statement (for example inside a CTE); only reads are allowed."
            return "sql_not_read_only", reason
        if isinstance(node, exp.Into):
            return "sql_not_read_only", "SELECT ... INTO creates or writes a table; only plain reads are allowed."
        if isinstance(node, exp.Lock):
            return "sql_not_read_only", "Row locking (FOR UPDATE / FOR SHARE) is not allowed in a read-only query."
        if isinstance(node, exp.Func):
            fname = (node.name if isinstance(node, exp.Anonymous) else node.sql_name()).lower()
            if fname in SIDE_EFFECT_FUNCTIONS:
                reason = f"The function {fname}() has side effects or reads server files and is not allowed."
                return "sql_forbidden_function", reason
    return None


def _int_literal(node: exp.Expression | None) -> int | None:
    if isinstance(node, exp.Neg):
        inner = _int_literal(node.this)
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
        return tree.limit(row_limit), f"LIMIT {row_limit} was added."
    key = "count" if isinstance(limit, exp.Fetch) else "expression"
    current = _int_literal(limit.args.get(key))
    if current is not None and 0 <= current <= row_limit:
        return tree, ""
    limit.set(key, exp.Literal.number(row_limit))
    was = f"LIMIT {current}" if current is not None else "a non-constant limit"
    return tree, f"{was} was lowered to the row limit {row_limit}."


def edited_text(sql: str, dialect: str, target: exp.Expression, row_limit: int) -> str | None:
    """`sql` changed as little as possible (append a LIMIT, or replace the limit's number) so that
    it parses to `target`; None when no such small edit is found. Keeps the model's formatting."""
    text = sql.strip()
    while text.endswith(";"):
        text = text[:-1].rstrip()
    last_line = text.rsplit("\n", 1)[-1]
    candidates = []
    # Appending is right only where the dialect puts LIMIT last (not before ClickHouse SETTINGS).
    if target.sql(dialect=dialect or None).endswith(f"LIMIT {row_limit}"):
        candidates.append(f"{text}{chr(10) if ('--' in last_line or '#' in last_line) else ' '}LIMIT {row_limit}")
    try:
        tokens = sqlglot.tokenize(text, read=dialect or None)
    except (TokenError, ValueError):
        tokens = []
    depth, last = 0, None
    for i, tok in enumerate(tokens):
        if tok.token_type == TokenType.L_PAREN:
            depth += 1
        elif tok.token_type == TokenType.R_PAREN:
            depth -= 1
        elif depth == 0 and tok.token_type in (TokenType.LIMIT, TokenType.FETCH):
            last = i
    if last is not None:
        for j in range(last + 1, min(last + 4, len(tokens))):
            tok = tokens[j]
            if tok.token_type == TokenType.NUMBER:
                start = tokens[j - 1].start if tokens[j - 1].token_type == TokenType.DASH else tok.start
                candidates.append(text[:start] + str(row_limit) + text[tok.end + 1 :])
                break
            if tok.token_type == TokenType.L_PAREN:
                break
    for candidate in candidates:
        try:
            parsed = [e for e in sqlglot.parse(candidate, read=dialect or None) if e is not None]
        except (ParseError, TokenError):
            continue
        if len(parsed) == 1 and parsed[0] == target:
            return candidate
    return None


class BasicValidator:
    """Parses with sqlglot and checks statement class, catalog names and the row limit."""

    def validate(
        self, sql: str, *, dialect: str, catalog: Catalog | None = None, row_limit: int | None = None
    ) -> ValidationOutcome:
        text = (sql or "").strip()
        if not text:
            return _refuse(1, "sql_empty", "The SQL text is empty.", _WRITE_ONE, sql or "")
        d = sqlglot_dialect(dialect)
        shown = d or "generic SQL"
        try:
            statements = [s for s in sqlglot.parse(text, read=d or None) if s is not None]
        except Exception as err:  # noqa: BLE001 - ParseError/TokenError, or sqlglot failing on odd input
            detail = _parse_error_text(err)
            return _refuse(
                1, "sql_parse_error", f"The SQL could not be parsed as {shown}: {detail}.",
                f"Fix the syntax error ({detail}) and return one valid {shown} SELECT query.", sql,
            )  # fmt: skip
        if not statements:
            return _refuse(1, "sql_empty", "The SQL text contains only comments.", _WRITE_ONE, sql)
        if len(statements) > 1:
            return _refuse(
                1, "sql_multiple_statements", f"The SQL contains {len(statements)} statements; exactly one is allowed.",
                "Return exactly one SELECT statement, with no second statement after a semicolon.", sql,
            )  # fmt: skip
        tree = statements[0]
        problem = read_only_problem(tree)
        if problem:
            code, reason = problem
            return _refuse(1, code, reason, f"{reason} {_READ_ONLY_HINT}", sql)
        if catalog is not None:
            name_problem = unknown_table(tree, catalog, d) or unknown_column(tree, catalog, d)
            if name_problem:
                return _refuse(2, name_problem.code, name_problem.reason, name_problem.hint, sql)
        note = ""
        if row_limit is not None:
            if row_limit < 1:
                raise ValueError("row_limit must be a positive integer")
            try:
                tree, note = apply_limit(tree, row_limit)
                if note:
                    text = edited_text(sql, d, tree, row_limit) or tree.sql(dialect=d or None)
            except Exception as err:  # noqa: BLE001 - sqlglot could not rewrite this shape
                return _refuse(
                    3, "sql_limit_unsupported", f"A row limit could not be applied to this query ({err}).",
                    f"Add `LIMIT {row_limit}` at the end of the query yourself.", sql,
                )  # fmt: skip
        return ValidationOutcome(True, 0, "ok", note, "", text if note else (sql or "").strip())
