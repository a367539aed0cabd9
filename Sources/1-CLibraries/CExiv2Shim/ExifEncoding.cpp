// Encoding the output's Exif blob whole; see ShimSupport.hpp (encodeExifWhole) and docs/policy.md (MakerNote).
#include "ShimSupport.hpp"

#include <exiv2/exiv2.hpp>

#include <set>
#include <string>

namespace rbshim {

namespace {

// Tags exiv2 manufactures when it decodes a Canon AFInfo record: they are views of Canon.AFInfo (kept whole), not
// tags the camera wrote. exiv2's JPEG encoder drops them for that reason; so does this one.
const std::set<std::string> &manufacturedCanonAF() {
    static const std::set<std::string> keys = {
        "Exif.Canon.AFInfoSize",      "Exif.Canon.AFAreaMode",         "Exif.Canon.AFNumPoints",
        "Exif.Canon.AFValidPoints",   "Exif.Canon.AFCanonImageWidth",  "Exif.Canon.AFCanonImageHeight",
        "Exif.Canon.AFImageWidth",    "Exif.Canon.AFImageHeight",      "Exif.Canon.AFAreaWidths",
        "Exif.Canon.AFAreaHeights",   "Exif.Canon.AFXPositions",       "Exif.Canon.AFYPositions",
        "Exif.Canon.AFPointsInFocus", "Exif.Canon.AFPointsSelected",   "Exif.Canon.AFPointsUnusable"};
    return keys;
}

bool endsWith(const std::string &s, const char *suffix) {
    size_t n = std::strlen(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

bool startsWith(const std::string &s, const char *prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

bool isMakerNotePreviewTag(const Exiv2::Exifdatum &d) {
    const std::string group = d.groupName();
    if (!Exiv2::ExifTags::isMakerGroup(group)) return false;
    if (endsWith(group, "Preview")) return true;  // NikonPreview, SamsungPreview, ...: the sub-IFD itself
    const std::string name = d.tagName();
    if (name == "Preview" || name == "PreviewIFD") return true;  // its pointer in the parent IFD (Nikon3 0x0011)
    if (startsWith(name, "PreviewImage") || startsWith(name, "ThumbnailImage") || startsWith(name, "JpgFromRaw"))
        return true;
    bool locating = endsWith(name, "Offset") || endsWith(name, "Start") || endsWith(name, "Length");
    return locating && (startsWith(name, "Preview") || startsWith(name, "Thumbnail"));  // Pentax.PreviewOffset
}

std::string encodeExifWhole(Exiv2::Blob &blob, Exiv2::ByteOrder order, Exiv2::ExifData &ed) {
    size_t previews = 0;
    for (auto it = ed.begin(); it != ed.end();) {
        if (manufacturedCanonAF().count(it->key()) != 0 || isMakerNotePreviewTag(*it)) {
            if (isMakerNotePreviewTag(*it)) ++previews;
            it = ed.erase(it);
        } else {
            ++it;
        }
    }
    // ExifParser::encode is made for a JPEG APP1 segment: over 64 KB it silently drops previews, unknown tags over
    // 4 KB and known tags over 20 KB (a Canon CRWParam or Flavor, a Nikon 0x027a). An Exif item in a HEIF has no such
    // limit, so the TIFF encoder writes the whole: MakerNote re-written from its tags, offsets fixed.
    Exiv2::MemIo io;
    Exiv2::IptcData noIptc;
    Exiv2::XmpData noXmp;
    Exiv2::TiffParser::encode(io, nullptr, 0, order, ed, noIptc, noXmp);
    blob.clear();
    if (io.size() > 0) blob.assign(io.mmap(), io.mmap() + io.size());
    if (previews == 0) return std::string();
    return "MakerNote preview not carried (the output has its own thumbnail): " + std::to_string(previews) + " tags";
}

}  // namespace rbshim
