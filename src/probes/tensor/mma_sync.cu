// Warp-level tensor-core MMA (mma.sync, mma.sp) for every shape and type of mma_catalog.cuh:
// dependent-accumulator latency, throughput per SM over warps x independent accumulators with its
// knee, TFLOPS and the share of the chip's dense tensor rate: what a non-wgmma kernel can get.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "analysis/chain.hpp"
#include "analysis/mma_reference.hpp"
#include "analysis/rate_relations.hpp"
#include "core/device_buffer.hpp"
#include "core/launch.cuh"
#include "core/ptx_mma.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"
#include "mma_catalog.cuh"
#include "rate_sweep.hpp"

namespace gd {
namespace probe_mma_sync {

using namespace mma_catalog;

constexpr int kPerTrip = 8;  // mmas per loop trip per warp, over all its accumulators
constexpr int kIlps[] = {1, 2, 4};
constexpr int kWarps[] = {4, 8, 16, 32};
constexpr int kQuickIlps[] = {1, 4};
constexpr int kQuickWarps[] = {8, 32};
constexpr double kTargetCycles = 100000;

// Per lane: A, B, C registers from memory (random elements, never constants the compiler could
// fold). Ilp independent accumulators each run a chain D = A B + D, alternating B and -B so
// float chains stay bounded. Thread 0 of block 0 stores its accumulators; the others store only
// on an impossible match, which keeps every chain live.
template <class Row, int Ilp>
__global__ void mma_sync_kernel(const typename Row::W* in, typename Row::W* out, RegionTiming* timing, int trips,
                                uint32_t meta, uint32_t sa, uint32_t sb, typename Row::W neg, uint32_t zero) {
  using W = typename Row::W;
  constexpr int NA = Row::info.na, NB = Row::info.nb, NC = Row::info.nc;
  const W* p = in + (threadIdx.x % 32) * (NA + NB + NC);
  W a[NA], b[NB], bn[NB], acc[Ilp][NC];
  (void)zero;
#pragma unroll
  for (int i = 0; i < NA; ++i) a[i] = p[i];
#pragma unroll
  for (int i = 0; i < NB; ++i) {
    b[i] = p[NA + i];
    bn[i] = b[i] ^ neg;
  }
#pragma unroll
  for (int k = 0; k < Ilp; ++k)
#pragma unroll
    for (int i = 0; i < NC; ++i) acc[k][i] = p[NA + NB + i];
  __syncthreads();
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int t = 0; t < trips; ++t) {
#pragma unroll
    for (int j = 0; j < kPerTrip / Ilp; ++j)
#pragma unroll
      for (int k = 0; k < Ilp; ++k) {
        if constexpr (varies_a<Row>()) {
          W av[NA];
#pragma unroll
          for (int i = 0; i < NA; ++i) av[i] = a[i] ^ W(uint32_t(t * kPerTrip + j * Ilp + k) & zero);
          Row::mma(acc[k], av, (j & 1) ? bn : b, acc[k], meta, sa, sb);
        } else {
          Row::mma(acc[k], a, (j & 1) ? bn : b, acc[k], meta, sa, sb);
        }
      }
  }
  __syncthreads();  // the block's time covers its slowest warp
  const RegionTiming tm = clock.end();
#pragma unroll
  for (int k = 0; k < Ilp; ++k)
#pragma unroll
    for (int i = 0; i < NC; ++i)
      if ((threadIdx.x == 0 && blockIdx.x == 0) || acc[k][i] == W(0x7ff0dead)) out[k * NC + i] = acc[k][i];
  if (threadIdx.x == 0) timing[blockIdx.x] = tm;
}

// One warp, one mma: D = A B + C, every lane's D registers to out[lane][...], for the tile check.
template <class Row>
__global__ void mma_tile_kernel(const typename Row::W* in, typename Row::W* out, uint32_t meta, uint32_t sa, uint32_t sb) {
  using W = typename Row::W;
  constexpr int NA = Row::info.na, NB = Row::info.nb, NC = Row::info.nc;
  const int lane = threadIdx.x % 32;
  const W* p = in + lane * (NA + NB + NC);
  W a[NA], b[NB], c[NC], d[NC];
#pragma unroll
  for (int i = 0; i < NA; ++i) a[i] = p[i];
#pragma unroll
  for (int i = 0; i < NB; ++i) b[i] = p[NA + i];
#pragma unroll
  for (int i = 0; i < NC; ++i) c[i] = p[NA + NB + i];
  Row::mma(d, a, b, c, meta, sa, sb);
#pragma unroll
  for (int i = 0; i < NC; ++i) out[lane * NC + i] = d[i];
}

template <class Row>
using MmaKernel = void (*)(const typename Row::W*, typename Row::W*, RegionTiming*, int, uint32_t, uint32_t, uint32_t,
                           typename Row::W, uint32_t);
template <class Row>
MmaKernel<Row> kernel_for(int ilp) {
  switch (ilp) {
    case kIlps[0]: return mma_sync_kernel<Row, kIlps[0]>;
    case kIlps[1]: return mma_sync_kernel<Row, kIlps[1]>;
    case kIlps[2]: return mma_sync_kernel<Row, kIlps[2]>;
    default: throw Error("mma_sync: ilp must be 1, 2 or 4; got " + std::to_string(ilp));
  }
}

// The dense tensor rate per SM per clock the vendor states, in FLOP (or integer ops) per clock
// per SM, and where it comes from; 0 when the chip or type has no stated rate.
struct SpecRate {
  double flop_per_clk_per_sm = 0;
  std::string source;
};
SpecRate spec_dense_rate(int cc, MmaType a) {
  if (cc != 90) return {0, "no stated per-clock tensor rate for cc " + std::to_string(cc) + " in this table"};
  // NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), dense Tensor Core peaks of H100
  // SXM5 over its 132 SMs and the boost clock they are stated at: FP16/BF16 989.4 TFLOPS at
  // 1830 MHz -> 4096; TF32 half, FP8/INT8 double that; FP64 66.9 TFLOPS at 1980 MHz -> 256.
  // H200 has the same GH100 SM.
  const std::string src = "H100 whitepaper dense tensor peak / (SMs x boost clock), GH100 SM";
  switch (a) {
    case MmaType::f16: case MmaType::bf16: return {4096, src};
    case MmaType::tf32: return {2048, src};
    case MmaType::e4m3: case MmaType::e5m2: case MmaType::s8: case MmaType::u8: return {8192, src};
    case MmaType::f64: return {256, src};
    default: return {0, "GH100 states no tensor rate for " + std::string(mma_type_name(a))};
  }
}

// Random operands of one row, packed per lane, with the CPU reference of D = A B + C.
template <class Row>
struct RowInputs {
  using W = typename Row::W;
  std::vector<W> lanes;  // 32 x (na + nb + nc)
  uint32_t meta = 0, sa = 0, sb = 0;
  W neg = 0;
  ReferenceTile ref;
};

template <class Row>
RowInputs<Row> make_inputs(std::mt19937_64& rng) {
  constexpr RowInfo r = Row::info;
  RowInputs<Row> in;
  const HostMatrix a = random_matrix(operand_desc(r, Operand::A), rng());
  const HostMatrix b = random_matrix(operand_desc(r, Operand::B), rng());
  const HostMatrix c = random_matrix(operand_desc(r, Operand::C), rng());
  MmaProblem p{r.m, r.n, r.k, a.desc, a.bytes.data(), b.desc, b.bytes.data(), c.desc, c.bytes.data(), r.op};
  HostMatrix dense_a;
  if (r.sparse) {
    static constexpr int kPairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    const auto* pair = kPairs[rng() % 6];
    dense_a = expand_sparse(r, a, pair[0], pair[1]);
    p.a = dense_a.desc;
    p.a_data = dense_a.bytes.data();
    in.meta = sparse_metadata(pair[0], pair[1]);
  }
  HostMatrix scale_a, scale_b;
  if constexpr (Row::info.scale_block > 0) {
    // One random scale for all of A and one for all of B: every byte of every lane's scale
    // register holds it, so the result does not depend on which byte and lane a block reads.
    const uint64_t ea = random_element(r.scale_type, rng), eb = random_element(r.scale_type, rng);
    in.sa = uint32_t(ea) * 0x01010101u;
    in.sb = uint32_t(eb) * 0x01010101u;
    scale_a = make_matrix(row_major(r.scale_type, r.m, r.k / r.scale_block));
    scale_b = make_matrix(row_major(r.scale_type, r.k / r.scale_block, r.n));
    for (int i = 0; i < r.m; ++i)
      for (int j = 0; j < r.k / r.scale_block; ++j) scale_a.set(i, j, ea);
    for (int i = 0; i < r.k / r.scale_block; ++i)
      for (int j = 0; j < r.n; ++j) scale_b.set(i, j, eb);
    p.scale_block = r.scale_block;
    p.scale_a = scale_a.desc;
    p.scale_a_data = scale_a.bytes.data();
    p.scale_b = scale_b.desc;
    p.scale_b_data = scale_b.bytes.data();
  }
  in.ref = mma_reference(p);
  const auto fa = pack_fragments(r, Operand::A, a), fb = pack_fragments(r, Operand::B, b),
             fc = pack_fragments(r, Operand::C, c);
  for (int lane = 0; lane < 32; ++lane) {
    for (int w = 0; w < r.na; ++w) in.lanes.push_back(typename Row::W(fa[lane * r.na + w]));
    for (int w = 0; w < r.nb; ++w) in.lanes.push_back(typename Row::W(fb[lane * r.nb + w]));
    for (int w = 0; w < r.nc; ++w) in.lanes.push_back(typename Row::W(fc[lane * r.nc + w]));
  }
  in.neg = typename Row::W(sign_mask(r));
  return in;
}

// Runs one mma on the device and compares D with the reference: a wrong tile fails the point.
template <class Row>
void check_one_tile(ProbeContext& ctx, const RowInputs<Row>& in, const DeviceBuffer<typename Row::W>& dev_in) {
  constexpr RowInfo r = Row::info;
  DeviceBuffer<typename Row::W> out(32 * std::size_t(r.nc));
  launch(ctx, mma_tile_kernel<Row>, {1, 32}, dev_in.get(), out.get(), in.meta, in.sa, in.sb);
  GD_CUDA_CHECK_LAUNCH();
  const auto d = out.to_host();
  const HostMatrix got = unpack_fragments(r, std::vector<uint64_t>(d.begin(), d.end()));
  const Tolerance tol = default_tolerance(r.a, r.c, r.k);
  const TileCheck c = check_tile(in.ref, got.desc, got.bytes.data(), tol);
  if (!c.ok)
    throw Error(std::string("tile check of ") + r.ptx + " against the CPU reference failed: " + c.message);
  ctx.extra()["tile_check"] = {{"elements", r.m * r.n}, {"tolerance_rel", tol.rel}, {"result", "ok"}};
}

template <class Row>
void run_mma_sync(ProbeContext& ctx) {
  using W = typename Row::W;
  constexpr RowInfo r = Row::info;
  std::mt19937_64 rng(std::random_device{}());
  const RowInputs<Row> in = make_inputs<Row>(rng);
  DeviceBuffer<W> dev_in(in.lanes.size());
  dev_in.from_host(in.lanes);
  check_one_tile<Row>(ctx, in, dev_in);

  DeviceBuffer<W> out(4 * std::size_t(r.nc));
  // Latency: one warp, one accumulator chain, slope over chain lengths.
  const std::vector<std::int64_t> lengths{16 * kPerTrip, 32 * kPerTrip, 64 * kPerTrip, 128 * kPerTrip};
  RepeatPolicy lat_policy;
  lat_policy.min_samples = 3;
  lat_policy.time_cap_s = ctx.quick() ? 0.1 : 0.3;
  const ChainLatency lat = measure_launched_chain(
      ctx, lengths,
      [&](std::int64_t steps, RegionTiming* timing) {
        launch(ctx, kernel_for<Row>(1), {1, 32}, dev_in.get(), out.get(), timing, int(steps / kPerTrip), in.meta,
               in.sa, in.sb, in.neg, 0u);
      },
      lat_policy);
  emit_chain_latency(ctx, lat);

  // Throughput: one block per SM of `warps` warps, each with `ilp` accumulators.
  const DeviceInfo& dev = ctx.device();
  DeviceBuffer<RegionTiming> timing(dev.sm_count);
  std::vector<int> ilps(std::begin(kIlps), std::end(kIlps)), warps(std::begin(kWarps), std::end(kWarps));
  if (ctx.quick()) {
    ilps.assign(std::begin(kQuickIlps), std::end(kQuickIlps));
    warps.assign(std::begin(kQuickWarps), std::end(kQuickWarps));
  }
  const tensor::RateSweep sw = tensor::sweep_rate(
      ctx, ilps, warps, kPerTrip, kTargetCycles,
      [&](int ilp, int w) -> std::string {
        cudaFuncAttributes attr{};
        GD_CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel_for<Row>(ilp)));
        if (w * 32 <= attr.maxThreadsPerBlock && w <= dev.max_warps_per_sm) return "";
        return "registers: at most " + std::to_string(attr.maxThreadsPerBlock / 32) + " warps fit one block";
      },
      [&](int ilp, int w, int trips) {
        launch(ctx, kernel_for<Row>(ilp), {unsigned(dev.sm_count), unsigned(w * 32)}, dev_in.get(), out.get(),
               timing.get(), trips, in.meta, in.sa, in.sb, in.neg, 0u);
        GD_CUDA_CHECK_LAUNCH();
        return timing.to_host();
      });
  const Summary& best = sw.best;
  const ThroughputKnee& k = sw.knee;
  const nlohmann::json& grid = sw.grid;
  const double flops = flops_per_mma(r);
  Summary flop = best;
  for (double* v : {&flop.median, &flop.min, &flop.max, &flop.mean, &flop.stddev}) *v *= flops;
  ctx.metric("throughput/mma_per_clk_per_sm", best);
  ctx.metric("throughput/flop_per_clk_per_sm", flop);
  ctx.metric("interval/cycles", 4 / best.median);
  ctx.metric("throughput/tflops", flop.median * dev.sm_count * ctx.observed_sm_clock_mhz() * 1e6 / 1e12);
  ctx.metric("knee/ilp", k.ilp_knee);
  ctx.metric("knee/warps_per_sm", k.warps_knee);
  const SpecRate spec = spec_dense_rate(dev.cc(), r.a);
  if (spec.flop_per_clk_per_sm > 0) ctx.metric("efficiency/percent_of_peak", flop.median / spec.flop_per_clk_per_sm * 100);
  ctx.extra()["peak_source"] = spec.source;
  ctx.extra()["peak_flop_per_clk_per_sm"] = spec.flop_per_clk_per_sm;
  ctx.extra()["sweep"] = grid;
  ctx.extra()["plateau_point"] = {{"ilp", k.plateau_ilp}, {"warps_per_sm", k.plateau_warps}};
  ctx.extra()["ptx"] = r.ptx;
  if (*r.note) ctx.extra()["lowering"] = r.note;
}

