// tcgen05.mma (sm_100a) with the accumulator in Tensor Memory: latency and throughput over types,
// N, one CTA or a CTA pair (cta_group::1 / ::2) and A from shared memory or TMEM (SS / TS).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "analysis/chain.hpp"
#include "analysis/mma_reference.hpp"
#include "analysis/tensor_rate.hpp"
#include "analysis/throughput.hpp"
#include "core/device_buffer.hpp"
#include "core/launch_ex.cuh"
#include "core/ptx_async.cuh"
#include "core/ptx_tcgen05.cuh"
#include "core/ptx_wgmma.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"

namespace gd {
namespace probe_tcgen05 {

constexpr int kSteps = 4;        // K steps of 32 bytes per row held in shared memory
constexpr int kRowsPerCta = 128;  // M = 128 per CTA: cta_group::1 is M 128, ::2 is M 256
constexpr int kThreads = 128;     // four warps: one per 32-lane quarter of TMEM

struct Args {
  const uint4* image;       // per CTA of a pair: A rows (128 x 128 bytes) then its B rows
  unsigned image_words;     // 16-byte words per CTA
  unsigned a_bytes;
  std::uint32_t idesc;
  unsigned n, tmem_cols;
  std::uint32_t* d;         // the first cluster's accumulators, row-major (M x N)
  RegionTiming* timing;     // one per block (the issuing CTA's region; the peer's is left 0)
  int iters;
  std::uint32_t sentinel;
};

// Each iteration: U tcgen05.mma (K steps j mod 4) issued by one thread, committed to one of two
// mbarriers; U = 1 waits for each before the next (latency), U = kSteps keeps two in flight.
template <template <int> class Kind, int CtaGroup, bool TS, int U>
__global__ void __launch_bounds__(kThreads, 1) tcgen05_kernel(Args p) {
#if GD_TCGEN05
  using Mma = Kind<CtaGroup>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  __shared__ unsigned tmem_slot;
  __shared__ __align__(8) unsigned long long bars[2];
  const unsigned raw = ptx::smem_u32(smem_raw);
  const unsigned base = (raw + 1023) & ~1023u;
  const unsigned rank = CtaGroup == 2 ? ptx::cluster_ctarank() : 0;
  const uint4* src = p.image + (CtaGroup == 2 ? rank * p.image_words : 0);
  for (unsigned i = threadIdx.x; i < p.image_words; i += blockDim.x)
    reinterpret_cast<uint4*>(smem_raw + (base - raw))[i] = src[i];
  ptx::fence_proxy_async_shared();
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(ptx::smem_u32(&bars[0]), 1);
    ptx::mbarrier_init(ptx::smem_u32(&bars[1]), 1);
    ptx::fence_mbarrier_init();
  }
  if (warp == 0) {
    tcgen05::alloc<CtaGroup>(ptx::smem_u32(&tmem_slot), p.tmem_cols);
    tcgen05::relinquish_alloc_permit<CtaGroup>();
  }
  tcgen05::fence_before_thread_sync();
  __syncthreads();
  tcgen05::fence_after_thread_sync();
  const unsigned tmem = tmem_slot;
  const unsigned a_tmem = tmem + p.n;  // TS: A after the accumulator's N columns
  if constexpr (TS) {
    // Row 32w + lane of A into TMEM lane 32w + lane: 8 columns (32 bytes) per K step.
#pragma unroll
    for (int s = 0; s < kSteps; ++s) {
      std::uint32_t r[8];
#pragma unroll
      for (int c = 0; c < 8; ++c)
        r[c] = *reinterpret_cast<const std::uint32_t*>(smem_raw + (base - raw) +
                                                       wgmma::kmajor_offset(32 * warp + lane, 32 * s + 4 * c, 128,
                                                                            wgmma::Swizzle::B128));
      tcgen05::st_32x32b_x8(a_tmem + ((32 * warp) << 16) + 8 * s, r);
    }
    tcgen05::wait_st();
  }
  tcgen05::fence_before_thread_sync();
  if constexpr (CtaGroup == 2) ptx::cluster_sync();
  else __syncthreads();
  tcgen05::fence_after_thread_sync();
  const bool issuer = threadIdx.x == 0 && rank == 0;
  RegionClock clock;
  if (issuer) {
    std::uint64_t da[kSteps], db[kSteps];
#pragma unroll
    for (int s = 0; s < kSteps; ++s) {
      da[s] = tcgen05::kmajor_sw128_desc(base, 32 * s, kRowsPerCta);
      db[s] = tcgen05::kmajor_sw128_desc(base + p.a_bytes, 32 * s, p.n / CtaGroup);
    }
    clock.begin();
    unsigned phases = 0;  // bit b: the parity of barrier b's next completion
    for (int it = 0; it < p.iters; ++it) {
      const int b = U == 1 ? 0 : it & 1;
      if (U > 1 && it >= 2) {  // the group that used this barrier two iterations ago
        ptx::mbarrier_wait_parity(ptx::smem_u32(&bars[b]), (phases >> b) & 1);
        phases ^= 1u << b;
      }
#pragma unroll
      for (int j = 0; j < U; ++j) {
        const std::uint32_t acc = (it | j) != 0;
        if constexpr (TS) Mma::ts(tmem, a_tmem + 8 * (j % kSteps), db[j % kSteps], p.idesc, acc);
        else Mma::ss(tmem, da[j % kSteps], db[j % kSteps], p.idesc, acc);
      }
      tcgen05::commit<CtaGroup>(ptx::smem_u32(&bars[b]));
      if (U == 1) {
        ptx::mbarrier_wait_parity(ptx::smem_u32(&bars[0]), phases & 1);
        phases ^= 1;
      }
    }
    if (U > 1)
      for (int b = 0; b < 2 && b < p.iters; ++b) ptx::mbarrier_wait_parity(ptx::smem_u32(&bars[b]), (phases >> b) & 1);
    p.timing[blockIdx.x] = clock.end();
  }
  tcgen05::fence_before_thread_sync();
  if constexpr (CtaGroup == 2) ptx::cluster_sync();
  else __syncthreads();
  tcgen05::fence_after_thread_sync();
  // Every thread reads its row (TMEM lane) of the accumulator, 8 columns at a time.
  const unsigned row = rank * kRowsPerCta + 32 * warp + lane;
  std::uint32_t x = 0;
  for (unsigned c = 0; c < p.n; c += 8) {
    std::uint32_t r[8];
    tcgen05::ld_32x32b_x8(tmem + ((32 * warp) << 16) + c, r);
    tcgen05::wait_ld();
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      if (blockIdx.x < CtaGroup) p.d[row * p.n + c + i] = r[i];
      x ^= r[i];
    }
  }
  if (x == p.sentinel) p.d[0] = x;
  tcgen05::fence_before_thread_sync();
  if constexpr (CtaGroup == 2) ptx::cluster_sync();
  else __syncthreads();
  if (warp == 0) tcgen05::dealloc<CtaGroup>(tmem, p.tmem_cols);
#endif
}
using Kernel = void (*)(Args);

