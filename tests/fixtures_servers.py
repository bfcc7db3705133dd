"""Real database servers for the tests: a throwaway PostgreSQL and MariaDB, started once per session.

Each server lives in its own temporary directory (data, socket, log), listens on a free loopback
port, runs as the engine's own system user when the tests run as root, and is stopped and deleted
at the end. Each gets a `shop` database (customers, orders, canary) and a non-privileged read-only
role `wenshu_ro`. Missing binaries skip the tests, unless `WENSHU_REQUIRE_SERVERS=1` (set by
`make test`), where they fail loudly.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import sqlalchemy as sa
from fixtures_seed import SENTINEL_TEXT, checksum_engines, seed

RO_USER, RO_PASSWORD, DATABASE = "wenshu_ro", "wenshu_ro_pw", "shop"
READY_TIMEOUT_S = 30


@dataclass
class Server:
    engine: str  # "postgres" | "mysql"
    admin_url: str  # superuser, maintenance database
    url: str  # superuser, the shop database
    ro_url: str  # the non-privileged read-only role, the shop database
    base: Path  # the temp dir owned by the server's user
    sentinel_dir: Path  # a directory the server's user can read and write
    sentinel_file: Path  # a file whose content no query may ever return
    startup_s: float


def missing(reason: str) -> None:
    """Skip, or fail under `make test` (WENSHU_REQUIRE_SERVERS=1)."""
    if os.environ.get("WENSHU_REQUIRE_SERVERS") == "1":
        pytest.fail(f"required test server unavailable: {reason}")
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_user(user: str) -> list[str]:
    """Command prefix that runs as `user` when we are root (servers refuse to run as root)."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam(user)
    except KeyError:
        missing(f"the system user {user!r} does not exist")
    return ["runuser", "-u", user, "--"]


def _owned_tempdir(prefix: str, user: str) -> Path:
    base = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))  # short path: unix sockets max ~100 chars
    if os.geteuid() == 0:
        entry = pwd.getpwnam(user)
        os.chown(base, entry.pw_uid, entry.pw_gid)
    return base


def _sentinel(base: Path, user: str) -> tuple[Path, Path]:
    folder = base / "sentinel"
    folder.mkdir()
    path = folder / "secret.txt"
    path.write_text(SENTINEL_TEXT + "\n")
    if os.geteuid() == 0:
        entry = pwd.getpwnam(user)
        for p in (folder, path):
            os.chown(p, entry.pw_uid, entry.pw_gid)
    return folder, path


def _run(cmd: list[str], what: str) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(f"{what} failed ({proc.returncode}): {proc.stderr.strip()[-800:]}")


def _wait_ready(url: str, log: Path) -> None:
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    deadline = time.monotonic() + READY_TIMEOUT_S
    try:
        while True:
            try:
                with engine.connect() as conn:
                    conn.exec_driver_sql("SELECT 1")
                return
            except sa.exc.OperationalError:
                if time.monotonic() > deadline:
                    tail = log.read_text(errors="replace")[-800:] if log.exists() else ""
                    raise RuntimeError(f"server at {url} not ready after {READY_TIMEOUT_S} s: {tail}") from None
                time.sleep(0.1)
    finally:
        engine.dispose()


# --- PostgreSQL ----------------------------------------------------------------------------------


def _pg_bin() -> Path | None:
    versions = [Path(p).parts[4] for p in glob.glob("/usr/lib/postgresql/*/bin/initdb")]
    found = sorted((int(v), v) for v in versions if v.isdigit())
    return Path(f"/usr/lib/postgresql/{found[-1][1]}/bin") if found else None


def _start_postgres() -> Server:
    bindir = _pg_bin()
    if bindir is None:
        missing("PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin")
    started = time.monotonic()
    prefix = _as_user("postgres")
    base = _owned_tempdir("wenshu-pg-", "postgres")
    data, log, port = base / "data", base / "server.log", free_port()
    _run(prefix + [str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust", "--no-sync",
                   "-E", "UTF8", "--locale=C"], "initdb")  # fmt: skip
    opts = f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
    _run(prefix + [str(bindir / "pg_ctl"), "-D", str(data), "-o", opts, "-l", str(log), "-w", "start"], "pg_ctl start")
    try:
        return _setup_postgres(base, port, started)
    except Exception:
        _stop_postgres(base)
        shutil.rmtree(base, ignore_errors=True)
        raise