// The seed items a row measures (data/coverage/seed-items.csv).
std::vector<SeedCover> seed_covers(std::string_view name) {
  struct Item {
    std::string_view row, item, metric;
  };
  static constexpr Item kItems[] = {
      {"f16_f32.m16n8k16", "tensor.mma_sync.f16.latency", "latency/cycles"},
      {"f16_f32.m16n8k16", "tensor.mma_sync.f16.throughput", "interval/cycles"},
      {"f16_f32.m16n8k16", "tensor.mma_sync.f16.peak", "throughput/tflops"},
      // The seeds' tensor-pipe table (§5.3) times this f16 mma.sync over an ILP x warps sweep.
      {"f16_f32.m16n8k16", "throughput.tc.peak", "interval/cycles"},
      {"f16_f32.m16n8k16", "throughput.tc.ilp_knee", "knee/ilp"},
      {"f16_f32.m16n8k16", "throughput.tc.saturation_warps", "knee/warps_per_sm"},
      {"f16_f32.m16n8k16", "throughput.sm_ipc.mma", "throughput/mma_per_clk_per_sm"},
      {"bf16_f32.m16n8k16", "tensor.mma_sync.bf16.latency", "latency/cycles"},
      {"bf16_f32.m16n8k16", "tensor.mma_sync.bf16.throughput", "interval/cycles"},
      {"bf16_f32.m16n8k16", "tensor.mma_sync.bf16.peak", "throughput/tflops"},
      {"tf32_f32.m16n8k8", "tensor.mma_sync.tf32.latency", "latency/cycles"},
      {"tf32_f32.m16n8k8", "tensor.mma_sync.tf32.throughput", "interval/cycles"},
      {"tf32_f32.m16n8k8", "tensor.mma_sync.tf32.peak", "throughput/tflops"},
      {"e4m3_f32.m16n8k32", "tensor.mma_sync.fp8.latency", "latency/cycles"},
      {"e4m3_f32.m16n8k32", "tensor.mma_sync.fp8.throughput", "interval/cycles"},
      {"e4m3_f32.m16n8k32", "tensor.mma_sync.fp8.peak", "throughput/tflops"},
      {"f8f6f4_e4m3.m16n8k32", "tensor.mma_sync.fp8.latency", "latency/cycles"},
      {"f8f6f4_e3m2.m16n8k32", "tensor.mma_sync.fp6.latency", "latency/cycles"},
      {"f8f6f4_e3m2.m16n8k32", "tensor.mma_sync.fp6.throughput", "interval/cycles"},
      {"f8f6f4_e3m2.m16n8k32", "tensor.mma_sync.fp6.peak", "throughput/tflops"},
      {"f8f6f4_e2m1.m16n8k32", "tensor.mma_sync.fp4.latency", "latency/cycles"},
      {"f8f6f4_e2m1.m16n8k32", "tensor.mma_sync.fp4.throughput", "interval/cycles"},
      {"f8f6f4_e2m1.m16n8k32", "tensor.mma_sync.fp4.peak", "throughput/tflops"},
      {"mxf4_e2m1.m16n8k64", "tensor.mma_sync.mxfp4.latency", "latency/cycles"},
      {"mxf4_e2m1.m16n8k64", "tensor.mma_sync.mxfp4.throughput", "interval/cycles"},
      {"mxf4_e2m1.m16n8k64", "tensor.mma_sync.mxfp4.peak", "throughput/tflops"},
      {"mxf4nvf4_e2m1.m16n8k64", "tensor.mma_sync.nvfp4.latency", "latency/cycles"},
      {"mxf4nvf4_e2m1.m16n8k64", "tensor.mma_sync.nvfp4.throughput", "interval/cycles"},
      {"mxf4nvf4_e2m1.m16n8k64", "tensor.mma_sync.nvfp4.peak", "throughput/tflops"},
      {"mxf8f6f4_e4m3.m16n8k32", "tensor.mma_sync.mxfp6_8.latency", "latency/cycles"},
      {"mxf8f6f4_e4m3.m16n8k32", "tensor.mma_sync.mxfp6_8.throughput", "interval/cycles"},
      {"s8.m16n8k32", "tensor.mma_sync.int8.latency", "latency/cycles"},
      {"s8.m16n8k32", "tensor.mma_sync.int8.throughput", "interval/cycles"},
      {"s8.m16n8k32", "tensor.mma_sync.int8.peak", "throughput/tflops"},
      {"s8.m16n8k64.ordered", "tensor.mma_sync.int8_sp.latency", "latency/cycles"},
      {"s8.m16n8k64.ordered", "tensor.mma_sync.int8_sp.throughput", "interval/cycles"},
      {"s8.m16n8k64.ordered", "tensor.mma_sync.int8_sp.peak", "throughput/tflops"},
      {"f16_f32.m16n8k32.ordered", "tensor.mma_sync.f16_sp.latency", "latency/cycles"},
      {"f16_f32.m16n8k32.ordered", "tensor.mma_sync.f16_sp.throughput", "interval/cycles"},
      {"f16_f32.m16n8k32.ordered", "tensor.mma_sp.latency_ordered_metadata", "latency/cycles"},
      {"f16_f32.m16n8k32.plain", "tensor.mma_sp.latency_plain_metadata", "latency/cycles"},
      {"f64.m8n8k4", "tensor.mma_sync.f64.latency", "latency/cycles"},
      {"f64.m8n8k4", "tensor.mma_sync.f64.throughput", "interval/cycles"},
      // The chip's DMMA peak: an m16 shape (sm_90 runs m8n8k4 at half the m16 shapes' FLOP rate).
      {"f64.m16n8k8", "tensor.mma_sync.f64.peak", "throughput/tflops"},
      {"s4.m16n8k64", "tensor.mma_sync.int4.latency", "latency/cycles"},
      {"b1_xor.m16n8k256", "tensor.mma_sync.b1.latency", "latency/cycles"},
  };
  std::vector<SeedCover> out;
  for (const Item& i : kItems)
    if (i.row == name) out.push_back({std::string(i.item), std::string(i.metric), {}});
  return out;
}