// --- the table ------------------------------------------------------------------------------------
struct TypeRow {
  const char* name;
  MmaType type, acc;
  int k;                       // K per instruction
  unsigned format;             // A and B format in the instruction descriptor
  tcgen05::CFormat c;
  const char* opcode;          // SASS, as sm_100a names it
  Kernel (*kernel)(int cta_group, bool ts, bool latency);
};

template <template <int> class Kind>
Kernel kernel_of(int cta_group, bool ts, bool latency) {
#define GD_TC_PICK(CG)                                                                                      \
  if (cta_group == CG)                                                                                      \
    return latency ? (ts ? tcgen05_kernel<Kind, CG, true, 1> : tcgen05_kernel<Kind, CG, false, 1>)          \
                   : (ts ? tcgen05_kernel<Kind, CG, true, kSteps> : tcgen05_kernel<Kind, CG, false, kSteps>);
  GD_TC_PICK(1)
  GD_TC_PICK(2)
#undef GD_TC_PICK
  throw UserError("cta_group must be 1 or 2; got " + std::to_string(cta_group));
}

const TypeRow kTypes[] = {
    {"f16", MmaType::f16, MmaType::f32, 16, 0, tcgen05::CFormat::F32, "UTCHMMA", kernel_of<tcgen05::KindF16>},
    {"bf16", MmaType::bf16, MmaType::f32, 16, 1, tcgen05::CFormat::F32, "UTCHMMA", kernel_of<tcgen05::KindF16>},
    {"tf32", MmaType::tf32, MmaType::f32, 8, 2, tcgen05::CFormat::F32, "UTCHMMA", kernel_of<tcgen05::KindTf32>},
    {"e4m3", MmaType::e4m3, MmaType::f32, 32, 0, tcgen05::CFormat::F32, "UTCQMMA", kernel_of<tcgen05::KindF8f6f4>},
    {"s8", MmaType::s8, MmaType::s32, 32, 1, tcgen05::CFormat::S32, "UTCIMMA", kernel_of<tcgen05::KindI8>},
};
const TypeRow& type_named(const std::string& name) {
  for (const TypeRow& t : kTypes)
    if (name == t.name) return t;
  throw UserError("unknown tcgen05 type '" + name + "' (f16, bf16, tf32, e4m3, s8)");
}

