// CHeif: libheif 1.15 (Debian 12), our HEVC codec. Only HeifCodec imports this module.
#include <libheif/heif.h>
