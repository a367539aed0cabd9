#!/usr/bin/env bash
# make test-pkg: the .deb as a user gets it. Installs it with apt-get, runs /usr/bin/readback with no Swift
# toolchain in reach (env -i PATH=/usr/bin:/bin), converts and audits a generated pair, checks the man page and
# the completions, purges the package and checks that nothing it installed is left. Runs as root (or sudo):
# a readback package already installed is purged first.
#   packaging/test-pkg.sh DEB
set -euo pipefail
deb=$(realpath "${1:?usage: test-pkg.sh DEB}")
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
clean_env=(env -i PATH=/usr/bin:/bin)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "test-pkg: FAIL: $*" >&2; exit 1; }
pass() { echo "test-pkg: ok: $*"; }
apt() { $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -y -qq "$@" >"$tmp/apt.log" 2>&1 || { cat "$tmp/apt.log" >&2; fail "apt-get $*"; }; }

if dpkg-query -W -f='${Status}' readback 2>/dev/null | grep -q installed; then
  echo "test-pkg: purging the readback package installed before this test"
  apt purge readback
fi

apt install "$deb"
dpkg-query -W -f='${Status}' readback | grep -q "install ok installed" || fail "readback is not installed"
dpkg -L readback >"$tmp/owned"
pass "apt-get install $(basename "$deb"): $(grep -c . "$tmp/owned") paths"

# The binary needs no Swift runtime: nothing of the toolchain among its libraries, and it runs without PATH or
# LD_LIBRARY_PATH pointing at one.
needed=$(readelf -d /usr/bin/readback | awk '/NEEDED/ { gsub(/[][]/, "", $NF); print $NF }')
if grep -E -i 'swift|Foundation|dispatch|BlocksRuntime|icu' <<<"$needed"; then fail "links the Swift runtime dynamically"; fi
if readelf -d /usr/bin/readback | grep -E 'RPATH|RUNPATH'; then fail "carries a run path"; fi
if ldd /usr/bin/readback | grep -E 'not found|/opt/|swift'; then fail "ldd finds toolchain or missing libraries"; fi
pass "NEEDED: $(tr '\n' ' ' <<<"$needed")"
# LibRaw is linked in statically (0.22, built from a pinned source): neither the binary nor the package names
# Debian's libraw.
if ldd /usr/bin/readback | grep -i libraw; then fail "links a shared libraw"; fi
if dpkg-query -W -f='${Depends}' readback | grep -i libraw; then fail "Depends names libraw"; fi
grep -q "LibRaw *0\.2[2-9]" <("${clean_env[@]}" /usr/bin/readback --version) || fail "--version names no LibRaw >= 0.22"
pass "LibRaw linked statically: $("${clean_env[@]}" /usr/bin/readback --version | grep LibRaw)"

version=$(dpkg-query -W -f='${Version}' readback)
"${clean_env[@]}" /usr/bin/readback --version >"$tmp/version" || fail "readback --version"
head -1 "$tmp/version" | grep -qx "readback *$version" || fail "--version says '$(head -1 "$tmp/version")', package $version"
pass "env -i PATH=/usr/bin:/bin readback --version: $(tr -s ' \n' ' ' <"$tmp/version")"

# A generated pair: the corpus's chart DNG, converted by the installed binary, then audited. A mutation with a
# known finding must fail the audit, so a readback that passes everything cannot pass this test.
run() { (cd "$tmp" && "${clean_env[@]}" HOME="$tmp/home" /usr/bin/readback "$@"); }
mkdir "$tmp/home"
run corpus generate --out corpus >"$tmp/generate.log" || { cat "$tmp/generate.log"; fail "corpus generate"; }
src=corpus/dng/chart-rggb-12bit-o1.dng
run convert "$src" --out heic >"$tmp/convert.log" || { cat "$tmp/convert.log"; fail "convert"; }
[ -s "$tmp/heic/chart-rggb-12bit-o1.heic" ] || fail "convert wrote no heic/chart-rggb-12bit-o1.heic"
run audit "$src" heic/chart-rggb-12bit-o1.heic --report report >"$tmp/audit.log" ||
  { cat "$tmp/audit.log"; fail "audit of the converted pair"; }
[ -s "$tmp/report/report.json" ] || fail "audit wrote no report.json"
pass "convert + audit $src: $(tail -1 "$tmp/audit.log")"
set +e
run audit "$src" corpus/heic/mutations/metadata.lost.heic --no-history >"$tmp/mutation.log"
code=$?
set -e
[ $code = 1 ] && grep -q "error metadata.lost" "$tmp/mutation.log" ||
  { cat "$tmp/mutation.log"; fail "audit of metadata.lost.heic exited $code without metadata.lost"; }
pass "audit of a mutation (GPS removed) fails with metadata.lost (exit 1)"

# The man page: found by man, renders without a groff warning, shows every option with an ASCII hyphen.
page=$(man -w readback) || fail "man -w readback finds nothing"
[ "$page" = /usr/share/man/man1/readback.1.gz ] || fail "man -w readback: $page"
warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$page" 2>&1 >/dev/null)
[ -z "$warnings" ] || fail "groff warnings: $warnings"
MANWIDTH=80 man -P cat readback 2>/dev/null | grep -q -e '--remove-originals trash|delete' || fail "man readback lacks --remove-originals"
pass "man -w readback: $page, renders without warnings"

# Completions: bash completes options, values and commands; so does a real interactive zsh (compinit finds the
# package's _readback in vendor-completions).
complete_bash() {
  bash -c 'source /usr/share/bash-completion/completions/readback; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
           _readback; echo "${COMPREPLY[*]}"' _ "$@"
}
[ "$(complete_bash readback convert --tile)" = "--tile-size" ] || fail "bash: readback convert --tile"
[ "$(complete_bash readback audit --fail-on w)" = "warning" ] || fail "bash: readback audit --fail-on w"
[ "$(complete_bash readback co)" = "convert corpus codes" ] || fail "bash: readback co"
pass "bash completion"
command -v zsh >/dev/null || fail "zsh is not installed (make test-pkg installs it)"
zsh -n /usr/share/zsh/vendor-completions/_readback || fail "zsh -n _readback"
# Option listings pad names to the longest option's width, so an option and its description are checked apart.
zsh -f "$(dirname "$0")/zsh-complete.zsh" 'readback convert --ti' 'readback convert --tile-size=' \
  'readback audit --fail-on ' 'known-loss' 'readback corpus ' 'remosaic' \
  'readback ' 'inspect  -- show a HEIF' 'readback audit --' '--no-history ' \
  'readback audit --' '-- do not record this run in the history database' || fail "zsh completion"
pass "zsh completion (compinit, Tab in an interactive zsh)"

apt purge readback
status=$(dpkg-query -W -f='${Status}' readback 2>/dev/null || true)
[ -z "$status" ] || [ "$status" = "unknown ok not-installed" ] || fail "after purge: $status"
left=0
while read -r path; do
  [ -e "$path" ] || [ -L "$path" ] || continue
  # What stays must be a directory another package owns or that holds other files (e.g. /usr/bin).
  if [ -d "$path" ] && { dpkg -S "$path" >/dev/null 2>&1 || [ -n "$(ls -A "$path")" ]; }; then continue; fi
  echo "left behind: $path" >&2
  left=$((left + 1))
done <"$tmp/owned"
[ $left = 0 ] || fail "$left paths of the package are left after purge"
pass "apt-get purge readback: nothing of the package is left"
