// Shared by the wgmma probes (src/probes/tensor/wgmma*.cu): the operation table, the timed kernel
// (warpgroups issuing wgmma groups on operands held in shared memory, or A in registers), the
// host images of A and B in a swizzled K-major layout, the check of one output tile against the
// CPU reference (analysis/mma_reference), and the rate measurement.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "analysis/chain.hpp"
#include "analysis/mma_reference.hpp"
#include "analysis/tensor_rate.hpp"
#include "analysis/throughput.hpp"
#include "core/device_buffer.hpp"
#include "core/launch.cuh"
#include "core/probe.hpp"
#include "wgmma_kernel.cuh"

namespace gd::wgmma_probe {
namespace {

// --- the operation table ------------------------------------------------------------------------
struct OpRow {
  const char* name;       // axis value
  MmaType ab, acc;
  int k;                  // logical K of one instruction
  bool sparse;
  int regs_per_8_cols;    // accumulator registers per thread per 8 columns (4; 2 for packed f16)
  const char* opcode;     // the SASS the timed loop must hold (opcode and modifiers)
  const char* op_type;    // ptx_wgmma.cuh's struct, as the demangled kernel name spells it
  Kernel latency(int n, bool rs) const { return latency_kernel(op_type, n, rs); }
  Kernel throughput(int n, bool rs) const { return throughput_kernel(op_type, n, rs); }
};
template <class Op>
constexpr OpRow op_row(const char* name, MmaType ab, MmaType acc, const char* opcode, const char* op_type) {
  return OpRow{name, ab, acc, Op::k, Op::sparse, Op::regs_per_8_cols, opcode, op_type};
}
inline const std::vector<OpRow>& op_rows() {
  static const std::vector<OpRow> rows = {
      op_row<wgmma::F16F32>("f16_f32", MmaType::f16, MmaType::f32, "HGMMA.F32", "F16F32"),
      op_row<wgmma::F16F16>("f16_f16", MmaType::f16, MmaType::f16, "HGMMA.F16", "F16F16"),
      op_row<wgmma::Bf16F32>("bf16_f32", MmaType::bf16, MmaType::f32, "HGMMA.F32.BF16", "Bf16F32"),
      op_row<wgmma::Tf32F32>("tf32_f32", MmaType::tf32, MmaType::f32, "HGMMA.F32.TF32", "Tf32F32"),
      op_row<wgmma::E4m3F32>("e4m3_f32", MmaType::e4m3, MmaType::f32, "QGMMA.F32.E4M3.E4M3", "E4m3F32"),
      op_row<wgmma::E5m2F32>("e5m2_f32", MmaType::e5m2, MmaType::f32, "QGMMA.F32.E5M2.E5M2", "E5m2F32"),
      op_row<wgmma::E4m3F16>("e4m3_f16", MmaType::e4m3, MmaType::f16, "QGMMA.F16.E4M3.E4M3", "E4m3F16"),
      op_row<wgmma::E5m2F16>("e5m2_f16", MmaType::e5m2, MmaType::f16, "QGMMA.F16.E5M2.E5M2", "E5m2F16"),
      op_row<wgmma::S8S32>("s8_s32", MmaType::s8, MmaType::s32, "IGMMA.S8.S8", "S8S32"),
      op_row<wgmma::U8S32>("u8_s32", MmaType::u8, MmaType::s32, "IGMMA.U8.U8", "U8S32"),
      op_row<wgmma::B1S32>("b1_and_s32", MmaType::b1, MmaType::s32, "BGMMA.AND.POPC", "B1S32"),
      op_row<wgmma::F16F32Sparse>("f16_f32_sparse", MmaType::f16, MmaType::f32, "HGMMA.SP.F32", "F16F32Sparse"),
      op_row<wgmma::E4m3F32Sparse>("e4m3_f32_sparse", MmaType::e4m3, MmaType::f32, "QGMMA.SP.F32.E4M3.E4M3",
                                   "E4m3F32Sparse"),
  };
  return rows;
}
inline std::vector<std::string> op_names() {
  std::vector<std::string> v;
  for (const OpRow& r : op_rows()) v.push_back(r.name);
  return v;
}
inline const OpRow& op_named(const std::string& name) {
  for (const OpRow& r : op_rows())
    if (name == r.name) return r;
  std::string all;
  for (const OpRow& r : op_rows()) all += std::string(all.empty() ? "" : ", ") + r.name;
  throw UserError("unknown wgmma operation '" + name + "' (one of " + all + ")");
}
inline std::vector<std::int64_t> all_ns() { return {std::begin(wgmma::kNs), std::end(wgmma::kNs)}; }

// What the timed loop of every kernel of a row with `u` wgmma per group must hold. ptxas unrolls
// the loop (16 groups and a remainder), so counts are per group (WARPGROUP.ARRIVE, the fence
// opening one): exactly u of the row's MMA opcode, and a wait (WARPGROUP.DEPBAR, wait_group)
// for each group, plus the one after the loop. Without its wait a latency chain measures the
// issue rate instead, and would still hold its MMA opcodes.
inline std::vector<OpcodeExpectation> group_sass(const OpRow& r, int u) {
  const std::string group = "WARPGROUP.ARRIVE";
  return {{r.opcode, u, -1}, {group, 1, -1}, {r.opcode, u, u, group}, {"WARPGROUP.DEPBAR", 1, 2, group}};
}
// The row's kernels with u wgmma per group and g groups in flight ("*": any).
inline SassExpectation op_sass(const OpRow& r, const std::string& u, const std::string& g, const std::string& rs = "*") {
  const std::string n_rs = rs == "*" ? "*" : "*, " + rs;
  return expect_sass(std::string("*wgmma_kernel<gd::wgmma::") + r.op_type + ", " + n_rs + ", " + u + ", " + g + ">*",
                     SassRegion::Clocked, group_sass(r, std::stoi(u)));
}
inline SassExpectation op_sass(const OpRow& r, int u, int g) { return op_sass(r, std::to_string(u), std::to_string(g)); }

// The operation's name in the tensor-rate table ("f16", "e4m3", ...).
inline std::string rate_type(const OpRow& r) { return std::string(mma_type_name(r.ab)); }

// --- operands -------------------------------------------------------------------------------------
// Random: every element random; Mirrored: random, K steps 2-3 cancelling 0-1 (bounded
// accumulators over a long loop); Repeat: one random K step in all four (successive wgmma read
// the same operand values, as a loop re-issuing one tile does); Zero: all zero.
enum class Fill { Random, Mirrored, Repeat, Zero };

// A and B of one point: logical matrices for the reference and their shared-memory image.
// A is 64 x (kSteps x k), row-major (sparse: the dense-equivalent matrix, zero where pruned);
// B is (kSteps x k) x N, column-major, so each of its N rows in the image is K-contiguous.
struct Operands {
  HostMatrix a, b, c;          // c: 64 x N of the accumulator type
  std::vector<uint4> image;
  unsigned a_bytes = 0;
  std::vector<std::uint32_t> c_regs;  // c in the accumulator registers of a warpgroup's threads
};

// The sparse metadata: every group of four K elements keeps elements 1 and 3 (two 2-bit
// indices, 0b11'01 per group). Every thread holds the same word, so it is right whichever threads
// the selector reads; keeping 1 and 3, not 0 and 1, makes a wrong reading show in the check.
constexpr std::uint32_t kSparseMeta = 0xDDDDDDDDu;
constexpr int kKept[2] = {1, 3};

// Where accumulator register i of warpgroup thread t lands in the 64 x N tile: (row, col); a
// packed f16 register holds (row, col) and (row, col + 1).
inline std::pair<int, int> fragment_coord(int t, int i, int regs_per_8_cols) {
  const int warp = t / 32, lane = t % 32;
  if (regs_per_8_cols == 4) {
    const int j = i / 4, q = i % 4;
    return {16 * warp + lane / 4 + 8 * (q / 2), 8 * j + 2 * (lane % 4) + q % 2};
  }
  const int j = i / 2, h = i % 2;
  return {16 * warp + lane / 4 + 8 * h, 8 * j + 2 * (lane % 4)};
}

inline std::uint64_t sign_bit(MmaType t) { return std::uint64_t(1) << (mma_type_storage_bits(t) - 1); }

inline Operands make_operands(const OpRow& r, int n, Swizzle swz, Fill fill, std::uint64_t seed) {
  const int kt = kSteps * r.k;                 // logical K held
  const int a_cols = r.sparse ? kt / 2 : kt;   // stored A columns
  Operands o;
  std::mt19937_64 rng(seed);
  HostMatrix a_stored = make_matrix(row_major(r.ab, 64, a_cols));
  o.b = make_matrix(col_major(r.ab, kt, n));
  if (fill != Fill::Zero) {
    for (int i = 0; i < 64; ++i)
      for (int j = 0; j < a_cols; ++j) a_stored.set(i, j, random_element(r.ab, rng));
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < kt; ++k) o.b.set(k, j, random_element(r.ab, rng));
  }
  // Mirrored (floating types): steps 2 and 3 repeat A's steps 0 and 1 against B negated, so a
  // long timed loop adds zero per group and the accumulators stay bounded (f16 would overflow).
  if (fill == Fill::Mirrored && mma_type_is_float(r.ab)) {
    const int half_a = a_cols / 2, half_k = kt / 2;
    for (int i = 0; i < 64; ++i)
      for (int j = 0; j < half_a; ++j) a_stored.set(i, half_a + j, a_stored.bits(i, j));
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < half_k; ++k) o.b.set(half_k + k, j, o.b.bits(k, j) ^ sign_bit(r.ab));
  }
  if (fill == Fill::Repeat) {
    const int step_a = a_cols / kSteps;
    for (int i = 0; i < 64; ++i)
      for (int j = step_a; j < a_cols; ++j) a_stored.set(i, j, a_stored.bits(i, j % step_a));
    for (int j = 0; j < n; ++j)
      for (int k = r.k; k < kt; ++k) o.b.set(k, j, o.b.bits(k % r.k, j));
  }
  if (r.sparse) {
    o.a = make_matrix(row_major(r.ab, 64, kt));
    for (int i = 0; i < 64; ++i)
      for (int j = 0; j < a_cols; ++j) o.a.set(i, 4 * (j / 2) + kKept[j % 2], a_stored.bits(i, j));
  } else {
    o.a = a_stored;
  }
  // The image: A is 64 rows of kSteps x 32 bytes; B is N rows of kSteps x 32 (64 sparse) bytes.
  const unsigned a_row_bytes = kSteps * 32, b_row_bytes = unsigned(o.b.bytes.size() / n);
  o.a_bytes = (64 * a_row_bytes + 1023) / 1024 * 1024;
  std::vector<unsigned char> img(o.a_bytes + std::size_t(n) * b_row_bytes, 0);
  for (unsigned i = 0; i < 64; ++i)
    for (unsigned kb = 0; kb < a_row_bytes; ++kb)
      img[wgmma::kmajor_offset(i, kb, 64, swz)] = a_stored.bytes[i * a_row_bytes + kb];
  for (unsigned j = 0; j < unsigned(n); ++j)
    for (unsigned kb = 0; kb < b_row_bytes; ++kb)
      img[o.a_bytes + wgmma::kmajor_offset(j, kb, n, swz)] = o.b.bytes[j * b_row_bytes + kb];
  o.image.resize((img.size() + 15) / 16);
  std::memcpy(o.image.data(), img.data(), img.size());
  // C: random for a float accumulator, small integers for s32 (no wrap in the reference).
  o.c = make_matrix(row_major(r.acc, 64, n));
  if (fill != Fill::Zero)
    for (int i = 0; i < 64; ++i)
      for (int j = 0; j < n; ++j)
        o.c.set(i, j, r.acc == MmaType::s32 ? std::uint64_t(std::uint32_t(int(rng() % 2001) - 1000))
                                            : random_element(r.acc, rng));
  const int regs = n / 8 * r.regs_per_8_cols;
  o.c_regs.resize(std::size_t(kWarpgroupThreads) * regs);
  for (int t = 0; t < kWarpgroupThreads; ++t)
    for (int i = 0; i < regs; ++i) {
      const auto [row, col] = fragment_coord(t, i, r.regs_per_8_cols);
      o.c_regs[t * regs + i] = r.regs_per_8_cols == 4
                                   ? std::uint32_t(o.c.bits(row, col))
                                   : std::uint32_t(o.c.bits(row, col) | o.c.bits(row, col + 1) << 16);
    }
  return o;
}

