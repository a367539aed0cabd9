// CExiv2Shim: a C-only face over exiv2 0.27 (C++).
// Why it exists: exiv2 throws C++ exceptions and its headers use std::auto_ptr; Swift's C++
// interop aborts on any exception and does not import Exiv2::ImageFactory. So every exiv2 call
// lives in Exiv2Shim.cpp, every exception becomes a status plus a message, and only opaque
// handles and plain C types cross this header.
#ifndef CEXIV2SHIM_H
#define CEXIV2SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Status codes returned by every shim call. `message` buffers receive a NUL-terminated text.
typedef enum {
    RB_EXIV2_OK = 0,
    RB_EXIV2_ERROR = 1,       ///< exiv2 threw Exiv2::Error (message holds what()).
    RB_EXIV2_EXCEPTION = 2,   ///< some other std::exception or unknown throw.
    RB_EXIV2_BAD_ARGUMENT = 3
} rb_exiv2_status;

/// exiv2's run-time version string ("0.27.6"), read from the library (Exiv2::versionString()).
const char *rb_exiv2_version(void);

#ifdef __cplusplus
}
#endif
#endif
