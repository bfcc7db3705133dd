"""Trial of issue 14: the cost of decoding constrained to a database's real table and column names.

A GBNF grammar built from the catalog lets the model write only SQL keywords and functions, the
database's table and column names (as stored or lower case, plain or quoted), one-letter aliases (T1),
a name right after AS, numbers, punctuation and single-quoted strings; two words must be separated. For
each spider_dev_200 question (development) it times the same naive prompt (CREATE TABLE text, question)
decoded greedily without and with the grammar, through llama-cpp-python's `grammar=`.

    python -m bench.grammar_probe --n 4 --model PATH.gguf

Result (2026-12-03, at 0c77d20, the embedded 1.5B model, an idle two-core machine; the same grammar and
prompt from a first form of this script that printed a question's two timings together): nothing was
printed before the command was stopped at 15 minutes, so the first question's constrained answer (at most
200 tokens: over 4 s a token) had not finished, where its free answer takes seconds. No accuracy was
measured; the trial stops here. The cause was not isolated: the JSON-schema grammars of the structured
steps decode at normal speed through the same binding, so this grammar's shape (hundreds of name
alternatives and overlapping word rules, each a parse stack llama.cpp checks every candidate token
against) is the likely cost. A grammar that only constrains the word after FROM, JOIN and "alias." would
be the next thing to time.
"""

from __future__ import annotations

import argparse
import re
import sqlite3
import time

from bench.datasets import resolve_set

KEYWORDS = """SELECT FROM WHERE GROUP BY ORDER HAVING LIMIT OFFSET JOIN INNER LEFT RIGHT FULL OUTER CROSS
NATURAL ON USING AS AND OR NOT IN IS NULL LIKE GLOB BETWEEN EXISTS DISTINCT ALL UNION INTERSECT EXCEPT CASE
WHEN THEN ELSE END ASC DESC WITH COLLATE NOCASE COUNT SUM AVG MIN MAX ROUND ABS LENGTH LOWER UPPER SUBSTR
SUBSTRING STRFTIME DATE DATETIME TIME JULIANDAY CAST IFNULL COALESCE NULLIF REPLACE TRIM LTRIM RTRIM INSTR
TOTAL GROUP_CONCAT INTEGER INT REAL TEXT FLOAT NUMERIC IIF PRINTF TRUE FALSE""".split()


def _lit(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def catalog_names(db_path) -> set[str]:
    with sqlite3.connect(db_path) as conn:
        tables = [t for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return set(tables) | {row[1] for t in tables for row in conn.execute(f'PRAGMA table_info("{t}")')}


def sql_grammar(names: set[str]) -> str:
    """GBNF for one fenced SQLite query whose names are `names` (see the module docstring)."""
    words = {w for k in KEYWORDS for w in (k, k.lower())}
    plain = {w for n in names if re.fullmatch(r"[A-Za-z_]\w*", n) for w in (n, n.lower())} - words
    quoted = " | ".join(f"{_lit(chr(34) + n + chr(34))} | {_lit('`' + n + '`')}" for n in sorted(names))
    return rf'''root ::= "```sql\n" stmt "\n```"
stmt ::= gap? word (gap word)* gap?
word ::= name | alias | number | asname
name ::= {" | ".join(_lit(w) for w in sorted(words | plain))} | {quoted}
alias ::= [A-Za-z] [0-9]?
asname ::= ("AS" | "as") ws [A-Za-z_] [A-Za-z0-9_]*
number ::= [0-9]+ ("." [0-9]+)?
gap ::= (ws | punct | string)+
ws ::= [ \n]+
punct ::= [(),.*=<>!+/%|-]
string ::= "'" ([^'\n] | "''")* "'"
'''


def main() -> None:
    from llama_cpp import Llama, LlamaGrammar

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=4)
    ap.add_argument("--model", required=True)
    ap.add_argument("--max-tokens", type=int, default=200)
    args = ap.parse_args()
    _, items = resolve_set("spider_dev_200", db_dir=None, tables=None, demo_db=None)
    llm = Llama(model_path=args.model, n_ctx=4096, n_threads=2, verbose=False)
    for item in [i for i in items if i.db_path][: args.n]:
        with sqlite3.connect(item.db_path) as conn:
            ddl = "\n".join(r[0] for r in conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table'") if r[0])
        messages = [{"role": "system", "content": "You are a SQLite expert. Answer with one SQL query in a ```sql block."},
                    {"role": "user", "content": f"{ddl}\n\nQuestion: {item.question}"}]
        grammar = LlamaGrammar.from_string(sql_grammar(catalog_names(item.db_path)), verbose=False)
        for label, extra in (("free", {}), ("constrained", {"grammar": grammar})):
            t0 = time.perf_counter()
            out = llm.create_chat_completion(messages=messages, temperature=0, max_tokens=args.max_tokens, **extra)
            text = out["choices"][0]["message"]["content"].replace("\n", " ")
            print(f"{item.id} {label}: {time.perf_counter() - t0:.1f} s, "
                  f"{out['usage']['completion_tokens']} tokens: {text}", flush=True)


if __name__ == "__main__":
    main()
