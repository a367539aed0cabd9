// CExiv2Shim: a C-only face over exiv2 0.27 (C++).
// Why it exists: exiv2 throws C++ exceptions and its headers use std::auto_ptr; Swift's C++
// interop aborts on any exception and does not import Exiv2::ImageFactory. So every exiv2 call
// lives in Exiv2Shim.cpp, every exception becomes a status plus a message, and only opaque
// handles and plain C types cross this header.
//
// Thread safety: every call may be made from any thread. exiv2's XMP toolkit is not thread-safe
// (docs/platform.md), so every call that can touch XMP (file reads, XMP decode/encode, the
// builders) runs under one process-wide mutex; Exif decoding from memory runs unlocked.
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

/// Which metadata family an entry belongs to.
typedef enum {
    RB_EXIV2_FAMILY_EXIF = 0,
    RB_EXIV2_FAMILY_IPTC = 1,
    RB_EXIV2_FAMILY_XMP = 2
} rb_exiv2_family;

/// Decoded metadata of one file, Exif blob or XMP packet (opaque; free with rb_exiv2_doc_free).
typedef struct rb_exiv2_doc rb_exiv2_doc;

/// One metadata entry. Every pointer is owned by the doc and valid until rb_exiv2_doc_free.
typedef struct {
    rb_exiv2_family family;
    const char *key;        ///< "Exif.Photo.DateTimeOriginal", "Xmp.xmp.Rating", "Iptc.Application2.Keywords"
    const char *group;      ///< exiv2 group: "Image", "Photo", "GPSInfo", "Canon", "xmp", "Application2"
    const char *ifd;        ///< Exif only: exiv2's IFD name ("IFD0", "Exif", "GPSInfo", "Makernote", ...), else ""
    const char *tag_name;   ///< exiv2's tag name ("DateTimeOriginal"); for XMP the property path
    uint16_t tag;           ///< numeric tag (Exif/IPTC), 0 for XMP
    int32_t type_id;        ///< Exiv2::TypeId (1 unsignedByte, 2 asciiString, 3 unsignedShort, 4 unsignedLong,
                            ///< 5 unsignedRational, 7 undefined, 9 signedLong, 10 signedRational, ...;
                            ///< XMP: 0x10000 xmpText, 0x10001 xmpAlt, 0x10002 xmpBag, 0x10003 xmpSeq, 0x10004 langAlt)
    int64_t count;          ///< number of components
    const uint8_t *raw;     ///< Exif/IPTC: the value bytes in big-endian order. XMP: the items, each
                            ///< "text" or (langAlt) "lang\x1ftext", separated by \x1e.
    size_t raw_size;
    const char *text;       ///< exiv2's string value (Value::toString); empty for an Exif value of over 64
                            ///< components that is not ASCII (its bytes are in raw)
    int32_t makernote;      ///< 1 when exiv2 decoded this entry from inside a MakerNote
} rb_exiv2_entry;

/// Opens a file by path with exiv2 (BMFF enabled) and reads its Exif, IPTC and XMP.
/// @param out receives the doc on success.
/// @return RB_EXIV2_OK, or an error status with `message` filled.
rb_exiv2_status rb_exiv2_read_file(const char *path, rb_exiv2_doc **out, char *message, size_t message_cap);

/// Decodes an Exif TIFF blob from memory ("II*\0"/"MM\0*", an optional "Exif\0\0" prefix is skipped).
rb_exiv2_status rb_exiv2_decode_exif(const uint8_t *bytes, size_t size, rb_exiv2_doc **out, char *message,
                                     size_t message_cap);

/// Decodes an XMP packet from memory.
rb_exiv2_status rb_exiv2_decode_xmp(const uint8_t *bytes, size_t size, rb_exiv2_doc **out, char *message,
                                    size_t message_cap);

void rb_exiv2_doc_free(rb_exiv2_doc *doc);
size_t rb_exiv2_doc_count(const rb_exiv2_doc *doc);
/// Copies entry `index` into `out`; returns 0 when `index` is out of range.
int rb_exiv2_doc_entry(const rb_exiv2_doc *doc, size_t index, rb_exiv2_entry *out);
/// The MIME type exiv2 recognised ("image/x-canon-cr2"), "" for memory decodes.
const char *rb_exiv2_doc_mime(const rb_exiv2_doc *doc);
/// Warnings exiv2 logged while reading (LogMsg, captured per call), one per line; "" when none.
const char *rb_exiv2_doc_warnings(const rb_exiv2_doc *doc);
/// Byte order of the Exif data: 1 little endian, 2 big endian, 0 unknown.
int rb_exiv2_doc_byte_order(const rb_exiv2_doc *doc);

/// A byte buffer produced by a builder (opaque; free with rb_exiv2_blob_free).
typedef struct rb_exiv2_blob rb_exiv2_blob;
const uint8_t *rb_exiv2_blob_bytes(const rb_exiv2_blob *blob);
size_t rb_exiv2_blob_size(const rb_exiv2_blob *blob);
/// What the builder had to drop or shrink, one line each ("dropped KEY (N bytes)",
/// "shrunk KEY from A to B bytes"); "" when nothing was lost.
const char *rb_exiv2_blob_report(const rb_exiv2_blob *blob);
void rb_exiv2_blob_free(rb_exiv2_blob *blob);

