#!/usr/bin/env bash
# Debian packages the test suite uses: PostgreSQL and MariaDB servers (the SQL guard is proven
# against real engines, started by the test fixtures in temporary directories), Redis (the shared result
# cache, rate limits and session memory, tests/fixtures_redis.py), pgvector for the
# PostgreSQL app store's vector index, Java for Spark SQL in local mode, Chromium for the browser
# tests, CJK fonts so Chinese renders in screenshots and chart images, and for `wenshu desktop`: GTK 3 +
# WebKit2GTK's typelibs, the headers PyGObject and pycairo build against (the `desktop` extra), and Xvfb
# for the window test.
# Installs only what is missing; needs root or sudo. Safe to run again.
set -euo pipefail
PACKAGES=(postgresql mariadb-server redis-server openjdk-17-jre-headless chromium fonts-noto-cjk
          gir1.2-webkit2-4.1 libgirepository1.0-dev libcairo2-dev pkg-config xvfb)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; else
    if [ ${#missing[@]} -ne 0 ]; then
      echo "Missing Debian packages: ${missing[*]} (run as root or install them: apt-get install ${missing[*]})." >&2
      exit 1
    fi
  fi
fi
export DEBIAN_FRONTEND=noninteractive
if [ ${#missing[@]} -ne 0 ]; then
  echo "Installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
  # The packaged services are not used (the tests start their own servers); keep them from running.
  $SUDO systemctl disable --now postgresql mariadb redis-server >/dev/null 2>&1 || true
fi
# pgvector for the newest installed PostgreSQL (the one the tests start): Debian's
# postgresql-NN-pgvector where the release has it, else built from Debian's source package.
pg_major=$(find /usr/lib/postgresql -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | sort -n | tail -1)
if [ -n "$pg_major" ] && [ ! -f "/usr/share/postgresql/$pg_major/extension/vector.control" ]; then
  if [ -n "$(apt-cache policy "postgresql-$pg_major-pgvector" 2>/dev/null | grep 'Candidate: [0-9]')" ]; then
    $SUDO apt-get install -y -q --no-install-recommends "postgresql-$pg_major-pgvector"
  else
    bash "$(dirname "$0")/build-pgvector.sh" "$pg_major"
  fi
fi
