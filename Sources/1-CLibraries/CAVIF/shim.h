// CAVIF: libavif's decoder API (Debian libavif-dev 0.11, AV1 through dav1d/libaom). Only AVIFCodec imports this module.
#include <avif/avif.h>
