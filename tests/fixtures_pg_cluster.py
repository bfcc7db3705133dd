"""A PostgreSQL of a test module's own, which its tests may stop and start again (the fault tests), with password
authentication over TCP (the wrong-password check): `pg_cluster` (module scope) is a `PgCluster`.

    url = pg_cluster.url("wenshu_x")          # a database on it (created by `pg_cluster.create_database`)
    pg_cluster.stop(); pg_cluster.start()     # pg_ctl, same data directory and port

The session's `pg_server` (tests/fixtures_servers.py) is shared by every test and never stopped; this one is.
"""

from __future__ import annotations

import os
import pwd
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
import sqlalchemy as sa

from fixtures_servers import _as_user, _owned_tempdir, _pg_bin, _run, _stop_postgres, _wait_ready, free_port, missing

PASSWORD = "pw-for-tests"


@dataclass
class PgCluster:
    base: Path
    port: int

    @property
    def data(self) -> Path:
        return self.base / "data"

    def url(self, database: str = "postgres", password: str = PASSWORD, driver: str = "postgresql") -> str:
        return f"{driver}://postgres:{password}@127.0.0.1:{self.port}/{database}"

    def pg_ctl(self, *args: str) -> None:
        _run(_as_user("postgres") + [str(_pg_bin() / "pg_ctl"), "-D", str(self.data), *args], f"pg_ctl {args[-1]}")

    def start(self) -> None:
        opts = f"-p {self.port} -k {self.base} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
        self.pg_ctl("-o", opts, "-l", str(self.base / "server.log"), "-w", "start")
        _wait_ready(self.url(driver="postgresql+psycopg"), self.base / "server.log")

    def stop(self, mode: str = "immediate") -> None:
        """Stop the server; `immediate` is a crash as far as clients can tell (no goodbye to connections)."""
        self.pg_ctl("-m", mode, "-w", "stop")

    def create_database(self, name: str) -> str:
        engine = sa.create_engine(self.url(driver="postgresql+psycopg"), isolation_level="AUTOCOMMIT",
                                  poolclass=sa.pool.NullPool)
        with engine.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
        engine.dispose()
        return self.url(name)


def _init() -> PgCluster:
    bindir = _pg_bin()
    if bindir is None:
        missing("PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin")
    cluster = PgCluster(_owned_tempdir("wenshu-pgc-", "postgres"), free_port())
    pwfile = cluster.base / "pw"
    pwfile.write_text(PASSWORD + "\n")
    if os.geteuid() == 0:
        entry = pwd.getpwnam("postgres")
        os.chown(pwfile, entry.pw_uid, entry.pw_gid)
    _run(_as_user("postgres") + [str(bindir / "initdb"), "-D", str(cluster.data), "-U", "postgres", "--no-sync",
                                 f"--pwfile={pwfile}", "--auth-host=scram-sha-256", "--auth-local=trust",
                                 "-E", "UTF8", "--locale=C"], "initdb")  # fmt: skip
    cluster.start()
    return cluster


@pytest.fixture(scope="module")
def pg_cluster():
    try:
        cluster = _init()
    except RuntimeError as err:
        missing(f"PostgreSQL could not start: {err}")
    try:
        yield cluster
    finally:
        _stop_postgres(cluster.base)
        shutil.rmtree(cluster.base, ignore_errors=True)
