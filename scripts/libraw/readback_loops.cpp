// Readback's LibRaw: the library as upstream builds it, with three of its hot loops run on OpenMP's threads: two
// per-pixel loops LibRaw declares virtual (so that a subclass may replace them), and the reader of uncompressed
// packed DNGs. In LibRaw 0.22 all three run on one thread while the demosaic beside them runs on every core: on a
// 24 MP frame the two loops held a core idle for about 0.3 s, and the reader, which fetches each byte through a
// virtual call, for about 0.4 s. The AHD demosaic itself is shared out by tile rather than by row of tiles (LibRaw's
// interpolation callback, LibRaw's own tile functions): a 24 MP frame has eight rows of tiles, so the last row kept
// one core busy alone; and its step to CIELab is LibRaw's with the per-pixel `cielab` call written in (about 0.3 s
// of CPU at 24 MP).
//
// Each replacement computes exactly what LibRaw's own code computes, sample for sample (the same single-precision
// arithmetic in the same order, the same clipping, the same bits): the rows are only shared out between threads. The
// histogram `convert_to_rgb_loop` fills is summed from per-thread counts, which gives the same integers. Any case
// these replacements do not cover (a per-row black-level pattern, raw colour, four-colour sensors; a tiled, 16-bit,
// multi-sample or truncated packed DNG) runs LibRaw's own code.
// scripts/libraw/build.sh compiles this file into the static archive; readback creates its decoders with
// readback_libraw_init (Sources/1-CLibraries/CRaw/shim.h), and the tests compare both against each other.
// Built as part of the library (LibRaw's own sources define this too): the class then declares its readers.
#define LIBRAW_LIBRARY_BUILD
#include "libraw/libraw.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <utility>
#include <vector>
#if defined(_OPENMP)
#include <omp.h>
#endif

namespace {

inline unsigned short clip16(int v) { return v < 0 ? 0 : v > 65535 ? 65535 : (unsigned short)v; }

class ReadbackLibRaw : public LibRaw {
  public:
    explicit ReadbackLibRaw(unsigned int flags) : LibRaw(flags) { callbacks.pre_interpolate_cb = &chooseDemosaic; }

    // Called by dcraw_process just before it picks the demosaic: where it would pick AHD, the same AHD runs by tile
    // (`ahdByTiles`). The choice is dcraw_process's own (src/postprocessing/dcraw_process.cpp): the quality, the
    // colours the CFA really has, a CFA whose neighbours share a colour.
    static void chooseDemosaic(void *context) {
        ReadbackLibRaw *self = static_cast<ReadbackLibRaw *>(static_cast<LibRaw *>(context));
        self->callbacks.interpolate_bayer_cb = self->picksAHD() ? &demosaicByTiles : nullptr;
    }

    static void demosaicByTiles(void *context) {
        static_cast<ReadbackLibRaw *>(static_cast<LibRaw *>(context))->ahdByTiles();
    }

    bool picksAHD() {
        const unsigned filters = imgdata.idata.filters;
        if (filters <= 1000 || callbacks.progress_cb || imgdata.params.no_interpolation) return false;
        int quality = 2 + !libraw_internal_data.internal_output_params.fuji_width;
        if (imgdata.params.user_qual >= 0) quality = imgdata.params.user_qual;
        int realColors = imgdata.idata.colors;
        bool badBayer = false;
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < 8; c++) {
                realColors = COLOR(r, c) + 1 > realColors ? COLOR(r, c) + 1 : realColors;
                badBayer = badBayer || FC(r, c) == FC(r + 1, c) || FC(r, c) == FC(r, c + 1);
            }
        return quality == 3 && imgdata.idata.colors == 3 && realColors <= 3 && !badBayer;
    }

