// A fused attention forward kernel of our own (sm_90a: TMA, wgmma, online softmax on MUFU.EX2) under a
// simple and FA3-style schedules, its leave-one-out breakdown and the softmax's parts timed alone:
// where such a kernel's time goes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <cuda_fp16.h>

#include "analysis/attention_reference.hpp"
#include "analysis/chain.hpp"
#include "analysis/tensor_rate.hpp"
#include "core/device_buffer.hpp"
#include "core/launch.cuh"
#include "core/ptx.cuh"
#include "core/ptx_async.cuh"
#include "core/ptx_attention.cuh"
#include "core/ptx_setmaxnreg.cuh"
#include "core/registry.hpp"
#include "core/tensor_map.hpp"
#include "core/timing.cuh"

// The kernel lives in a named namespace: for targets without wgmma its body is empty, and its
// helpers would otherwise be reported unused there.
namespace gd::attention_fwd {

// --- the kernel ---------------------------------------------------------------------------------
// What a variant leaves out of the full kernel (the leave-one-out breakdown).
enum class Stage : int {
  Full,       // the attention forward pass
  NoSoftmax,  // P = S cast to f16: no row max, exp2, row sum, rescale or normalisation
  PolyExp2,   // exp2 by a degree-5 polynomial on the FMA pipe instead of MUFU.EX2
  NoPV,       // the second MMA (P V) left out; P stays live
  NoQK,       // the first MMA (Q K^T) left out; S comes from registers set once
  NoLoad,     // only the first K/V tile is loaded; every iteration re-uses it
};

constexpr int kBlockM = 128;  // query rows per CTA: two warpgroups of 64 (one m64 wgmma row block each)
constexpr int kBlockN = 128;  // keys per K/V tile
constexpr int kThreads = 256;
constexpr int kBoxCols = 64;  // f16 per 128-byte swizzle row: a TMA box (and a wgmma atom column) is 64 wide

// Shared memory of one CTA, from a 1024-byte aligned base: Q, then the K ring, the V ring and the
// mbarriers (Q, then K full, V full, K empty and V empty per stage). A head dimension of 128 is
// two 64-column boxes, each a column of 128-byte swizzle atoms, one after the other. "Full": the
// stage's TMA load landed (one arrival with the byte count); "empty": both consumer warpgroups
// are done with it (the warp-specialized schedules; the simple one meets at __syncthreads).
template <int HD>
struct Smem {
  static constexpr int kStages = HD == 64 ? 4 : 3;  // 144 KiB and 225 KiB: one CTA per SM
  static constexpr int kBoxes = HD / kBoxCols;
  static constexpr unsigned kQBytes = kBlockM * HD * 2;
  static constexpr unsigned kTileBytes = kBlockN * HD * 2;  // one K or V tile
  static constexpr unsigned kK = kQBytes;
  static constexpr unsigned kV = kK + kStages * kTileBytes;
  static constexpr unsigned kBars = kV + kStages * kTileBytes;
  static constexpr unsigned kBytes = kBars + 8 * (1 + 4 * kStages) + 1024;  // + alignment slack

  unsigned q;  // the aligned base: Q's tile
  __device__ explicit Smem(unsigned raw) : q((raw + 1023) & ~1023u) {}
  __device__ unsigned k_tile(int s) const { return q + kK + unsigned(s) * kTileBytes; }
  __device__ unsigned v_tile(int s) const { return q + kV + unsigned(s) * kTileBytes; }
  __device__ unsigned bar(int i) const { return q + kBars + 8u * unsigned(i); }
  __device__ unsigned q_bar() const { return bar(0); }
  __device__ unsigned k_full(int s) const { return bar(1 + s); }
  __device__ unsigned v_full(int s) const { return bar(1 + kStages + s); }
  __device__ unsigned k_empty(int s) const { return bar(1 + 2 * kStages + s); }
  __device__ unsigned v_empty(int s) const { return bar(1 + 3 * kStages + s); }

  // One thread, before the CTA's first barrier.
  __device__ void init_barriers() const {
    for (int i = 0; i < 1 + 2 * kStages; ++i) ptx::mbarrier_init(bar(i), 1);
    for (int i = 1 + 2 * kStages; i < 1 + 4 * kStages; ++i) ptx::mbarrier_init(bar(i), 2);
    ptx::fence_mbarrier_init();
  }
  // A 128-row tile of HD columns starting at global row `row`, completing on `full`.
  __device__ void load(unsigned dst, unsigned full, const CUtensorMap* map, int row) const {
    ptx::mbarrier_arrive_expect_tx(full, kTileBytes);
#pragma unroll
    for (int c = 0; c < kBoxes; ++c) ptx::tensor_load<2>(dst + c * kBlockN * 128, map, full, c * kBoxCols, row);
  }
  __device__ void load_q(const CUtensorMap* map, int row) const { load(q, q_bar(), map, row); }
  __device__ void load_k(const CUtensorMap* map, int s, int row) const { load(k_tile(s), k_full(s), map, row); }
  __device__ void load_v(const CUtensorMap* map, int s, int row) const { load(v_tile(s), v_full(s), map, row); }
  __device__ void load_kv(const CUtensorMap* km, const CUtensorMap* vm, int s, int row) const {
    load_k(km, s, row);
    load_v(vm, s, row);
  }
};
static_assert(kBlockM == kBlockN, "Q and K/V tiles share the TMA box and the load helper");

struct FwdArgs {
  __half* o;             // [bh][seq][HD]
  RegionTiming* timing;  // one per CTA
  int seq, bh, q_tiles;
  int causal;
  float scale_log2;      // log2(e) / sqrt(HD)
  int pingpong;          // the warp-specialized schedules: consumers take turns issuing MMAs
};

// 2^x with a polynomial on the FMA pipe: x = j + f, j = round(x), f in [-0.5, 0.5]; 2^f by its
// degree-5 Taylor polynomial (relative error ~2e-6, far below f16's); 2^j added to the exponent
// field. x is clamped at -125 so masked (-inf) logits give 2^-125 (0 in f16) and the exponent
// never underflows into the sign.
__device__ __forceinline__ float exp2_poly(float x) {
  x = fmaxf(x, -125.f);
  const float t = x + 12582912.f;  // 1.5 x 2^23: x rounded to an integer lands in t's low mantissa bits
  const float f = x - (t - 12582912.f);
  float p = 1.3333558e-3f;
  p = fmaf(p, f, 9.6181291e-3f);
  p = fmaf(p, f, 5.5504109e-2f);
  p = fmaf(p, f, 2.4022651e-1f);
  p = fmaf(p, f, 6.9314718e-1f);
  p = fmaf(p, f, 1.f);
  return __uint_as_float(__float_as_uint(p) + ((__float_as_uint(t) - 0x4B400000u) << 23));
}

template <Stage V>
__device__ __forceinline__ float exp2_of(float x) {
  if constexpr (V == Stage::PolyExp2) return exp2_poly(x);
  else return ptx::ex2_approx_ftz(x);
}

__device__ __forceinline__ std::uint32_t pack_f16x2(float lo, float hi) {
  const __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<const std::uint32_t*>(&h);
}

constexpr int kS = kBlockN / 2;  // S accumulators per thread (m64n128, f32)

// The diagonal tile of a causal CTA: keys after the row are masked (rows r and r + 8 of this
// thread, row_in_tile counting from the CTA's first query row).
__device__ __forceinline__ void mask_diagonal(float* s, int row_in_tile, unsigned lane) {
#pragma unroll
  for (int j = 0; j < kBlockN / 8; ++j)
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int col = 8 * j + 2 * int(lane % 4) + (q & 1), row = row_in_tile + 8 * (q >> 1);
      if (col > row) s[4 * j + q] = -INFINITY;
    }
}

// The running state of this thread's two rows (r and r + 8): max (in log2 units) and sum.
struct RowState {
  float m0 = -INFINITY, m1 = -INFINITY, l0 = 0.f, l1 = 0.f;
};

// The maxima of this thread's two rows of S (r and r + 8) over the tile's kBlockN columns.
__device__ __forceinline__ void tile_row_max(const float* s, float& mx0, float& mx1) {
  mx0 = -INFINITY;
  mx1 = -INFINITY;
#pragma unroll
  for (int j = 0; j < kBlockN / 8; ++j) {
    mx0 = fmaxf(mx0, fmaxf(s[4 * j], s[4 * j + 1]));
    mx1 = fmaxf(mx1, fmaxf(s[4 * j + 2], s[4 * j + 3]));
  }
  // A row's 128 columns lie in the four threads of a quad.
  mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffffu, mx0, 1));
  mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffffu, mx0, 2));
  mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffffu, mx1, 1));
  mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffffu, mx1, 2));
}

