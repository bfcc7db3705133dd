#!/usr/bin/env bash
# Debian packages the test suite uses: PostgreSQL and MariaDB servers (the SQL guard is proven
# against real engines, started by the test fixtures in temporary directories), Java for Spark SQL in
# local mode, Chromium for the browser tests, and CJK fonts so Chinese renders in screenshots and
# chart images.
# Installs only what is missing; needs root or sudo. Safe to run again.
set -euo pipefail
PACKAGES=(postgresql mariadb-server openjdk-17-jre-headless chromium fonts-noto-cjk)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; else
    echo "Missing Debian packages: ${missing[*]} (run as root or install them: apt-get install ${missing[*]})." >&2
    exit 1
  fi
fi
echo "Installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
# The packaged services are not used (the tests start their own servers); keep them from running.
$SUDO systemctl disable --now postgresql mariadb >/dev/null 2>&1 || true
