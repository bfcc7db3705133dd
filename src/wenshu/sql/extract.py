"""Pull the SQL statement out of a model's answer.

Models wrap SQL in code fences, prefix it with prose ("Here is the query:", "查询如下："), add an
explanation after it, or answer in prose only. `extract_sql` returns the bare statement text
(without a trailing semicolon) or None when the text holds no SQL statement.

Extraction does not judge the statement: a `DROP TABLE` the model wrote is returned as written,
so that the validator can refuse it with a precise reason. Several statements separated by `;` are
kept together for the same reason (the validator refuses stacked statements).
"""

from __future__ import annotations

import json
import re

import sqlglot
from sqlglot import exp

_KEYWORDS = (
    "WITH", "SELECT", "VALUES", "INSERT", "UPDATE", "DELETE", "REPLACE", "MERGE", "CREATE", "DROP",
    "ALTER", "TRUNCATE", "ATTACH", "DETACH", "PRAGMA", "EXPLAIN", "GRANT", "REVOKE",
)  # fmt: skip

_OBJECTS = r"(?:TABLE|VIEW|INDEX|DATABASE|SCHEMA|TRIGGER|FUNCTION|PROCEDURE|SEQUENCE|USER|ROLE)"
_NAME = r"[\w.\"`\[\]]+"

# What must follow each keyword for the text to look like a statement rather than a prose word.
_SHAPES = {
    "SELECT": r"SELECT\s+\S",
    "WITH": rf"WITH\s+(?:RECURSIVE\s+)?{_NAME}\s*(?:\([^()]*\)\s*)?AS\s*(?:NOT\s+)?(?:MATERIALIZED\s*)?\(",
    "VALUES": r"VALUES\s*\(",
    "INSERT": r"INSERT\s+(?:OR\s+\w+\s+)?(?:INTO|OVERWRITE)\b",
    "UPDATE": rf"UPDATE\s+(?:OR\s+\w+\s+)?{_NAME}\s+(?:(?:AS\s+)?\w+\s+)?SET\b",
    "DELETE": r"DELETE\s+FROM\b",
    "REPLACE": r"REPLACE\s+INTO\b",
    "MERGE": r"MERGE\s+INTO\b",
    "CREATE": rf"CREATE\s+(?:OR\s+REPLACE\s+)?(?:(?:TEMP|TEMPORARY|UNIQUE|VIRTUAL|MATERIALIZED)\s+)?{_OBJECTS}\b",
    "DROP": rf"DROP\s+{_OBJECTS}\b",
    "ALTER": rf"ALTER\s+{_OBJECTS}\b",
    "TRUNCATE": r"TRUNCATE\s+(?:TABLE\s+)?[\w\"`\[]",
    "ATTACH": r"ATTACH\s+(?:DATABASE\s+)?['\"]",
    "DETACH": r"DETACH\s+(?:DATABASE\s+)?\w",
    "PRAGMA": r"PRAGMA\s+\w",
    "EXPLAIN": r"EXPLAIN\s+(?:QUERY\s+PLAN\s+|ANALYZE\s+)?(?:SELECT|WITH)\b",
    "GRANT": r"GRANT\s+\w+(?:\s*,\s*\w+)*\s+ON\b",
    "REVOKE": r"REVOKE\s+\w+(?:\s*,\s*\w+)*\s+ON\b",
}
_SHAPE_RE = {k: re.compile(v, re.I) for k, v in _SHAPES.items()}
# ASCII-only boundaries: CJK characters count as \w, and "查询SELECT" must still match.
_KEYWORD_RE = re.compile(r"(?<![A-Za-z0-9_$.])(" + "|".join(_KEYWORDS) + r")(?![A-Za-z0-9_$])", re.I)

