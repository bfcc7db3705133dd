"""`wenshu token create|list|revoke|grant`: bearer tokens for the HTTP server, one user each.

A token is printed once, when it is created; only its SHA-256 hash is stored.
"""

from __future__ import annotations

import json

import typer
from rich.table import Table

from wenshu.cli.common import console, err_console, guarded, settings

app = typer.Typer(help="API tokens for `wenshu serve` (stored hashed) and users' datasource grants.",
                  no_args_is_help=True)


def _store():
    from wenshu.bootstrap import open_store

    return open_store(settings())


def _grants_text(grants) -> str:
    return ", ".join(sorted(grants)) or "-"


@app.command("create")
def create(
    user: str = typer.Option(..., "--user", "-u", help="The user the token acts as (created if new)."),
    datasource: list[str] = typer.Option(None, "--datasource", "-d",
                                         help="Grant this datasource (repeatable); a new user without any gets '*'."),
) -> None:
    """Create a token and print it once (keep it: it cannot be shown again)."""
    with guarded():
        with _store() as store:
            record, token = store.users.create_token(user)
            for name in datasource or []:
                store.users.grant(user, name)
            if not store.users.grants(user):
                store.users.grant(user, "*")
            grants = store.users.grants(user)
        err_console.print(f"Token {record.id} for [bold]{user}[/] (datasources: {_grants_text(grants)}); "
                          "shown once — store it now:", highlight=False)
        print(token)


@app.command("list")
def list_(as_json: bool = typer.Option(False, "--json")) -> None:
    """Tokens (prefix only), their users, grants and last use."""
    with guarded(as_json=as_json):
        with _store() as store:
            rows = [(t, store.users.grants(t.user_id)) for t in store.users.tokens()]
        if as_json:
            print(json.dumps([{"id": t.id, "user": t.user_id, "prefix": t.prefix, "active": t.active,
                               "created_at": t.created_at.isoformat(), "grants": sorted(g),
                               "last_used_at": t.last_used_at.isoformat() if t.last_used_at else None}
                              for t, g in rows]))
            return
        table = Table("id", "user", "token", "datasources", "created", "last used", "status")
        for t, g in rows:
            table.add_row(str(t.id), t.user_id, t.prefix + "…", _grants_text(g), f"{t.created_at:%Y-%m-%d %H:%M}",
                          f"{t.last_used_at:%Y-%m-%d %H:%M}" if t.last_used_at else "-",
                          "active" if t.active else "revoked")
        console.print(table)


@app.command("revoke")
def revoke(token_id: int = typer.Argument(..., metavar="ID", help="The id shown by `wenshu token list`.")) -> None:
    """Revoke a token at once; requests using it get 401 from then on."""
    from wenshu.errors import NotFound

    with guarded():
        with _store() as store:
            if not store.users.revoke(token_id):
                raise NotFound(f"There is no active token {token_id}.", f"没有编号为 {token_id} 的有效令牌。",
                               code="token_not_found")
        console.print(f"Revoked token {token_id}.")


@app.command("grant")
def grant(
    user: str = typer.Option(..., "--user", "-u"),
    datasource: str = typer.Argument(..., help="A datasource name, or '*' for every datasource."),
    remove: bool = typer.Option(False, "--remove", help="Take the grant away instead."),
) -> None:
    """Grant a user a datasource (or take it away with --remove)."""
    with guarded():
        with _store() as store:
            if remove:
                store.users.revoke_grant(user, datasource)
            else:
                store.users.grant(user, datasource)
            grants = store.users.grants(user)
        console.print(f"{user}: {_grants_text(grants)}", highlight=False)