// C + A B over K steps 0 .. u-1: what one loop iteration of `u` wgmma leaves in the tile.
inline ReferenceTile reference_tile(const OpRow& r, int n, const Operands& o, int u) {
  const int kt = kSteps * r.k, ku = u * r.k;
  MmaProblem pb;
  pb.m = 64;
  pb.n = n;
  pb.k = ku;
  pb.a = MatrixDesc{r.ab, 64, ku, kt, 1, 0, 0};
  pb.a_data = o.a.bytes.data();
  pb.b = MatrixDesc{r.ab, ku, n, 1, kt, 0, 0};
  pb.b_data = o.b.bytes.data();
  pb.c = o.c.desc;
  pb.c_data = o.c.bytes.data();
  if (r.ab == MmaType::b1) pb.binary_op = BinaryOp::and_popc;
  return mma_reference(pb);
}

// Why the accumulator registers after one loop iteration of `u` wgmma are not reference_tile(),
// or "" when they are.
inline std::string tile_mismatch(const OpRow& r, int n, const Operands& o, const std::vector<std::uint32_t>& regs_out,
                                 int u) {
  const ReferenceTile ref = reference_tile(r, n, o, u);
  std::vector<double> got(std::size_t(64) * n);
  const int regs = n / 8 * r.regs_per_8_cols;
  for (int t = 0; t < kWarpgroupThreads; ++t)
    for (int i = 0; i < regs; ++i) {
      const std::uint32_t w = regs_out[t * regs + i];
      const auto [row, col] = fragment_coord(t, i, r.regs_per_8_cols);
      if (r.regs_per_8_cols == 2) {
        got[row * n + col] = decode_element(MmaType::f16, w & 0xFFFF);
        got[row * n + col + 1] = decode_element(MmaType::f16, w >> 16);
      } else if (r.acc == MmaType::s32) {
        got[row * n + col] = double(std::int32_t(w));
      } else {
        float f;
        std::memcpy(&f, &w, 4);
        got[row * n + col] = f;
      }
    }
  const TileCheck c = check_tile(ref, got, default_tolerance(r.ab, r.acc, u * r.k));
  if (c.ok) return {};
  return std::string("wgmma ") + r.name + " m64n" + std::to_string(n) + " tile differs from the CPU reference: " +
         c.message;
}

