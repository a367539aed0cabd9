/* floor: benchmark tooling for `make bench` (not product code).
 *
 * The "floor" a RAW -> HEIC converter cannot beat on this machine: LibRaw decode + demosaic alone, and an x265 encode
 * (through libheif) of that frame alone, at given settings. Also a plain libheif decode loop (the reference for the
 * auditor's full-decode mode) and a PSNR/SSIM comparison of a HEIC against a PPM (fidelity of a peer pipeline).
 *
 *   floor encode IN.raw OUT.heic [-q Q] [-p PRESET] [-c 420|444] [-d 8|10] [--ppm OUT.ppm] [--fidelity]
 *                [--frame FRAME.ppm]     encode FRAME (the exact frame Readback encodes, from `readback-ladder frame`)
 *                                        instead of the helper's own render; LibRaw still decodes IN (timed)
 *                [-x NAME=VALUE[,...]]   x265 options after the preset (libheif's "x265:NAME"), as the converter
 *                                        sets them (`readback convert --print-defaults --json`, key "x265")
 *                [--tiles N]             code N x N tiles as the converter does (edge-replicated, one one-thread
 *                                        encoder per core); the coded bytes are counted ("output_bytes"), not written
 *   floor decode-loop FILE...            decode each file's primary and its gain-map aux images (RGB 8-bit)
 *   floor compare A.heic B.ppm           PSNR (RGB) and SSIM (luma, 8x8 blocks) of A's primary against B
 *   floor stat A.heic                    size, coded colourspace and mean level of A's primary (is it a photo?)
 *
 * Every mode prints one JSON object on stdout. Build: gcc -O2 floor.c $(pkg-config --cflags --libs libraw_r libheif) -lm
 */
#include <libraw/libraw.h>
#include <libheif/heif.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The LibRaw readback creates (scripts/libraw/readback_loops.cpp, in the same archive): some of its loops on every
 * core, the same frame. The floor decodes with what readback decodes with. */
libraw_data_t *readback_libraw_init(unsigned int flags);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void die(const char *what, const char *why) {
  fprintf(stderr, "floor: %s: %s\n", what, why);
  exit(2);
}

static void check(struct heif_error e, const char *what) {
  if (e.code != heif_error_Ok) die(what, e.message);
}

/* 8-bit RGB image, interleaved. */
typedef struct {
  int w, h;
  uint8_t *px;
} rgb8;

/* PSNR over all RGB samples and mean SSIM of luma over non-overlapping 8x8 blocks (Wang et al. constants). */
static void fidelity(const rgb8 *a, const rgb8 *b, double *psnr, double *ssim) {
  size_t n = (size_t)a->w * a->h * 3;
  double se = 0;
  for (size_t i = 0; i < n; i++) {
    double d = (double)a->px[i] - (double)b->px[i];
    se += d * d;
  }
  double mse = se / (double)n;
  *psnr = mse == 0 ? 99.0 : 10.0 * log10(255.0 * 255.0 / mse);
  const double c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255);
  double sum = 0;
  long blocks = 0;
  for (int by = 0; by + 8 <= a->h; by += 8) {
    for (int bx = 0; bx + 8 <= a->w; bx += 8) {
      double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
      for (int y = by; y < by + 8; y++) {
        const uint8_t *pa = a->px + ((size_t)y * a->w + bx) * 3, *pb = b->px + ((size_t)y * b->w + bx) * 3;
        for (int x = 0; x < 8; x++, pa += 3, pb += 3) {
          double ya = 0.2126 * pa[0] + 0.7152 * pa[1] + 0.0722 * pa[2];
          double yb = 0.2126 * pb[0] + 0.7152 * pb[1] + 0.0722 * pb[2];
          sa += ya; sb += yb; saa += ya * ya; sbb += yb * yb; sab += ya * yb;
        }
      }
      double ma = sa / 64, mb = sb / 64;
      double va = saa / 64 - ma * ma, vb = sbb / 64 - mb * mb, cov = sab / 64 - ma * mb;
      sum += ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2));
      blocks++;
    }
  }
  *ssim = blocks ? sum / blocks : 1.0;
}