// One tile of the online softmax: the new running max, c = the factor for the old O and row sums,
// and the exponentials 2^(s scale - max), handed to put(j, e0, e1, e2, e3) per 8-column block j.
template <Stage V, class Put>
__device__ __forceinline__ void online_softmax(const float* s, RowState& st, float scale_log2, float& c0, float& c1,
                                               Put put) {
  float mx0, mx1;
  tile_row_max(s, mx0, mx1);
  const float n0 = fmaxf(st.m0, mx0 * scale_log2), n1 = fmaxf(st.m1, mx1 * scale_log2);
  c0 = exp2_of<V>(st.m0 - n0);
  c1 = exp2_of<V>(st.m1 - n1);
  st.m0 = n0;
  st.m1 = n1;
  float r0 = 0.f, r1 = 0.f;  // this thread's part of the row sums; the quad adds them at the end
#pragma unroll
  for (int j = 0; j < kBlockN / 8; ++j) {
    const float e0 = exp2_of<V>(fmaf(s[4 * j], scale_log2, -n0));
    const float e1 = exp2_of<V>(fmaf(s[4 * j + 1], scale_log2, -n0));
    const float e2 = exp2_of<V>(fmaf(s[4 * j + 2], scale_log2, -n1));
    const float e3 = exp2_of<V>(fmaf(s[4 * j + 3], scale_log2, -n1));
    r0 += e0 + e1;
    r1 += e2 + e3;
    put(j, e0, e1, e2, e3);
  }
  st.l0 = fmaf(st.l0, c0, r0);
  st.l1 = fmaf(st.l1, c1, r1);
}

// O's rows r and r + 8 times c0 and c1 (the online softmax's correction for a new max).
template <int HD>
__device__ __forceinline__ void rescale_o(float* o, float c0, float c1) {
#pragma unroll
  for (int j = 0; j < HD / 8; ++j) {
    o[4 * j] *= c0;
    o[4 * j + 1] *= c0;
    o[4 * j + 2] *= c1;
    o[4 * j + 3] *= c1;
  }
}

// 8-column block j of S (or of its exponentials) as f16 into P, the A fragments of P V.
__device__ __forceinline__ void put_p(std::uint32_t (*p)[4], int j, float e0, float e1, float e2, float e3) {
  p[j / 2][2 * (j % 2)] = pack_f16x2(e0, e1);
  p[j / 2][2 * (j % 2) + 1] = pack_f16x2(e2, e3);
}

// S = Q K^T for this warpgroup's 64 rows: HD / 16 wgmma m64n128k16 from shared memory.
template <int HD>
__device__ __forceinline__ void issue_qk(float* s, unsigned q_wg, unsigned ks) {
  using wgmma::Swizzle;
#pragma unroll
  for (int kk = 0; kk < HD / 16; ++kk)
    wgmma::f16f32_ss_scale_d<kBlockN>(s, wgmma::kmajor_desc(q_wg, 32 * kk, kBlockM, Swizzle::B128),
                                      wgmma::kmajor_desc(ks, 32 * kk, kBlockN, Swizzle::B128), kk > 0);
}

// O += P V: kBlockN / 16 wgmma m64nHDk16, P from registers, V MN-major from shared memory.
template <int HD>
__device__ __forceinline__ void issue_pv(float* o, std::uint32_t (*p)[4], unsigned vs) {
#pragma unroll
  for (int kk = 0; kk < kBlockN / 16; ++kk)
    wgmma::F16F32TransB::mma<HD, true>(o, p[kk], 0, wgmma::mn_major_desc_b128(vs + kk * 16 * 128, kBlockN * 128, 1024), 0);
}

// O / l (the quad's row sums added) as f16 into the output rows of this thread.
template <int HD, Stage V>
__device__ __forceinline__ void store_o(const float* o, RowState st, const FwdArgs& a, int head_row, int q_tile,
                                        int row_in_tile, unsigned lane) {
  st.l0 += __shfl_xor_sync(0xffffffffu, st.l0, 1);
  st.l0 += __shfl_xor_sync(0xffffffffu, st.l0, 2);
  st.l1 += __shfl_xor_sync(0xffffffffu, st.l1, 1);
  st.l1 += __shfl_xor_sync(0xffffffffu, st.l1, 2);
  const float inv0 = V == Stage::NoSoftmax ? 1.f : 1.f / st.l0, inv1 = V == Stage::NoSoftmax ? 1.f : 1.f / st.l1;
  const std::size_t row0 = std::size_t(head_row) + std::size_t(q_tile) * kBlockM + std::size_t(row_in_tile);
  std::uint32_t* out0 = reinterpret_cast<std::uint32_t*>(a.o + row0 * HD);
  std::uint32_t* out1 = reinterpret_cast<std::uint32_t*>(a.o + (row0 + 8) * HD);
#pragma unroll
  for (int j = 0; j < HD / 8; ++j) {
    const unsigned col2 = 4 * j + lane % 4;  // (8 j + 2 (lane % 4)) / 2: the half2 index
    out0[col2] = pack_f16x2(o[4 * j] * inv0, o[4 * j + 1] * inv0);
    out1[col2] = pack_f16x2(o[4 * j + 2] * inv1, o[4 * j + 3] * inv1);
  }
}

// Register fences (no instruction): the compiler keeps these values where the wgmma reads or
// writes them, and does not move their uses across the wait.
template <int N>
__device__ __forceinline__ void fence_regs(float* r) {
#pragma unroll
  for (int i = 0; i < N; ++i) wgmma::fence_operand(r[i]);
}
__device__ __forceinline__ void fence_p(std::uint32_t (*p)[4]) {
#pragma unroll
  for (int kk = 0; kk < kBlockN / 16; ++kk)
#pragma unroll
    for (int r = 0; r < 4; ++r) wgmma::fence_operand(p[kk][r]);
}

// S from registers the compiler cannot see through (NoQK): a spread of logits like a real S, so
// the softmax does the same work.
// The simple schedule sets it once and fences it every tile; the warp-specialized ones overwrite
// S with its exponentials, so they set it again every tile at one FADD an element (shift: a
// per-thread, per-tile offset).
__device__ __forceinline__ void fake_s(float* s, unsigned tid) {
#pragma unroll
  for (int i = 0; i < kS; ++i) s[i] = 0.37f * float((tid * 7 + i * 13) % 17) - 3.f;
}
__device__ __forceinline__ void fake_s_tile(float* s, float shift) {
#pragma unroll
  for (int i = 0; i < kS; ++i) s[i] = shift + 0.37f * float((i * 13) % 17);
}

// The CTA's place in the grid: CTAs are ordered longest first (causal tiles near the end of the
// sequence see the most keys).
struct CtaWork {
  int q_tile, kv_tiles, head_row;  // head_row: the head's first row in the [bh x seq, HD] tensors
};
__device__ __forceinline__ CtaWork cta_work(const FwdArgs& a) {
  const int bh = int(blockIdx.x) % a.bh;
  const int q_tile = a.q_tiles - 1 - int(blockIdx.x) / a.bh;
  return {q_tile, a.causal ? q_tile + 1 : a.seq / kBlockN, bh * a.seq};
}

// --- the softmax's parts, one at a time ----------------------------------------------------------
// Each part of the online softmax on one 128 x 128 tile of S in registers (the main kernel's
// layout: 256 threads, 64 values a thread), `tiles` times in a loop, one CTA alone on its SM as
// in the main kernel: the cycles one part costs per K/V tile. Register fences (no instruction)
// make every tile's S (and O) new to the compiler, so nothing is hoisted out of the loop.
enum class SoftmaxPart : int {
  RowMax,   // 64 FMNMX and 4 SHFL a thread: the two rows' maxima (tile_row_max)
  Exp2,     // 64 FFMA + MUFU.EX2: 2^(s scale - max) of every element
  RowSum,   // 64 FADD and 4 SHFL: the two rows' sums over the quad
  Rescale,  // 64 FMUL: O's 128-column rows times the correction (rescale_o, head_dim 128)
};

