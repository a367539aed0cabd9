// All exiv2 calls live here; see include/CExiv2Shim.h for why.
#include "CExiv2Shim.h"
#include "ShimSupport.hpp"

#include <exiv2/exiv2.hpp>

#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

// Process-wide setup, locking and the exception guard are in ShimSupport.hpp (docs/platform.md, exiv2).
using namespace rbshim;

namespace {

struct Entry {
    rb_exiv2_family family;
    std::string key, group, ifd, tagName, text;
    std::vector<uint8_t> raw;
    uint16_t tag = 0;
    int32_t typeId = 0;
    int64_t count = 0;
    int32_t makernote = 0;
};

}  // namespace

struct rb_exiv2_doc {
    std::vector<Entry> entries;
    std::string mime;
    std::string warnings;
    int byteOrder = 0;
};

namespace {

// Value bytes in big-endian order; bounded so a hostile count cannot exhaust memory.
std::vector<uint8_t> canonicalBytes(const Exiv2::Value &v) {
    long size = v.size();
    if (size <= 0 || size > (64L << 20)) return {};
    std::vector<uint8_t> buf(static_cast<size_t>(size));
    long n = v.copy(buf.data(), Exiv2::bigEndian);
    if (n < 0) n = 0;
    buf.resize(static_cast<size_t>(n) <= buf.size() ? static_cast<size_t>(n) : buf.size());
    return buf;
}

std::string safeToString(const Exiv2::Metadatum &m) {
    try {
        return m.value().toString();
    } catch (...) {
        return std::string();
    }
}

// Components beyond which an Exif value's string form is not made: every reader of it parses a count-1 integer
// (Orientation, ImageWidth), while a DNG's colour tables (ProfileLookTableData: 13,824 floats), its XMLPacket and a
// MakerNote run to tens of thousands of components, each printed through an ostream (20 ms a file). Their bytes are
// in `raw` whatever the count.
constexpr long kExifTextMaxComponents = 64;

std::string exifText(const Exiv2::Exifdatum &d) {
    if (d.count() > kExifTextMaxComponents && d.typeId() != Exiv2::asciiString) return std::string();
    return safeToString(d);
}

void addExif(rb_exiv2_doc &doc, const Exiv2::ExifData &ed) {
    for (const auto &d : ed) {
        Entry e;
        e.family = RB_EXIV2_FAMILY_EXIF;
        e.key = d.key();
        e.group = d.groupName();
        const char *ifd = d.ifdName();
        e.ifd = ifd ? ifd : "";
        e.tagName = d.tagName();
        e.tag = d.tag();
        e.typeId = static_cast<int32_t>(d.typeId());
        e.count = d.count();
        e.text = exifText(d);
        if (d.getValue().get() != nullptr) e.raw = canonicalBytes(d.value());
        e.makernote = Exiv2::ExifTags::isMakerGroup(e.group) ? 1 : 0;
        doc.entries.push_back(std::move(e));
    }
}

void addIptc(rb_exiv2_doc &doc, const Exiv2::IptcData &id) {
    for (const auto &d : id) {
        Entry e;
        e.family = RB_EXIV2_FAMILY_IPTC;
        e.key = d.key();
        e.group = d.groupName();
        e.tagName = d.tagName();
        e.tag = d.tag();
        e.typeId = static_cast<int32_t>(d.typeId());
        e.count = d.count();
        e.text = safeToString(d);
        if (d.getValue().get() != nullptr) e.raw = canonicalBytes(d.value());
        doc.entries.push_back(std::move(e));
    }
}

void addXmp(rb_exiv2_doc &doc, const Exiv2::XmpData &xd) {
    for (const auto &d : xd) {
        Entry e;
        e.family = RB_EXIV2_FAMILY_XMP;
        e.key = d.key();
        e.group = d.groupName();
        e.tagName = d.tagName();
        e.typeId = static_cast<int32_t>(d.typeId());
        e.count = d.count();
        e.text = safeToString(d);
        std::string items;
        const Exiv2::Value &v = d.value();
        if (d.typeId() == Exiv2::langAlt) {
            const auto *la = dynamic_cast<const Exiv2::LangAltValue *>(&v);
            if (la != nullptr) {
                bool first = true;
                for (const auto &kv : la->value_) {
                    if (!first) items.push_back('\x1e');
                    first = false;
                    items += kv.first;
                    items.push_back('\x1f');
                    items += kv.second;
                }
            }
        } else if (const auto *arr = dynamic_cast<const Exiv2::XmpArrayValue *>(&v)) {
            // count() is the item count only for arrays; for XmpTextValue it is the byte length.
            long n = arr->count();
            for (long i = 0; i < n; ++i) {
                if (i > 0) items.push_back('\x1e');
                items += arr->toString(i);
            }
        } else {
            items = v.toString();
        }
        e.raw.assign(items.begin(), items.end());
        doc.entries.push_back(std::move(e));
    }
}

int orderCode(Exiv2::ByteOrder bo) {
    return bo == Exiv2::littleEndian ? 1 : bo == Exiv2::bigEndian ? 2 : 0;
}


}  // namespace