/* Decodes a handle to interleaved RGB 8-bit; returns the image (caller releases) and fills out. */
static struct heif_image *decode_rgb8(struct heif_image_handle *h, rgb8 *out) {
  struct heif_image *img = NULL;
  check(heif_decode_image(h, &img, heif_colorspace_RGB, heif_chroma_interleaved_RGB, NULL), "decode");
  int stride = 0;
  const uint8_t *p = heif_image_get_plane_readonly(img, heif_channel_interleaved, &stride);
  out->w = heif_image_get_width(img, heif_channel_interleaved);
  out->h = heif_image_get_height(img, heif_channel_interleaved);
  out->px = malloc((size_t)out->w * out->h * 3);
  for (int y = 0; y < out->h; y++) memcpy(out->px + (size_t)y * out->w * 3, p + (size_t)y * stride, (size_t)out->w * 3);
  return img;
}

static int read_ppm8(const char *path, rgb8 *out) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  int maxv = 0;
  if (fscanf(f, "P6 %d %d %d", &out->w, &out->h, &maxv) != 3 || maxv <= 0 || maxv > 65535) { fclose(f); return -1; }
  fgetc(f);
  size_t n = (size_t)out->w * out->h * 3;
  out->px = malloc(n);
  if (maxv < 256) {
    if (fread(out->px, 1, n, f) != n) { fclose(f); return -1; }
  } else {
    uint8_t *tmp = malloc(n * 2);
    if (fread(tmp, 1, n * 2, f) != n * 2) { fclose(f); return -1; }
    for (size_t i = 0; i < n; i++) out->px[i] = (uint8_t)((((tmp[2 * i] << 8) | tmp[2 * i + 1]) * 255 + maxv / 2) / maxv);
    free(tmp);
  }
  fclose(f);
  return 0;
}

/* An encoder at the given settings: quality, preset, chroma and the converter's x265 options ("x265:NAME", in the
 * order given), for a w x h picture. As the converter's encoder does (HeifEncodeSettings.x265Options), a coding tree
 * unit under 32 becomes 32 on a picture beyond HEVC level 4.1 (2,228,224 luma samples or a side over 4222), where
 * x265 refuses it. `one_thread`: no x265 pool and one frame thread, as the converter codes each tile. */