template <SoftmaxPart P>
__global__ void __launch_bounds__(kThreads, 1)
    softmax_part_kernel(float spread, float scale_log2, int tiles, float* sink, RegionTiming* timing) {
  const unsigned tid = threadIdx.x;
  float s[kS];
#pragma unroll
  for (int i = 0; i < kS; ++i) s[i] = spread * float((tid * 7 + i * 13) % 17) - 3.f;
  // n: the rows' maxima (Exp2) or the corrections near 1 (Rescale), fenced every tile.
  float a0 = 0.f, a1 = 0.f;
  float n0 = P == SoftmaxPart::Exp2 ? spread * 4.f : 1.f - spread * 1e-3f;
  float n1 = P == SoftmaxPart::Exp2 ? spread * 5.f : 1.f - spread * 2e-3f;
  __syncthreads();
  RegionClock clock;
  if (tid == 0) clock.begin();
#pragma unroll 1
  for (int t = 0; t < tiles; ++t) {
    fence_regs<kS>(s);
    if constexpr (P == SoftmaxPart::RowMax) {
      float m0, m1;
      tile_row_max(s, m0, m1);
      a0 = fmaxf(a0, m0);
      a1 = fmaxf(a1, m1);
    } else if constexpr (P == SoftmaxPart::Exp2) {
      wgmma::fence_operand(n0);
      wgmma::fence_operand(n1);
#pragma unroll
      for (int j = 0; j < kBlockN / 8; ++j) {
        s[4 * j] = exp2_of<Stage::Full>(fmaf(s[4 * j], scale_log2, -n0));
        s[4 * j + 1] = exp2_of<Stage::Full>(fmaf(s[4 * j + 1], scale_log2, -n0));
        s[4 * j + 2] = exp2_of<Stage::Full>(fmaf(s[4 * j + 2], scale_log2, -n1));
        s[4 * j + 3] = exp2_of<Stage::Full>(fmaf(s[4 * j + 3], scale_log2, -n1));
      }
    } else if constexpr (P == SoftmaxPart::RowSum) {
      float r0 = 0.f, r1 = 0.f;
#pragma unroll
      for (int j = 0; j < kBlockN / 8; ++j) {
        r0 += s[4 * j] + s[4 * j + 1];
        r1 += s[4 * j + 2] + s[4 * j + 3];
      }
      r0 += __shfl_xor_sync(0xffffffffu, r0, 1);
      r0 += __shfl_xor_sync(0xffffffffu, r0, 2);
      r1 += __shfl_xor_sync(0xffffffffu, r1, 1);
      r1 += __shfl_xor_sync(0xffffffffu, r1, 2);
      a0 += r0;
      a1 += r1;
    } else {
      wgmma::fence_operand(n0);
      wgmma::fence_operand(n1);
      static_assert(kS == 128 / 2, "O of head_dim 128 holds as many values a thread as S");
      rescale_o<128>(s, n0, n1);
    }
  }
  __syncthreads();
  if (tid == 0) timing[0] = clock.end();
  float all = a0 + a1;
#pragma unroll
  for (int i = 0; i < kS; ++i) all += s[i];
  if (all == 1234.5f) sink[0] = all;  // a test the compiler cannot decide: every part's results stay live
}

// The schedule "simple". One CTA: 128 query rows of one (batch, head), both warpgroups looping
// over the K/V tiles (all of them, or up to the diagonal when causal). Thread 0 issues the TMA
// loads into a ring of kStages K and V tiles. Per tile and warpgroup: S = Q K^T (wgmma
// m64n128k16, both from shared memory) and a wait, the online softmax on S's registers (running
// max, exp2, rescale of O), then O += P V (wgmma with P from registers, V MN-major) and a wait;
// both warpgroups then meet at __syncthreads before thread 0 refills the stage.
template <int HD, Stage V>
__global__ void __launch_bounds__(kThreads, 1)
    attention_fwd_kernel(const __grid_constant__ CUtensorMap q_map, const __grid_constant__ CUtensorMap k_map,
                         const __grid_constant__ CUtensorMap v_map, FwdArgs a) {
#if GD_WGMMA
  using L = Smem<HD>;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const L l(ptx::smem_u32(smem_raw));
  const CtaWork w = cta_work(a);
  const unsigned tid = threadIdx.x, wg = tid / 128, warp = (tid / 32) % 4, lane = tid % 32;

  if (tid == 0) l.init_barriers();
  __syncthreads();
  BlockClock clock;
  clock.begin();
  if (tid == 0) {
    l.load_q(&q_map, w.head_row + w.q_tile * kBlockM);
    const int first = V == Stage::NoLoad ? 1 : min(L::kStages, w.kv_tiles);
    for (int t = 0; t < first; ++t) l.load_kv(&k_map, &v_map, t, w.head_row + t * kBlockN);
  }

  constexpr int kO = HD / 2;  // O accumulators per thread
  float s[kS], o[kO];
  std::uint32_t p[kBlockN / 16][4];  // P as the A fragments of the kBlockN / 16 K steps of P V
#pragma unroll
  for (int i = 0; i < kO; ++i) o[i] = 0.f;
  if constexpr (V == Stage::NoQK) fake_s(s, tid);  // set once, fenced every tile
  RowState st;
  const int row_in_tile = int(wg) * 64 + int(warp) * 16 + int(lane / 4);
  const unsigned q_wg = l.q + wg * 64 * 128;  // this warpgroup's 64 rows in each atom column
  const auto put = [&](int j, float e0, float e1, float e2, float e3) { put_p(p, j, e0, e1, e2, e3); };

  ptx::mbarrier_wait_parity(l.q_bar(), 0);
  for (int t = 0; t < w.kv_tiles; ++t) {
    const int stage = V == Stage::NoLoad ? 0 : t % L::kStages;
    const unsigned parity = V == Stage::NoLoad ? 0u : unsigned(t / L::kStages) & 1u;
    ptx::mbarrier_wait_parity(l.k_full(stage), parity);
    if constexpr (V != Stage::NoQK) {
      wgmma::fence();
      issue_qk<HD>(s, q_wg, l.k_tile(stage));
      wgmma::commit_group();
      wgmma::wait_group<0>();
    }
    fence_regs<kS>(s);
    if (a.causal && t == w.q_tile) mask_diagonal(s, row_in_tile, lane);

    if constexpr (V == Stage::NoSoftmax) {
#pragma unroll
      for (int j = 0; j < kBlockN / 8; ++j) put(j, s[4 * j], s[4 * j + 1], s[4 * j + 2], s[4 * j + 3]);
    } else {
      float c0, c1;
      online_softmax<V>(s, st, a.scale_log2, c0, c1, put);
      rescale_o<HD>(o, c0, c1);
    }

    ptx::mbarrier_wait_parity(l.v_full(stage), parity);
    if constexpr (V != Stage::NoPV) {
      fence_regs<kO>(o);
      wgmma::fence();
      issue_pv<HD>(o, p, l.v_tile(stage));
      wgmma::commit_group();
      wgmma::wait_group<0>();
      fence_regs<kO>(o);
    } else {
      // P stays live and O stays unknown (its rescale is softmax work), at no instruction's cost.
      fence_p(p);
      fence_regs<kO>(o);
    }
    // Both warpgroups are done with the stage: thread 0 refills it.
    __syncthreads();
    if (V != Stage::NoLoad && tid == 0 && t + L::kStages < w.kv_tiles)
      l.load_kv(&k_map, &v_map, stage, w.head_row + (t + L::kStages) * kBlockN);
  }
  clock.end(a.timing);
  store_o<HD, V>(o, st, a, w.head_row, w.q_tile, row_in_tile, lane);
#endif
}

// The FA3-style schedules: warp specialization, and optionally the two overlaps of
// FlashAttention-3. Warp group 0 is the producer: it gives up registers (setmaxnreg to
// kProducerRegs) and one thread streams K and V through the ring, refilling a stage as soon as
// both consumers have released it (per-stage "empty" mbarriers instead of a CTA barrier per
// tile). Warp groups 1 and 2 are the consumers (kConsumerRegs each), 64 query rows each. Each
// consumer issues, per K/V tile t, S_t = Q K_t^T, rescales O (by the max of tile t - 1) and
// issues O += P_{t-1} V_{t-1} (P V runs one tile behind), as two commit groups:
//  - Overlap: wait for S_t only (wait_group 1), run the softmax of tile t while P V of tile t - 1
//    is still in the tensor cores, then wait for it (FA3's intra-warpgroup pipelining). P has two
//    register buffers, so the softmax packs P_t while P V reads P_{t-1}: with one buffer the
//    packing must follow the wait and ptxas hoists the wait above the whole softmax;
//  - otherwise: wait for both, then the softmax: each warpgroup alternates MMA and softmax.
// a.pingpong: named barriers hand the right to issue MMAs from one consumer to the other, so one
// warpgroup's softmax runs while the other's MMAs do (FA3's inter-warpgroup ping-pong).
constexpr int kWsThreads = 384;
constexpr unsigned kProducerRegs = 40, kConsumerRegs = 232;  // 40 + 2 x 232 = 3 x 168 (the launch budget)