// How many of the row's opcode one mma compiles to, fewest and most over the targets: ptxas
// splits an f64 m16n8kK into 2 x K/4 DMMA where the chip has no m16 DMMA (sm_100a, sm_120a;
// sm_90a has one), and sm_90 runs an FP8 mma as two HMMA.16816 (F2FP unpacks the operands);
// every other row is one instruction, or one CALL, per mma. The bound catches a chain of twice
// the mmas, or a row compiled to more instructions than it names.
constexpr std::pair<int, int> sass_per_mma(const RowInfo& r) {
  if (r.a == MmaType::f64 && r.m == 16) return {1, 2 * r.k / 4};
  if (std::string_view(r.routine_opcode) == "F2FP") return {2, 2};
  return {1, 1};
}

// The SASS a row's kernels must hold: its opcode per mma in each timed loop, and the tile kernel's.
template <class Row>
void add_row_sass(ProbeSpec& s) {
  constexpr RowInfo r = Row::info;
  const std::string tag = std::string("::") + Row::tag;
  for (int ilp : kIlps) {
    const std::string glob = "*mma_sync_kernel<*" + tag + ", " + std::to_string(ilp) + ">*";
    const auto [fewest, most] = sass_per_mma(r);
    s.sass.push_back(expect_sass(glob, SassRegion::Clocked, {{r.opcode, kPerTrip * fewest, kPerTrip * most}}));
    if (*r.routine_opcode) s.sass.push_back(expect_sass(glob, SassRegion::Whole, {{r.routine_opcode, 1}}));
  }
  s.sass.push_back(expect_sass("*mma_tile_kernel<*" + tag + ">*", SassRegion::Whole,
                               {{*r.routine_opcode ? r.routine_opcode : r.opcode, 1}}));
}

