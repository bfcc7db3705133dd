#!/usr/bin/env bash
# `make run-team`: Wenshu as a team service on one machine, without Docker. PostgreSQL (the app store, its
# checkpoints and pgvector) and Redis (shared cache, rate limits, session memory) from Debian's packages run
# with their data under WENSHU_HOME/team, on free loopback ports chosen once, with a generated password;
# servers already running are reused. The app store is migrated, then `wenshu serve` runs with
# WENSHU_DATABASE_URL and WENSHU_REDIS_URL set (docs/team.md).
#
#   scripts/run-team.sh [serve]   start or reuse both, serve (migrating first; Ctrl-C stops Wenshu, not the servers)
#   scripts/run-team.sh up        start or reuse both and migrate
#   scripts/run-team.sh env       the export lines for WENSHU_DATABASE_URL and WENSHU_REDIS_URL
#   scripts/run-team.sh down      stop both
#
# Variables: WENSHU_HOME (~/.wenshu), TEAM_WORKERS (2: passed as `--workers` when `wenshu serve` has it),
# TEAM_HOST (127.0.0.1), TEAM_PORT (8765), SERVE_ARGS (more `wenshu serve` arguments), WENSHU (the wenshu
# command: .venv/bin/wenshu, else the one on PATH), PG_BIN (PostgreSQL's bin folder: the newest installed).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
HOME_DIR="${WENSHU_HOME:-$HOME/.wenshu}"
TEAM="$HOME_DIR/team"
TEAM_WORKERS="${TEAM_WORKERS:-2}"
if [ -z "${WENSHU:-}" ]; then
  if [ -x "$ROOT/.venv/bin/wenshu" ]; then WENSHU="$ROOT/.venv/bin/wenshu"; else WENSHU="$(command -v wenshu || true)"; fi
fi
PG_BIN="${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n | tail -1)}"
REDIS_SERVER="$(command -v redis-server || echo /usr/bin/redis-server)"
DB_USER=wenshu
DB_NAME=wenshu

die() { echo "run-team: $*" >&2; exit 1; }

need_binaries() {
  [ -n "$WENSHU" ] && [ -x "$WENSHU" ] || die "the wenshu command was not found: run \`make install\`, or set WENSHU."
  [ -x "$PG_BIN/initdb" ] && [ -x "$PG_BIN/pg_ctl" ] ||
    die "PostgreSQL's server binaries are missing: apt-get install postgresql (or \`make system-deps\`)."
  [ -x "$REDIS_SERVER" ] || die "redis-server is missing: apt-get install redis-server (or \`make system-deps\`)."
}

# PostgreSQL refuses to run as root: as root, its commands run as the `postgres` system user, which must be
# able to reach WENSHU_HOME/team.
as_pg() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The ports and the password, chosen on the first run and kept in WENSHU_HOME/team/team.env (mode 600).
load_config() {
  mkdir -p "$TEAM"
  if [ ! -f "$TEAM/team.env" ]; then
    umask 077
    {
      echo "PG_PORT=$(free_port)"
      echo "REDIS_PORT=$(free_port)"
      echo "SECRET=$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')"
    } >"$TEAM/team.env"
    umask 022
  fi
  # shellcheck disable=SC1091
  . "$TEAM/team.env"
  DATABASE_URL="postgresql://$DB_USER:$SECRET@127.0.0.1:$PG_PORT/$DB_NAME"
  REDIS_URL="redis://:$SECRET@127.0.0.1:$REDIS_PORT/0"
}

