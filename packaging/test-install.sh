#!/usr/bin/env bash
# Part of make test-pkg: `make install` then `make uninstall` into temporary DESTDIRs.
#   packaging/test-install.sh MAKE
# 1. An empty DESTDIR is empty again after uninstall (every file and every directory the install made is gone).
# 2. A file that was in the DESTDIR before (usr/local/bin/other) stays, with its directories; nothing else does.
set -euo pipefail
make=${1:-make}
cd "$(dirname "$0")/.."
fail() { echo "test-install: FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cycle() {
  $make --no-print-directory install DESTDIR="$1" PREFIX=/usr/local >/dev/null
  for f in bin/readback share/man/man1/readback.1.gz share/bash-completion/completions/readback \
    share/zsh/site-functions/_readback share/doc/readback/policy.md share/doc/readback/report-schema.md \
    share/doc/readback/codes.md; do
    [ -s "$1/usr/local/$f" ] || fail "make install did not install usr/local/$f"
  done
  $make --no-print-directory uninstall DESTDIR="$1" PREFIX=/usr/local >/dev/null
  (cd "$1" && find . -mindepth 1 | LC_ALL=C sort | tr '\n' ' ')
}

mkdir "$tmp/empty"
left=$(cycle "$tmp/empty")
[ -z "$left" ] || fail "make uninstall left in an empty DESTDIR: $left"
echo "test-install: ok: make install + uninstall leave an empty DESTDIR empty"

mkdir -p "$tmp/used/usr/local/bin" && echo keep >"$tmp/used/usr/local/bin/other"
left=$(cycle "$tmp/used")
[ "$left" = "./usr ./usr/local ./usr/local/bin ./usr/local/bin/other " ] || fail "make uninstall left: $left"
echo "test-install: ok: make uninstall keeps what was there before (usr/local/bin/other) and only that"
