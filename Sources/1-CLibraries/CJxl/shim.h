// CJxl: libjxl's decoder and encoder API (Debian libjxl-dev 0.7). Only JXLCodec imports this module.
#include <jxl/decode.h>
#include <jxl/encode.h>