_FENCE_RE = re.compile(r"(```|~~~)[ \t]*([\w+#.-]*)[^\n]*\n(.*?)(?:\1|\Z)", re.S)
_TAG_RE = re.compile(r"<sql>(.*?)(?:</sql>|\Z)", re.S | re.I)
_SQL_LANGS = {"", "sql", "sqlite", "sqlite3", "postgres", "postgresql", "psql", "pgsql", "mysql",
              "mariadb", "duckdb", "clickhouse", "trino", "presto", "tsql", "plsql", "hive", "spark"}  # fmt: skip

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RE = re.compile(f"[{_CJK}]")
_CJK_PUNCT_RE = re.compile(r"[，。：；！？、（）「」《》“”]")
_QUOTED_RE = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|`[^`]*`")

_SQL_WORDS = {
    "select", "from", "where", "and", "or", "not", "group", "order", "by", "having", "limit", "offset",
    "join", "left", "right", "inner", "outer", "full", "cross", "on", "as", "union", "all", "intersect",
    "except", "with", "case", "when", "then", "else", "end", "in", "is", "null", "like", "between",
    "distinct", "asc", "desc", "over", "partition", "window", "values", "fetch", "first", "rows", "only",
    "using", "natural", "exists", "cast", "qualify", "lateral", "recursive", "set", "into", "top",
}  # fmt: skip
_PROSE_STARTERS = {
    "This", "The", "Here", "Here's", "Note", "Notes", "Explanation", "It", "I", "We", "You", "Let",
    "That", "These", "Those", "If", "To", "Also", "Please", "Hope", "Feel", "Alternatively", "Result",
    "Output", "Assuming", "Remember", "In", "For", "Since", "Because", "Then", "Finally", "Sure",
    "Certainly", "Based", "Explain", "Key", "Breakdown",
}  # fmt: skip


def extract_sql(text: str | None) -> str | None:
    """The SQL statement(s) in a model's answer, cleaned; None when there is none."""
    if not text or not text.strip():
        return None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    from_json = _from_json(text)
    if from_json is not None:
        return extract_sql(from_json)
    blocks = [(m.group(2).lower(), m.group(3)) for m in _FENCE_RE.finditer(text)]
    blocks += [("sql", m.group(1)) for m in _TAG_RE.finditer(text)]
    # Blocks labelled as SQL first, then unlabelled ones; other languages are never read as SQL.
    labelled = [body for lang, body in blocks if lang in _SQL_LANGS and lang]
    unlabelled = [body for lang, body in blocks if lang in ("", "text")]
    for body in labelled + unlabelled:
        found = _search(body, code=True)
        if found:
            return found
    return _search(_FENCE_RE.sub("\n", text) if blocks else text, code=False)


def _from_json(text: str) -> str | None:
    s = text.strip()
    if not (s.startswith("{") and s.endswith("}")):
        return None
    try:
        obj = json.loads(s)
    except ValueError:
        return None
    for key in ("sql", "query", "SQL"):
        if isinstance(obj, dict) and isinstance(obj.get(key), str):
            return obj[key]
    return None


def _search(text: str, *, code: bool) -> str | None:
    """The first acceptable statement in `text`. In code mode (inside a fence) every position
    outside comments counts as a statement start; in prose mode only likely ones do."""
    comments = _comment_spans(text) if code else []
    for m in _KEYWORD_RE.finditer(text):
        start = m.start()
        if any(a <= start < b for a, b in comments):
            continue
        keyword = m.group(1)
        if not _SHAPE_RE[keyword.upper()].match(text, start):
            continue
        inline = start > 0 and text[start - 1] == "`" and not code
        strong = code or _strong_position(text, start)
        if not strong and not keyword.isupper():
            continue
        end = _statement_end(text, start, inline=inline)
        candidate = _clean(text[start:end])
        if not candidate:
            continue
        if code or (strong and keyword.isupper()) or _parses(candidate):
            return candidate
    return None


def _strong_position(text: str, pos: int) -> bool:
    """The keyword starts a line, follows a colon or an inline-code backtick, or follows Chinese."""
    line_start = text.rfind("\n", 0, pos) + 1
    before = text[line_start:pos].rstrip()
    if not before or before.endswith((":", "：", "`", ">", "，", "。")):
        return True
    return bool(_CJK_RE.match(before[-1])) or bool(re.fullmatch(r"[>*\-\s]*", before))