start_postgres() {
  local data="$TEAM/postgres"
  if [ "$(id -u)" -eq 0 ]; then
    chmod 755 "$TEAM"
    runuser -u postgres -- test -x "$TEAM" ||
      die "the postgres user cannot reach $TEAM: set WENSHU_HOME to a folder it can traverse (e.g. under /srv)."
  fi
  if [ ! -f "$data/PG_VERSION" ]; then
    echo "Creating the PostgreSQL cluster in $data (port $PG_PORT)"
    mkdir -p "$data"
    local pw="$TEAM/.pgpass-init"
    (umask 077; echo "$SECRET" >"$pw")
    if [ "$(id -u)" -eq 0 ]; then chown postgres: "$data" "$pw"; fi
    as_pg "$PG_BIN/initdb" -D "$data" -U "$DB_USER" --pwfile="$pw" -A scram-sha-256 -E UTF8 --locale=C \
      >"$TEAM/initdb.log" 2>&1 || { rm -f "$pw"; die "initdb failed: $(tail -5 "$TEAM/initdb.log")"; }
    rm -f "$pw"
    printf "port = %s\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = ''\n" "$PG_PORT" |
      as_pg tee -a "$data/postgresql.conf" >/dev/null
  fi
  if as_pg "$PG_BIN/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    echo "PostgreSQL is running (port $PG_PORT): reused"
  else
    as_pg "$PG_BIN/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 start >/dev/null ||
      die "PostgreSQL did not start: $(tail -5 "$data/server.log")"
    echo "PostgreSQL started (port $PG_PORT)"
  fi
  export PGPASSWORD="$SECRET"
  if [ -z "$("$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U "$DB_USER" -d postgres -tAc \
        "SELECT 1 FROM pg_database WHERE datname = '$DB_NAME'")" ]; then
    "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U "$DB_USER" "$DB_NAME"
  fi
  unset PGPASSWORD
}

start_redis() {
  local dir="$TEAM/redis"
  mkdir -p "$dir"
  if [ -f "$dir/redis.pid" ] && kill -0 "$(cat "$dir/redis.pid")" 2>/dev/null; then
    echo "Redis is running (port $REDIS_PORT): reused"
    return
  fi
  (umask 077; printf 'port %s\nbind 127.0.0.1\nrequirepass %s\ndir %s\npidfile %s\nlogfile %s\ndaemonize yes\n' \
    "$REDIS_PORT" "$SECRET" "$dir" "$dir/redis.pid" "$dir/redis.log" >"$dir/redis.conf")
  "$REDIS_SERVER" "$dir/redis.conf"
  for _ in $(seq 100); do [ -s "$dir/redis.pid" ] && break; sleep 0.05; done
  echo "Redis started (port $REDIS_PORT)"
}

start() {
  need_binaries
  load_config
  start_postgres
  start_redis
}

up() {
  start
  WENSHU_DATABASE_URL="$DATABASE_URL" WENSHU_REDIS_URL="$REDIS_URL" "$WENSHU" db migrate
}

down() {
  [ -f "$TEAM/team.env" ] || { echo "Nothing to stop: no team set-up in $TEAM"; return; }
  load_config
  if [ -f "$TEAM/postgres/PG_VERSION" ] && as_pg "$PG_BIN/pg_ctl" -D "$TEAM/postgres" status >/dev/null 2>&1; then
    as_pg "$PG_BIN/pg_ctl" -D "$TEAM/postgres" -m fast -w stop >/dev/null && echo "PostgreSQL stopped"
  fi
  local pid_file="$TEAM/redis/redis.pid"
  if [ -f "$pid_file" ] && kill -0 "$(cat "$pid_file")" 2>/dev/null; then
    local pid
    pid="$(cat "$pid_file")"
    kill "$pid"
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    echo "Redis stopped"
  fi
}

# `wenshu serve` migrates the store when it opens it (under a lock: several processes may start at once).
serve() {
  start
  local args=(--host "${TEAM_HOST:-127.0.0.1}" --port "${TEAM_PORT:-8765}")
  if "$WENSHU" serve --help 2>/dev/null | grep -q -- "--workers"; then
    args+=(--workers "$TEAM_WORKERS")
  fi
  export WENSHU_DATABASE_URL="$DATABASE_URL" WENSHU_REDIS_URL="$REDIS_URL"
  # shellcheck disable=SC2086
  exec "$WENSHU" serve "${args[@]}" ${SERVE_ARGS:-}
}

case "${1:-serve}" in
  serve) serve ;;
  up) up ;;
  env) load_config; printf 'export WENSHU_DATABASE_URL=%q\nexport WENSHU_REDIS_URL=%q\n' "$DATABASE_URL" "$REDIS_URL" ;;
  down) down ;;
  *) die "unknown command '$1' (serve | up | env | down)" ;;
esac