template <int HD, Stage V, bool Overlap>
__global__ void __launch_bounds__(kWsThreads, 1)
    attention_ws_kernel(const __grid_constant__ CUtensorMap q_map, const __grid_constant__ CUtensorMap k_map,
                        const __grid_constant__ CUtensorMap v_map, FwdArgs a) {
#if GD_WGMMA && defined(GD_HAS_SETMAXNREG)
  using L = Smem<HD>;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const L l(ptx::smem_u32(smem_raw));
  const CtaWork w = cta_work(a);
  const unsigned tid = threadIdx.x, wg = tid / 128;
  if (tid == 0) l.init_barriers();
  __syncthreads();

  if (wg == 0) {
    ptx::setmaxnreg_dec<kProducerRegs>();
    if (tid == 0) {
      l.load_q(&q_map, w.head_row + w.q_tile * kBlockM);
      const int tiles = V == Stage::NoLoad ? 1 : w.kv_tiles;
      for (int t = 0; t < tiles; ++t) {
        const int stage = t % L::kStages;
        const unsigned parity = unsigned(t / L::kStages - 1) & 1u;  // the release of tile t - kStages
        const int row = w.head_row + t * kBlockN;
        if (t >= L::kStages) ptx::mbarrier_wait_parity(l.k_empty(stage), parity);
        l.load_k(&k_map, stage, row);
        if (t >= L::kStages) ptx::mbarrier_wait_parity(l.v_empty(stage), parity);
        l.load_v(&v_map, stage, row);
      }
    }
    return;
  }

  ptx::setmaxnreg_inc<kConsumerRegs>();
  const unsigned c = wg - 1, warp = (tid / 32) % 4, lane = tid % 32;
  RegionClock clock;  // the first consumer's thread 0 times the loop
  if (tid == 128) clock.begin();

  constexpr int kO = HD / 2;
  using PFrag = std::uint32_t[kBlockN / 16][4];
  float s[kS], o[kO];
  PFrag pa, pb;  // P of even and odd tiles: the softmax writes one while P V reads the other
#pragma unroll
  for (int i = 0; i < kO; ++i) o[i] = 0.f;
  RowState st;
  float c0 = 1.f, c1 = 1.f;
  const int row_in_tile = int(c) * 64 + int(warp) * 16 + int(lane / 4);
  const unsigned q_wg = l.q + c * 64 * 128;
  const int n = w.kv_tiles;
  const auto stage_of = [&](int t) { return V == Stage::NoLoad ? 0 : t % L::kStages; };
  const auto parity_of = [&](int t) { return V == Stage::NoLoad ? 0u : unsigned(t / L::kStages) & 1u; };
  // One arrival per consumer warpgroup, after its wait_group retired the MMAs that read the stage.
  const auto release = [&](unsigned bar) {
    if (V != Stage::NoLoad && tid % 128 == 0) ptx::mbarrier_arrive(bar);
  };
  // Ping-pong: consumer c issues its MMAs after barrier 1 + c and then opens the other's.
  // Consumer 1 opens the first round for consumer 0 and skips its own last opening, so every
  // barrier phase is completed exactly (n + 1 issue rounds each).
  const bool pp = a.pingpong != 0;
  const auto mma_turn_begin = [&] {
    if (pp) ptx::named_bar_sync(1 + c, 256);
  };
  const auto mma_turn_end = [&](bool last) {
    if (pp && !(last && c == 1)) ptx::named_bar_arrive(2 - c, 256);
  };
  const auto qk = [&](int t) {
    if constexpr (V == Stage::NoQK) fake_s_tile(s, 0.37f * float((tid * 7) % 17) - 3.f + 0.01f * float(t & 7));
    else issue_qk<HD>(s, q_wg, l.k_tile(stage_of(t)));
  };
  // O to the max of the tile whose P V comes next (while S of the next tile is in flight), then
  // that P V.
  const auto rescale_and_pv = [&](int t, PFrag& p) {
    if constexpr (V != Stage::NoSoftmax) rescale_o<HD>(o, c0, c1);
    fence_regs<kO>(o);
    wgmma::fence();
    if constexpr (V != Stage::NoPV) issue_pv<HD>(o, p, l.v_tile(stage_of(t)));
    else fence_p(p);  // P stays live; O stays unknown through the fences around this
    wgmma::commit_group();
  };
  // The softmax of S_t, its exponentials packed into P (the buffer no P V is reading). `diagonal`
  // is a constant at every call in the loop: a branch there would split the block and ptxas
  // would then place the wait for P V right after it, ahead of the whole softmax.
  const auto softmax = [&](PFrag& p, bool diagonal) {
    if (diagonal) mask_diagonal(s, row_in_tile, lane);
    const auto put = [&](int j, float e0, float e1, float e2, float e3) { put_p(p, j, e0, e1, e2, e3); };
    if constexpr (V == Stage::NoSoftmax) {
#pragma unroll
      for (int j = 0; j < kBlockN / 8; ++j) put(j, s[4 * j], s[4 * j + 1], s[4 * j + 2], s[4 * j + 3]);
    } else {
      online_softmax<V>(s, st, a.scale_log2, c0, c1, put);
    }
  };
  // Tile t: S_t = Q K_t^T and P_{t-1} V_{t-1} in flight together, then the softmax of S_t into
  // p_next (under P V when Overlap).
  const auto step = [&](int t, PFrag& p_prev, PFrag& p_next, bool diagonal) {
    ptx::mbarrier_wait_parity(l.k_full(stage_of(t)), parity_of(t));
    ptx::mbarrier_wait_parity(l.v_full(stage_of(t - 1)), parity_of(t - 1));
    mma_turn_begin();
    wgmma::fence();
    qk(t);
    wgmma::commit_group();
    rescale_and_pv(t - 1, p_prev);
    mma_turn_end(false);
    if constexpr (Overlap) wgmma::wait_group<1>();
    else wgmma::wait_group<0>();
    fence_regs<kS>(s);
    release(l.k_empty(stage_of(t)));
    // The softmax sits in a block of its own (a branch the compiler cannot remove: every launch
    // has a.q_tiles > 0): ptxas keeps a wait inside its PTX block but schedules it early there,
    // so in one block with the softmax it would wait for P V ahead of most of the exponentials.
    if (a.q_tiles > 0) {
      softmax(p_next, diagonal);
      fence_p(p_next);
    }
    wgmma::wait_group<0>();
    fence_regs<kO>(o);
    release(l.v_empty(stage_of(t - 1)));
  };

  if (pp && c == 1) ptx::named_bar_arrive(1, 256);
  ptx::mbarrier_wait_parity(l.q_bar(), 0);
  // Tile 0: S_0 alone.
  ptx::mbarrier_wait_parity(l.k_full(0), 0);
  mma_turn_begin();
  wgmma::fence();
  qk(0);
  wgmma::commit_group();
  mma_turn_end(false);
  wgmma::wait_group<0>();
  fence_regs<kS>(s);
  release(l.k_empty(0));
  if (a.causal && n == 1) softmax(pa, true);
  else softmax(pa, false);
  // Tiles 1 .. end - 1 (all but a causal CTA's diagonal tile), two at a time so that each P
  // buffer is a fixed set of registers (indexing them by the tile's parity would put them in
  // local memory, and copying one into the other makes ptxas serialize every wgmma).
  const int end = a.causal ? n - 1 : n;
  int t = 1;
  for (; t + 1 < end; t += 2) {
    step(t, pa, pb, false);
    step(t + 1, pb, pa, false);
  }
  // The diagonal tile of a causal CTA, then the last P V, from whichever buffer holds P.
  const auto finish = [&](PFrag& p_cur, PFrag& p_other) {
    const auto last_pv = [&](PFrag& p) {
      ptx::mbarrier_wait_parity(l.v_full(stage_of(n - 1)), parity_of(n - 1));
      mma_turn_begin();
      rescale_and_pv(n - 1, p);
      mma_turn_end(true);
    };
    if (a.causal && n > 1) {
      step(n - 1, p_cur, p_other, true);
      last_pv(p_other);
    } else {
      last_pv(p_cur);
    }
  };
  if (t < end) {
    step(t, pa, pb, false);
    finish(pb, pa);
  } else {
    finish(pa, pb);
  }
  wgmma::wait_group<0>();
  fence_regs<kO>(o);
  if (tid == 128) a.timing[blockIdx.x] = clock.end();
  store_o<HD, V>(o, st, a, w.head_row, w.q_tile, row_in_tile, lane);
#endif
}