    // LibRaw's ahd_interpolate (src/demosaic/ahd_demosaic.cpp) with each 512 px tile a task of its own: the same
    // tile functions on the same tiles. A tile reads only the CFA's own samples of `image` (each pixel's own colour)
    // and writes every colour of its inner pixels, its own colour unchanged, so tiles may run in any order and at
    // once, as LibRaw's rows of tiles already do.
    void ahdByTiles() {
        cielab(0, 0);
        border_interpolate(5);
        const int height = imgdata.sizes.height;
        const int width = imgdata.sizes.width;
        std::vector<std::pair<int, int>> tiles;
        for (int top = 2; top < height - 5; top += LIBRAW_AHD_TILE - 6)
            for (int left = 2; left < width - 5; left += LIBRAW_AHD_TILE - 6) tiles.push_back({top, left});
#if defined(_OPENMP)
        const int threads = omp_get_max_threads();
#else
        const int threads = 1;
#endif
        const size_t bufferSize = 26 * LIBRAW_AHD_TILE * LIBRAW_AHD_TILE;
        char **buffers = malloc_omp_buffers(threads, bufferSize);  // LibRaw's: throws when refused
        const int count = int(tiles.size());
#if defined(_OPENMP)
#pragma omp parallel for schedule(dynamic) num_threads(threads)
#endif
        for (int i = 0; i < count; i++) {
#if defined(_OPENMP)
            char *buffer = buffers[omp_get_thread_num()];
#else
            char *buffer = buffers[0];
#endif
            auto rgb = (unsigned short(*)[LIBRAW_AHD_TILE][LIBRAW_AHD_TILE][3])buffer;
            auto lab = (short(*)[LIBRAW_AHD_TILE][LIBRAW_AHD_TILE][3])(buffer + 12 * LIBRAW_AHD_TILE * LIBRAW_AHD_TILE);
            auto homo = (char(*)[LIBRAW_AHD_TILE][2])(buffer + 24 * LIBRAW_AHD_TILE * LIBRAW_AHD_TILE);
            const int top = tiles[i].first;
            const int left = tiles[i].second;
            ahd_interpolate_green_h_and_v(top, left, rgb);
            for (int d = 0; d < 2; d++) rAndBToLab(top, left, rgb[d], lab[d]);
            ahd_interpolate_build_homogeneity_map(top, left, lab, homo);
            ahd_interpolate_combine_homogeneous_pixels(top, left, rgb, homo);
        }
        free_omp_buffers(buffers, threads);
    }

    // LibRaw's ahd_interpolate_r_and_b_in_rgb_and_convert_to_cielab for one direction, statement for statement,
    // with its `cielab` written in (LibRaw calls it per pixel, the call costing about as much as the arithmetic):
    // the same three-colour sums in the same order from the same 0.5, the same table, the same conversions to short.
    // Only reached through `picksAHD`, which requires three colours.
    void rAndBToLab(int top, int left, unsigned short (*rgb)[LIBRAW_AHD_TILE][3], short (*lab)[LIBRAW_AHD_TILE][3]) {
        const int height = imgdata.sizes.height, width = imgdata.sizes.width;
        const unsigned rowPixels = 4 * width;
        const unsigned rowLimit = std::min(top + LIBRAW_AHD_TILE - 1, height - 3);
        const unsigned colLimit = std::min(left + LIBRAW_AHD_TILE - 1, width - 3);
        const float *cube = tls->ahd_data.cbrt;
        float (*xyzCam)[4] = tls->ahd_data.xyz_cam;
        for (unsigned row = top + 1; row < rowLimit; row++) {
            unsigned short(*pix)[4] = imgdata.image + row * width + left;
            unsigned short(*rix)[3] = &rgb[row - top][0];
            short(*lix)[3] = &lab[row - top][0];
            for (unsigned col = left + 1; col < colLimit; col++) {
                pix++;
                unsigned short *above = &pix[0][0] - rowPixels;
                unsigned short *below = &pix[0][0] + rowPixels;
                rix++;
                lix++;
                int c = 2 - FC(row, col), val;
                if (c == 1) {
                    c = FC(row + 1, col);
                    const int t1 = 2 - c;
                    val = pix[0][1] + ((pix[-1][t1] + pix[1][t1] - rix[-1][1] - rix[1][1]) >> 1);
                    rix[0][t1] = clip16(val);
                    val = pix[0][1] +
                          ((above[c] + below[c] - rix[-LIBRAW_AHD_TILE][1] - rix[LIBRAW_AHD_TILE][1]) >> 1);
                } else {
                    const int t1 = -4 + c, t2 = 4 + c;
                    val = rix[0][1] + ((above[t1] + above[t2] + below[t1] + below[t2] - rix[-LIBRAW_AHD_TILE - 1][1] -
                                        rix[-LIBRAW_AHD_TILE + 1][1] - rix[+LIBRAW_AHD_TILE - 1][1] -
                                        rix[+LIBRAW_AHD_TILE + 1][1] + 1) >>
                                       2);
                }
                rix[0][c] = clip16(val);
                c = FC(row, col);
                rix[0][c] = pix[0][c];
                // cielab(rix[0], lix[0]) for three colours.
                float x = 0.5f, y = 0.5f, z = 0.5f;
                for (int k = 0; k < 3; k++) {
                    x += xyzCam[0][k] * rix[0][k];
                    y += xyzCam[1][k] * rix[0][k];
                    z += xyzCam[2][k] * rix[0][k];
                }
                x = cube[clip16((int)x)];
                y = cube[clip16((int)y)];
                z = cube[clip16((int)z)];
                lix[0][0] = short(64 * (116 * y - 16));
                lix[0][1] = short(64 * 500 * (x - y));
                lix[0][2] = short(64 * 200 * (y - z));
            }
        }
    }

