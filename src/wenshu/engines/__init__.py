"""The engines layer: read-only connections to the business databases and bounded execution on
them (SQLite files through the standard library, other engines through SQLAlchemy), the result
shape and its JSON-safe values. It sits below the capabilities (the guard's plan check, the catalog
sync and the agent run queries through it) and imports only `wenshu.errors`."""