// --- launching ----------------------------------------------------------------------------------
// The device buffers of one point and the launch of its kernel.
struct Launcher {
  const OpRow& row;
  int n;
  Kernel kernel;
  Swizzle swz;
  DeviceBuffer<uint4> image;
  DeviceBuffer<std::uint32_t> c, d;
  DeviceBuffer<RegionTiming> timing;
  unsigned a_bytes = 0;
  std::size_t smem = 0;
  unsigned blocks = 1, threads = kWarpgroupThreads;

  Launcher(ProbeContext& ctx, const OpRow& r, int n_, Kernel k, Swizzle s, unsigned blocks_, int warpgroups,
           bool one_block_per_sm)
      : row(r), n(n_), kernel(k), swz(s), c(std::size_t(kWarpgroupThreads) * (n_ / 8) * r.regs_per_8_cols),
        d(std::size_t(kWarpgroupThreads) * (n_ / 8) * r.regs_per_8_cols), timing(blocks_), blocks(blocks_),
        threads(unsigned(warpgroups) * kWarpgroupThreads) {
    if (!kernel) throw UserError("n must be one of 8, 16, 32, 64, 128, 192, 256; got " + std::to_string(n));
    if (warpgroups < 1 || warpgroups > kMaxWarpgroups)
      throw UserError("warpgroups must be 1 or " + std::to_string(kMaxWarpgroups));
    const unsigned b_step = r.sparse ? 64 : 32;
    for (int s = 0; s < kSteps; ++s)
      if (!wgmma::kmajor_slice_fits(32 * s, 32, swz) || !wgmma::kmajor_slice_fits(b_step * s, b_step, swz))
        throw UserError(std::string("a wgmma K step of ") + r.name + " crosses a swizzle atom of " +
                        std::to_string(wgmma::swizzle_bytes(swz)) + " bytes; use a wider swizzle");
    const DeviceInfo& dev = ctx.device();
    const std::size_t image_bytes = std::size_t(r.sparse ? 8192 + n * 256 : 8192 + n * 128);
    smem = image_bytes + 1024;
    // One block per SM: ask for more than half the SM's shared memory.
    if (one_block_per_sm) smem = std::max<std::size_t>(smem, std::size_t(dev.shared_per_sm / 2 + 1024));
    smem = std::min<std::size_t>(smem, std::size_t(dev.shared_per_block_optin));
    if (smem < image_bytes + 1024) ctx.skip("the operands need more shared memory than a block may have");
    GD_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  }
  void load(const Operands& o) {
    image = DeviceBuffer<uint4>(o.image.size());
    image.from_host(o.image);
    c.from_host(o.c_regs);
    a_bytes = o.a_bytes;
  }
  // Launches `iters` iterations; the block timings go to `into` (default: this launcher's).
  void enqueue(ProbeContext& ctx, int iters, RegionTiming* into = nullptr) {
    KernelArgs args{image.get(), unsigned(image.size()), a_bytes, c.get(), d.get(), into ? into : timing.get(), iters,
                    unsigned(swz), kSparseMeta, 0x9E3779B9u};
    launch(ctx, kernel, {dim3(blocks), dim3(threads), smem}, args);
  }
  std::vector<RegionTiming> run(ProbeContext& ctx, int iters) {
    enqueue(ctx, iters);
    GD_CUDA_CHECK_LAUNCH();
    return timing.to_host();
  }
  // Runs one iteration on `o` and checks the tile; throws gd::Error on a mismatch.
  void check(ProbeContext& ctx, const Operands& o, int u) {
    load(o);
    run(ctx, 1);
    if (const std::string why = tile_mismatch(row, n, o, d.to_host(), u); !why.empty()) throw Error(why);
  }
};