// One point's operands, per CTA of the pair, and the launch of its kernel.
struct Point {
  const TypeRow& t;
  int cta_group, n;
  bool ts;
  HostMatrix a, b;  // A: M x 4k row-major; B: 4k x N column-major
  std::vector<uint4> image;
  unsigned image_words = 0, a_bytes = kRowsPerCta * 128;
  DeviceBuffer<uint4> dimage;
  DeviceBuffer<std::uint32_t> d;
  std::size_t smem = 0;

  Point(ProbeContext& ctx, const TypeRow& t_, int cg, int n_, bool ts_) : t(t_), cta_group(cg), n(n_), ts(ts_) {
    if (cg != 1 && cg != 2) throw UserError("cta_group must be 1 or 2");
    if (n % 16 || n < 32 || n > 256) throw UserError("n must be a multiple of 16 in 32..256");
    const int m = kRowsPerCta * cg, kt = kSteps * t.k;
    std::mt19937_64 rng(std::random_device{}());
    a = random_matrix(row_major(t.type, m, kt), rng());
    b = random_matrix(col_major(t.type, kt, n), rng());
    const int b_rows = n / cg;  // each CTA of a pair holds half of B's N rows
    const unsigned bytes = a_bytes + unsigned(b_rows) * 128;
    image_words = (bytes + 15) / 16;
    std::vector<unsigned char> img(std::size_t(image_words) * 16 * cg, 0);
    for (int r = 0; r < cg; ++r) {
      unsigned char* out = img.data() + std::size_t(r) * image_words * 16;
      for (unsigned i = 0; i < unsigned(kRowsPerCta); ++i)
        for (unsigned kb = 0; kb < 128; ++kb)
          out[wgmma::kmajor_offset(i, kb, kRowsPerCta, wgmma::Swizzle::B128)] = a.bytes[(r * kRowsPerCta + i) * 128 + kb];
      for (unsigned j = 0; j < unsigned(b_rows); ++j)
        for (unsigned kb = 0; kb < 128; ++kb)
          out[a_bytes + wgmma::kmajor_offset(j, kb, b_rows, wgmma::Swizzle::B128)] = b.bytes[(r * b_rows + j) * 128 + kb];
    }
    image.resize(img.size() / 16);
    std::memcpy(image.data(), img.data(), img.size());
    dimage = DeviceBuffer<uint4>(image.size());
    dimage.from_host(image);
    d = DeviceBuffer<std::uint32_t>(std::size_t(m) * n);
    smem = std::max<std::size_t>(std::size_t(image_words) * 16 + 1024, std::size_t(ctx.device().shared_per_sm / 2 + 1024));
    smem = std::min<std::size_t>(smem, std::size_t(ctx.device().shared_per_block_optin - 1024));
  }
  unsigned tmem_cols() const {
    unsigned c = 32;
    while (c < unsigned(n + (ts ? 8 * kSteps : 0))) c *= 2;
    return c;
  }
  Args args(RegionTiming* timing, int iters) const {
    return Args{dimage.get(), image_words, a_bytes,
                tcgen05::instr_desc(t.c, t.format, t.format, kRowsPerCta * cta_group, n), unsigned(n), tmem_cols(),
                d.get(), timing, iters, 0x9E3779B9u};
  }
  void enqueue(ProbeContext& ctx, Kernel k, unsigned blocks, RegionTiming* timing, int iters) {
    allow_cluster_launch(k, smem);
    launch_ex(ctx, k, {dim3(blocks), dim3(kThreads), smem}, LaunchAttrs{unsigned(cta_group)}, args(timing, iters));
  }
  // One iteration of `u` MMAs (K steps 0 .. u-1, the first overwriting D) against the reference.
  void check(ProbeContext& ctx, Kernel k, int u) {
    DeviceBuffer<RegionTiming> timing(cta_group);
    enqueue(ctx, k, unsigned(cta_group), timing.get(), 1);
    GD_CUDA_CHECK_LAUNCH();
    const int m = kRowsPerCta * cta_group, kt = kSteps * t.k, ku = u * t.k;
    MmaProblem pb;
    pb.m = m;
    pb.n = n;
    pb.k = ku;
    pb.a = MatrixDesc{t.type, m, ku, kt, 1, 0, 0};
    pb.a_data = a.bytes.data();
    pb.b = MatrixDesc{t.type, ku, n, 1, kt, 0, 0};
    pb.b_data = b.bytes.data();
    const ReferenceTile ref = mma_reference(pb);
    const auto words = d.to_host();
    std::vector<double> got(words.size());
    for (std::size_t i = 0; i < words.size(); ++i) {
      float f;
      std::memcpy(&f, &words[i], 4);
      got[i] = t.acc == MmaType::s32 ? double(std::int32_t(words[i])) : double(f);
    }
    const TileCheck c = check_tile(ref, got, default_tolerance(t.type, t.acc, ku));
    if (!c.ok) throw Error(std::string("tcgen05.mma ") + t.name + " tile differs from the CPU reference: " + c.message);
  }
};