// Uniform random f16 in [-amp, amp) from a hash of the index: inputs drawn on the device, so a
// 64 MiB tensor costs no host time; the reference reads back the rows it needs.
__global__ void attention_random_inputs_kernel(__half* p, std::size_t n, std::uint64_t seed, float amp) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint64_t z = seed + i * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const float u = float(z >> 40) * (1.f / 16777216.f);  // [0, 1)
    p[i] = __float2half_rn((2.f * u - 1.f) * amp);
  }
}

}  // namespace gd::attention_fwd

namespace gd {
namespace probe_attention {

using namespace attention_fwd;

// --- the variants ---------------------------------------------------------------------------
using FwdKernel = void (*)(CUtensorMap, CUtensorMap, CUtensorMap, FwdArgs);

struct VariantRow {
  const char* name;  // axis value
  Stage stage;
  FwdKernel simple[2];      // the simple schedule, head_dim 64 and 128
  FwdKernel overlapped[2];  // the warp-specialized kernel with the intra-warpgroup overlap
  bool computes_attention;  // its output is softmax(QK^T/sqrt(d))V and is checked
  bool exp_on_mufu;         // MUFU.EX2 expected in the timed loop (else forbidden)
  int hgmma_min;            // wgmma per tile in the loop: QK^T's and P V's that remain
};
template <Stage V>
constexpr VariantRow variant(const char* name, bool attention, bool mufu, int hgmma_min) {
  return {name,
          V,
          {attention_fwd_kernel<64, V>, attention_fwd_kernel<128, V>},
          {attention_ws_kernel<64, V, true>, attention_ws_kernel<128, V, true>},
          attention,
          mufu,
          hgmma_min};
}
// hgmma_min: HD 64 has 4 Q K^T and 8 P V wgmma per tile; the fewest of a variant's remaining ones.
const VariantRow kVariants[] = {
    variant<Stage::Full>("full", true, true, 4),
    variant<Stage::NoSoftmax>("no_softmax", false, false, 4),
    variant<Stage::PolyExp2>("poly_exp2", true, false, 4),
    variant<Stage::NoPV>("no_pv", false, true, 4),
    variant<Stage::NoQK>("no_qk", false, true, 8),
    variant<Stage::NoLoad>("no_load", false, true, 4),
};
// The warp-specialized kernel without the intra-warpgroup overlap: the full variant only.
const FwdKernel kWsSerial[2] = {attention_ws_kernel<64, Stage::Full, false>, attention_ws_kernel<128, Stage::Full, false>};

// How the kernel orders its work (the schedule axis), simplest first.
struct ScheduleRow {
  const char* name;
  bool warp_specialized;  // a producer warpgroup (setmaxnreg) and two consumers, 384 threads
  bool overlap;           // softmax of tile t while P V of tile t - 1 runs (wait_group 1)
  bool pingpong;          // consumers take turns issuing their MMAs (named barriers)
  const char* what;
};
const ScheduleRow kSchedules[] = {
    {"simple", false, false, false,
     "256 threads; thread 0 loads; per tile and warpgroup Q K^T, wait, softmax, P V, wait; __syncthreads per tile"},
    {"ws", true, false, false,
     "producer warpgroup (setmaxnreg 40/232) and per-stage release; each consumer issues S_t and P_{t-1} V_{t-1}, "
     "waits for both, then the softmax"},
    {"pingpong", true, false, true, "ws, and the consumers take turns issuing MMAs (named barriers)"},
    {"pipelined", true, true, false, "ws, and the softmax of tile t runs while P_{t-1} V_{t-1} is in flight"},
    {"fa3", true, true, true, "pipelined and ping-pong together (FlashAttention-3's schedule)"},
};

template <class Row, std::size_t N>
const Row& row_named(const Row (&rows)[N], const std::string& name, const char* what) {
  for (const Row& r : rows)
    if (name == r.name) return r;
  std::string all;
  for (const Row& r : rows) all += std::string(all.empty() ? "" : ", ") + r.name;
  throw UserError("unknown attention " + std::string(what) + " '" + name + "' (one of " + all + ")");
}

template <class Row, std::size_t N>
std::vector<std::string> row_names(const Row (&rows)[N]) {
  std::vector<std::string> v;
  for (const Row& r : rows) v.push_back(r.name);
  return v;
}

// The kernel of one variant under one schedule; the warp-specialized schedules without the
// overlap exist for the full variant only (the breakdown runs under simple and fa3).
FwdKernel kernel_for(const VariantRow& var, const ScheduleRow& sch, int hd) {
  const int i = hd == 64 ? 0 : 1;
  if (!sch.warp_specialized) return var.simple[i];
  if (sch.overlap) return var.overlapped[i];
  if (var.stage != Stage::Full)
    throw UserError("the attention variant '" + std::string(var.name) + "' is built for the schedules simple, " +
                    "pipelined and fa3 only; schedule '" + sch.name + "' runs the full kernel");
  return kWsSerial[i];
}

// --- one point --------------------------------------------------------------------------------
// Batch x heads so that every sequence length does the same number of query tiles (2048 CTAs at
// 2^18 query rows): small sequences are many heads, long ones few.
constexpr long long kTotalRows = 1 << 18;

struct Problem {
  int hd = 0, seq = 0, bh = 0, q_tiles = 0;
  bool causal = false;
};

Problem problem_of(ProbeContext& ctx) {
  Problem p;
  p.hd = int(ctx.int_param("head_dim"));
  p.seq = int(ctx.int_param("seq"));
  const std::int64_t causal = ctx.int_param("causal");
  if (p.hd != 64 && p.hd != 128) throw UserError("head_dim must be 64 or 128; got " + std::to_string(p.hd));
  if (p.seq < kBlockN || p.seq % kBlockN || p.seq > kTotalRows)
    throw UserError("seq must be a multiple of " + std::to_string(kBlockN) + " from " + std::to_string(kBlockN) + " to " +
                    std::to_string(kTotalRows) + "; got " + std::to_string(p.seq));
  if (causal != 0 && causal != 1) throw UserError("causal must be 0 or 1; got " + std::to_string(causal));
  p.causal = causal == 1;
  p.bh = int(kTotalRows / p.seq);
  p.q_tiles = p.seq / kBlockM;
  return p;
}

CUtensorMap tile_map(__half* base, const Problem& p) {
  TiledTensorMapSpec s;
  s.dtype = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  s.rank = 2;
  s.base = base;
  s.dims = {std::uint64_t(p.hd), std::uint64_t(p.bh) * std::uint64_t(p.seq)};
  s.strides = {0, std::uint64_t(p.hd) * 2};
  s.box = {kBoxCols, kBlockN};
  s.swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
  s.l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  return encode_tiled_tensor_map(s);
}

std::vector<float> to_floats(const std::vector<__half>& h) {
  std::vector<float> f(h.size());
  for (std::size_t i = 0; i < h.size(); ++i) f[i] = __half2float(h[i]);
  return f;
}

std::vector<__half> read_back(const __half* src, std::size_t count) {
  std::vector<__half> h(count);
  GD_CUDA_CHECK(cudaMemcpy(h.data(), src, count * sizeof(__half), cudaMemcpyDeviceToHost));
  return h;
}

// Compares sampled output rows with the CPU reference: three heads, rows at the start, at tile
// and warpgroup edges, in the middle and the last (the causal rows that see every key).
void check_rows(const Problem& p, const __half* q, const __half* k, const __half* v, const __half* o) {
  const int heads[] = {0, p.bh / 2, p.bh - 1};
  const int rows[] = {0, 1, 63, 64, 127, std::min(p.seq - 1, 128 + 9), p.seq / 2 + 3, p.seq - 65, p.seq - 1};
  const std::size_t head_elems = std::size_t(p.seq) * p.hd;
  for (int h : heads) {
    const std::vector<float> kh = to_floats(read_back(k + h * head_elems, head_elems));
    const std::vector<float> vh = to_floats(read_back(v + h * head_elems, head_elems));
    for (int r : rows) {
      const std::size_t at = h * head_elems + std::size_t(r) * p.hd;
      const std::vector<float> qr = to_floats(read_back(q + at, std::size_t(p.hd)));
      const std::vector<float> got = to_floats(read_back(o + at, std::size_t(p.hd)));
      const std::vector<double> ref = attention_reference_row(qr, kh, vh, p.seq, p.hd, r, p.causal);
      if (const std::string why = attention_row_mismatch(ref, got); !why.empty())
        throw Error("attention output of head " + std::to_string(h) + " row " + std::to_string(r) +
                    " differs from the CPU reference: " + why);
    }
  }
}

// Runs one variant at one point: fills random inputs, checks the output (variants that compute
// attention), then times launches with events and reads each CTA's cycles for the SM clock and the
// cycles per K/V tile.
void run_point(ProbeContext& ctx, const VariantRow& var) {
  const Problem p = problem_of(ctx);
  const ScheduleRow& sch = row_named(kSchedules, ctx.str_param("schedule"), "schedule");
  const DeviceInfo& dev = ctx.device();
  const FwdKernel kernel = kernel_for(var, sch, p.hd);
  const std::size_t smem = p.hd == 64 ? Smem<64>::kBytes : Smem<128>::kBytes;
  if (std::int64_t(smem) > dev.shared_per_block_optin)
    ctx.skip("the kernel needs " + std::to_string(smem) + " bytes of shared memory per block; the chip allows " +
             std::to_string(dev.shared_per_block_optin));
  GD_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  const unsigned threads = sch.warp_specialized ? kWsThreads : kThreads;
  cudaFuncAttributes attr{};
  GD_CUDA_CHECK(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(kernel)));
  // setmaxnreg moves registers within the CTA's launch allocation: an increase the pool cannot
  // satisfy would wait forever.
  if (sch.warp_specialized && attr.numRegs * 3 < int(kProducerRegs + 2 * kConsumerRegs))
    ctx.skip("the kernel was built with " + std::to_string(attr.numRegs) + " registers a thread, fewer than the " +
             std::to_string(kProducerRegs) + " + 2 x " + std::to_string(kConsumerRegs) + " split needs");