// The Hopper wgmma code is in the binary only when it was built for sm_90a (Feature::Wgmma
// covers the chip and the loaded cubin); the gate is the probe's requirement.
inline Requirements wgmma_requirements() {
  Requirements q;
  q.min_cc = 90;
  q.max_cc = 90;
  q.features = {Feature::Wgmma};
  return q;
}

// A measured throughput point: FLOP (dense-equivalent; OP for integers) per clock per SM.
struct Rate {
  Summary per_clk;
  double clock_mhz = 0;
  int iters = 0;
};

// Times `l`'s kernel on every SM for about `target_cycles` per launch (iterations calibrated from
// a short first launch), each block doing warpgroups x iters x U wgmma of 2 x 64 x N x k.
inline Rate measure_rate(ProbeContext& ctx, Launcher& l, int u, int warpgroups, double target_cycles,
                         RepeatPolicy policy = {}) {
  const auto probe = l.run(ctx, 4);
  std::vector<double> cyc;
  for (const auto& t : probe) cyc.push_back(double(t.cycles));
  const double per_iter = std::max(1.0, summarize(cyc).median / 4);
  Rate r;
  r.iters = std::clamp(int(target_cycles / per_iter), 8, 1 << 22);
  const double work = double(warpgroups) * r.iters * u * 2.0 * 64 * l.n * l.row.k;
  std::vector<RegionTiming> all;
  r.per_clk = ctx.measure(
                     [&] {
                       const auto t = l.run(ctx, r.iters);
                       all.insert(all.end(), t.begin(), t.end());
                       return per_sm_rate(t, work);
                     },
                     policy)
                  .summary;
  r.clock_mhz = clock_mhz(all);
  return r;
}

