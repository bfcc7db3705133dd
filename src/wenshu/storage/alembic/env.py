"""Alembic's environment for the app store (storage/migrations.py runs it; no alembic.ini).

`migrations.migrate()` opens the connection, takes the lock and the transaction, and hands the
connection over in `config.attributes["connection"]`; every revision then runs inside that one
transaction, so a failed upgrade leaves the database as it was. `schema.metadata` is the target of
autogenerate (docs/storage.md) and of the test that compares a migrated database with it.
"""

from __future__ import annotations

from alembic import context

from wenshu.storage.schema import metadata


def include_object(obj, name, type_, reflected, compare_to) -> bool:
    """Tables the vector indexes create on first use (sqlite-vec's `vec_index_<dim>`, pgvector's
    `pgvector_items`) are not the migrations' business."""
    return not (type_ == "table" and reflected and compare_to is None and name.startswith(("vec_index_", "pgvector_")))


connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("the app store's migrations run through wenshu.storage.migrations.migrate(engine)")
context.configure(
    connection=connection,
    target_metadata=metadata,
    include_object=include_object,
    render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters tables by copying them
    transactional_ddl=True,
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
