// CTurboJPEG: libjpeg-turbo's TurboJPEG API (Debian libturbojpeg0-dev). Only JPEGCodec imports this module.
#include <turbojpeg.h>
