#!/usr/bin/env bash
# Vendor the web UI's chart libraries (vega, vega-lite, vega-embed) so the UI runs fully offline.
# Installs pinned versions from the npm registry into a temp dir and copies the minified UMD builds
# into src/wenshu/server/static/vendor/ with a VERSIONS file (name, version, sha256).
# Re-running it with the same pins reproduces the same files byte for byte.
set -euo pipefail

VEGA=5.33.1
VEGA_LITE=5.23.0
VEGA_EMBED=6.29.0

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/src/wenshu/server/static/vendor"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cd "$work"
npm init -y >/dev/null
npm install --no-audit --no-fund --ignore-scripts --save-exact \
    "vega@$VEGA" "vega-lite@$VEGA_LITE" "vega-embed@$VEGA_EMBED" >/dev/null

mkdir -p "$dest"
: > "$dest/VERSIONS.tmp"
for pkg in vega vega-lite vega-embed; do
    file="$pkg.min.js"
    cp "node_modules/$pkg/build/$file" "$dest/$file"
    version="$(node -p "require('./node_modules/$pkg/package.json').version")"
    sha="$(sha256sum "$dest/$file" | cut -d' ' -f1)"
    printf '%s %s %s %s\n' "$pkg" "$version" "$sha" "$file" >> "$dest/VERSIONS.tmp"
    cp "node_modules/$pkg/LICENSE" "$dest/$pkg.LICENSE" 2>/dev/null || true
done
mv "$dest/VERSIONS.tmp" "$dest/VERSIONS"
echo "vendored into $dest:"
cat "$dest/VERSIONS"