bool ts_operands(const std::string& s) {
  if (s == "ts") return true;
  if (s == "ss") return false;
  throw UserError("operands must be ss or ts; got '" + s + "'");
}

void run_tcgen05(ProbeContext& ctx) {
  const TypeRow& t = type_named(ctx.str_param("type"));
  const int cg = int(ctx.int_param("cta_group"));
  const int n = int(ctx.int_param("n"));
  const bool ts = ts_operands(ctx.str_param("operands"));
  const DeviceInfo& dev = ctx.device();
  Point pt(ctx, t, cg, n, ts);
  // Latency: one MMA, commit, wait; a chain through the accumulator.
  const Kernel lat_kernel = t.kernel(cg, ts, true);
  pt.check(ctx, lat_kernel, 1);
  const std::int64_t lengths[] = {16, 32, 64};
  const ChainLatency lat = measure_launched_chain(ctx, lengths, [&](std::int64_t steps, RegionTiming* timing) {
    pt.enqueue(ctx, lat_kernel, unsigned(cg), timing, int(steps));
  });
  emit_chain_latency(ctx, lat);
  // Throughput: every SM (pairs for cta_group::2), kSteps MMAs per commit, two commits in flight.
  const Kernel thr_kernel = t.kernel(cg, ts, false);
  pt.check(ctx, thr_kernel, kSteps);
  const unsigned blocks = unsigned(dev.sm_count / cg * cg);
  DeviceBuffer<RegionTiming> timing(blocks);
  const auto run = [&](int iters) {
    timing.fill_zero();
    pt.enqueue(ctx, thr_kernel, blocks, timing.get(), iters);
    GD_CUDA_CHECK_LAUNCH();
    return timing.to_host();
  };
  std::vector<double> cyc;
  for (const auto& r : run(4))
    if (r.cycles > 0) cyc.push_back(double(r.cycles));
  const int iters = std::clamp(int(dev.max_sm_clock_mhz * 1e3 / std::max(1.0, summarize(cyc).median / 4)), 8, 1 << 22);
  // The issuing CTA's region covers its pair's work: per SM, a cluster's work over its CTAs.
  const double work_per_sm = double(iters) * kSteps * 2.0 * kRowsPerCta * n * t.k;
  std::vector<RegionTiming> all;
  const Summary rate = ctx.measure([&] {
                            const auto tm = run(iters);
                            all.insert(all.end(), tm.begin(), tm.end());
                            return per_sm_rate(tm, work_per_sm * cg) / cg;
                          }).summary;
  std::vector<RegionTiming> timed;
  for (const auto& r : all)
    if (r.cycles > 0) timed.push_back(r);
  const double mhz = clock_mhz(timed);
  ctx.set_observed_sm_clock_mhz(mhz);
  ctx.metric("throughput/flops_per_clk_per_sm", rate);
  ctx.metric("throughput/tflops", tensor_tflops(rate.median, dev.sm_count, mhz));
  if (const auto peak = tensor_rate(dev.cc(), t.name))
    ctx.metric("throughput/percent_of_peak", rate.median / peak->flops_per_clk_per_sm * 100);
}