extern "C" const char *rb_exiv2_version(void) {
    static std::string v;
    try {
        if (v.empty()) v = Exiv2::versionString();
    } catch (...) {
        return "unknown";
    }
    return v.c_str();
}

extern "C" rb_exiv2_status rb_exiv2_read_file(const char *path, rb_exiv2_doc **out, char *message,
                                              size_t message_cap) {
    if (path == nullptr || out == nullptr) return RB_EXIV2_BAD_ARGUMENT;
    *out = nullptr;
    return guarded(message, message_cap, [&]() -> rb_exiv2_status {
        std::unique_ptr<rb_exiv2_doc> doc(new rb_exiv2_doc());
        LogCapture log;
        {
            std::lock_guard<std::recursive_mutex> g(xmpMutex());
            Exiv2::Image::AutoPtr image = openAndRead(path);
            doc->mime = image->mimeType();
            doc->byteOrder = orderCode(image->byteOrder());
            addExif(*doc, image->exifData());
            addIptc(*doc, image->iptcData());
            addXmp(*doc, image->xmpData());
        }
        doc->warnings = log.text;
        *out = doc.release();
        return RB_EXIV2_OK;
    });
}

extern "C" rb_exiv2_status rb_exiv2_read_memory(const uint8_t *bytes, size_t size, const char *label,
                                                rb_exiv2_doc **out, rb_exiv2_previews **previews,
                                                size_t max_preview_bytes, char *message, size_t message_cap) {
    if (bytes == nullptr || out == nullptr) return RB_EXIV2_BAD_ARGUMENT;
    *out = nullptr;
    if (previews != nullptr) *previews = nullptr;
    return guarded(message, message_cap, [&]() -> rb_exiv2_status {
        std::unique_ptr<rb_exiv2_doc> doc(new rb_exiv2_doc());
        rb_exiv2_previews *list = nullptr;
        LogCapture log;
        {
            std::lock_guard<std::recursive_mutex> g(xmpMutex());
            Exiv2::Image::AutoPtr image = openAndRead(bytes, size, label);
            doc->mime = image->mimeType();
            doc->byteOrder = orderCode(image->byteOrder());
            addExif(*doc, image->exifData());
            addIptc(*doc, image->iptcData());
            addXmp(*doc, image->xmpData());
            // Listed after the metadata, so a throw here leaves nothing allocated but the doc (freed with it).
            if (previews != nullptr) list = listPreviews(*image, max_preview_bytes);
        }
        doc->warnings = log.text;
        *out = doc.release();
        if (previews != nullptr) *previews = list;
        return RB_EXIV2_OK;
    });
}

