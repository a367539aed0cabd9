// Building the output's XMP: the source's XMP merged with its sidecar's; see ShimSupport.hpp (buildXmp).
#include "ShimSupport.hpp"

#include <exiv2/exiv2.hpp>

#include <memory>
#include <set>
#include <string>

namespace rbshim {

Exiv2::Image::AutoPtr SidecarSource::open() const {
    if (bytes != nullptr) return openAndRead(bytes, size, path);
    return openAndRead(path);
}

rb_exiv2_status buildXmp(const Source &source, const SidecarSource &sidecar, uint32_t pixel_width,
                         uint32_t pixel_height, rb_exiv2_blob **out, char *message, size_t message_cap) {
    *out = nullptr;
    return guarded(message, message_cap, [&]() -> rb_exiv2_status {
        LogCapture log;
        std::lock_guard<std::recursive_mutex> g(xmpMutex());
        Exiv2::XmpData xd;
        {
            Exiv2::Image::AutoPtr owned;
            xd = source.image(owned).xmpData();
        }
        if (sidecar.present()) {
            Exiv2::Image::AutoPtr side = sidecar.open();
            const Exiv2::XmpData &sd = side->xmpData();
            // What the sidecar says about the photo (rating, label, keywords, caption, title, creator, location, …)
            // wins over the file's own XMP, property by property (an array or struct moves whole). Develop settings
            // (crs:*, darktable:*) are edits to the RAW that are not rendered: they stay in the sidecar, beside the
            // original, which is then never removed. The geometry the output has of its own is not taken.
            auto property = [](const std::string &key) { return key.substr(0, key.find_first_of("[/")); };
            auto wanted = [](const Exiv2::Xmpdatum &d) {
                const std::string g = d.groupName();
                // The sidecar's own document facts (its IDs and history, the tool and time that wrote it) describe
                // the sidecar, not the photo.
                if (g == "crs" || g == "darktable" || g == "xmpMM") return false;
                static const char *own[] = {"Xmp.tiff.Orientation",     "Xmp.tiff.ImageWidth",
                                            "Xmp.tiff.ImageLength",     "Xmp.exif.PixelXDimension",
                                            "Xmp.exif.PixelYDimension", "Xmp.xmp.CreatorTool",
                                            "Xmp.xmp.MetadataDate",     "Xmp.xmp.ModifyDate"};
                for (const char *k : own)
                    if (d.key() == k) return false;
                return true;
            };
            std::set<std::string> replaced;
            for (const auto &d : sd)
                if (wanted(d)) replaced.insert(property(d.key()));
            for (auto it = xd.begin(); it != xd.end();) {
                if (replaced.count(property(it->key())) != 0) {
                    it = xd.erase(it);
                } else {
                    ++it;
                }
            }
            for (const auto &d : sd)
                if (wanted(d)) xd.add(d);
        }
        auto oit = xd.findKey(Exiv2::XmpKey("Xmp.tiff.Orientation"));
        if (oit != xd.end()) oit->setValue("1");
        if (pixel_width > 0 && pixel_height > 0) {
            auto setIfPresent = [&](const char *key, uint32_t v) {
                auto it = xd.findKey(Exiv2::XmpKey(key));
                if (it != xd.end()) it->setValue(std::to_string(v));
            };
            setIfPresent("Xmp.exif.PixelXDimension", pixel_width);
            setIfPresent("Xmp.exif.PixelYDimension", pixel_height);
            setIfPresent("Xmp.tiff.ImageWidth", pixel_width);
            setIfPresent("Xmp.tiff.ImageLength", pixel_height);
        }
        std::unique_ptr<rb_exiv2_blob> result(new rb_exiv2_blob());
        if (!xd.empty()) {
            std::string packet;
            int rc = Exiv2::XmpParser::encode(packet, xd, Exiv2::XmpParser::useCompactFormat |
                                                              Exiv2::XmpParser::omitPacketWrapper);
            if (rc != 0) {
                setMessage(message, message_cap, "XMP encode failed (" + std::to_string(rc) + "): " + log.text);
                return RB_EXIV2_ERROR;
            }
            result->bytes = packet;
        }
        *out = result.release();
        return RB_EXIV2_OK;
    });
}

}  // namespace rbshim