  const std::size_t elems = std::size_t(kTotalRows) * p.hd;
  DeviceBuffer<__half> q(elems), k(elems), v(elems), o(elems);
  const unsigned blocks = unsigned(p.q_tiles) * unsigned(p.bh);
  DeviceBuffer<RegionTiming> timing(blocks);
  const std::uint64_t seed = (std::uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
  const LaunchShape fill_shape{dim3(unsigned(dev.sm_count) * 8), dim3(256)};
  launch(ctx, attention_random_inputs_kernel, fill_shape, q.get(), elems, seed, 1.5f);
  launch(ctx, attention_random_inputs_kernel, fill_shape, k.get(), elems, seed ^ 0x5555555555555555ull, 1.5f);
  launch(ctx, attention_random_inputs_kernel, fill_shape, v.get(), elems, seed ^ 0xAAAAAAAAAAAAAAAAull, 1.f);
  GD_CUDA_CHECK(cudaMemset(o.get(), 0, o.bytes()));

  const CUtensorMap qm = tile_map(q.get(), p), km = tile_map(k.get(), p), vm = tile_map(v.get(), p);
  const FwdArgs args{o.get(), timing.get(), p.seq, p.bh, p.q_tiles, p.causal ? 1 : 0,
                     float(1.4426950408889634 / std::sqrt(double(p.hd))), sch.pingpong ? 1 : 0};
  const auto enqueue = [&] { launch(ctx, kernel, {dim3(blocks), dim3(threads), smem}, qm, km, vm, args); };
  enqueue();
  GD_CUDA_CHECK(cudaDeviceSynchronize());
  if (var.computes_attention) {
    check_rows(p, q.get(), k.get(), v.get(), o.get());
    ctx.extra()["check"] = "27 sampled rows (3 heads) within 2e-3 + 1e-2 |ref| of the double-precision reference";
  } else {
    ctx.extra()["check"] = "not applicable: this variant leaves a stage out and computes something else by design";
  }

  RepeatPolicy policy;
  policy.warmup = 2;
  policy.min_samples = 5;
  policy.target_rel_ci = 0.01;
  policy.time_cap_s = ctx.quick() ? 0.15 : 0.4;
  EventTimer timer;
  const RepeatResult r = ctx.measure(
      [&] {
        timer.start();
        enqueue();
        return timer.stop_ms() * 1e3;  // microseconds
      },
      policy);

  // The CTAs of the last launch: the SM clock, and cycles per K/V tile (each CTA runs alone on
  // its SM, so its cycles over its tiles are the steady per-tile cost).
  const std::vector<RegionTiming> t = timing.to_host();
  std::vector<double> per_tile;
  per_tile.reserve(t.size());
  for (unsigned b = 0; b < blocks; ++b) {
    const int q_tile = p.q_tiles - 1 - int(b) / p.bh;
    const int tiles = p.causal ? q_tile + 1 : p.seq / kBlockN;
    if (t[b].cycles > 0) per_tile.push_back(double(t[b].cycles) / tiles);
  }
  const double mhz = clock_mhz(t);
  ctx.set_observed_sm_clock_mhz(mhz);
  ctx.metric("time/us", r.summary);
  ctx.metric("cycles/per_kv_tile", summarize(per_tile));
  const double flops = attention_flops(p.bh, p.seq, p.hd, p.causal);
  const double seconds = r.summary.median * 1e-6;
  ctx.metric("throughput/tflops", flops / seconds / 1e12);
  if (const auto peak = tensor_rate(dev.cc(), "f16")) {
    const double per_clk = flops / (seconds * mhz * 1e6 * dev.sm_count);
    const TensorEfficiency e = tensor_efficiency(per_clk, peak->flops_per_clk_per_sm, dev.sm_count, mhz);
    ctx.metric("throughput/percent_of_peak", e.percent_of_peak);
    ctx.metric("throughput/peak_tflops_at_clock", e.peak_tflops_at_clock);
    ctx.extra()["peak_source"] = peak->source;
  } else {
    ctx.extra()["peak_source"] = "no published per-clock f16 tensor rate for " + dev.sm_name();
  }
  ctx.extra()["batch_heads"] = p.bh;
  ctx.extra()["schedule"] = sch.what;
  ctx.extra()["threads"] = threads;
  ctx.extra()["registers_per_thread_at_launch"] = attr.numRegs;
  ctx.extra()["ctas"] = blocks;
  ctx.extra()["tile"] = "128 query rows x 128 keys per CTA and K/V tile; TMA loads, " +
                        std::to_string(p.hd == 64 ? Smem<64>::kStages : Smem<128>::kStages) + "-stage ring";
}

void run_fwd(ProbeContext& ctx) { run_point(ctx, kVariants[0]); }
void run_breakdown(ProbeContext& ctx) { run_point(ctx, row_named(kVariants, ctx.str_param("variant"), "variant")); }

// Per (head_dim, causal, seq): each stage's share of the full kernel's time, from the variants
// that leave it out, and the cycles per K/V tile they save. The SM clock differs between variants
// (each draws its own power), so the shares from cycles per tile, which take the clock out, are
// kept beside them in extra.shares_by_cycles_pct, with each variant's clock in extra.sm_clock_mhz.
// The groups of a derived record: the params of each ok record whose `axis` is `first`, without
// that axis; and a group's records for each row of `rows` in order (its name the axis value),
// every one with `metric`, or none when one is missing.
std::vector<Params> groups_by(SummaryContext& sc, const char* axis, const char* first) {
  std::vector<Params> groups;
  for (const Record* r : sc.ok_records({{axis, std::string(first)}})) {
    Params g;
    for (const auto& kv : r->params)
      if (kv.first != axis) g.push_back(kv);
    groups.push_back(g);
  }
  return groups;
}
template <class Row, std::size_t N>
std::vector<const Record*> group_records(SummaryContext& sc, const Params& g, const char* axis, const Row (&rows)[N],
                                         const char* metric) {
  std::vector<const Record*> out;
  for (const Row& row : rows) {
    Params where = g;
    where.emplace_back(axis, std::string(row.name));
    const auto recs = sc.ok_records(where);
    if (recs.empty() || !recs.front()->metric(metric)) return {};
    out.push_back(recs.front());
  }
  return out;
}

// The derived record of group g (`axis` = `value`) over srcs, one per row in order, with each
// source's SM clock in extra.sm_clock_mhz by row name.
template <class Row, std::size_t N>
Record& derive_group(SummaryContext& sc, Params g, const char* axis, const char* value,
                     const std::vector<const Record*>& srcs, const Row (&rows)[N]) {
  g.emplace_back(axis, std::string(value));
  Record& d = sc.derive(g, srcs);
  for (std::size_t i = 0; i < srcs.size(); ++i) d.extra["sm_clock_mhz"][rows[i].name] = srcs[i]->sm_clock_mhz;
  return d;
}

void summarize_breakdown(SummaryContext& sc) {
  for (const Params& g : groups_by(sc, "variant", "full")) {
    const std::vector<const Record*> srcs = group_records(sc, g, "variant", kVariants, "time/us");
    if (srcs.empty()) continue;
    AttentionStageTimes us, cyc;
    double* fields_us[] = {&us.full, &us.no_softmax, &us.poly_exp2, &us.no_pv, &us.no_qk, &us.no_load};
    double* fields_cyc[] = {&cyc.full, &cyc.no_softmax, &cyc.poly_exp2, &cyc.no_pv, &cyc.no_qk, &cyc.no_load};
    bool complete = true;
    for (std::size_t i = 0; i < srcs.size(); ++i) {
      const Metric* c = srcs[i]->metric("cycles/per_kv_tile");
      if (!c) complete = false;
      *fields_us[i] = srcs[i]->metric("time/us")->value();
      *fields_cyc[i] = c ? c->value() : 0;
    }
    if (!complete) continue;
    const AttentionStageShares s = attention_stage_shares(us);
    const AttentionStageShares by_cycles = attention_stage_shares(cyc);
    Record& d = derive_group(sc, g, "variant", "breakdown", srcs, kVariants);
    d.extra["shares_by_cycles_pct"] = {{"softmax", by_cycles.softmax_pct}, {"qk_mma", by_cycles.qk_pct},
                                       {"pv_mma", by_cycles.pv_pct},        {"mma", by_cycles.mma_pct},
                                       {"memory", by_cycles.memory_pct},
                                       {"exp2_poly_extra", by_cycles.exp2_poly_extra_pct}};
    if (!s.not_isolated.empty())
      d.extra["not_isolated"] = {{"stages", s.not_isolated},
                                 {"why", "the kernel ran slower without these stages: leave-one-out cannot isolate "
                                         "them under this schedule (overlapped, or paced by them); their negative "
                                         "shares are not a cost"}};
    const auto add = [&](const char* name, double v) { sc.add_metric(d, name, single_value(v)); };
    add("share/softmax_pct", s.softmax_pct);
    add("share/qk_mma_pct", s.qk_pct);
    add("share/pv_mma_pct", s.pv_pct);
    add("share/mma_pct", s.mma_pct);
    add("share/memory_pct", s.memory_pct);
    add("share/sum_pct", s.sum_pct);
    add("share/exp2_poly_extra_pct", s.exp2_poly_extra_pct);
    add("cycles/per_kv_tile", cyc.full);
    add("cycles/softmax_per_kv_tile", cyc.full - cyc.no_softmax);
    add("cycles/mma_per_kv_tile", (cyc.full - cyc.no_qk) + (cyc.full - cyc.no_pv));
    add("cycles/exp2_poly_minus_mufu_per_kv_tile", cyc.poly_exp2 - cyc.full);
  }
}

// Per (head_dim, causal, seq) with every schedule measured: what each step of the schedule buys
// (analysis/attention_reference: attention_schedule_gains), from the median times.
void summarize_fwd(SummaryContext& sc) {
  for (const Params& g : groups_by(sc, "schedule", "simple")) {
    const std::vector<const Record*> srcs = group_records(sc, g, "schedule", kSchedules, "time/us");
    if (srcs.empty()) continue;
    double times[std::size(kSchedules)] = {};
    for (std::size_t i = 0; i < srcs.size(); ++i) times[i] = srcs[i]->metric("time/us")->value();
    static_assert(std::size(kSchedules) == 5, "AttentionScheduleTimes holds five schedules, in the table's order");
    const AttentionScheduleGains gains = attention_schedule_gains({times[0], times[1], times[2], times[3], times[4]});
    Record& d = derive_group(sc, g, "schedule", "gains", srcs, kSchedules);
    const std::pair<const char*, double> speedups[] = {
        {"speedup/ws_over_simple", gains.ws},   {"speedup/pingpong_over_ws", gains.pingpong},
        {"speedup/pipelined_over_ws", gains.pipelined}, {"speedup/fa3_over_ws", gains.fa3},
        {"speedup/fa3_over_simple", gains.total}, {"speedup/overlap_interaction", gains.interaction}};
    for (const auto& [name, v] : speedups) sc.add_metric(d, name, single_value(v));
  }
}

// --- the softmax's parts -------------------------------------------------------------------------
struct PartRow {
  const char* name;
  void (*kernel)(float, float, int, float*, RegionTiming*);
  std::vector<OpcodeExpectation> sass;  // in the timed loop, per tile and thread
};
const PartRow kParts[] = {
    // sm_100a folds pairs of maxima into three-input FMNMX3: there only the two FMNMX of the running
    // maxima remain, so the count asked of FMNMX is that, and the quad's shuffles.
    {"row_max", softmax_part_kernel<SoftmaxPart::RowMax>, {{"FMNMX", 2, -1}, {"SHFL.BFLY", 4, -1}}},
    {"exp2", softmax_part_kernel<SoftmaxPart::Exp2>, {{"MUFU.EX2", kS, -1}}},
    {"row_sum", softmax_part_kernel<SoftmaxPart::RowSum>, {{"FADD", kS, -1}, {"SHFL.BFLY", 4, -1}}},
    {"rescale", softmax_part_kernel<SoftmaxPart::Rescale>, {{"FMUL", kS, -1}}},
};

// One part: a CTA of the main kernel's 256 threads alone on an SM, chains of 64 to 512 tiles;
// the slope is the part's cycles per tile.
void run_softmax_part(ProbeContext& ctx) {
  const PartRow& part = row_named(kParts, ctx.str_param("part"), "softmax part");
  std::mt19937 rng(std::random_device{}());
  const float spread = 0.3f + 0.1f * std::uniform_real_distribution<float>(0.f, 1.f)(rng);
  DeviceBuffer<float> sink(1);
  const std::vector<std::int64_t> lengths{64, 128, 256, 512};
  const ChainLatency lat = measure_launched_chain(ctx, lengths, [&](std::int64_t tiles, RegionTiming* timing) {
    launch(ctx, part.kernel, {dim3(1), dim3(kThreads)}, spread, float(1.4426950408889634 / std::sqrt(128.0)), int(tiles),
           sink.get(), timing);
  });
  emit_chain_latency(ctx, lat);
  ctx.extra()["tile"] = "128 query rows x 128 keys, 64 values a thread in 256 threads (the attention kernel's layout)";
}

// --- registration ---------------------------------------------------------------------------------
Requirements attention_requirements() {
  Requirements q;  // wgmma is sm_90a-only: sm_100a (tcgen05) and sm_120a (mma.sync) would need other kernels
  q.min_cc = 90;
  q.max_cc = 90;
  q.features = {Feature::Wgmma, Feature::Tma, Feature::Setmaxnreg};  // setmaxnreg: the warp-specialized schedules
  return q;
}

// Per variant, schedule and head dimension: its HGMMA in the timed loop; MUFU.EX2 where the
// exponential runs on the SFU, none where it is a polynomial or gone; no local memory anywhere in
// the kernel. The warp-specialized kernels also change their register budgets (two USETMAXREG)
// and hand turns over with named barriers (BAR.ARV; the ping-pong is a run-time switch).
std::vector<SassExpectation> attention_sass(bool only_full) {
  std::vector<SassExpectation> v;
  const auto add = [&](const std::string& glob, const VariantRow& r, bool ws) {
    std::vector<OpcodeExpectation> req = {{"HGMMA", r.hgmma_min, -1}};
    std::vector<std::string> forbid = {"LDL", "STL"};
    if (r.exp_on_mufu) req.push_back({"MUFU.EX2", 1, -1});
    else forbid.push_back("MUFU.EX2");
    v.push_back(expect_sass(glob, SassRegion::Clocked, req, forbid));
    std::vector<OpcodeExpectation> whole = {{"HGMMA", r.hgmma_min, -1}};
    if (ws) {
      whole.push_back({"USETMAXREG", 2, -1});
      whole.push_back({"BAR.ARV", 1, -1});
    }
    v.push_back(expect_sass(glob, SassRegion::Whole, whole, {"LDL", "STL"}));
  };
  for (const VariantRow& r : kVariants) {
    if (only_full && r.stage != Stage::Full) continue;
    const std::string stage = "Stage)" + std::to_string(int(r.stage));
    add("*attention_fwd_kernel<*" + stage + ">*", r, false);
    add("*attention_ws_kernel<*" + stage + ", true>*", r, true);
  }
  add("*attention_ws_kernel<*Stage)0, false>*", kVariants[0], true);
  v.push_back(expect_sass("*attention_random_inputs_kernel*", SassRegion::Whole, {{"STG", 1, -1}}));
  return v;
}

std::vector<MetricSpec> point_metrics() {
  return {{"time/us", "us", "one forward pass, CUDA events around the launch"},
          {"cycles/per_kv_tile", "cycles", "a CTA's clock64 cycles over its K/V tiles (128 query rows x 128 keys)"},
          {"throughput/tflops", "TFLOPS", "4 B H N^2 d (halved when causal) over the median time"},
          {"throughput/percent_of_peak", "%", "of the per-clock f16 tensor rate (analysis/tensor_rate) at the observed clock"},
          {"throughput/peak_tflops_at_clock", "TFLOPS", "the per-clock f16 tensor rate at the observed clock"}};
}

// head_dim x causal x seq x schedule; --quick keeps the listed values.
std::vector<Axis> shape_axes(std::vector<std::int64_t> quick_head_dims, std::vector<std::int64_t> quick_causal,
                             std::vector<std::int64_t> seqs, std::vector<std::int64_t> quick_seqs,
                             std::vector<std::string> schedules, std::vector<std::string> quick_schedules) {
  std::vector<ParamValue> quick_sch(quick_schedules.begin(), quick_schedules.end());
  return {std::move(Axis::list("head_dim", {64, 128})).quick(std::move(quick_head_dims)),
          std::move(Axis::list("causal", {0, 1})).quick(std::move(quick_causal)),
          std::move(Axis::list("seq", std::move(seqs))).quick(std::move(quick_seqs)),
          std::move(Axis::list("schedule", std::move(schedules))).quick_list(std::move(quick_sch))};
}

ProbeSpec fwd_spec() {
  ProbeSpec s;
  s.id = "attention.fwd";
  s.description = "fused attention forward (wgmma + TMA + online softmax), f16, checked: time, TFLOPS, % of tensor peak";
  s.needs = attention_requirements();
  s.axes = shape_axes({64, 128}, {0, 1}, {1024, 2048, 4096, 8192, 16384}, {1024, 4096}, row_names(kSchedules),
                      {"simple", "fa3"});
  s.sass = attention_sass(true);
  s.metrics = point_metrics();
  s.metrics.insert(s.metrics.end(), {
           {"speedup/ws_over_simple", "x", "simple / ws time: the producer warpgroup and per-stage release alone"},
           {"speedup/pingpong_over_ws", "x", "ws / pingpong time: consumers taking turns at the tensor cores"},
           {"speedup/pipelined_over_ws", "x", "ws / pipelined time: softmax under the previous tile's P V"},
           {"speedup/fa3_over_ws", "x", "ws / fa3 time: both overlaps"},
           {"speedup/fa3_over_simple", "x", "simple / fa3 time"},
           {"speedup/overlap_interaction", "x", "fa3_over_ws / (pingpong_over_ws x pipelined_over_ws): 1 when the overlaps add up"}});
  s.run = run_fwd;
  s.summarize = summarize_fwd;
  s.views = {line_view("seq", "throughput/tflops")};
  s.time_cap_s = 40;
  s.quick_time_cap_s = 6;
  return s;
}

ProbeSpec breakdown_spec() {
  ProbeSpec s;
  s.id = "attention.breakdown";
  s.description = "the attention kernel with one stage left out per variant: each stage's measured share of the time";
  s.needs = attention_requirements();
  // The breakdown runs under the simple schedule and FA3's (the kernels of the other
  // warp-specialized schedules are built for the full variant only).
  s.axes = shape_axes({128}, {0}, {4096}, {2048}, {"simple", "fa3"}, {"simple", "fa3"});
  s.axes.push_back(Axis::list("variant", row_names(kVariants)));
  s.sass = attention_sass(false);
  s.metrics = point_metrics();
  s.metrics.insert(s.metrics.end(), {
           {"share/softmax_pct", "%", "(full - no_softmax) / full"},
           {"share/qk_mma_pct", "%", "(full - no_qk) / full"},
           {"share/pv_mma_pct", "%", "(full - no_pv) / full"},
           {"share/mma_pct", "%", "the two MMA shares added"},
           {"share/memory_pct", "%", "(full - no_load) / full"},
           {"share/sum_pct", "%", "softmax + MMA + memory shares (below 100: stages overlap or other work)"},
           {"share/exp2_poly_extra_pct", "%", "(poly_exp2 - full) / full: the polynomial exp2's extra time"},
           {"cycles/softmax_per_kv_tile", "cycles", "full minus no_softmax, per K/V tile"},
           {"cycles/mma_per_kv_tile", "cycles", "full minus no_qk plus full minus no_pv, per K/V tile"},
           {"cycles/exp2_poly_minus_mufu_per_kv_tile", "cycles", "poly_exp2 minus full, per K/V tile"}});
  s.run = run_breakdown;
  s.summarize = summarize_breakdown;
  ReportView table;  // variants x shapes, with the derived shares: a table reads best
  table.kind = ReportView::Kind::Table;
  table.metric = "time/us";
  // The shares that add up, stacked per shape and schedule (a bars view naming several metrics):
  // under the simple schedule the stages run one after another and the rest is small; under fa3
  // they overlap, which the rest shows.
  s.views = {table, bars_view("share/softmax_pct,share/qk_mma_pct,share/pv_mma_pct,share/memory_pct")};
  // The simple schedule's breakdown: its stages run one after another, so leaving one out takes its
  // whole time away (under fa3 they overlap and the shares do not add up).
  const Params where = {{"head_dim", std::int64_t(128)},
                        {"causal", std::int64_t(0)},
                        {"schedule", std::string("simple")},
                        {"variant", std::string("breakdown")}};
  s.covers = {{"attention.flash.softmax_share", "share/softmax_pct", where},
              {"attention.flash.mma_share", "share/mma_pct", where},
              {"attention.flash.softmax_cycles", "cycles/softmax_per_kv_tile", where},
              {"attention.flash.mma_cycles", "cycles/mma_per_kv_tile", where}};
  s.time_cap_s = 30;
  s.quick_time_cap_s = 5;
  return s;
}

ProbeSpec softmax_parts_spec() {
  ProbeSpec s;
  s.id = "attention.softmax_parts";
  s.description = "each part of the attention kernel's online softmax (row max, exp2, row sum, O rescale) alone on "
                  "a 128 x 128 tile in registers: cycles per K/V tile";
  s.needs.min_cc = 80;
  s.axes = {Axis::list("part", row_names(kParts))};
  for (const PartRow& r : kParts)
    s.sass.push_back(expect_sass("*softmax_part_kernel<*SoftmaxPart)" + std::to_string(&r - kParts) + ">*",
                                 SassRegion::Clocked, r.sass, {"LDL", "STL"}));
  s.metrics = chain_latency_metrics("cycles per 128 x 128 tile: one CTA of 8 warps, the part alone (chain slope over tiles)");
  s.run = run_softmax_part;
  const auto at = [](const char* part) { return Params{{"part", std::string(part)}}; };
  s.covers = {{"attention.flash.rowmax_cycles", "latency/cycles", at("row_max")},
              {"attention.flash.expf_cycles", "latency/cycles", at("exp2")},
              {"attention.flash.rowsum_cycles", "latency/cycles", at("row_sum")},
              {"attention.flash.rescale_cycles", "latency/cycles", at("rescale")}};
  s.time_cap_s = 6;
  s.quick_time_cap_s = 2;
  return s;
}

GD_REGISTER_PROBE(fwd_spec());
GD_REGISTER_PROBE(breakdown_spec());
GD_REGISTER_PROBE(softmax_parts_spec());

}  // namespace probe_attention
}  // namespace gd
