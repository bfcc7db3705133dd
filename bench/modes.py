"""The two ways of answering a benchmark question, each returning one record per question.

- `pipeline`: the whole product graph through `Agent.ask` (intent, recall, examples, generate,
  validate with retries, execute, evaluate with retries, explain); follow-ups are asked in the same
  conversation as their first turn.
- `baseline`: the naive design the product has to beat: a system line, the database's `CREATE TABLE`
  statements exactly as stored and the question (a follow-up also sees its first question), decoded
  greedily, the model's SQL executed as is.

Error classes: `ok` (correct), `no_sql`, `refused` (the guard refused every attempt),
`runtime_error`, `timeout`, `wrong_result`, `model_error` (the model failed or timed out).
"""

from __future__ import annotations

import time
from collections import defaultdict

from bench.ablation import fired_checks
from bench.datasets import Item
from bench.scoring import QueryFailed, as_codes, contains_result, is_ordered, label_codes, run_sql, same_result


def score(item: Item, sql: str | None, gold_rows: list) -> tuple[bool, str, str, bool]:
    """(correct, error class, detail, lenient) of a predicted SQL against the gold rows; `lenient`
    also accepts extra columns (see bench.scoring.contains_result)."""
    if not sql:
        return False, "no_sql", "", False
    try:
        rows = run_sql(item.db_path, sql)
    except QueryFailed as err:
        return False, err.kind, str(err)[:300], False
    ordered = is_ordered(item.gold_sql)
    labels = label_codes(item.db_id)
    rows, gold_rows = as_codes(rows, labels), as_codes(gold_rows, labels)
    if same_result(rows, gold_rows, ordered):
        return True, "ok", "", True
    lenient = contains_result(rows, gold_rows, ordered)
    return False, "wrong_result", f"{len(rows)} rows vs {len(gold_rows)} gold rows", lenient


def _pipeline_failure(resp) -> str:
    code = resp.error.code
    if code.startswith("model_"):
        return "model_error"
    last: dict[str, str] = {}
    for step in resp.trace:
        last[step.node] = f"{step.status} {step.detail}"
    if "execute" in last and not last["execute"].startswith("ok"):
        return "timeout" if "timeout" in last["execute"].lower() else "runtime_error"
    if "validate" in last and not last["validate"].startswith("ok"):
        return "refused"
    return "no_sql"


def run_pipeline(agent, item: Item, conversation_id: str | None, gold_rows: list) -> tuple[dict, str]:
    """(record, conversation id) for one question asked through the product graph."""
    from wenshu.contracts import AgentRequest
    from wenshu.errors import WenshuError

    t0 = time.perf_counter()
    try:
        resp = agent.ask(AgentRequest(message=item.question, conversation_id=conversation_id, datasource=item.db_id))
    except WenshuError as err:
        return {"correct": False, "error_class": "model_error" if err.code.startswith("model_") else "no_sql",
                "detail": err.code, "wall_s": round(time.perf_counter() - t0, 2)}, conversation_id  # fmt: skip
    wall = time.perf_counter() - t0
    node_ms: dict[str, float] = defaultdict(float)
    for step in resp.trace:
        node_ms[step.node] += step.ms
    record = {
        "pred_sql": resp.sql, "wall_s": round(wall, 2), "retries": sum(s.status == "retry" for s in resp.trace),
        "prompt_tokens": resp.usage.prompt_tokens, "completion_tokens": resp.usage.completion_tokens,
        "llm_calls": resp.usage.llm_calls, "model_s": round(resp.usage.model_ms / 1000, 2),
        "node_ms": {k: round(v, 1) for k, v in node_ms.items()}, "cached": resp.cached,
        # which path wrote the SQL that answered: the semantic model's compiler ("plan") or the model ("sql")
        "checks": fired_checks(resp.trace),  # the accuracy checks that fired (bench/ablation.py)
        "path": "plan" if any(s.node == "plan" and s.status == "ok" for s in resp.trace)
        and not any(s.node == "generate" for s in resp.trace) else "sql",
        "plan": (resp.plan or {}).get("plan"),  # the query plan that answered (bench plan_misses)
        # why the plan path did not answer (the plan step's reason, said by code: no question text)
        "plan_skipped": next((s.detail[:160] for s in resp.trace if s.node == "plan" and s.status == "skipped"), None),
    }
    if resp.error is not None:
        record.update(correct=False, error_class=_pipeline_failure(resp), detail=resp.error.code)
    else:
        correct, cls, detail, lenient = score(item, resp.sql, gold_rows)
        record.update(correct=correct, error_class=cls, detail=detail, lenient=lenient)
    return record, resp.conversation_id


def create_statements(db_path) -> str:
    """The database's `CREATE TABLE` statements exactly as stored (sqlite_master), the schema text a
    naive prompt pastes."""
    import sqlite3

    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL "
                            "AND name NOT LIKE 'sqlite_%' ORDER BY rowid").fetchall()  # fmt: skip
    finally:
        conn.close()
    return ";\n\n".join(r[0].strip() for r in rows) + ";"


def run_baseline(models_factory, schema: str, item: Item, previous: Item | None, gold_rows: list) -> dict:
    """One prompt, greedy: a system line, the `CREATE TABLE` text as stored, the question; the SQL run as is.
    The schema leads, so questions on the same database reuse the model's evaluated prefix."""
    from wenshu.agent.plain_reading import plain_messages
    from wenshu.errors import WenshuError
    from wenshu.sql.extract import extract_sql

    models = models_factory()
    question = item.question if previous is None else f"{previous.question}\n(follow-up) {item.question}"
    messages = plain_messages(question, "SQLite", schema, prefix_cache=None)
    t0 = time.perf_counter()
    try:
        text = models.text("strong", messages, temperature=0.0)
    except WenshuError as err:
        return {"correct": False, "error_class": "model_error", "detail": err.code,
                "wall_s": round(time.perf_counter() - t0, 2)}  # fmt: skip
    sql = extract_sql(text)
    correct, cls, detail, lenient = score(item, sql, gold_rows)
    return {
        "pred_sql": sql, "wall_s": round(time.perf_counter() - t0, 2), "retries": 0,
        "prompt_tokens": models.usage.prompt_tokens, "completion_tokens": models.usage.completion_tokens,
        "llm_calls": 1, "model_s": round(models.usage.seconds, 2), "node_ms": {}, "cached": False,
        "correct": correct, "error_class": cls, "detail": detail, "lenient": lenient,
    }