static struct heif_encoder *make_encoder(struct heif_context *ctx, int quality, const char *preset, const char *chroma,
                                         const char *x265, int w, int h, int one_thread) {
  struct heif_encoder *enc = NULL;
  check(heif_context_get_encoder_for_format(ctx, heif_compression_HEVC, &enc), "encoder");
  check(heif_encoder_set_lossy_quality(enc, quality), "quality");
  check(heif_encoder_set_parameter_string(enc, "preset", preset), "preset");
  check(heif_encoder_set_parameter_string(enc, "chroma", chroma), "chroma");
  char opts[512];
  snprintf(opts, sizeof opts, "%s", x265);
  for (char *save = NULL, *kv = strtok_r(opts, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(kv, '=');
    if (!eq) die("-x", "expected NAME=VALUE");
    *eq = 0;
    char name[160];
    snprintf(name, sizeof name, "x265:%s", kv);
    long pw = (w + 7) / 8 * 8, ph = (h + 7) / 8 * 8;
    int raise = !strcmp(kv, "ctu") && atoi(eq + 1) < 32 && (pw * ph > 2228224L || pw > 4222 || ph > 4222);
    check(heif_encoder_set_parameter_string(enc, name, raise ? "32" : eq + 1), name);
  }
  if (one_thread) {
    check(heif_encoder_set_parameter_string(enc, "x265:pools", "none"), "pools");
    check(heif_encoder_set_parameter_string(enc, "x265:frame-threads", "1"), "frame-threads");
  }
  return enc;
}

/* Tiles coded as the converter codes them: each tile x tile picture edge-replicated from the frame and coded by its
 * own one-thread encoder, one encoder per core at a time. Only the coded bytes are kept (counted, not written). */
typedef struct {
  const struct heif_image *frame;
  int w, h, tile, cols, rows, bits, quality, next;
  const char *preset, *chroma, *x265;
  const struct heif_color_profile_nclx *nclx;
  size_t bytes;
  pthread_mutex_t mu;
} tiling;

static struct heif_error count_bytes(struct heif_context *ctx, const void *data, size_t size, void *user) {
  (void)ctx;
  (void)data;
  *(size_t *)user += size;
  return (struct heif_error){heif_error_Ok, heif_suberror_Unspecified, "ok"};
}

static void *tile_worker(void *arg) {
  tiling *t = arg;
  int bpp = t->bits > 8 ? 6 : 3, ss = 0;
  const uint8_t *src = heif_image_get_plane_readonly(t->frame, heif_channel_interleaved, &ss);
  for (;;) {
    pthread_mutex_lock(&t->mu);
    int i = t->next++;
    pthread_mutex_unlock(&t->mu);
    if (i >= t->cols * t->rows) return NULL;
    int x0 = (i % t->cols) * t->tile, y0 = (i / t->cols) * t->tile, ds = 0;
    struct heif_image *img = NULL;
    check(heif_image_create(t->tile, t->tile, heif_colorspace_RGB,
                            t->bits > 8 ? heif_chroma_interleaved_RRGGBB_LE : heif_chroma_interleaved_RGB, &img),
          "tile image");
    check(heif_image_add_plane(img, heif_channel_interleaved, t->tile, t->tile, t->bits), "tile plane");
    uint8_t *dst = heif_image_get_plane(img, heif_channel_interleaved, &ds);
    for (int y = 0; y < t->tile; y++) {
      const uint8_t *row = src + (size_t)(y0 + y < t->h ? y0 + y : t->h - 1) * ss;
      for (int x = 0; x < t->tile; x++)
        memcpy(dst + (size_t)y * ds + (size_t)x * bpp, row + (size_t)(x0 + x < t->w ? x0 + x : t->w - 1) * bpp, bpp);
    }
    heif_image_set_nclx_color_profile(img, t->nclx);
    struct heif_context *ctx = heif_context_alloc();
    struct heif_encoder *enc = make_encoder(ctx, t->quality, t->preset, t->chroma, t->x265, t->tile, t->tile, 1);
    struct heif_encoding_options *opt = heif_encoding_options_alloc();
    opt->macOS_compatibility_workaround_no_nclx_profile = 0;
    check(heif_context_encode_image(ctx, img, enc, opt, NULL), "encode tile");
    size_t n = 0;
    struct heif_writer writer = {1, count_bytes};
    check(heif_context_write(ctx, &writer, &n), "write tile");
    heif_encoding_options_free(opt);
    heif_encoder_release(enc);
    heif_context_free(ctx);
    heif_image_release(img);
    pthread_mutex_lock(&t->mu);
    t->bytes += n;
    pthread_mutex_unlock(&t->mu);
  }
}

static int cmd_encode(int argc, char **argv) {
  if (argc < 4) die("usage", "floor encode IN OUT.heic [-q Q] [-p PRESET] [-c 420|444] [-d 8|10] [--ppm F] [--fidelity]");
  const char *in = argv[2], *outp = argv[3], *preset = "medium", *chroma = "420", *ppm = NULL, *frame = NULL;
  const char *x265 = "";
  int quality = 90, depth = 8, fid = 0, tile = 0;
  for (int i = 4; i < argc; i++) {
    if (!strcmp(argv[i], "-q") && i + 1 < argc) quality = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-p") && i + 1 < argc) preset = argv[++i];
    else if (!strcmp(argv[i], "-c") && i + 1 < argc) chroma = argv[++i];
    else if (!strcmp(argv[i], "-d") && i + 1 < argc) depth = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--ppm") && i + 1 < argc) ppm = argv[++i];
    else if (!strcmp(argv[i], "--fidelity")) fid = 1;
    else if (!strcmp(argv[i], "--frame") && i + 1 < argc) frame = argv[++i];
    else if (!strcmp(argv[i], "-x") && i + 1 < argc) x265 = argv[++i];
    else if (!strcmp(argv[i], "--tiles") && i + 1 < argc) tile = atoi(argv[++i]);
    else die("encode", "unknown option");
  }
  if (tile && (tile < 64 || tile % 8 || fid))
    die("--tiles", "a side of 64 or more, a multiple of 8, without --fidelity");
  /* 1. LibRaw: open, unpack, demosaic (AHD, camera WB, linear 16-bit sRGB primaries), make the memory image. */
  double t0 = now();
  libraw_data_t *raw = readback_libraw_init(0);
  raw->params.output_bps = 16;
  raw->params.gamm[0] = raw->params.gamm[1] = 1.0;
  raw->params.no_auto_bright = 1;
  raw->params.use_camera_wb = 1;
  raw->params.output_color = 1;
  raw->params.user_qual = 3;
  int rc;
  if ((rc = libraw_open_file(raw, in)) != 0) die(in, libraw_strerror(rc));
  if ((rc = libraw_unpack(raw)) != 0) die(in, libraw_strerror(rc));
  double t1 = now();
  if ((rc = libraw_dcraw_process(raw)) != 0) die(in, libraw_strerror(rc));
  libraw_processed_image_t *m = libraw_dcraw_make_mem_image(raw, &rc);
  if (!m) die(in, libraw_strerror(rc));
  double t2 = now();
  int w = m->width, h = m->height;
  /* 2. Render to the encoder's input: exposure + sRGB transfer through a 64 K-entry table (trivial next to either
     side, and outside the floor's timer). */
  struct heif_image *img = NULL;
  int hi = depth > 8;
  check(heif_image_create(w, h, heif_colorspace_RGB, hi ? heif_chroma_interleaved_RRGGBB_LE : heif_chroma_interleaved_RGB, &img),
        "image_create");
  check(heif_image_add_plane(img, heif_channel_interleaved, w, h, hi ? depth : 8), "add_plane");
  int stride = 0;
  uint8_t *dst = heif_image_get_plane(img, heif_channel_interleaved, &stride);
  int maxo = (1 << (hi ? depth : 8)) - 1;
  if (frame) {
    /* Readback's own pre-encode frame (P6; maxval 255, or 1023 big-endian for 10-bit): the same pixels, so the
       encoder does the same work on both sides. Outside the floor's timer, like the render below. */
    FILE *f = fopen(frame, "rb");
    int fw = 0, fh = 0, maxv = 0;
    if (!f || fscanf(f, "P6 %d %d %d", &fw, &fh, &maxv) != 3) die(frame, "not a binary PPM");
    fgetc(f);
    if (fw != w || fh != h) die(frame, "frame size differs from LibRaw's (orientation or crop?)");
    if ((maxv > 255) != hi) die(frame, "frame bit depth does not match -d");
    size_t rowb = (size_t)w * 3 * (hi ? 2 : 1);
    uint8_t *row = malloc(rowb);
    for (int y = 0; y < h; y++) {
      if (fread(row, 1, rowb, f) != rowb) die(frame, "truncated");
      if (hi) {
        uint16_t *d = (uint16_t *)(dst + (size_t)y * stride);
        for (int x = 0; x < w * 3; x++) d[x] = (uint16_t)((row[2 * x] << 8) | row[2 * x + 1]);
      } else {
        memcpy(dst + (size_t)y * stride, row, rowb);
      }
    }
    free(row);
    fclose(f);
  }
  /* Exposure: the 99.5th percentile of the linear values maps to 0.9 of white, so the encoder sees a normally
     exposed picture (as any converter's render would be), not a dark linear frame. Outside the floor's timer. */
  const uint16_t *src = (const uint16_t *)m->data;
  size_t total = (size_t)w * h * 3;
  uint32_t *hist = calloc(65536, sizeof(uint32_t));
  size_t counted = 0;
  for (size_t i = 0; i < total; i += 7) { hist[src[i]]++; counted++; }
  size_t acc = 0;
  int p995 = 65535;
  for (int i = 0; i < 65536; i++) {
    acc += hist[i];
    if (acc >= counted * 995 / 1000) { p995 = i > 0 ? i : 1; break; }
  }
  free(hist);
  double gain = 0.9 * 65535.0 / p995;
  if (gain < 1) gain = 1;
  uint16_t *lut = malloc(65536 * sizeof(uint16_t));
  for (int i = 0; i < 65536; i++) {
    double v = i * gain / 65535.0;
    if (v > 1) v = 1;
    v = v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055;
    lut[i] = (uint16_t)lrint(v * maxo);
  }
  for (int y = 0; y < h && !frame; y++) {
    const uint16_t *s = src + (size_t)y * w * 3;
    if (hi) {
      uint16_t *d = (uint16_t *)(dst + (size_t)y * stride);
      for (int x = 0; x < w * 3; x++) d[x] = lut[s[x]];
    } else {
      uint8_t *d = dst + (size_t)y * stride;
      for (int x = 0; x < w * 3; x++) d[x] = (uint8_t)lut[s[x]];
    }
  }
  libraw_dcraw_clear_mem(m);
  libraw_close(raw);
  struct heif_color_profile_nclx *nclx = heif_nclx_color_profile_alloc();
  nclx->color_primaries = heif_color_primaries_ITU_R_BT_709_5;
  nclx->transfer_characteristics = heif_transfer_characteristic_IEC_61966_2_1;
  nclx->matrix_coefficients = heif_matrix_coefficients_ITU_R_BT_601_6;
  nclx->full_range_flag = 1;
  heif_image_set_nclx_color_profile(img, nclx);
  double t3 = now();
  /* 3. x265 through libheif at the given settings: one whole frame (x265 uses every core through WPP), or, with
   * --tiles, tiles coded as the converter codes them. */
  double t4, t5;
  size_t tiled_bytes = 0;
  if (tile) {
    tiling t = {img, w, h, tile, (w + tile - 1) / tile, (h + tile - 1) / tile, hi ? depth : 8, quality, 0,
                preset, chroma, x265, nclx, 0, PTHREAD_MUTEX_INITIALIZER};
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int n = cores < 1 ? 1 : cores > 64 ? 64 : (int)cores;
    pthread_t th[64];
    for (int i = 0; i < n; i++) pthread_create(&th[i], NULL, tile_worker, &t);
    for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
    tiled_bytes = t.bytes;
    t4 = t5 = now();
    heif_nclx_color_profile_free(nclx);
  } else {
    struct heif_context *ctx = heif_context_alloc();
    struct heif_encoder *enc = make_encoder(ctx, quality, preset, chroma, x265, w, h, 0);
    struct heif_encoding_options *opt = heif_encoding_options_alloc();
    opt->macOS_compatibility_workaround_no_nclx_profile = 0;
    check(heif_context_encode_image(ctx, img, enc, opt, NULL), "encode");
    t4 = now();
    check(heif_context_write_to_file(ctx, outp), "write");
    t5 = now();
    heif_encoder_release(enc);
    heif_encoding_options_free(opt);
    heif_nclx_color_profile_free(nclx);
    heif_context_free(ctx);
  }
  double psnr = -1, ssim = -1;
  if (fid || ppm) {
    rgb8 ref = {w, h, malloc((size_t)w * h * 3)};
    int rs = 0;
    const uint8_t *rp = heif_image_get_plane_readonly(img, heif_channel_interleaved, &rs);
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w * 3; x++)
        ref.px[(size_t)y * w * 3 + x] = hi ? (uint8_t)((((const uint16_t *)(rp + (size_t)y * rs))[x] * 255 + maxo / 2) / maxo)
                                           : rp[(size_t)y * rs + x];
    if (ppm) {
      FILE *f = fopen(ppm, "wb");
      if (!f) die(ppm, "cannot write");
      fprintf(f, "P6\n%d %d\n255\n", w, h);
      fwrite(ref.px, 1, (size_t)w * h * 3, f);
      fclose(f);
    }
    if (fid) {
      struct heif_context *c2 = heif_context_alloc();
      check(heif_context_read_from_file(c2, outp, NULL), "re-read");
      struct heif_image_handle *hh = NULL;
      check(heif_context_get_primary_image_handle(c2, &hh), "primary");
      rgb8 dec;
      struct heif_image *di = decode_rgb8(hh, &dec);
      if (dec.w != w || dec.h != h) die(outp, "decoded size differs");
      fidelity(&ref, &dec, &psnr, &ssim);
      heif_image_release(di);
      heif_image_handle_release(hh);
      heif_context_free(c2);
      free(dec.px);
    }
    free(ref.px);
  }
  heif_image_release(img);
  printf("{\"width\":%d,\"height\":%d,\"read_unpack_s\":%.4f,\"demosaic_s\":%.4f,\"decode_demosaic_s\":%.4f,"
         "\"render_s\":%.4f,\"encode_s\":%.4f,\"write_s\":%.4f,\"floor_s\":%.4f,\"quality\":%d,\"preset\":\"%s\","
         "\"chroma\":\"%s\",\"depth\":%d,\"x265\":\"%s\",\"frame\":\"%s\",\"tiles\":%d",
         w, h, t1 - t0, t2 - t1, t2 - t0, t3 - t2, t4 - t3, t5 - t4, (t2 - t0) + (t4 - t3), quality, preset, chroma, depth,
         x265, frame ? "readback" : "floor-render", tile);
  if (tile) printf(",\"output_bytes\":%zu", tiled_bytes);
  if (fid) printf(",\"psnr\":%.3f,\"ssim\":%.5f", psnr, ssim);
  printf("}\n");
  free(lut);
  return 0;
}

