#!/usr/bin/env bash
# make deb: readback_<version>_<arch>.deb from the release binary, with Debian's own tools.
#   packaging/deb.sh BINARY VERSION OUT.deb
# VERSION is the one `BINARY --version` prints (the Makefile reads it). The files are what `make install PREFIX=/usr` installs
# (zsh completion in vendor-completions, the binary stripped), plus the copyright file and the changelog that
# Debian policy asks for. Depends comes from dpkg-shlibdeps over the binary's real NEEDED libraries,
# Installed-Size and the control file from dpkg-gencontrol, md5sums as dh_md5sums writes them.
set -euo pipefail
usage="usage: deb.sh BINARY VERSION OUT.deb"
bin=${1:?$usage}
version=${2:?$usage (no version: did '$bin --version' print one?)}
deb=${3:?$usage}
here=$(cd "$(dirname "$0")/.." && pwd)
maintainer=${DEB_MAINTAINER:-Readback maintainers <readback@example.org>}

# Reproducible: dates from the last commit when there is one.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$here" log -1 --format=%ct 2>/dev/null || date +%s)}
commit=$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/debian/readback
mkdir -p "$root" && chmod 755 "$work/debian" "$root"

PREFIX=/usr DESTDIR=$root ZSHCOMPDIR=/usr/share/zsh/vendor-completions STRIP=1 MANIFEST=0 \
  "$here/packaging/install.sh" install "$bin" >/dev/null

# Debian's control stub: debian/control (template), debian/changelog (this version).
sed "s|@MAINTAINER@|$maintainer|" "$here/packaging/debian/control" >"$work/debian/control"
{
  echo "readback ($version) unstable; urgency=medium"
  echo
  echo "  * Built by make deb from commit $commit."
  echo
  echo " -- $maintainer  $(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} >"$work/debian/changelog"

doc=$root/usr/share/doc/readback
# LibRaw is linked in statically, under the CDDL-1.0 of its dual licence, whose text is not among Debian's
# common-licenses: the copyright file carries it, from the pinned source make deps built (docs/install.md).
cddl=${LIBRAW_PREFIX:-$here/.build/libraw}/share/doc/libraw/LICENSE.CDDL
[ -f "$cddl" ] || { echo "deb: $cddl is missing (make deps builds LibRaw)" >&2; exit 1; }
{
  cat "$here/packaging/debian/copyright"
  echo
  echo "License: CDDL-1.0"
  sed -e 's/[[:space:]]*$//' -e 's/^$/./' -e 's/^/ /' "$cddl"
} >"$doc/copyright"
chmod 644 "$doc/copyright"
# LibRaw is embedded on purpose (Debian 12's 0.20 cannot read cameras of the last five years): lintian is told so.
install -d -m 755 "$root/usr/share/lintian/overrides"
echo "readback: embedded-library libraw [usr/bin/readback]" >"$root/usr/share/lintian/overrides/readback"
chmod 644 "$root/usr/share/lintian/overrides/readback"
# A native package (no Debian revision in the version): the changelog is changelog.gz.
gzip -9n <"$work/debian/changelog" >"$doc/changelog.gz" && chmod 644 "$doc/changelog.gz"

(
  cd "$work"
  # DEBIAN/ first: dpkg-shlibdeps finds the package's root by it.
  mkdir -m 755 debian/readback/DEBIAN
  dpkg-shlibdeps -Tdebian/readback.substvars debian/readback/usr/bin/readback
  dpkg-gencontrol -preadback -Pdebian/readback -Tdebian/readback.substvars
  cd debian/readback
  find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum >DEBIAN/md5sums
  chmod 644 DEBIAN/md5sums DEBIAN/control
)

dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "deb: $deb ($(du -h "$deb" | cut -f1))"
dpkg-deb --field "$deb" Package Version Architecture Installed-Size Depends
