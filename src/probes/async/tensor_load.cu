// TMA tensor loads (cp.async.bulk.tensor, UTMALDG) of 1 to 5 dimensions in an mbarrier ring: the
// bandwidth and Little's-law latency of each box shape, swizzle mode, out-of-bounds fill and L2
// hint, so a kernel author sees what a tile's shape and layout cost before choosing one.
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "core/launch.cuh"
#include "core/ptx_async.cuh"
#include "core/registry.hpp"
#include "core/tensor_map.hpp"
#include "core/timing.cuh"
#include "async_common.cuh"

namespace gd {
namespace probe_tensor_load {

enum class Hint { None, EvictFirst, EvictLast };

// One variant: a box of 4-byte elements, innermost first, and how the map and copy treat it.
struct TensorRow {
  const char* name;
  int rank;
  std::uint32_t box[5];
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  bool oob = false;  // the tensor ends half a box early in x: one box in four straddles the bound
  Hint hint = Hint::None;
  CUtensorMapL2promotion promotion = CU_TENSOR_MAP_L2_PROMOTION_NONE;
};

// 1 KiB to 32 KiB boxes of every rank; the four swizzle modes on 4 KiB boxes whose rows span
// exactly the swizzle width; OOB fill, L2 eviction hints and L2 promotion on a 4 KiB 2D box.
const TensorRow kRows[] = {
    {"1d_256", 1, {256}},
    {"2d_32x8", 2, {32, 8}},
    {"2d_32x32", 2, {32, 32}},
    {"2d_32x128", 2, {32, 128}},
    {"2d_32x256", 2, {32, 256}},
    {"3d_32x16x8", 3, {32, 16, 8}},
    {"4d_32x8x4x4", 4, {32, 8, 4, 4}},
    {"5d_32x4x4x4x2", 5, {32, 4, 4, 4, 2}},
    {"2d_8x128_swizzle32", 2, {8, 128}, CU_TENSOR_MAP_SWIZZLE_32B},
    {"2d_16x64_swizzle64", 2, {16, 64}, CU_TENSOR_MAP_SWIZZLE_64B},
    {"2d_32x32_swizzle128", 2, {32, 32}, CU_TENSOR_MAP_SWIZZLE_128B},
    {"2d_32x32_oob", 2, {32, 32}, CU_TENSOR_MAP_SWIZZLE_NONE, true},
    {"2d_32x32_evict_first", 2, {32, 32}, CU_TENSOR_MAP_SWIZZLE_NONE, false, Hint::EvictFirst},
    {"2d_32x32_evict_last", 2, {32, 32}, CU_TENSOR_MAP_SWIZZLE_NONE, false, Hint::EvictLast},
    {"2d_32x32_promote256", 2, {32, 32}, CU_TENSOR_MAP_SWIZZLE_NONE, false, Hint::None, CU_TENSOR_MAP_L2_PROMOTION_L2_256B},
};

const TensorRow& row_named(const std::string& name) {
  for (const TensorRow& r : kRows)
    if (name == r.name) return r;
  throw UserError("unknown tensor box shape '" + name + "'");
}

// Unit u is box u of a tensor laid out n0 boxes wide in x and units / n0 boxes deep in the
// outermost dimension (the middle dimensions hold one box each), wrapped at `units`.
template <int Rank>
struct TensorSource {
  CUtensorMap map;
  int box[5];
  long long n0, units;
  unsigned box_bytes;
  Hint hint;
  long long base_word, outer_stride_words;  // host's view: where the window starts, words per outer step