static int cmd_decode_loop(int argc, char **argv) {
  int files = 0, ok = 0, failed = 0, gainmaps = 0;
  double t0 = now();
  for (int i = 2; i < argc; i++) {
    files++;
    struct heif_context *ctx = heif_context_alloc();
    struct heif_image_handle *h = NULL;
    if (heif_context_read_from_file(ctx, argv[i], NULL).code != heif_error_Ok ||
        heif_context_get_primary_image_handle(ctx, &h).code != heif_error_Ok) {
      failed++;
      heif_context_free(ctx);
      continue;
    }
    struct heif_image *img = NULL;
    if (heif_decode_image(h, &img, heif_colorspace_RGB, heif_chroma_interleaved_RGB, NULL).code == heif_error_Ok) {
      ok++;
      heif_image_release(img);
    } else {
      failed++;
    }
    int n = heif_image_handle_get_number_of_auxiliary_images(h, LIBHEIF_AUX_IMAGE_FILTER_OMIT_ALPHA | LIBHEIF_AUX_IMAGE_FILTER_OMIT_DEPTH);
    if (n > 0) {
      heif_item_id *ids = calloc((size_t)n, sizeof(heif_item_id));
      heif_image_handle_get_list_of_auxiliary_image_IDs(h, LIBHEIF_AUX_IMAGE_FILTER_OMIT_ALPHA | LIBHEIF_AUX_IMAGE_FILTER_OMIT_DEPTH, ids, n);
      for (int k = 0; k < n; k++) {
        struct heif_image_handle *a = NULL;
        if (heif_image_handle_get_auxiliary_image_handle(h, ids[k], &a).code != heif_error_Ok) continue;
        const char *type = NULL;
        if (heif_image_handle_get_auxiliary_type(a, &type).code == heif_error_Ok && type && strstr(type, "gainmap")) {
          struct heif_image *gi = NULL;
          if (heif_decode_image(a, &gi, heif_colorspace_RGB, heif_chroma_interleaved_RGB, NULL).code == heif_error_Ok) {
            gainmaps++;
            heif_image_release(gi);
          }
        }
        if (type) heif_image_handle_free_auxiliary_types(a, &type);
        heif_image_handle_release(a);
      }
      free(ids);
    }
    heif_image_handle_release(h);
    heif_context_free(ctx);
  }
  printf("{\"files\":%d,\"primary_ok\":%d,\"failed\":%d,\"gainmaps_decoded\":%d,\"seconds\":%.4f}\n", files, ok, failed, gainmaps,
         now() - t0);
  return 0;
}

