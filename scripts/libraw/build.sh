#!/usr/bin/env bash
# Builds LibRaw from one pinned upstream source into a local prefix, once (docs/install.md, "LibRaw").
#
# Debian 12's LibRaw is 0.20.2 (December 2020): its camera list stops there. The source is the copy of LibRaw
# 0.22.2 that PyPI's rawpy 0.28.0 sdist carries in external/LibRaw, fetched with pip (PyPI is a registry this
# project reaches) and checked by sha256 before anything is unpacked. The tree has no Makefile and cmake is not
# needed: every src/**/*.cpp except *_ph.cpp is the library, compiled as Debian compiles libraw_r (thread-safe,
# OpenMP, libjpeg for lossy DNG, zlib for deflate DNG, LittleCMS) into a static archive, so neither readback nor
# its .deb depends on a Debian libraw. A pkg-config file in the prefix is what Package.swift's CRaw finds, through
# the PKG_CONFIG_PATH the Makefile exports.
#
# Usage: scripts/libraw/build.sh PREFIX     (a second run with the same pin and flags builds nothing)
set -euo pipefail

PREFIX=${1:?usage: build.sh PREFIX}
RAWPY_VERSION=0.28.0
RAWPY_SHA256=3176c865b786dfec4e54251759f98e5a00733035f1f256e8c09909c59b5353d2
LIBRAW_VERSION=0.22.2
DEFINES="-DUSE_JPEG -DUSE_ZLIB -DUSE_LCMS2 -DLIBRAW_USE_OPENMP"
CXXFLAGS="-O2 -g0 -fPIC -pthread -fopenmp -w -fno-strict-aliasing"
STAMP="$PREFIX/.built"
# Readback's own loops (readback_loops.cpp: LibRaw's white-balance and colour loops, its packed-DNG reader and its
# AHD demosaic on OpenMP's threads, the same results), compiled into the same archive; a change to them rebuilds it.
LOOPS="$(cd "$(dirname "$0")" && pwd)/readback_loops.cpp"
LOOPS_SHA256=$(sha256sum "$LOOPS" | cut -d' ' -f1)
want="rawpy $RAWPY_VERSION $RAWPY_SHA256 libraw $LIBRAW_VERSION $DEFINES $CXXFLAGS loops $LOOPS_SHA256"

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] && [ -f "$PREFIX/lib/libraw_r.a" ]; then
    echo "libraw: LibRaw $LIBRAW_VERSION present in $PREFIX"
    exit 0
fi

echo "libraw: building LibRaw $LIBRAW_VERSION (rawpy $RAWPY_VERSION sdist, sha256-checked) into $PREFIX"
work=$(mktemp -d "${TMPDIR:-/tmp}/readback-libraw.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The sdist alone: no dependencies, no wheel (rawpy's wheels carry a prebuilt libraw, which is not what we pin).
# pip prepares the sdist's metadata in an isolated environment, which needs PyPI for rawpy's build requirements.
sdist="$work/rawpy-$RAWPY_VERSION.tar.gz"
if [ -n "${READBACK_RAWPY_SDIST:-}" ]; then
    cp "$READBACK_RAWPY_SDIST" "$sdist"
else
    python3 -m pip download --quiet --disable-pip-version-check --no-deps --no-binary rawpy \
        "rawpy==$RAWPY_VERSION" -d "$work" >"$work/pip.log" 2>&1 || { cat "$work/pip.log" >&2; exit 1; }
fi
got=$(sha256sum "$sdist" | cut -d' ' -f1)
if [ "$got" != "$RAWPY_SHA256" ]; then
    echo "libraw: rawpy-$RAWPY_VERSION.tar.gz has sha256 $got, expected $RAWPY_SHA256; refusing it" >&2
    exit 1
fi
tar -xzf "$sdist" -C "$work" "rawpy-$RAWPY_VERSION/external/LibRaw"
src="$work/rawpy-$RAWPY_VERSION/external/LibRaw"
v=$(awk '/define LIBRAW_(MAJOR|MINOR|PATCH)_VERSION/ { printf "%s%s", sep, $3; sep="." }' "$src/libraw/libraw_version.h")
if [ "$v" != "$LIBRAW_VERSION" ]; then
    echo "libraw: the sdist carries LibRaw $v, expected $LIBRAW_VERSION" >&2
    exit 1
fi

mkdir -p "$work/obj"
(cd "$src" && find src -name '*.cpp' ! -name '*_ph.cpp' | sort) >"$work/sources"
n=$(wc -l <"$work/sources")
# One compiler per core; each object is named after its path, so two files of one name never collide.
# shellcheck disable=SC2086
(cd "$src" && xargs -P "$(nproc)" -I{} sh -c \
    'o="$1/obj/$(echo "$2" | tr / _).o"; g++ '"$CXXFLAGS $DEFINES"' -I. -c "$2" -o "$o"' _ "$work" {} \
    <"$work/sources")
# shellcheck disable=SC2086
(cd "$src" && g++ $CXXFLAGS $DEFINES -I. -c "$LOOPS" -o "$work/obj/readback_loops.o")
n=$((n + 1))
built=$(find "$work/obj" -name '*.o' | wc -l)
if [ "$built" != "$n" ]; then
    echo "libraw: compiled $built of $n sources" >&2
    exit 1
fi

rm -rf "$PREFIX"
mkdir -p "$PREFIX/lib/pkgconfig" "$PREFIX/include/libraw" "$PREFIX/share/doc/libraw"
ar rcs "$PREFIX/lib/libraw_r.a" "$work"/obj/*.o
cp "$src"/libraw/*.h "$PREFIX/include/libraw/"
cp "$src"/COPYRIGHT "$src"/LICENSE.LGPL "$src"/LICENSE.CDDL "$PREFIX/share/doc/libraw/"
cat >"$PREFIX/lib/pkgconfig/libraw_r.pc" <<PC
prefix=$(cd "$PREFIX" && pwd)
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: libraw_r
Description: LibRaw $LIBRAW_VERSION (static, thread-safe), built by readback's scripts/libraw/build.sh
Version: $LIBRAW_VERSION
Cflags: -I\${includedir}
Libs: -L\${libdir} -lraw_r -ljpeg -lz -llcms2 -lgomp -lstdc++ -lm -lpthread
PC
echo "$want" >"$STAMP"
echo "libraw: LibRaw $LIBRAW_VERSION built ($n sources) into $PREFIX"