ProbeSpec tcgen05_spec() {
  ProbeSpec s;
  s.id = "tensor.tcgen05.mma";
  s.description = "tcgen05.mma (TMEM accumulator) latency and throughput per type, N, cta_group 1/2 (M 128/256), SS/TS";
  s.needs.min_cc = 100;
  s.needs.max_cc = 103;
  s.needs.features = {Feature::Tcgen05};
  std::vector<std::string> types;
  for (const TypeRow& t : kTypes) types.push_back(t.name);
  s.axes = {Axis::list("type", types), Axis::list("cta_group", {1, 2}), std::move(Axis::list("n", {64, 128, 256})).quick({256}),
            Axis::list("operands", std::vector<std::string>{"ss", "ts"})};
  for (const char* kind : {"KindF16", "KindTf32", "KindF8f6f4", "KindI8"}) {
    const std::string op = std::string(kind) == "KindF8f6f4" ? "UTCQMMA" : std::string(kind) == "KindI8" ? "UTCIMMA" : "UTCHMMA";
    for (const char* cg : {"1", "2"}) {
      const std::string glob = std::string("*tcgen05_kernel<gd::tcgen05::") + kind + ", " + cg + ", *";
      // The MMA and the TMEM traffic anywhere in the kernel (one thread issues inside the clock reads).
      s.sass.push_back(expect_sass(glob, SassRegion::Whole, {{op + (cg[0] == '2' ? ".2CTA" : ""), 1, -1}, {"LDTM", 1, -1}}));
    }
  }
  s.metrics = chain_latency_metrics("one tcgen05.mma, commit to mbarrier, wait");
  for (const MetricSpec& m : std::vector<MetricSpec>{
           {"throughput/flops_per_clk_per_sm", "FLOP/clk/SM", "dense FLOP (integer: OP) per clock per SM"},
           {"throughput/tflops", "TFLOPS", "FLOP/clk/SM x SMs x observed SM clock"},
           {"throughput/percent_of_peak", "%", "of the per-clock tensor rate (analysis/tensor_rate)"}})
    s.metrics.push_back(m);
  s.covers = {{"tensor.tcgen05.bf16.cta1.throughput", "throughput/percent_of_peak", {{"type", "bf16"}, {"cta_group", std::int64_t{1}}, {"n", std::int64_t{256}}, {"operands", "ss"}}},
              {"tensor.tcgen05.bf16.cta2.throughput", "throughput/percent_of_peak", {{"type", "bf16"}, {"cta_group", std::int64_t{2}}, {"n", std::int64_t{256}}, {"operands", "ss"}}},
              {"tensor.tcgen05.s8.cta1.throughput", "throughput/percent_of_peak", {{"type", "s8"}, {"cta_group", std::int64_t{1}}, {"n", std::int64_t{256}}, {"operands", "ss"}}},
              {"tensor.tcgen05.s8.cta2.throughput", "throughput/percent_of_peak", {{"type", "s8"}, {"cta_group", std::int64_t{2}}, {"n", std::int64_t{256}}, {"operands", "ss"}}},
              {"tensor.tcgen05.e4m3.cta1.throughput", "throughput/percent_of_peak", {{"type", "e4m3"}, {"cta_group", std::int64_t{1}}, {"n", std::int64_t{256}}, {"operands", "ss"}}},
              {"tensor.tcgen05.e4m3.cta2.throughput", "throughput/percent_of_peak", {{"type", "e4m3"}, {"cta_group", std::int64_t{2}}, {"n", std::int64_t{256}}, {"operands", "ss"}}},
              {"tensor.tcgen05.ab_layout.ts", "throughput/percent_of_peak", {{"type", "f16"}, {"cta_group", std::int64_t{1}}, {"operands", "ts"}}},
              {"tensor.tcgen05.ab_layout.ss", "throughput/percent_of_peak", {{"type", "f16"}, {"cta_group", std::int64_t{1}}, {"operands", "ss"}}},
              {"tensor.tcgen05.latency_vs_n.cta1_m128", "latency/cycles", {{"type", "f16"}, {"cta_group", std::int64_t{1}}, {"operands", "ss"}}},
              {"tensor.tcgen05.latency_vs_n.cta2_m256", "latency/cycles", {{"type", "f16"}, {"cta_group", std::int64_t{2}}, {"operands", "ss"}}},
              {"tensor.tcgen05.throughput_vs_n.cta1_m128", "throughput/percent_of_peak", {{"type", "f16"}, {"cta_group", std::int64_t{1}}, {"operands", "ss"}}},
              {"tensor.tcgen05.throughput_vs_n.cta2_m256", "throughput/percent_of_peak", {{"type", "f16"}, {"cta_group", std::int64_t{2}}, {"operands", "ss"}}}};
  s.views = {line_view("n", "throughput/tflops")};
  s.run = run_tcgen05;
  s.time_cap_s = 40;
  s.quick_time_cap_s = 10;
  return s;
}

GD_REGISTER_PROBE(tcgen05_spec());

}  // namespace probe_tcgen05
}  // namespace gd