/// Builds a clean Exif TIFF blob for a HEIC from the Exif of the file at `path`:
/// thumbnail, strips, tiles, SubIFDs, JPEGInterchangeFormat, CFA keys, SubImage/Image2+ groups, image-structure
/// tags and DNG tags 0xC612–0xC7FF removed; Orientation 1; PixelX/YDimension set; Software set
/// (when not NULL). `byte_order`: 0 keep the source's, 1 little endian, 2 big endian. The report lists
/// what ExifParser::encode dropped or shrank (compared after encoding).
rb_exiv2_status rb_exiv2_build_heic_exif(const char *path, uint32_t pixel_width, uint32_t pixel_height,
                                         const char *software, int byte_order, rb_exiv2_blob **out,
                                         char *message, size_t message_cap);

/// Builds an XMP packet from the XMP of the file at `path` merged with the sidecar at `sidecar_path`
/// (NULL for none): the sidecar's xmp:Rating, xmp:Label, dc:subject and dc:description win.
/// tiff:Orientation becomes 1 when present; pixel dimensions (when non-zero) update exif:PixelX/YDimension.
/// An empty packet ("" size 0) means there was no XMP at all.
rb_exiv2_status rb_exiv2_build_xmp(const char *path, const char *sidecar_path, uint32_t pixel_width,
                                   uint32_t pixel_height, rb_exiv2_blob **out, char *message, size_t message_cap);

/// The embedded previews of a file (exiv2's PreviewManager: Exif/TIFF/DNG preview IFDs, JPEG thumbnails, maker
/// previews), in exiv2's order: smallest first (opaque; free with rb_exiv2_previews_free).
typedef struct rb_exiv2_previews rb_exiv2_previews;

/// One preview. Pointers are owned by the list and valid until rb_exiv2_previews_free.
typedef struct {
    const char *mime_type;   ///< "image/jpeg", "image/tiff" (exiv2 wraps a TIFF-IFD preview in a small TIFF)
    uint32_t width;          ///< as exiv2 reads it from the preview's tags (0 when unknown)
    uint32_t height;
    const uint8_t *data;     ///< the preview's bytes (NULL when exiv2 could not extract them)
    size_t size;
} rb_exiv2_preview;

/// Lists and extracts the embedded previews of the file at `path`. A preview whose bytes exceed `max_bytes` is
/// listed without data. An unknown or unreadable file is an error; a file without previews is an empty list.
rb_exiv2_status rb_exiv2_read_previews(const char *path, size_t max_bytes, rb_exiv2_previews **out, char *message,
                                       size_t message_cap);
size_t rb_exiv2_previews_count(const rb_exiv2_previews *list);
/// Copies preview `index` into `out`; returns 0 when `index` is out of range.
int rb_exiv2_previews_get(const rb_exiv2_previews *list, size_t index, rb_exiv2_preview *out);
void rb_exiv2_previews_free(rb_exiv2_previews *list);

/// From memory: a file's bytes already read (ImageFactory::open(const byte*, long), BMFF enabled), so exiv2 opens
/// no file (but a sidecar). The bytes are not copied and must stay valid during the call; `label` (the file's path,
/// or NULL) names the file in messages, as the by-path calls do.

/// Reads Exif, IPTC and XMP as rb_exiv2_read_file does. With `previews` not NULL, the embedded previews are listed
/// from the same parse too, as rb_exiv2_read_previews lists them (`max_preview_bytes` as its `max_bytes`).
rb_exiv2_status rb_exiv2_read_memory(const uint8_t *bytes, size_t size, const char *label, rb_exiv2_doc **out,
                                     rb_exiv2_previews **previews, size_t max_preview_bytes, char *message,
                                     size_t message_cap);

/// Both builders on one parse of a file's bytes: rb_exiv2_build_heic_exif into `exif_out` (its status in
/// `exif_status`, its message in `exif_message`) and rb_exiv2_build_xmp into `xmp_out` (`xmp_status`,
/// `xmp_message`), each as the single call would give it. Returns RB_EXIV2_OK when the bytes were opened and read,
/// else that failure, which both statuses and messages then carry. The sidecar comes as bytes too
/// (`sidecar_bytes`, `sidecar_size`; NULL for none), `sidecar_label` naming it in messages: nothing is opened.
rb_exiv2_status rb_exiv2_build_heic_metadata_memory(const uint8_t *bytes, size_t size, const char *label,
                                                    uint32_t pixel_width, uint32_t pixel_height, const char *software,
                                                    int byte_order, const uint8_t *sidecar_bytes,
                                                    size_t sidecar_size, const char *sidecar_label,
                                                    rb_exiv2_blob **exif_out, rb_exiv2_status *exif_status,
                                                    rb_exiv2_blob **xmp_out, rb_exiv2_status *xmp_status,
                                                    char *exif_message, char *xmp_message, size_t message_cap);

#ifdef __cplusplus
}
#endif
#endif