extern "C" rb_exiv2_status rb_exiv2_decode_exif(const uint8_t *bytes, size_t size, rb_exiv2_doc **out,
                                                char *message, size_t message_cap) {
    if (bytes == nullptr || out == nullptr) return RB_EXIV2_BAD_ARGUMENT;
    *out = nullptr;
    return guarded(message, message_cap, [&]() -> rb_exiv2_status {
        const uint8_t *p = bytes;
        size_t n = size;
        if (n >= 6 && std::memcmp(p, "Exif\0\0", 6) == 0) {
            p += 6;
            n -= 6;
        }
        if (n < 8 || !((p[0] == 'I' && p[1] == 'I' && p[2] == 0x2A && p[3] == 0) ||
                       (p[0] == 'M' && p[1] == 'M' && p[2] == 0 && p[3] == 0x2A))) {
            setMessage(message, message_cap, "no TIFF header (II*\\0 or MM\\0*) at the start of the Exif data");
            return RB_EXIV2_ERROR;
        }
        std::unique_ptr<rb_exiv2_doc> doc(new rb_exiv2_doc());
        LogCapture log;
        Exiv2::ExifData ed;
        Exiv2::ByteOrder bo = Exiv2::ExifParser::decode(ed, p, static_cast<uint32_t>(n));
        doc->byteOrder = orderCode(bo);
        addExif(*doc, ed);
        doc->warnings = log.text;
        *out = doc.release();
        return RB_EXIV2_OK;
    });
}

extern "C" rb_exiv2_status rb_exiv2_decode_xmp(const uint8_t *bytes, size_t size, rb_exiv2_doc **out,
                                               char *message, size_t message_cap) {
    if (bytes == nullptr || out == nullptr) return RB_EXIV2_BAD_ARGUMENT;
    *out = nullptr;
    return guarded(message, message_cap, [&]() -> rb_exiv2_status {
        std::string packet(reinterpret_cast<const char *>(bytes), size);
        // Some writers NUL-pad the packet; the XMP toolkit rejects trailing NULs.
        while (!packet.empty() && packet.back() == '\0') packet.pop_back();
        std::unique_ptr<rb_exiv2_doc> doc(new rb_exiv2_doc());
        LogCapture log;
        {
            std::lock_guard<std::recursive_mutex> g(xmpMutex());
            Exiv2::XmpData xd;
            int rc = Exiv2::XmpParser::decode(xd, packet);
            if (rc != 0) {
                std::string why = log.text.empty() ? "the XMP toolkit rejected the packet" : log.text;
                setMessage(message, message_cap, "XMP decode failed (" + std::to_string(rc) + "): " + why);
                return RB_EXIV2_ERROR;
            }
            addXmp(*doc, xd);
        }
        doc->warnings = log.text;
        *out = doc.release();
        return RB_EXIV2_OK;
    });
}

extern "C" void rb_exiv2_doc_free(rb_exiv2_doc *doc) { delete doc; }

extern "C" size_t rb_exiv2_doc_count(const rb_exiv2_doc *doc) { return doc ? doc->entries.size() : 0; }

extern "C" int rb_exiv2_doc_entry(const rb_exiv2_doc *doc, size_t index, rb_exiv2_entry *out) {
    if (doc == nullptr || out == nullptr || index >= doc->entries.size()) return 0;
    const Entry &e = doc->entries[index];
    out->family = e.family;
    out->key = e.key.c_str();
    out->group = e.group.c_str();
    out->ifd = e.ifd.c_str();
    out->tag_name = e.tagName.c_str();
    out->tag = e.tag;
    out->type_id = e.typeId;
    out->count = e.count;
    out->raw = e.raw.empty() ? nullptr : e.raw.data();
    out->raw_size = e.raw.size();
    out->text = e.text.c_str();
    out->makernote = e.makernote;
    return 1;
}

extern "C" const char *rb_exiv2_doc_mime(const rb_exiv2_doc *doc) { return doc ? doc->mime.c_str() : ""; }
extern "C" const char *rb_exiv2_doc_warnings(const rb_exiv2_doc *doc) { return doc ? doc->warnings.c_str() : ""; }
extern "C" int rb_exiv2_doc_byte_order(const rb_exiv2_doc *doc) { return doc ? doc->byteOrder : 0; }

extern "C" const uint8_t *rb_exiv2_blob_bytes(const rb_exiv2_blob *blob) {
    return blob ? reinterpret_cast<const uint8_t *>(blob->bytes.data()) : nullptr;
}
extern "C" size_t rb_exiv2_blob_size(const rb_exiv2_blob *blob) { return blob ? blob->bytes.size() : 0; }
extern "C" const char *rb_exiv2_blob_report(const rb_exiv2_blob *blob) { return blob ? blob->report.c_str() : ""; }
extern "C" void rb_exiv2_blob_free(rb_exiv2_blob *blob) { delete blob; }