    // identify() picks the reader; the packed-DNG one is swapped for `packedDNGRows`, which runs LibRaw's own
    // reader for every case it does not cover.
    int open_datastream(LibRaw_abstract_datastream *stream) override {
        int ret = LibRaw::open_datastream(stream);
        if (ret == LIBRAW_SUCCESS && load_raw == &ReadbackLibRaw::packed_dng_load_raw)
            load_raw = static_cast<void (LibRaw::*)()>(&ReadbackLibRaw::packedDNGRows);
        return ret;
    }

    // unpack() sizes its buffers from the reader's flags and LibRaw names the reader by comparing `load_raw` with
    // its own functions: both see LibRaw's packed-DNG reader.
    int get_decoder_info(libraw_decoder_info_t *info) override {
        if (load_raw != static_cast<void (LibRaw::*)()>(&ReadbackLibRaw::packedDNGRows))
            return LibRaw::get_decoder_info(info);
        load_raw = &ReadbackLibRaw::packed_dng_load_raw;
        int ret = LibRaw::get_decoder_info(info);
        load_raw = static_cast<void (LibRaw::*)()>(&ReadbackLibRaw::packedDNGRows);
        return ret;
    }

    // LibRaw's packed_dng_load_raw (src/decoders/dng.cpp) for one-sample (CFA) rows of 8 to 15 bits, untiled, with
    // the whole raw present in the stream: each row is an MSB-first bit stream starting on a byte boundary
    // (getbits(-1) per row), each value mapped through `curve`. The rows are read from the stream in blocks, in
    // order, and each block's rows decoded on every thread. Anything else (tiles, 16-bit shorts, two-sample frames,
    // 0xFF stuffing, a frame the stream ends inside) is LibRaw's own reader, byte for byte as before.
    void packedDNGRows() {
        const auto &u = libraw_internal_data.unpacker_data;
        LibRaw_abstract_datastream *in = libraw_internal_data.internal_data.input;
        const int bps = u.tiff_bps;
        const size_t width = imgdata.sizes.raw_width;
        const size_t height = imgdata.sizes.raw_height;
        const size_t rowBytes = (width * bps + 7) / 8;
        const INT64 start = in ? in->tell() : -1;
        const bool covered = in && u.tile_length >= INT_MAX && bps >= 8 && bps <= 15 && u.tiff_samples == 1 &&
                             !u.zero_after_ff && imgdata.rawdata.raw_image && width > 0 && start >= 0 &&
                             in->size() - start >= INT64(rowBytes * height);
        if (!covered) {
            packed_dng_load_raw();
            return;
        }
        const unsigned short *map = imgdata.color.curve;
        unsigned short *raw = imgdata.rawdata.raw_image;
        const size_t blockRows = 256;
        unsigned char *block = (unsigned char *)malloc(rowBytes * blockRows);  // LibRaw's: throws when refused
        for (size_t top = 0; top < height; top += blockRows) {
            const int rows = int(height - top < blockRows ? height - top : blockRows);
            if (in->read(block, 1, rowBytes * rows) != int(rowBytes * rows)) {
                free(block);
                throw LIBRAW_EXCEPTION_IO_EOF;  // the size was checked: a stream that reads short is broken
            }
#if defined(_OPENMP)
#pragma omp parallel for schedule(static)
#endif
            for (int r = 0; r < rows; r++) {
                const unsigned char *p = block + size_t(r) * rowBytes;
                unsigned short *out = raw + (top + r) * width;
                unsigned long long acc = 0;
                int bits = 0;
                const unsigned mask = (1u << bps) - 1;
                for (size_t col = 0; col < width; col++) {
                    while (bits < bps) {
                        acc = (acc << 8) | *p++;
                        bits += 8;
                    }
                    bits -= bps;
                    out[col] = map[(acc >> bits) & mask];
                }
            }
        }
        free(block);
        getbithuff(-1, nullptr);  // as LibRaw's reader leaves it at a row's end: no bits pending
    }

