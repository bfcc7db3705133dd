"""The engines layer: one adapter per SQL engine (`adapter.py`; SQLite, PostgreSQL, MySQL/MariaDB,
DuckDB, ClickHouse, Spark SQL), registered by name through entry points (`registry.py`), each owning
what its engine does differently: the read-only session and time limits, bounded execution (layer 4 of
the guard), plan estimates, sampling under a time limit, the guard's vocabulary and the SQL the
semantic layer writes. It sits below the capabilities (the guard, the catalog sync, the semantic
compiler and the agent ask it) and imports only the catalog model, the plugin loader and the errors."""