namespace {

bool isStructuralImageKey(const Exiv2::Exifdatum &d) {
    const std::string group = d.groupName();
    if (group.rfind("SubImage", 0) == 0) return true;
    if (group.rfind("Image", 0) == 0 && group != "Image") return true;  // Image2, Image3, ... (raw IFDs)
    if (group == "Thumbnail") return true;
    if (group != "Image") return false;
    uint16_t t = d.tag();
    if (t >= 0xC612 && t <= 0xC7FF) return true;  // DNG tags incl. DNGPrivateData
    switch (t) {
        case 0x00FE:  // NewSubfileType
        case 0x00FF:  // SubfileType
        case 0x0100:  // ImageWidth
        case 0x0101:  // ImageLength
        case 0x0102:  // BitsPerSample
        case 0x0103:  // Compression
        case 0x0106:  // PhotometricInterpretation
        case 0x0111:  // StripOffsets
        case 0x0115:  // SamplesPerPixel
        case 0x0116:  // RowsPerStrip
        case 0x0117:  // StripByteCounts
        case 0x011C:  // PlanarConfiguration
        case 0x0142:  // TileWidth
        case 0x0143:  // TileLength
        case 0x0144:  // TileOffsets
        case 0x0145:  // TileByteCounts
        case 0x014A:  // SubIFDs
        case 0x0201:  // JPEGInterchangeFormat
        case 0x0202:  // JPEGInterchangeFormatLength
        case 0x828D:  // CFARepeatPatternDim
        case 0x828E:  // CFAPattern (TIFF/EP)
        case 0x9217:  // SensingMethod (TIFF/EP copy in IFD0)
        case 0x9216:  // TIFFEPStandardID
        case 0x02BC:  // XMLPacket: XMP goes into its own item
        case 0x83BB:  // IPTCNAA: IPTC has no place in a HEIC
        case 0x8773:  // InterColorProfile: colour goes into colr
            return true;
        default:
            return false;
    }
}

/// Where the TIFF header of a JPEG's Exif APP1 starts ("Exif\0\0" then "II"/"MM"), or npos.
size_t exifInJPEG(const uint8_t *p, size_t n) {
    size_t limit = n < (1u << 20) ? n : (1u << 20);
    for (size_t i = 0; i + 10 <= limit; ++i) {
        if (std::memcmp(p + i, "Exif\0\0", 6) == 0 &&
            ((p[i + 6] == 'I' && p[i + 7] == 'I') || (p[i + 6] == 'M' && p[i + 7] == 'M')))
            return i + 6;
    }
    return std::string::npos;
}

void addRw2PreviewExif(Exiv2::ExifData &ed) {
    auto it = ed.findKey(Exiv2::ExifKey(0x002E, "PanasonicRaw"));
    if (it == ed.end() || it->getValue().get() == nullptr) return;
    std::vector<uint8_t> jpeg(static_cast<size_t>(it->size()));
    if (jpeg.empty()) return;
    it->copy(jpeg.data(), Exiv2::bigEndian);
    size_t at = exifInJPEG(jpeg.data(), jpeg.size());
    if (at == std::string::npos) return;
    Exiv2::ExifData preview;
    Exiv2::ExifParser::decode(preview, jpeg.data() + at, static_cast<uint32_t>(jpeg.size() - at));
    for (const auto &d : preview) {
        if (d.groupName() != "Photo" || d.tag() == 0x927C) continue;  // its MakerNote is the source's own
        if (ed.findKey(Exiv2::ExifKey(d.key())) == ed.end()) ed.add(d);
    }
}

}  // namespace