std::vector<MetricSpec> mma_metrics() {
  std::vector<MetricSpec> m = chain_latency_metrics("cycles from an mma's accumulator to the next mma that adds to it");
  m.push_back({"throughput/mma_per_clk_per_sm", "mma/clk", "warp-level mmas per clock per SM at the best warps x ILP point"});
  m.push_back({"throughput/flop_per_clk_per_sm", "FLOP/clk", "2 M N K per mma (integer rows: ops; sparse: the dense-equivalent K)"});
  m.push_back({"throughput/tflops", "TFLOP/s", "the chip at the observed SM clock: per-SM rate x SMs x clock"});
  m.push_back({"interval/cycles", "cycles", "cycles between mmas on one SM sub-partition at the plateau"});
  m.push_back({"knee/ilp", "accumulators", "fewest independent accumulators per warp reaching 95 % of the plateau"});
  m.push_back({"knee/warps_per_sm", "warps", "fewest warps per SM reaching 95 % of the plateau"});
  m.push_back({"efficiency/percent_of_peak", "%", "of the stated dense tensor rate per SM per clock (extra.peak_source)"});
  return m;
}

template <class Row>
ProbeSpec mma_sync_spec() {
  constexpr RowInfo r = Row::info;
  ProbeSpec s;
  s.id = std::string(r.sparse ? "tensor.mma_sp." : "tensor.mma_sync.") + r.name;
  s.description = std::string(r.ptx) + ": accumulator-chain latency, throughput per SM over warps x accumulators, TFLOPS";
  s.needs.min_cc = r.min_cc;
  s.needs.max_cc = r.max_cc;
  if (r.block_scaled_feature) s.needs.features = {Feature::BlockScaledMma};
  add_row_sass<Row>(s);
  s.metrics = mma_metrics();
  s.views = {bars_view("throughput/tflops")};
  s.covers = seed_covers(r.name);
  s.run = run_mma_sync<Row>;
  s.time_cap_s = 4;
  s.quick_time_cap_s = 1.5;
  return s;
}

