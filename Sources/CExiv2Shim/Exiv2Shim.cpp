// All exiv2 calls live here; see include/CExiv2Shim.h for why.
#include "CExiv2Shim.h"

#include <exiv2/exiv2.hpp>
#include <string>

extern "C" const char *rb_exiv2_version(void) {
    static std::string v;
    try {
        if (v.empty()) v = Exiv2::versionString();
    } catch (...) {
        return "unknown";
    }
    return v.c_str();
}
