#!/usr/bin/env bash
# pgvector for PostgreSQL $1, built from Debian's source package where Debian has no binary package for
# that PostgreSQL (bookworm ships PostgreSQL 15 without pgvector; the source package of a newer Debian
# release builds against it). scripts/system-deps.sh calls this; the result is checked by the tests
# (tests/test_vector_index.py runs the vector-index conformance suite on pgvector).
# Usage: build-pgvector.sh PG_MAJOR [SUITE]   (SUITE: the Debian release whose source to take; trixie)
# Needs root or sudo. Uses the Debian mirror this machine's apt already uses, with a private package
# list: the machine's own apt sources are not changed.
set -euo pipefail
PG_MAJOR=$1
SUITE=${2:-trixie}
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y -q --no-install-recommends "postgresql-server-dev-$PG_MAJOR" dpkg-dev make gcc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mirror=$(apt-get indextargets --format '$(REPO_URI)' 'Created-By: Packages' | grep -v -- '-security' | head -1)
if [ -z "$mirror" ]; then
  echo "No Debian mirror found in this machine's apt sources; cannot fetch the pgvector source." >&2
  exit 1
fi
mkdir -p "$work/lists/partial"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $SUITE main" >"$work/sources.list"
opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=$work/none" -o "Dir::State::Lists=$work/lists")
apt-get "${opts[@]}" update -q
(cd "$work" && apt-get "${opts[@]}" source -q pgvector)
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'pgvector-*' | head -1)
# OPTFLAGS="": no -march=native, so the build runs on any x86-64 machine
make -C "$src" PG_CONFIG="/usr/lib/postgresql/$PG_MAJOR/bin/pg_config" OPTFLAGS="" -j2
$SUDO make -C "$src" PG_CONFIG="/usr/lib/postgresql/$PG_MAJOR/bin/pg_config" OPTFLAGS="" install
echo "pgvector built from source and installed for PostgreSQL $PG_MAJOR"