static int cmd_compare(int argc, char **argv) {
  if (argc != 4) die("usage", "floor compare A.heic B.ppm");
  rgb8 ref;
  if (read_ppm8(argv[3], &ref) != 0) die(argv[3], "not a readable binary PPM");
  struct heif_context *ctx = heif_context_alloc();
  check(heif_context_read_from_file(ctx, argv[2], NULL), argv[2]);
  struct heif_image_handle *h = NULL;
  check(heif_context_get_primary_image_handle(ctx, &h), "primary");
  rgb8 dec;
  struct heif_image *img = decode_rgb8(h, &dec);
  if (dec.w != ref.w || dec.h != ref.h) {
    printf("{\"error\":\"size differs: %dx%d vs %dx%d\"}\n", dec.w, dec.h, ref.w, ref.h);
    return 1;
  }
  double psnr, ssim;
  fidelity(&ref, &dec, &psnr, &ssim);
  printf("{\"width\":%d,\"height\":%d,\"psnr\":%.3f,\"ssim\":%.5f}\n", dec.w, dec.h, psnr, ssim);
  heif_image_release(img);
  heif_image_handle_release(h);
  heif_context_free(ctx);
  return 0;
}

static int cmd_stat(int argc, char **argv) {
  if (argc != 3) die("usage", "floor stat A.heic");
  struct heif_context *ctx = heif_context_alloc();
  check(heif_context_read_from_file(ctx, argv[2], NULL), argv[2]);
  struct heif_image_handle *h = NULL;
  check(heif_context_get_primary_image_handle(ctx, &h), "primary");
  struct heif_image *native = NULL;
  check(heif_decode_image(h, &native, heif_colorspace_undefined, heif_chroma_undefined, NULL), "decode");
  int mono = heif_image_get_colorspace(native) == heif_colorspace_monochrome;
  heif_image_release(native);
  rgb8 dec;
  struct heif_image *img = decode_rgb8(h, &dec);
  double sum = 0, chroma = 0;
  size_t n = (size_t)dec.w * dec.h * 3;
  for (size_t i = 0; i < n; i += 3) {
    const uint8_t *p = dec.px + i;
    int mx = p[0] > p[1] ? (p[0] > p[2] ? p[0] : p[2]) : (p[1] > p[2] ? p[1] : p[2]);
    int mn = p[0] < p[1] ? (p[0] < p[2] ? p[0] : p[2]) : (p[1] < p[2] ? p[1] : p[2]);
    sum += p[0] + p[1] + p[2];
    chroma += mx - mn;
  }
  /* chroma: mean of max(R,G,B) - min(R,G,B); a grey picture (a CFA mosaic read as one band) stays near 0. */
  printf("{\"width\":%d,\"height\":%d,\"monochrome\":%s,\"mean\":%.3f,\"chroma\":%.3f,\"luma_bits\":%d}\n", dec.w,
         dec.h, mono ? "true" : "false", sum / (double)n, chroma / (double)(n / 3), heif_image_handle_get_luma_bits_per_pixel(h));
  heif_image_release(img);
  heif_image_handle_release(h);
  heif_context_free(ctx);
  free(dec.px);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) die("usage", "floor encode|decode-loop|compare|stat ...");
  if (!strcmp(argv[1], "encode")) return cmd_encode(argc, argv);
  if (!strcmp(argv[1], "decode-loop")) return cmd_decode_loop(argc, argv);
  if (!strcmp(argv[1], "compare")) return cmd_compare(argc, argv);
  if (!strcmp(argv[1], "stat")) return cmd_stat(argc, argv);
  die("usage", "floor encode|decode-loop|compare|stat ...");
  return 2;
}