  __host__ __device__ unsigned bytes() const { return box_bytes; }
  __device__ void issue(unsigned dst, long long u, unsigned bar) const {
    u %= units;
    const int x = int(u % n0) * box[0];
    const int outer = Rank > 1 ? int(u / n0) * box[Rank - 1] : 0;  // the outermost coordinate; middle ones are 0
    if constexpr (Rank == 1) {
      ptx::tensor_load<1>(dst, &map, bar, x);
    } else if constexpr (Rank == 2) {
      if (hint != Hint::None) {
        const unsigned long long policy = hint == Hint::EvictFirst ? ptx::l2_policy_evict_first() : ptx::l2_policy_evict_last();
        ptx::tensor_load_2d_hint(dst, &map, x, outer, bar, policy);
      } else {
        ptx::tensor_load<2>(dst, &map, bar, x, outer);
      }
    } else if constexpr (Rank == 3) {
      ptx::tensor_load<3>(dst, &map, bar, x, 0, outer);
    } else if constexpr (Rank == 4) {
      ptx::tensor_load<4>(dst, &map, bar, x, 0, 0, outer);
    } else {
      ptx::tensor_load<5>(dst, &map, bar, x, 0, 0, 0, outer);
    }
  }
  unsigned first_word(long long u, unsigned seed) const {
    u %= units;
    const long long x = (u % n0) * box[0];
    const long long outer = Rank > 1 ? (u / n0) * box[Rank - 1] : 0;
    return async::source_word((unsigned long long)(base_word + x + outer * outer_stride_words), seed);
  }
};

template <int Rank>
void run_rank(ProbeContext& ctx, const TensorRow& row, const std::string& where, const async::SourceBuffer& buf,
              const async::StreamSource& region, const async::RingShape& shape) {
  long long box_elems = 1;
  for (int d = 0; d < Rank; ++d) box_elems *= row.box[d];
  const long long box_bytes = box_elems * 4;
  async::run_ring<TensorSource<Rank>>(ctx, shape, where, buf, region, [&](const char* from) {
    // The window holds `units` boxes: all of it for DRAM (one launch's bytes), the region for L2.
    const long long window = where == "dram" ? (region.buffer_bytes - (from - buf.bytes())) : region.buffer_bytes;
    long long units = window / box_bytes;
    const long long n0 = Rank == 1 ? units : (units % 4 == 0 ? 4 : 1);
    units = units / n0 * n0;
    TiledTensorMapSpec spec;
    spec.rank = Rank;
    spec.base = const_cast<char*>(from);
    spec.swizzle = row.swizzle;
    spec.l2_promotion = row.promotion;
    std::uint64_t stride = 4;
    for (int d = 0; d < Rank; ++d) {
      spec.box[d] = row.box[d];
      spec.dims[d] = row.box[d] * (d == 0 ? n0 : d == Rank - 1 ? units / n0 : 1);
      if (d >= 1) spec.strides[d] = stride;
      stride *= d == 0 ? row.box[0] * n0 : spec.dims[d];
    }
    const long long outer_stride_words = Rank > 1 ? (long long)(spec.strides[Rank - 1] / 4) : 0;
    if (row.oob) spec.dims[0] -= row.box[0] / 2;
    TensorSource<Rank> s{encode_tiled_tensor_map(spec), {}, n0, units, unsigned(box_bytes), row.hint,
                         (from - buf.bytes()) / 4, outer_stride_words};
    for (int d = 0; d < 5; ++d) s.box[d] = d < Rank ? int(row.box[d]) : 1;
    return s;
  });
}

void run_tensor_load(ProbeContext& ctx) {
  async::require_sm90_code(ctx);
  const TensorRow& row = row_named(ctx.str_param("box"));
  const std::string where = ctx.str_param("source");
  const async::StreamSource region = async::stream_source(ctx, where);
  const async::SourceBuffer buf = async::make_source(ctx, region.buffer_bytes);
  const async::RingShape shape{int(ctx.int_param("ctas_per_sm")), int(ctx.int_param("stages"))};
  switch (row.rank) {
    case 1: run_rank<1>(ctx, row, where, buf, region, shape); break;
    case 2: run_rank<2>(ctx, row, where, buf, region, shape); break;
    case 3: run_rank<3>(ctx, row, where, buf, region, shape); break;
    case 4: run_rank<4>(ctx, row, where, buf, region, shape); break;
    case 5: run_rank<5>(ctx, row, where, buf, region, shape); break;
    default: throw UserError("tensor rank must be 1..5");
  }
}

// Per source: the 2D boxes' curve over bytes in flight (every 2D row's points; the envelope keeps
// the best per depth), as one derived record.
void summarize_tensor_load(SummaryContext& sc) {
  for (const std::string where : {"dram", "l2"}) {
    std::vector<const Record*> pts;
    for (const Record* r : sc.ok_records({{"source", where}}))
      if (const ParamValue* box = find_param(r->params, "box");
          box && std::holds_alternative<std::string>(*box) && row_named(std::get<std::string>(*box)).rank == 2)
        pts.push_back(r);
    async::derive_inflight(sc, {{"source", where}, {"rank", std::int64_t(2)}, {"curve", std::string("knee")}}, pts);
  }
}

ProbeSpec tensor_load_spec() {
  ProbeSpec s;
  s.id = "async.tensor.load";
  s.description = "TMA tensor loads (1D-5D boxes, swizzle, OOB fill, L2 hints) in an mbarrier ring: bandwidth and Little's-law latency";
  s.needs.min_cc = 90;
  s.needs.features = {Feature::Tma};
  std::vector<std::string> names;
  for (const TensorRow& r : kRows) names.push_back(r.name);
  // Quick: one box of each rank and one swizzle, every TMA path the full sweep times.
  s.axes = {std::move(Axis::list("box", names))
                .quick_list({std::string("1d_256"), std::string("2d_32x32"), std::string("3d_32x16x8"),
                             std::string("4d_32x8x4x4"), std::string("5d_32x4x4x4x2"), std::string("2d_32x32_swizzle128")}),
            Axis::list("source", std::vector<std::string>{"dram", "l2"}),
            Axis::list("ctas_per_sm", std::vector<std::int64_t>{2}), std::move(Axis::list("stages", {1, 4})).quick({4})};
  for (int rank = 1; rank <= 5; ++rank)
    s.sass.push_back(expect_sass("*tma_ring_kernel<*TensorSource<" + std::to_string(rank) + ">*", SassRegion::Whole,
                                 {{"UTMALDG." + std::to_string(rank) + "D", 1, -1}, {"SYNCS.PHASECHK", 1, -1}},
                                 async::tensor_copy_forbid()));
  s.sass.push_back(async::fill_source_sass());
  s.metrics = async::inflight_metrics();
  // The 2D curve's derived record: its plateau, and Little's-law latency at the knee.
  const Params knee{{"source", std::string("dram")}, {"rank", std::int64_t(2)}, {"curve", std::string("knee")}};
  s.covers = {{"async.tma.bw_vs_inflight", "bandwidth/tbps", knee},
              {"async.tma.latency_vs_inflight", "latency/littles_knee_ns", knee}};
  s.summarize = summarize_tensor_load;
  s.run = run_tensor_load;
  s.time_cap_s = 20;
  s.quick_time_cap_s = 4;
  return s;
}

GD_REGISTER_PROBE(tensor_load_spec());

}  // namespace probe_tensor_load
}  // namespace gd