def _parses(sql: str) -> bool:
    try:
        parsed = [e for e in sqlglot.parse(sql) if e is not None]
    except Exception:  # noqa: BLE001 - any sqlglot failure means "not SQL" here
        return False
    return bool(parsed) and not any(isinstance(e, exp.Command) for e in parsed)


def _clean(sql: str) -> str:
    sql = sql.strip()
    while True:
        stripped = sql.rstrip().rstrip(";；").rstrip()
        if stripped.endswith(("```", "~~~")):
            stripped = stripped[:-3]
        if stripped == sql:
            return sql
        sql = stripped


def _comment_spans(text: str) -> list[tuple[int, int]]:
    spans, i, n = [], 0, len(text)
    quote = None
    while i < n:
        ch = text[i]
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"`":
            quote = ch
        elif text.startswith("--", i) or ch == "#":
            j = text.find("\n", i)
            j = n if j < 0 else j
            spans.append((i, j))
            i = j
            continue
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            spans.append((i, j))
            i = j
            continue
        i += 1
    return spans


def _statement_end(text: str, start: int, *, inline: bool) -> int:
    """Index where the statement that begins at `start` ends: at the end of the text, at a
    closing inline-code backtick, at a line of prose, or at a `;` not followed by another
    statement."""
    i, n = start, len(text)
    quote: str | None = None
    while i < n:
        ch = text[i]
        if quote:
            if ch == quote:
                if i + 1 < n and text[i + 1] == quote:  # doubled quote escapes itself
                    i += 2
                    continue
                quote = None
            i += 1
            continue
        if ch == "`" and (inline or text.startswith("```", i)):
            return i
        if ch in "'\"`":
            quote = ch
        elif text.startswith("--", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        elif ch == "\n":
            j = text.find("\n", i + 1)
            if _is_prose_line(text[i + 1 : n if j < 0 else j]):
                return i
        elif ch in ";；":
            if not _next_statement_follows(text, i + 1):
                return i
        elif ch in "。，！？：":  # Chinese punctuation never belongs to SQL outside quotes
            return i
        i += 1
    return n


def _next_statement_follows(text: str, pos: int) -> bool:
    rest = text[pos:]
    while True:
        stripped = rest.lstrip()
        if stripped.startswith("--"):
            j = stripped.find("\n")
            rest = "" if j < 0 else stripped[j:]
        elif stripped.startswith("/*"):
            j = stripped.find("*/")
            rest = "" if j < 0 else stripped[j + 2 :]
        else:
            break
    m = _KEYWORD_RE.match(stripped)
    return bool(m) and bool(_SHAPE_RE[m.group(1).upper()].match(stripped))


def _is_prose_line(line: str) -> bool:
    s = line.strip()
    if not s:
        return False
    if s.startswith(("```", "~~~", "**", "# ", "##", "> ")):
        return True
    unquoted = _QUOTED_RE.sub("''", s)
    if _CJK_RE.search(unquoted) and not unquoted.startswith(("--", "/*")):
        if _CJK_RE.match(unquoted) or _CJK_PUNCT_RE.search(unquoted):
            return True
    if re.match(r"(?:[-*•]|\d+[.)])\s+[A-Za-z\u3400-\u9fff]", s) and not s.startswith("--"):
        return len(s.split()) >= 3 or bool(_CJK_RE.search(s))
    m = re.match(r"([A-Za-z][A-Za-z']*)(\s+|[:,]|$)", s)
    if not m:
        return False
    word, words = m.group(1), s.split()
    if word in _PROSE_STARTERS and (
        s.endswith(":") or (len(words) > 1 and re.fullmatch(r"[a-z][a-z']*[,:]?", words[1]))
    ):
        return word.lower() not in _SQL_WORDS or words[1].lower() not in _SQL_WORDS
    titled = word[0].isupper() and (len(word) == 1 or word[1:].islower())
    if not titled or word.lower() in _SQL_WORDS:
        return False
    if s.endswith((".", ":", "!", "?")) and len(words) >= 2:
        return True
    return len(words) >= 4 and not re.search(r"[,()=<>*;']", s)
