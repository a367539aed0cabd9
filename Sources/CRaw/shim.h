// CRaw: LibRaw 0.20 thread-safe build (libraw_r). Only RawDecoder imports this module.
#include <libraw/libraw.h>
