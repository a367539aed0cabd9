// Support shared by the shim's translation units (Exiv2Shim.cpp, Previews.cpp,
// ExifEncoding.cpp, XmpBuilding.cpp): process-wide setup, the XMP lock,
// per-call log capture and the exception guard. Internal to CExiv2Shim: not part of the C header Swift sees.
#ifndef CEXIV2SHIM_SUPPORT_HPP
#define CEXIV2SHIM_SUPPORT_HPP

#include "CExiv2Shim.h"

#include <exiv2/exiv2.hpp>

#include <cstring>
#include <mutex>
#include <string>

// An encoded blob (Exif TIFF or XMP packet) and what encoding lost, one line each (opaque to C).
struct rb_exiv2_blob {
    std::string bytes;
    std::string report;
};

namespace rbshim {

inline std::recursive_mutex &xmpMutex() {
    static std::recursive_mutex m;
    return m;
}

// Per-call capture of exiv2's LogMsg output (the handler is global; the buffer is per thread).
inline thread_local std::string *tlsLog = nullptr;

inline void logHandler(int level, const char *text) {
    if (tlsLog == nullptr || text == nullptr) return;
    std::string line(text);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    if (line.empty()) return;
    if (!tlsLog->empty()) tlsLog->push_back('\n');
    tlsLog->append(level >= Exiv2::LogMsg::error ? "error: " : "warning: ");
    tlsLog->append(line);
}

inline void xmpLock(void *data, bool lock) {
    auto *m = static_cast<std::recursive_mutex *>(data);
    if (lock) m->lock(); else m->unlock();
}

inline void setupOnce() {
    static std::once_flag once;
    std::call_once(once, [] {
        std::lock_guard<std::recursive_mutex> g(xmpMutex());
        Exiv2::LogMsg::setLevel(Exiv2::LogMsg::warn);
        Exiv2::LogMsg::setHandler(logHandler);
        Exiv2::enableBMFF(true);
        Exiv2::XmpParser::initialize(xmpLock, &xmpMutex());
    });
}

struct LogCapture {
    std::string text;
    std::string *previous;
    LogCapture() : previous(tlsLog) { tlsLog = &text; }
    ~LogCapture() { tlsLog = previous; }
};

inline void setMessage(char *message, size_t cap, const std::string &text) {
    if (message == nullptr || cap == 0) return;
    size_t n = text.size() < cap - 1 ? text.size() : cap - 1;
    std::memcpy(message, text.data(), n);
    message[n] = '\0';
}

// Runs `body`, turning every exception into a status and a message.
template <typename F>
rb_exiv2_status guarded(char *message, size_t cap, F body) {
    try {
        setupOnce();
        return body();
    } catch (const Exiv2::AnyError &e) {
        std::string what = e.what();
        if (what.empty()) what = "exiv2 error " + std::to_string(e.code());
        setMessage(message, cap, what);
        return RB_EXIV2_ERROR;
    } catch (const std::exception &e) {
        setMessage(message, cap, std::string("exception: ") + e.what());
        return RB_EXIV2_EXCEPTION;
    } catch (...) {
        setMessage(message, cap, "unknown exception");
        return RB_EXIV2_EXCEPTION;
    }
}

// Opens and reads a file under the XMP lock (readMetadata parses embedded XMP).
inline Exiv2::Image::AutoPtr openAndRead(const char *path) {
    Exiv2::Image::AutoPtr image = Exiv2::ImageFactory::open(std::string(path));
    if (image.get() == nullptr) throw Exiv2::Error(Exiv2::kerFileContainsUnknownImageType, path);
    image->readMetadata();
    return image;
}

// Opens a file's bytes from memory (MemIo over them, no copy) and reads them, under the XMP lock like
// `openAndRead`. An unknown type is reported as for a file, naming `label`.
inline Exiv2::Image::AutoPtr openAndRead(const uint8_t *bytes, size_t size, const char *label) {
    std::string name = label != nullptr ? label : "<memory>";
    if (bytes == nullptr || size == 0 || Exiv2::ImageFactory::getType(bytes, static_cast<long>(size)) == 0)
        throw Exiv2::Error(Exiv2::kerFileContainsUnknownImageType, name);
    Exiv2::Image::AutoPtr image = Exiv2::ImageFactory::open(bytes, static_cast<long>(size));
    if (image.get() == nullptr) throw Exiv2::Error(Exiv2::kerFileContainsUnknownImageType, name);
    image->readMetadata();
    return image;
}

// Where a builder's source comes from: a path, or an image already opened and read (`opened`, owned by the caller:
// from memory, so two builders share one parse); `path` names the file in messages either way.
struct Source {
    const char *path = nullptr;
    Exiv2::Image *opened = nullptr;

    // The opened image, or the file opened and read now into `owned`. Call under the XMP lock.
    Exiv2::Image &image(Exiv2::Image::AutoPtr &owned) const {
        if (opened != nullptr) return *opened;
        owned = rbshim::openAndRead(path);
        return *owned;
    }
};

// The XMP sidecar merged into the output's XMP: a file by path (the by-path API), or its bytes already read (the
// in-memory API, so that a worker process opens no file; `path` then only names it). XmpBuilding.cpp.
struct SidecarSource {
    const char *path = nullptr;
    const uint8_t *bytes = nullptr;
    size_t size = 0;
    bool present() const { return path != nullptr || bytes != nullptr; }
    Exiv2::Image::AutoPtr open() const;
};

// The output's XMP: the source's own merged with the sidecar's statements about the photo, tiff:Orientation 1, the
// pixel dimensions updated. XmpBuilding.cpp.
rb_exiv2_status buildXmp(const Source &source, const SidecarSource &sidecar, uint32_t pixel_width,
                         uint32_t pixel_height, rb_exiv2_blob **out, char *message, size_t message_cap);

// A MakerNote tag of the camera's embedded preview: its sub-IFD (NikonPreview.*, SamsungPreview.*), the pointer to it
// (Nikon3.Preview), or a tag locating or holding the image (Pentax.PreviewOffset, Olympus.ThumbnailImage). The same
// content rule as EntryDecoder.isMakerNotePreview (docs/policy.md); the output has its own thumbnail. ExifEncoding.cpp.
bool isMakerNotePreviewTag(const Exiv2::Exifdatum &d);

// Encodes `ed` as a bare TIFF Exif blob with no size limit (ExifEncoding.cpp). Drops from `ed` first the MakerNote
// preview sub-IFDs and the tags exiv2 manufactures from Canon's AFInfo; the caller compares `ed` with the result.
// Returns a line for the report when it dropped a preview, else "".
std::string encodeExifWhole(Exiv2::Blob &blob, Exiv2::ByteOrder order, Exiv2::ExifData &ed);

// The previews of an opened image (Previews.cpp); the caller frees the list with rb_exiv2_previews_free.
rb_exiv2_previews *listPreviews(Exiv2::Image &image, size_t max_bytes);

}  // namespace rbshim

#endif
