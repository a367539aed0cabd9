// CRaw: LibRaw 0.22 thread-safe build (libraw_r), built statically from a pinned source by `make deps`
// (scripts/libraw/build.sh) into .build/libraw. Its headers are included by path, so that no other LibRaw on the
// system (Debian's 0.20 in /usr/include) can be picked up. Only RawDecoder imports this module.
#include "../../../.build/libraw/include/libraw/libraw.h"
#if LIBRAW_MAJOR_VERSION == 0 && LIBRAW_MINOR_VERSION < 22
#error "LibRaw 0.22 or later is needed: build through make (make deps builds it into .build/libraw)"
#endif
// The camera list LibRaw was built with: `readback cameras` and `readback --version`.
static inline int readback_libraw_camera_count(void) { return libraw_cameraCount(); }
// libraw_init with LibRaw's white-balance and colour loops, its packed-DNG reader and its AHD demosaic on every core,
// the same results (scripts/libraw/readback_loops.cpp, built into the same archive): every decoder Readback creates.
libraw_data_t *readback_libraw_init(unsigned int flags);
