"""`wenshu db policy NAME`: show or change a datasource's access policy (tables and columns the
guard lets queries read). Options add to the stored policy; `--clear` starts from an empty one."""

from __future__ import annotations

import json

import typer

from wenshu.cli.common import console, guarded, settings
from wenshu.errors import InputError


def _updated(current: dict, clear: bool, allow: list[str], deny: list[str], columns: list[str]):
    from wenshu.guard import GuardPolicy

    base = {} if clear else current
    merged = {
        "allow_tables": list(base.get("allow_tables", [])) + allow,
        "deny_tables": list(base.get("deny_tables", [])) + deny,
        "deny_columns": list(base.get("deny_columns", [])) + columns,
    }
    try:
        return GuardPolicy.from_dict(merged)
    except ValueError as err:
        raise InputError(f"Invalid policy: {err}.", f"访问策略无效：{err}。", code="bad_policy") from err


def _show(name: str, policy: dict) -> None:
    if not any(policy.values()):
        console.print(f"Datasource [bold]{name}[/]: no access policy; every table and column may be read. "
                      "未设置访问策略，所有表和列均可读取。", highlight=False)
        return
    console.print(f"Datasource [bold]{name}[/] access policy 访问策略:", highlight=False)
    labels = {"allow_tables": "allow tables 允许的表", "deny_tables": "deny tables 禁止的表",
              "deny_columns": "deny columns 禁止的列"}  # fmt: skip
    for key, label in labels.items():
        if policy.get(key):
            console.print(f"  {label}: {', '.join(policy[key])}", highlight=False)


def policy(
    name: str = typer.Argument(..., help="Datasource name."),
    deny_table: list[str] = typer.Option([], "--deny-table", help="A table queries may not read (repeatable)."),
    deny_column: list[str] = typer.Option([], "--deny-column", help="TABLE.COLUMN queries may not read (repeatable)."),
    allow_table: list[str] = typer.Option([], "--allow-table", help="Only these tables may be read (repeatable)."),
    clear: bool = typer.Option(False, "--clear", help="Start from an empty policy."),
    as_json: bool = typer.Option(False, "--json", help="Print the policy as JSON."),
) -> None:
    """Show or change which tables and columns the SQL guard lets queries read."""
    with guarded(as_json=as_json):
        from wenshu.bootstrap import ensure_demo, open_store

        s = settings()
        store = open_store(s)
        ensure_demo(s, store)
        current = store.datasources.policy(name)
        if clear or deny_table or deny_column or allow_table:
            new = _updated(current, clear, allow_table, deny_table, deny_column)
            store.datasources.set_policy(name, None if new.empty else new.to_dict())
            current = store.datasources.policy(name)
        shown = {k: current.get(k, []) for k in ("allow_tables", "deny_tables", "deny_columns")}
        if as_json:
            print(json.dumps({"datasource": name, "policy": shown}, ensure_ascii=False))
        else:
            _show(name, shown)