// tensor.mma_sp.speedup: the sparse 2:4 row against the dense row of the same types and the same
// dense-equivalent work per K step (f16 x f16 + f32; sparse K 32 holds the dense K 16's A
// registers). The seeds' "sparse speedup over dense" is the ratio of their dense-equivalent FLOP
// rates per clock; both rows run as points of one probe so that one summary sees both.
using SpeedupDense = F16F32K16;
using SpeedupSparse = SpoF16K32;

void run_sparse_speedup(ProbeContext& ctx) {
  const std::string mma = ctx.str_param("mma");
  if (mma == "dense") run_mma_sync<SpeedupDense>(ctx);
  else if (mma == "sparse") run_mma_sync<SpeedupSparse>(ctx);
  else throw Error("tensor.mma_sp.speedup: mma must be dense or sparse; got " + mma);
}

void summarize_sparse_speedup(SummaryContext& sc) {
  derive_ratio(sc, "mma", "dense", "sparse", "throughput/flop_per_clk_per_sm", "speedup/x", "speedup");
}

ProbeSpec sparse_speedup_spec() {
  ProbeSpec s;
  s.id = "tensor.mma_sp.speedup";
  s.description = "sparse 2:4 mma.sp f16 m16n8k32 over dense mma.sync f16 m16n8k16: dense-equivalent FLOP rate ratio";
  s.needs.min_cc = std::max(SpeedupDense::info.min_cc, SpeedupSparse::info.min_cc);
  s.axes = {Axis::list("mma", std::vector<std::string>{"dense", "sparse"})};
  add_row_sass<SpeedupDense>(s);
  add_row_sass<SpeedupSparse>(s);
  s.metrics = mma_metrics();
  s.metrics.push_back({"speedup/x", "x", "sparse over dense FLOP per clock per SM, each at its best point"});
  s.views = {bars_view("throughput/tflops")};
  s.covers = {{"tensor.mma_sp.speedup", "speedup/x", {{"mma", std::string("speedup")}}}};
  s.run = run_sparse_speedup;
  s.summarize = summarize_sparse_speedup;
  s.time_cap_s = 8;
  s.quick_time_cap_s = 3;
  return s;
}

