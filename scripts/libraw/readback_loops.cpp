// Readback's LibRaw: the library as upstream builds it, with two of the per-pixel loops LibRaw declares virtual
// (so that a subclass may replace them) run on OpenMP's threads. In LibRaw 0.22 both run on one thread while the
// demosaic beside them runs on every core: on a 24 MP frame they held a core idle for about 0.3 s.
//
// Each replacement computes exactly what LibRaw's own loop computes, pixel for pixel (the same single-precision
// arithmetic in the same order, the same clipping): the rows are only shared out between threads. The histogram
// `convert_to_rgb_loop` fills is summed from per-thread counts, which gives the same integers. Any case these
// replacements do not cover (a per-row black-level pattern, raw colour, four-colour sensors) runs LibRaw's own loop.
// scripts/libraw/build.sh compiles this file into the static archive; readback creates its decoders with
// readback_libraw_init (Sources/1-CLibraries/CRaw/shim.h), and the tests compare both against each other.
#include "libraw/libraw.h"

#include <cstring>
#include <vector>

namespace {

inline unsigned short clip16(int v) { return v < 0 ? 0 : v > 65535 ? 65535 : (unsigned short)v; }

class ReadbackLibRaw : public LibRaw {
  public:
    explicit ReadbackLibRaw(unsigned int flags) : LibRaw(flags) {}

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