namespace {

rb_exiv2_status buildHeicExif(const Source &source, uint32_t pixel_width, uint32_t pixel_height, const char *software,
                              int byte_order, rb_exiv2_blob **out, char *message, size_t message_cap) {
    *out = nullptr;
    return guarded(message, message_cap, [&]() -> rb_exiv2_status {
        LogCapture log;
        Exiv2::ExifData ed;
        Exiv2::ByteOrder sourceOrder = Exiv2::invalidByteOrder;
        {
            std::lock_guard<std::recursive_mutex> g(xmpMutex());
            Exiv2::Image::AutoPtr owned;
            Exiv2::Image &image = source.image(owned);
            ed = image.exifData();
            sourceOrder = image.byteOrder();
        }
        // RW2 keeps its Exif IFD in the embedded JPEG (PanasonicRaw 0x002E), and exiv2's reader drops part of it
        // (Contrast, Saturation, ColorSpace, ...). Add the Exif-IFD tags the JPEG has and the source lacks.
        addRw2PreviewExif(ed);
        // RW2 keeps its IFD0 in exiv2's PanasonicRaw group, which a plain TIFF encode drops: move the standard
        // IFD0 tags (same ids) to Exif.Image and the ISO to Exif.Photo, then drop the raw-only rest.
        {
            std::vector<std::pair<std::string, Exiv2::Exifdatum>> moved;
            for (const auto &d : ed) {
                if (d.groupName() != "PanasonicRaw") continue;
                uint16_t t = d.tag();
                std::string target;
                if (t == 0x010F || t == 0x0110 || t == 0x0112 || t == 0x011A || t == 0x011B || t == 0x0128 ||
                    t == 0x0131 || t == 0x0132 || t == 0x013B || t == 0x8298) {
                    target = Exiv2::ExifKey(t, "Image").key();
                } else if (t == 0x0017) {
                    target = "Exif.Photo.ISOSpeedRatings";
                }
                if (!target.empty() && d.getValue().get() != nullptr) moved.emplace_back(target, d);
            }
            for (auto &m : moved) {
                if (ed.findKey(Exiv2::ExifKey(m.first)) == ed.end()) ed.add(Exiv2::ExifKey(m.first), &m.second.value());
            }
            for (auto it = ed.begin(); it != ed.end();) {
                if (it->groupName() == "PanasonicRaw") it = ed.erase(it); else ++it;
            }
        }
        Exiv2::ExifThumb(ed).erase();
        for (auto it = ed.begin(); it != ed.end();) {
            if (isStructuralImageKey(*it)) it = ed.erase(it); else ++it;
        }
        ed["Exif.Image.Orientation"] = uint16_t(1);
        if (pixel_width > 0 && pixel_height > 0) {
            ed["Exif.Photo.PixelXDimension"] = uint32_t(pixel_width);
            ed["Exif.Photo.PixelYDimension"] = uint32_t(pixel_height);
        }
        if (software != nullptr) ed["Exif.Image.Software"] = std::string(software);
        Exiv2::ByteOrder order = byte_order == 1   ? Exiv2::littleEndian
                                 : byte_order == 2 ? Exiv2::bigEndian
                                 : (sourceOrder == Exiv2::bigEndian ? Exiv2::bigEndian : Exiv2::littleEndian);
        Exiv2::Blob blob;
        std::string previewNote = encodeExifWhole(blob, order, ed);
        std::unique_ptr<rb_exiv2_blob> result(new rb_exiv2_blob());
        result->bytes.assign(blob.begin(), blob.end());

        // Compare after encoding: whatever the encoder could not write is reported, never silently lost.
        Exiv2::ExifData back;
        if (!blob.empty()) Exiv2::ExifParser::decode(back, blob.data(), static_cast<uint32_t>(blob.size()));
        std::map<std::string, long> after;
        for (const auto &d : back) after.emplace(d.key(), d.size());
        // A decoded MakerNote is re-encoded from its tags; its byte size may change by padding. Judge it by its tags.
        long makerBefore = 0, makerAfter = 0;
        for (const auto &d : ed) if (Exiv2::ExifTags::isMakerGroup(d.groupName())) ++makerBefore;
        for (const auto &d : back) if (Exiv2::ExifTags::isMakerGroup(d.groupName())) ++makerAfter;
        std::string report;
        std::map<std::string, bool> seen;
        for (const auto &d : ed) {
            std::string key = d.key();
            if (d.groupName() == "MakerNote") continue;  // exiv2's Offset/ByteOrder bookkeeping, rewritten on encode
            if (Exiv2::ExifTags::isMakerGroup(d.groupName())) continue;  // counted below
            if (key == "Exif.Photo.MakerNote" && makerBefore > 0 && makerAfter >= makerBefore) continue;
            if (seen[key]) continue;
            seen[key] = true;
            auto it = after.find(key);
            std::string line;
            if (it == after.end()) {
                line = "dropped " + key + " (" + std::to_string(d.size()) + " bytes)";
            } else if (it->second < d.size()) {
                line = "shrunk " + key + " from " + std::to_string(d.size()) + " to " + std::to_string(it->second) +
                       " bytes";
            }
            if (!line.empty()) {
                if (!report.empty()) report.push_back('\n');
                report += line;
            }
        }
        if (makerAfter < makerBefore) {
            if (!report.empty()) report.push_back('\n');
            report += "dropped " + std::to_string(makerBefore - makerAfter) + " of " + std::to_string(makerBefore) +
                      " MakerNote tags";
        }
        if (!previewNote.empty()) {
            if (!report.empty()) report.push_back('\n');
            report += previewNote;
        }
        result->report = report;
        *out = result.release();
        return RB_EXIV2_OK;
    });
}

}  // namespace