// tensor.mma_sync.c_to_a: one warp's chain of f16 m16n8k16 mmas whose result feeds the next
// mma's accumulator C (feed = c, the usual chain) or its A operand (feed = a: D's two f16x2
// registers become A's first two; C stays fixed). The difference is what routing an accumulator
// into an operand costs, the C-to-A forwarding of chained attention-style MMAs. The values of
// an A chain run away (f16 products of products); tensor-core timing does not depend on them,
// and the row's tile check proves the instruction computes.
using ForwardRow = F16F16K16;
static_assert(ForwardRow::info.nc <= ForwardRow::info.na, "D must fit in A's registers");

// A lane's operands of one row from `in` (lane-major: A, B, then C registers).
template <class Row>
__device__ __forceinline__ void load_operands(const typename Row::W* in, typename Row::W (&a)[Row::info.na],
                                              typename Row::W (&b)[Row::info.nb], typename Row::W (&c)[Row::info.nc]) {
  constexpr int NA = Row::info.na, NB = Row::info.nb, NC = Row::info.nc;
  const typename Row::W* p = in + (threadIdx.x % 32) * (NA + NB + NC);
#pragma unroll
  for (int i = 0; i < NA; ++i) a[i] = p[i];
#pragma unroll
  for (int i = 0; i < NB; ++i) b[i] = p[NA + i];
#pragma unroll
  for (int i = 0; i < NC; ++i) c[i] = p[NA + NB + i];
}

// Thread 0 stores a one-warp chain's accumulator (keeps the chain live) and its timed region.
template <class W, int NC>
__device__ __forceinline__ void store_chain(W* out, RegionTiming* timing, const W (&acc)[NC], const RegionTiming& tm) {
  if (threadIdx.x == 0) {
#pragma unroll
    for (int i = 0; i < NC; ++i) out[i] = acc[i];
    timing[0] = tm;
  }
}

