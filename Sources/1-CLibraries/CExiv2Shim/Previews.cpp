// Embedded previews through exiv2's PreviewManager; see include/CExiv2Shim.h.
#include "CExiv2Shim.h"
#include "ShimSupport.hpp"

#include <exiv2/exiv2.hpp>

#include <memory>
#include <string>
#include <vector>

namespace {

struct Preview {
    std::string mime;
    uint32_t width = 0, height = 0;
    std::vector<uint8_t> data;
};

}  // namespace

struct rb_exiv2_previews {
    std::vector<Preview> items;
};

rb_exiv2_previews *rbshim::listPreviews(Exiv2::Image &image, size_t max_bytes) {
    std::unique_ptr<rb_exiv2_previews> list(new rb_exiv2_previews());
    Exiv2::PreviewManager manager(image);
    Exiv2::PreviewPropertiesList props = manager.getPreviewProperties();
    for (const auto &p : props) {
        Preview item;
        item.mime = p.mimeType_;
        item.width = p.width_;
        item.height = p.height_;
        if (p.size_ > 0 && p.size_ <= max_bytes) {
            // A preview whose bytes lie outside a truncated file throws; it is kept, listed without data.
            try {
                Exiv2::PreviewImage img = manager.getPreviewImage(p);
                if (img.pData() != nullptr && img.size() > 0 && img.size() <= max_bytes)
                    item.data.assign(img.pData(), img.pData() + img.size());
            } catch (const std::exception &) {
            }
        }
        list->items.push_back(std::move(item));
    }
    return list.release();
}

extern "C" rb_exiv2_status rb_exiv2_read_previews(const char *path, size_t max_bytes, rb_exiv2_previews **out,
                                                  char *message, size_t message_cap) {
    if (path == nullptr || out == nullptr) return RB_EXIV2_BAD_ARGUMENT;
    *out = nullptr;
    return rbshim::guarded(message, message_cap, [&]() -> rb_exiv2_status {
        rbshim::LogCapture log;
        std::lock_guard<std::recursive_mutex> g(rbshim::xmpMutex());
        Exiv2::Image::AutoPtr image = rbshim::openAndRead(path);
        *out = rbshim::listPreviews(*image, max_bytes);
        return RB_EXIV2_OK;
    });
}

extern "C" size_t rb_exiv2_previews_count(const rb_exiv2_previews *list) { return list ? list->items.size() : 0; }

extern "C" int rb_exiv2_previews_get(const rb_exiv2_previews *list, size_t index, rb_exiv2_preview *out) {
    if (list == nullptr || out == nullptr || index >= list->items.size()) return 0;
    const Preview &p = list->items[index];
    out->mime_type = p.mime.c_str();
    out->width = p.width;
    out->height = p.height;
    out->data = p.data.empty() ? nullptr : p.data.data();
    out->size = p.data.size();
    return 1;
}

extern "C" void rb_exiv2_previews_free(rb_exiv2_previews *list) { delete list; }
