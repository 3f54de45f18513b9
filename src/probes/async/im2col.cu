// TMA im2col loads (cp.async.bulk.tensor .im2col): columns of 128 pixels x 32 channels of an NHWC
// tensor with a 3x3 filter's taps, in the same mbarrier ring as the tiled loads: the bandwidth a
// convolution's implicit-GEMM producer gets from DRAM and from L2.
#include <cstdint>
#include <string>
#include <vector>

#include "core/launch.cuh"
#include "core/ptx_async.cuh"
#include "core/registry.hpp"
#include "core/tensor_map.hpp"
#include "core/timing.cuh"
#include "async_common.cuh"

namespace gd {
namespace probe_im2col {

constexpr int kChannels = 32;          // u32 channels: 128 bytes per pixel
constexpr int kImageW = 16, kImageH = 16;
constexpr int kFilter = 3;             // 3x3 taps, no padding: the box is (W-2) x (H-2) per image
constexpr int kBoxW = kImageW - (kFilter - 1), kBoxH = kImageH - (kFilter - 1);
constexpr int kPixelsPerColumn = 128;  // 16 KiB per load

// Unit u is the u-th column of the bounding-box pixels (image after image), at filter tap u % 9.
struct Im2colSource {
  CUtensorMap map;
  long long units;
  long long base_word;  // host's view: the window's first word in the filled buffer

  __host__ __device__ unsigned bytes() const { return unsigned(kPixelsPerColumn * kChannels * 4); }
  __host__ __device__ static void place(long long u, int& w, int& h, int& n, int& tw, int& th) {
    const long long p = u * kPixelsPerColumn;
    n = int(p / (kBoxW * kBoxH));
    const int r = int(p % (kBoxW * kBoxH));
    h = r / kBoxW;
    w = r % kBoxW;
    tw = int(u % (kFilter * kFilter)) % kFilter;
    th = int(u % (kFilter * kFilter)) / kFilter;
  }
  __device__ void issue(unsigned dst, long long u, unsigned bar) const {
    int w, h, n, tw, th;
    place(u % units, w, h, n, tw, th);
    ptx::tensor_load_im2col_4d(dst, &map, bar, 0, w, h, n, (unsigned short)tw, (unsigned short)th);
  }
  // The column's first word: channel 0 of its first pixel moved by the tap.
  unsigned first_word(long long u, unsigned seed) const {
    int w, h, n, tw, th;
    place(u % units, w, h, n, tw, th);
    return async::source_word((unsigned long long)(base_word + (((long long)n * kImageH + h + th) * kImageW + w + tw) * kChannels),
                              seed);
  }
};

void run_im2col(ProbeContext& ctx) {
  async::require_sm90_code(ctx);
  const std::string where = ctx.str_param("source");
  const async::StreamSource region = async::stream_source(ctx, where);
  const async::SourceBuffer buf = async::make_source(ctx, region.buffer_bytes);
  const async::RingShape shape{int(ctx.int_param("ctas_per_sm")), int(ctx.int_param("stages"))};
  constexpr long long kImageBytes = (long long)kImageW * kImageH * kChannels * 4;
  async::run_ring<Im2colSource>(ctx, shape, where, buf, region, [&](const char* from) {
    const long long window = where == "dram" ? (region.buffer_bytes - (from - buf.bytes())) : region.buffer_bytes;
    const long long images = window / kImageBytes;
    if (images < 1) throw Error("the im2col window holds no whole image");
    Im2colTensorMapSpec spec;
    spec.rank = 4;
    spec.base = const_cast<char*>(from);
    spec.dims = {kChannels, kImageW, kImageH, std::uint64_t(images), 1};
    spec.strides = {0, kChannels * 4, std::uint64_t(kChannels) * 4 * kImageW, std::uint64_t(kImageBytes), 0};
    spec.lower = {0, 0, 0};
    spec.upper = {-(kFilter - 1), -(kFilter - 1), 0};
    spec.channels_per_pixel = kChannels;
    spec.pixels_per_column = kPixelsPerColumn;
    return Im2colSource{encode_im2col_tensor_map(spec), images * kBoxW * kBoxH / kPixelsPerColumn, (from - buf.bytes()) / 4};
  });
}

ProbeSpec im2col_spec() {
  ProbeSpec s;
  s.id = "async.tensor.im2col";
  s.description = "TMA im2col loads (NHWC, 128 pixels x 32 u32 channels, 3x3 taps) in an mbarrier ring: bandwidth vs depth";
  s.needs.min_cc = 90;
  s.needs.features = {Feature::Tma};
  s.axes = {Axis::list("source", std::vector<std::string>{"dram", "l2"}),
            Axis::list("ctas_per_sm", std::vector<std::int64_t>{2}), std::move(Axis::list("stages", {1, 4})).quick({4})};
  s.sass = {expect_sass("*tma_ring_kernel<*Im2colSource>*", SassRegion::Whole,
                        {{"UTMALDG.4D.IM2COL", 1, -1}, {"SYNCS.PHASECHK", 1, -1}}, async::tensor_copy_forbid()),
            async::fill_source_sass()};
  s.metrics = async::inflight_metrics();
  s.run = run_im2col;
  s.time_cap_s = 4;
  s.quick_time_cap_s = 1.5;
  return s;
}

GD_REGISTER_PROBE(im2col_spec());

}  // namespace probe_im2col
}  // namespace gd