template <class Row, bool ToA>
__global__ void mma_feed_kernel(const typename Row::W* in, typename Row::W* out, RegionTiming* timing, int trips,
                                uint32_t zero) {
  (void)zero;
  using W = typename Row::W;
  constexpr int NA = Row::info.na, NB = Row::info.nb, NC = Row::info.nc;
  W a[NA], b[NB], c[NC], d[NC];
  load_operands<Row>(in, a, b, c);
#pragma unroll
  for (int i = 0; i < NC; ++i) d[i] = c[i];
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int t = 0; t < trips; ++t) {
#pragma unroll
    for (int j = 0; j < kPerTrip; ++j) {
      if constexpr (ToA) {
#pragma unroll
        for (int i = 0; i < NC; ++i) a[i] = d[i];
        Row::mma(d, a, b, c, 0, 0, 0);
      } else {
        Row::mma(d, a, b, d, 0, 0, 0);
      }
    }
  }
  store_chain(out, timing, d, clock.end());
}

// tensor.mma_sync.ldmatrix_prefetch: one warp's accumulator chain of f16 m16n8k16 mmas, plain
// (loop = mma) or with a one-stage software-pipelined operand feed (loop = mma_ldmatrix): each step
// issues the ldmatrix.x4 of the next step's A, then the mma on the A loaded one step earlier (ptxas
// may hoist a load a further step ahead: the schedule it picks is the one measured).
// Per step, the difference is the ldmatrix latency the mma chain does not hide.
using PrefetchRow = F16F32K16;
static_assert(PrefetchRow::info.na == 4 && sizeof(PrefetchRow::W) == 4, "one ldmatrix.x4 holds A");

// zero (0 at run time) keeps ptxas from merging the loads: each step's address differs as far as
// it can tell, as a real pipeline's next tile would.
template <class Row, bool Prefetch>
__global__ void mma_prefetch_kernel(const typename Row::W* in, typename Row::W* out, RegionTiming* timing, int trips,
                                    uint32_t zero) {
  using W = typename Row::W;
  constexpr int NA = Row::info.na, NB = Row::info.nb, NC = Row::info.nc;
  __shared__ __align__(16) uint32_t smem[32 * NA];
  const int lane = threadIdx.x % 32;
  W a[NA], b[NB], acc[NC];
  load_operands<Row>(in, a, b, acc);
  // ldmatrix.x4 hands lane t word t % 4 of row t / 4 of matrix i in its register i, and lane l
  // addresses row l % 8 of matrix l / 8: stored so, every lane loads back its own A.
#pragma unroll
  for (int i = 0; i < NA; ++i) smem[(8 * i + lane / 4) * 4 + lane % 4] = a[i];
  __syncthreads();
  const uint32_t addr = uint32_t(__cvta_generic_to_shared(smem)) + lane * 16;
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int t = 0; t < trips; ++t) {
#pragma unroll
    for (int j = 0; j < kPerTrip; ++j) {
      if constexpr (Prefetch) {
        uint32_t next[NA];
        ptx::ldmatrix<NA, false>(next, addr + ((uint32_t(t * kPerTrip + j) & zero) << 4));
        Row::mma(acc, a, b, acc, 0, 0, 0);
#pragma unroll
        for (int i = 0; i < NA; ++i) a[i] = next[i];
      } else {
        Row::mma(acc, a, b, acc, 0, 0, 0);
      }
    }
  }
  store_chain(out, timing, acc, clock.end());
}

// A probe of two single-warp chains of one row told apart by a string axis, a base loop and a
// variant loop, each a kernel (in, out, timing, trips, zero) of kPerTrip steps per trip; its summary
// derives {axis: difference}: the variant's cycles per step minus the base's.
template <class Row>
using ChainKernel = void (*)(const typename Row::W*, typename Row::W*, RegionTiming*, int, uint32_t);

struct ChainPair {
  const char* id;
  const char* description;
  const char* axis;
  const char* base;
  const char* variant;
  const char* step;   // what one step of the chain is
  const char* extra;  // what the difference means
  const char* item;   // the seed item it answers
};

template <class Row>
void run_chain_pair(ProbeContext& ctx, const ChainPair& p, ChainKernel<Row> base, ChainKernel<Row> variant) {
  using W = typename Row::W;
  const std::string loop = ctx.str_param(p.axis);
  if (loop != p.base && loop != p.variant)
    throw Error(std::string(p.id) + ": " + p.axis + " must be " + p.base + " or " + p.variant + "; got " + loop);
  std::mt19937_64 rng(std::random_device{}());
  const RowInputs<Row> in = make_inputs<Row>(rng);
  DeviceBuffer<W> dev_in(in.lanes.size());
  dev_in.from_host(in.lanes);
  check_one_tile<Row>(ctx, in, dev_in);
  DeviceBuffer<W> out(Row::info.nc);
  const ChainKernel<Row> kernel = loop == p.variant ? variant : base;
  const std::vector<std::int64_t> lengths{16 * kPerTrip, 32 * kPerTrip, 64 * kPerTrip, 128 * kPerTrip};
  RepeatPolicy policy;
  policy.min_samples = 3;
  policy.time_cap_s = ctx.quick() ? 0.1 : 0.3;
  emit_chain_latency(ctx, measure_launched_chain(
                              ctx, lengths,
                              [&](std::int64_t steps, RegionTiming* timing) {
                                launch(ctx, kernel, {1, 32}, dev_in.get(), out.get(), timing, int(steps / kPerTrip), 0u);
                              },
                              policy));
}

