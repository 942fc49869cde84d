#!/usr/bin/env bash
# Installs Suricata's published EVE JSON schema (`etc/schema.json`) at /usr/local/share/suricata/schema.json (or $1), for
# test/integration/export/eve-export.test.ts, which validates every EVE line Vigil writes against it.
#
# No Debian binary package installs the schema (suricata 7.0 and 8.0 ship neither it nor a copy), and no npm package
# carries it. The source package of `suricata` 8.x (Debian unstable) has it in its upstream tarball, so this fetches that
# source package with apt-get, from the Debian archive this machine's apt already uses (the URIs of its own sources),
# into a temporary directory with a private apt state, and copies the one file out. The system's apt configuration is
# not changed. The schema is never committed to this repository (it is Suricata's, under its licence).
#
# Run as root once per machine (CI: before `npm test`). Exits 0 when the schema is already there.
set -euo pipefail
dest=${1:-/usr/local/share/suricata/schema.json}
[ -s "$dest" ] && exit 0

uri=$( { cat /etc/apt/sources.list.d/*.sources 2>/dev/null || true; } | awk '/^URIs:/ && $2 ~ /debian\/?$/ {print $2; exit}')
if [ -z "$uri" ]; then
  uri=$(awk '$1 == "deb" && $0 ~ /debian\/? / {for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) {print $i; exit}}' /etc/apt/sources.list 2>/dev/null || true)
fi
[ -n "$uri" ] || { echo "suricata-schema: no Debian archive found in this machine's apt sources" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/src"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri sid main" >"$work/sources.list"
opts=(-o "Dir::Etc::sourcelist=$work/sources.list" -o Dir::Etc::sourceparts=/dev/null -o "Dir::State::Lists=$work/lists"
      -o "Dir::Cache=$work/cache" -o APT::Sandbox::User=root -qq)
apt-get "${opts[@]}" update
# Only the upstream tarball is needed; the Debian packaging part may be missing from a mirror, so failures are judged
# by what arrived.
(cd "$work/src" && apt-get "${opts[@]}" source --download-only suricata) || true
tarball=$(ls "$work"/src/suricata_8.*.orig.tar.* 2>/dev/null | grep -v '\.asc$' | head -n1 || true)
[ -n "$tarball" ] || { echo "suricata-schema: the suricata 8.x source package could not be fetched" >&2; exit 1; }
tar -xf "$tarball" -C "$work/src" --wildcards '*/etc/schema.json'
install -D -m 0644 "$work"/src/suricata-*/etc/schema.json "$dest"
echo "suricata-schema: installed $dest from $(basename "$tarball")"
