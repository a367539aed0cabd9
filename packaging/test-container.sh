#!/usr/bin/env bash
# make test-container: the Containerfile's steps without a container engine. Builds a Debian 12 root with
# debootstrap (minbase, plus the dpkg excludes of the debian:bookworm-slim image), then carries out the
# Containerfile itself in it: each COPY as a copy from the build context (the repository), each RUN through
# /bin/sh -c in a chroot, in order. Then the image's entry point runs a conversion and an audit.
#   packaging/test-container.sh [ROOT]   ROOT: where to build the root (default: a temporary folder, removed);
#                                        an existing ROOT is reused as the base, copied, never changed.
# Needs root (debootstrap, chroot, mount) and the network (deb.debian.org).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "test-container: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, chroot, mount /proc)"
work=$(mktemp -d)
root=$work/root
cleanup() {
  mountpoint -q "$root/proc" && umount "$root/proc"
  rm -rf "$work"
}
trap cleanup EXIT

grep -qx 'FROM debian:bookworm-slim' "$here/Containerfile" || fail "the Containerfile no longer starts FROM debian:bookworm-slim"
base=${1:-}
if [ -n "$base" ] && [ -x "$base/bin/sh" ]; then
  echo "test-container: base: $base (reused)"
else
  base=${base:-$work/base}
  echo "test-container: debootstrap --variant=minbase bookworm $base (a few minutes)"
  debootstrap --variant=minbase bookworm "$base" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log"; fail "debootstrap"; }
fi
cp -a "$base" "$root"
# What debuerreotype's slimify gives debian:bookworm-slim: no docs (but copyrights), no man pages, no locales.
cat >"$root/etc/dpkg/dpkg.cfg.d/docker" <<'SLIM'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/lintian/overrides/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/man/*
SLIM
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"

# The Containerfile's instructions, in order: COPY and RUN are carried out, the others only checked.
steps=0
while IFS= read -r line; do
  read -r -a words <<<"$line"
  case ${words[0]:-} in
    COPY)
      dest=${words[-1]}
      for pattern in "${words[@]:1:${#words[@]}-2}"; do
        matches=("$here"/$pattern)
        [ -e "${matches[0]}" ] || fail "COPY $pattern: nothing in the build context (run make deb first)"
        cp "${matches[@]}" "$root$dest"
      done
      echo "test-container: ${line}" ;;
    RUN)
      echo "test-container: RUN ${line#RUN }"
      chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
        /bin/sh -c "${line#RUN }" >"$work/run.log" 2>&1 || { tail -30 "$work/run.log"; fail "RUN ${line#RUN }"; }
      grep -E "newly installed|^readback " "$work/run.log" || true ;;
    FROM | ENTRYPOINT | CMD | '') ;;
    *) fail "Containerfile instruction this test does not know: ${words[0]}" ;;
  esac
  steps=$((steps + 1))
done < <(sed -e '/^#/d' "$here/Containerfile" | sed -e ':a' -e '/\\$/{N;s/\\\n//;ba}')
[ $steps -ge 3 ] || fail "read only $steps instructions from the Containerfile"

# The entry point, as `docker run readback ...` would call it, on a pair made inside the image.
entry=$(sed -n 's/^ENTRYPOINT \["\([^"]*\)"\]$/\1/p' "$here/Containerfile")
[ -n "$entry" ] || fail "no ENTRYPOINT [\"...\"] in the Containerfile"
in_image() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"; }
in_image "$entry" --version | head -1
mkdir -p "$root/work"
in_image sh -c "cd /work && $entry corpus generate --out corpus >/dev/null && \
  $entry convert corpus/dng/chart-rggb-12bit-o1.dng --out heic >/dev/null && \
  $entry audit corpus/dng/chart-rggb-12bit-o1.dng heic/chart-rggb-12bit-o1.heic" | tail -2 ||
  fail "convert + audit in the image"
echo "test-container: ok: the Containerfile's steps install the .deb on bookworm-slim; readback converts and audits"
du -sh --exclude=proc "$root" | sed 's/^/test-container: image root size: /'
