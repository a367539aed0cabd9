// CDe265: libde265 1.0.11 (Debian 12), the HEVC decoder libheif uses. Only HeifCodec imports this module, for the
// render check's reduced decode of a grid's tiles (libheif 1.15 hands tiles out only converted to RGB).
#include <libde265/de265.h>