inline std::vector<MetricSpec> rate_metrics() {
  return {{"throughput/flops_per_clk_per_sm", "FLOP/clk/SM", "dense-equivalent FLOP (integer: OP) per clock per SM"},
          {"throughput/tflops", "TFLOPS", "FLOP/clk/SM x SMs x observed SM clock"},
          {"throughput/percent_of_peak", "%", "of the chip's per-clock tensor rate for the type (analysis/tensor_rate)"},
          {"throughput/peak_tflops_at_clock", "TFLOPS", "the per-clock tensor rate at the observed clock"}};
}

// Emits the rate, TFLOPS at the observed clock and, where the type's per-clock rate is known,
// the efficiency; records where that rate comes from.
inline void emit_rate(ProbeContext& ctx, const OpRow& row, const Rate& r) {
  const DeviceInfo& dev = ctx.device();
  ctx.set_observed_sm_clock_mhz(r.clock_mhz);
  ctx.metric("throughput/flops_per_clk_per_sm", r.per_clk);
  ctx.metric("throughput/tflops", tensor_tflops(r.per_clk.median, dev.sm_count, r.clock_mhz));
  if (const auto peak = tensor_rate(dev.cc(), rate_type(row), row.sparse)) {
    const TensorEfficiency e = tensor_efficiency(r.per_clk.median, peak->flops_per_clk_per_sm, dev.sm_count, r.clock_mhz);
    ctx.metric("throughput/percent_of_peak", e.percent_of_peak);
    ctx.metric("throughput/peak_tflops_at_clock", e.peak_tflops_at_clock);
    ctx.extra()["peak_source"] = peak->source;
  } else {
    ctx.extra()["peak_source"] = "no published per-clock rate for " + rate_type(row) + " on " + dev.sm_name();
  }
  ctx.extra()["iters"] = r.iters;
}

}  // namespace
}  // namespace gd::wgmma_probe