    // LibRaw's scale_colors_loop (src/postprocessing/postprocessing_utils.cpp), without its cblack[4] × cblack[5]
    // pattern case, by rows.
    void scale_colors_loop(float scale_mul[4]) override {
        const unsigned *cblack = imgdata.color.cblack;
        if (cblack[4] && cblack[5]) {
            LibRaw::scale_colors_loop(scale_mul);
            return;
        }
        const bool black = cblack[0] || cblack[1] || cblack[2] || cblack[3];
        const int width = imgdata.sizes.iwidth;
        const int height = imgdata.sizes.iheight;
        unsigned short(*image)[4] = imgdata.image;
#if defined(_OPENMP)
#pragma omp parallel for schedule(static)
#endif
        for (int row = 0; row < height; row++) {
            unsigned short(*pixel)[4] = image + (size_t)row * width;
            for (int col = 0; col < width; col++) {
                for (int c = 0; c < 4; c++) {
                    int val = pixel[col][c];
                    if (black) {
                        if (!val) continue;
                        val -= cblack[c];
                    }
                    val = int(val * scale_mul[c]);
                    pixel[col][c] = clip16(val);
                }
            }
        }
    }

    // LibRaw's convert_to_rgb_loop for three colours, by rows, each thread counting its own histogram.
    void convert_to_rgb_loop(float out_cam[3][4]) override {
        if (libraw_internal_data.internal_output_params.raw_color || imgdata.idata.colors != 3) {
            LibRaw::convert_to_rgb_loop(out_cam);
            return;
        }
        int(*histogram)[LIBRAW_HISTOGRAM_SIZE] = libraw_internal_data.output_data.histogram;
        memset(histogram, 0, sizeof(int) * LIBRAW_HISTOGRAM_SIZE * 4);
        const int width = imgdata.sizes.width;
        const int height = imgdata.sizes.height;
        unsigned short(*image)[4] = imgdata.image;
#if defined(_OPENMP)
#pragma omp parallel
#endif
        {
            std::vector<int> counts(3 * LIBRAW_HISTOGRAM_SIZE, 0);
#if defined(_OPENMP)
#pragma omp for schedule(static)
#endif
            for (int row = 0; row < height; row++) {
                unsigned short *img = image[(size_t)row * width];
                for (int col = 0; col < width; col++, img += 4) {
                    float out[3];
                    out[0] = out_cam[0][0] * img[0] + out_cam[0][1] * img[1] + out_cam[0][2] * img[2];
                    out[1] = out_cam[1][0] * img[0] + out_cam[1][1] * img[1] + out_cam[1][2] * img[2];
                    out[2] = out_cam[2][0] * img[0] + out_cam[2][1] * img[1] + out_cam[2][2] * img[2];
                    img[0] = clip16((int)out[0]);
                    img[1] = clip16((int)out[1]);
                    img[2] = clip16((int)out[2]);
                    counts[img[0] >> 3]++;
                    counts[LIBRAW_HISTOGRAM_SIZE + (img[1] >> 3)]++;
                    counts[2 * LIBRAW_HISTOGRAM_SIZE + (img[2] >> 3)]++;
                }
            }
#if defined(_OPENMP)
#pragma omp critical(readback_histogram)
#endif
            for (int c = 0; c < 3; c++)
                for (int i = 0; i < LIBRAW_HISTOGRAM_SIZE; i++) histogram[c][i] += counts[c * LIBRAW_HISTOGRAM_SIZE + i];
        }
    }
};

}  // namespace

// libraw_init with Readback's loops: the same data handle (libraw_close frees it, every libraw_* call takes it).
extern "C" libraw_data_t *readback_libraw_init(unsigned int flags) {
    try {
        ReadbackLibRaw *r = new ReadbackLibRaw(flags);
        return &(r->imgdata);
    } catch (...) {
        return nullptr;
    }
}