// sass: the expectations of both loops; the row's tile kernel's is added here.
template <class Row>
ProbeSpec chain_pair_spec(const ChainPair& p, ChainKernel<Row> base, ChainKernel<Row> variant,
                          std::vector<SassExpectation> sass) {
  ProbeSpec s;
  s.id = p.id;
  s.description = p.description;
  s.needs.min_cc = Row::info.min_cc;
  s.axes = {Axis::list(p.axis, std::vector<std::string>{p.base, p.variant})};
  s.sass = std::move(sass);
  s.sass.push_back(expect_sass(std::string("*mma_tile_kernel<*::") + Row::tag + ">*", SassRegion::Whole, {{Row::info.opcode, 1}}));
  s.metrics = chain_latency_metrics(p.step);
  s.metrics.push_back({"latency/extra_cycles", "cycles", p.extra});
  s.views = {bars_view("latency/cycles")};
  s.covers = {{p.item, "latency/extra_cycles", {{p.axis, std::string("difference")}}}};
  s.run = [p, base, variant](ProbeContext& ctx) { run_chain_pair<Row>(ctx, p, base, variant); };
  s.summarize = [p](SummaryContext& sc) {
    derive_difference(sc, p.axis, p.base, p.variant, "latency/cycles", "latency/extra_cycles");
  };
  s.time_cap_s = 4;
  s.quick_time_cap_s = 1.5;
  return s;
}

ProbeSpec c_to_a_spec() {
  static constexpr ChainPair kPair{"tensor.mma_sync.c_to_a",
                                   "f16 mma.sync chain through A (D feeds A) against through C: the C-to-A forwarding cost",
                                   "feed", "c", "a", "cycles from an mma's result to the next mma that reads it",
                                   "the A-fed chain's latency minus the C-fed chain's",
                                   "tensor.mma_sync.c_to_a_forwarding"};
  std::vector<SassExpectation> sass;
  for (const char* to_a : {"true", "false"})
    sass.push_back(expect_sass(std::string("*mma_feed_kernel<*::") + ForwardRow::tag + ", " + to_a + ">*",
                               SassRegion::Clocked, {{ForwardRow::info.opcode, kPerTrip, kPerTrip}}));
  return chain_pair_spec<ForwardRow>(kPair, mma_feed_kernel<ForwardRow, false>, mma_feed_kernel<ForwardRow, true>,
                                     std::move(sass));
}

ProbeSpec ldmatrix_prefetch_spec() {
  static constexpr ChainPair kPair{
      "tensor.mma_sync.ldmatrix_prefetch",
      "f16 mma.sync accumulator chain with a one-stage ldmatrix.x4 prefetch of A against without: residual cost per mma",
      "loop", "mma", "mma_ldmatrix",
      "cycles per step of the accumulator chain (one mma, and one ldmatrix.x4 with the prefetch)",
      "per step, the prefetching loop's cycles minus the plain loop's", "tensor.ldmatrix.prefetch_overhead"};
  const std::string glob = std::string("*mma_prefetch_kernel<*::") + PrefetchRow::tag;
  const char* mma = PrefetchRow::info.opcode;
  std::vector<SassExpectation> sass;
  sass.push_back(expect_sass(glob + ", true>*", SassRegion::Clocked, {{mma, kPerTrip, kPerTrip}, {"LDSM.16.M88.4", kPerTrip, kPerTrip}}));
  sass.push_back(expect_sass(glob + ", false>*", SassRegion::Clocked, {{mma, kPerTrip, kPerTrip}}, {"LDL", "STL", "LDSM"}));
  return chain_pair_spec<PrefetchRow>(kPair, mma_prefetch_kernel<PrefetchRow, false>,
                                      mma_prefetch_kernel<PrefetchRow, true>, std::move(sass));
}

[[maybe_unused]] const bool registered = [] {
  for_each_row([](auto* row) { ProbeRegistration{mma_sync_spec<std::remove_pointer_t<decltype(row)>>()}; });
  ProbeRegistration{sparse_speedup_spec()};
  ProbeRegistration{c_to_a_spec()};
  ProbeRegistration{ldmatrix_prefetch_spec()};
  return true;
}();

}  // namespace probe_mma_sync
}  // namespace gd