def _setup_postgres(base: Path, port: int, started: float) -> Server:
    admin = f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    _wait_ready(admin, base / "server.log")
    url = f"postgresql+psycopg://postgres@127.0.0.1:{port}/{DATABASE}"
    engine = sa.create_engine(admin, isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool)
    with engine.connect() as conn:
        conn.exec_driver_sql(f"CREATE DATABASE {DATABASE}")
        conn.exec_driver_sql(f"CREATE ROLE {RO_USER} LOGIN PASSWORD '{RO_PASSWORD}' NOSUPERUSER NOCREATEDB NOCREATEROLE")
    engine.dispose()
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    with engine.begin() as conn:
        seed(conn)
        conn.exec_driver_sql("CREATE SEQUENCE canary_seq")
        conn.exec_driver_sql("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
        conn.exec_driver_sql(f"REVOKE TEMPORARY ON DATABASE {DATABASE} FROM PUBLIC")
        conn.exec_driver_sql(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {RO_USER}")
    engine.dispose()
    sentinel_dir, sentinel_file = _sentinel(base, "postgres")
    ro = f"postgresql+psycopg://{RO_USER}:{RO_PASSWORD}@127.0.0.1:{port}/{DATABASE}"
    return Server("postgres", admin, url, ro, base, sentinel_dir, sentinel_file, time.monotonic() - started)


def _stop_postgres(base: Path) -> None:
    bindir = _pg_bin()
    subprocess.run(_as_user("postgres") + [str(bindir / "pg_ctl"), "-D", str(base / "data"), "-m", "immediate",
                                           "-w", "stop"], capture_output=True, timeout=60)  # fmt: skip


# --- MariaDB -------------------------------------------------------------------------------------


def _start_mariadb() -> tuple[Server, subprocess.Popen]:
    mariadbd = shutil.which("mariadbd") or ("/usr/sbin/mariadbd" if os.path.exists("/usr/sbin/mariadbd") else None)
    install = shutil.which("mariadb-install-db") or shutil.which("mysql_install_db")
    if not mariadbd or not install:
        missing("MariaDB server binaries (mariadbd, mariadb-install-db) not found")
    started = time.monotonic()
    prefix = _as_user("mysql")
    base = _owned_tempdir("wenshu-md-", "mysql")
    data, log, port = base / "data", base / "server.log", free_port()
    user = ["--user=mysql"] if os.geteuid() == 0 else []
    _run([install, "--no-defaults", f"--datadir={data}", "--auth-root-authentication-method=normal",
          "--skip-test-db", *user], "mariadb-install-db")  # fmt: skip
    proc = subprocess.Popen(
        prefix + [mariadbd, "--no-defaults", f"--datadir={data}", f"--socket={base / 'sock'}", f"--port={port}",
                  "--bind-address=127.0.0.1", "--skip-networking=0", f"--pid-file={base / 'pid'}",
                  f"--log-error={log}", "--innodb-buffer-pool-size=32M", "--skip-log-bin",
                  "--innodb-flush-log-at-trx-commit=0"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        return _setup_mariadb(base, port, started), proc
    except Exception:
        _stop_mariadb(proc)
        shutil.rmtree(base, ignore_errors=True)
        raise


def _setup_mariadb(base: Path, port: int, started: float) -> Server:
    admin = f"mysql+pymysql://root@127.0.0.1:{port}/mysql"
    _wait_ready(admin, base / "server.log")
    engine = sa.create_engine(admin, isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool)
    with engine.connect().execution_options(no_parameters=True) as conn:
        conn.exec_driver_sql("DELETE FROM mysql.global_priv WHERE User = ''")  # anonymous users shadow ours
        conn.exec_driver_sql("FLUSH PRIVILEGES")
        conn.exec_driver_sql(f"CREATE DATABASE {DATABASE} CHARACTER SET utf8mb4")
        for host in ("%", "localhost", "127.0.0.1"):
            conn.exec_driver_sql(f"CREATE USER '{RO_USER}'@'{host}' IDENTIFIED BY '{RO_PASSWORD}'")
            conn.exec_driver_sql(f"GRANT SELECT ON {DATABASE}.* TO '{RO_USER}'@'{host}'")
    engine.dispose()
    url = f"mysql+pymysql://root@127.0.0.1:{port}/{DATABASE}?charset=utf8mb4"
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    with engine.begin() as conn:
        seed(conn)
    engine.dispose()
    sentinel_dir, sentinel_file = _sentinel(base, "mysql")
    ro = f"mysql+pymysql://{RO_USER}:{RO_PASSWORD}@127.0.0.1:{port}/{DATABASE}?charset=utf8mb4"
    return Server("mysql", admin, url, ro, base, sentinel_dir, sentinel_file, time.monotonic() - started)


def _stop_mariadb(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def _dispose_engines() -> None:
    """Close pooled connections the code under test and the checksums keep, so servers stop promptly."""
    from wenshu.engines.connections import cached_engines

    for engine in list(cached_engines()) + list(checksum_engines.values()):
        engine.dispose()


@pytest.fixture(scope="session")
def pg_server():
    try:
        server = _start_postgres()
    except RuntimeError as err:
        missing(f"PostgreSQL could not start: {err}")
    try:
        yield server
    finally:
        _dispose_engines()
        _stop_postgres(server.base)
        shutil.rmtree(server.base, ignore_errors=True)


@pytest.fixture
def pg_database(pg_server):
    """The URL of a fresh, empty database on the PostgreSQL server the tests start, dropped afterwards."""
    import uuid

    base = pg_server.admin_url
    server = sa.create_engine(base, isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool)
    name = f"wenshu_test_{uuid.uuid4().hex[:12]}"
    with server.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield sa.make_url(base).set(database=name).render_as_string(hide_password=False)
    finally:
        with server.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        server.dispose()


@pytest.fixture
def pgvector_database(pg_database):
    """A fresh database whose server has the pgvector extension (scripts/system-deps.sh installs it)."""
    engine = sa.create_engine(pg_database, poolclass=sa.pool.NullPool)
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql("CREATE EXTENSION IF NOT EXISTS vector")
    except sa.exc.DBAPIError as err:
        missing(f"pgvector is not installed for this PostgreSQL (make system-deps): {str(err.orig).strip()}")
    finally:
        engine.dispose()
    return pg_database


@pytest.fixture(scope="session")
def mariadb_server():
    try:
        server, proc = _start_mariadb()
    except RuntimeError as err:
        missing(f"MariaDB could not start: {err}")
    try:
        yield server
    finally:
        _dispose_engines()
        _stop_mariadb(proc)
        shutil.rmtree(server.base, ignore_errors=True)