extern "C" rb_exiv2_status rb_exiv2_build_heic_exif(const char *path, uint32_t pixel_width, uint32_t pixel_height,
                                                    const char *software, int byte_order, rb_exiv2_blob **out,
                                                    char *message, size_t message_cap) {
    if (path == nullptr || out == nullptr) return RB_EXIV2_BAD_ARGUMENT;
    Source source;
    source.path = path;
    return buildHeicExif(source, pixel_width, pixel_height, software, byte_order, out, message, message_cap);
}

extern "C" rb_exiv2_status rb_exiv2_build_xmp(const char *path, const char *sidecar_path, uint32_t pixel_width,
                                              uint32_t pixel_height, rb_exiv2_blob **out, char *message,
                                              size_t message_cap) {
    if (path == nullptr || out == nullptr) return RB_EXIV2_BAD_ARGUMENT;
    Source source;
    source.path = path;
    SidecarSource sidecar;
    sidecar.path = sidecar_path;
    return buildXmp(source, sidecar, pixel_width, pixel_height, out, message, message_cap);
}

extern "C" rb_exiv2_status rb_exiv2_build_heic_metadata_memory(
    const uint8_t *bytes, size_t size, const char *label, uint32_t pixel_width, uint32_t pixel_height,
    const char *software, int byte_order, const uint8_t *sidecar_bytes, size_t sidecar_size,
    const char *sidecar_label, rb_exiv2_blob **exif_out,
    rb_exiv2_status *exif_status, rb_exiv2_blob **xmp_out, rb_exiv2_status *xmp_status, char *exif_message,
    char *xmp_message, size_t message_cap) {
    if (bytes == nullptr || exif_out == nullptr || xmp_out == nullptr || exif_status == nullptr ||
        xmp_status == nullptr)
        return RB_EXIV2_BAD_ARGUMENT;
    *exif_out = nullptr;
    *xmp_out = nullptr;
    Exiv2::Image::AutoPtr image;
    rb_exiv2_status opened = guarded(exif_message, message_cap, [&]() -> rb_exiv2_status {
        LogCapture log;
        std::lock_guard<std::recursive_mutex> g(xmpMutex());
        image = openAndRead(bytes, size, label);
        return RB_EXIV2_OK;
    });
    if (opened != RB_EXIV2_OK) {
        // Both builders fail as each would have, opening the file on its own.
        setMessage(xmp_message, message_cap, exif_message != nullptr ? exif_message : "");
        *exif_status = *xmp_status = opened;
        return opened;
    }
    Source source;
    source.path = label;
    source.opened = image.get();
    *exif_status = buildHeicExif(source, pixel_width, pixel_height, software, byte_order, exif_out, exif_message,
                                 message_cap);
    SidecarSource sidecar;
    sidecar.path = sidecar_label;
    sidecar.bytes = sidecar_bytes;
    sidecar.size = sidecar_size;
    *xmp_status = buildXmp(source, sidecar, pixel_width, pixel_height, xmp_out, xmp_message, message_cap);
    {
        std::lock_guard<std::recursive_mutex> g(xmpMutex());
        image.reset();
    }
    return RB_EXIV2_OK;
}
