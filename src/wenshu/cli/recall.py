"""`wenshu db recall NAME QUESTION [--json] [--k N] [--batch]`: which tables, columns and values a question recalls.

With `--batch`, questions are read from stdin as JSON lines `{"question": ...}` and one JSON result is
printed per line, in order, by one process (the index is built once). A bad line prints an error object
in its place and the batch goes on.
"""

from __future__ import annotations

import json
import sys

import typer
from rich.table import Table

from wenshu.cli.common import console, guarded, settings, ui_lang


def _recaller(name: str, k: int | None):
    from wenshu.agent.context import build_recall
    from wenshu.bootstrap import ensure_demo, open_store
    from wenshu.knowledge.sync import current_catalog

    s = settings()
    store = open_store(s)
    ensure_demo(s, store)
    record = store.datasources.get(name)
    catalog = current_catalog(store, name, record.url)
    if k is not None:
        s = s.model_copy(update={"recall_max_tables": k})
    return build_recall(s, store), catalog


def _payload(result) -> dict:
    d = result.to_dict() if hasattr(result, "to_dict") else dict(result.__dict__)
    return {key: d[key] for key in ("tables", "columns", "values", "glossary", "schema_block", "tokens",
                                    "full_schema_tokens") if key in d}


def _batch(recaller, catalog) -> None:
    from wenshu.errors import EmptyQuestion, InputError, error_payload

    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            question = (item.get("question") if isinstance(item, dict) else None) or ""
            if not isinstance(question, str) or not question.strip():
                raise EmptyQuestion()
            out = _payload(recaller.recall(question.strip(), catalog))
        except json.JSONDecodeError:
            out = error_payload(InputError("A line is not JSON.", "有一行不是 JSON。"))
        except Exception as err:  # noqa: BLE001 - one bad line must not end the batch
            out = error_payload(err, ui_lang(line))
        print(json.dumps(out, ensure_ascii=False), flush=True)


def _show(result) -> None:
    tables = Table("table", "score", title="Recalled tables / 召回的表")
    for t in result.tables:
        tables.add_row(t["name"], f"{t['score']:.3f}")
    console.print(tables)
    if result.values:
        console.print("Values / 值: " + "; ".join(f"{v['table']}.{v['column']} = {v['value']!r}" for v in result.values))
    console.print(result.schema_block or "(no table matches the question / 没有与问题相关的表)", highlight=False,
                  soft_wrap=True)
    console.print(f"[dim]~{result.tokens} of {result.full_schema_tokens} schema tokens[/]")


def recall(
    name: str = typer.Argument(..., help="Datasource name."),
    question: str = typer.Argument(None, help="The question (omit with --batch)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    k: int = typer.Option(None, "--k", min=1, help="Most tables to rank into the block."),
    batch: bool = typer.Option(False, "--batch", help='Read JSON lines {"question": ...} from stdin.'),
) -> None:
    """Show which tables, columns and values a question recalls (hybrid recall)."""
    from wenshu.errors import EmptyQuestion

    lang = ui_lang(question)
    with guarded(lang, as_json=as_json or batch):
        if not batch and not (question or "").strip():
            raise EmptyQuestion()
        recaller, catalog = _recaller(name, k)
        if batch:
            _batch(recaller, catalog)
            return
        result = recaller.recall(question.strip(), catalog)
        if as_json:
            print(json.dumps(_payload(result), ensure_ascii=False))
        else:
            _show(result)
