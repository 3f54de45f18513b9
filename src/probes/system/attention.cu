// A fused attention forward kernel of our own (sm_90a: TMA, wgmma, online softmax on MUFU.EX2) and
// its leave-one-out breakdown: where a FlashAttention-style kernel's time goes on this chip.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <cuda_fp16.h>

#include "analysis/attention_reference.hpp"
#include "analysis/tensor_rate.hpp"
#include "core/device_buffer.hpp"
#include "core/launch.cuh"
#include "core/ptx.cuh"
#include "core/ptx_async.cuh"
#include "core/ptx_attention.cuh"
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
// mbarriers (Q, then K full per stage, then V full per stage). A head dimension of 128 is two
// 64-column boxes, each a column of 128-byte swizzle atoms, one after the other.
template <int HD>
struct Smem {
  static constexpr int kStages = HD == 64 ? 4 : 3;  // 144 KiB and 225 KiB: one CTA per SM
  static constexpr int kBoxes = HD / kBoxCols;
  static constexpr unsigned kQBytes = kBlockM * HD * 2;
  static constexpr unsigned kTileBytes = kBlockN * HD * 2;  // one K or V tile
  static constexpr unsigned kK = kQBytes;
  static constexpr unsigned kV = kK + kStages * kTileBytes;
  static constexpr unsigned kBars = kV + kStages * kTileBytes;
  static constexpr unsigned kBytes = kBars + 8 * (1 + 2 * kStages) + 1024;  // + alignment slack
};

struct FwdArgs {
  __half* o;             // [bh][seq][HD]
  RegionTiming* timing;  // one per CTA
  int seq, bh, q_tiles;
  int causal;
  float scale_log2;      // log2(e) / sqrt(HD)
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

// One CTA: 128 query rows of one (batch, head), both warpgroups looping over the K/V tiles (all of
// them, or up to the diagonal when causal). Thread 0 issues the TMA loads into a ring of kStages
// K and V tiles. Per tile and warpgroup: S = Q K^T (wgmma m64n128k16, both from shared memory),
// the online softmax on S's registers (running max, exp2, rescale of O), then O += P V (wgmma with
// P from registers, V MN-major). CTAs are ordered longest first (causal tiles near the end of the
// sequence see the most keys).
template <int HD, Stage V>
__global__ void __launch_bounds__(kThreads, 1)
    attention_fwd_kernel(const __grid_constant__ CUtensorMap q_map, const __grid_constant__ CUtensorMap k_map,
                         const __grid_constant__ CUtensorMap v_map, FwdArgs a) {
#if GD_WGMMA
  using L = Smem<HD>;
  using wgmma::Swizzle;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const unsigned raw = ptx::smem_u32(smem_raw);
  const unsigned base = (raw + 1023) & ~1023u;
  const unsigned q_s = base, k_s = base + L::kK, v_s = base + L::kV, bars = base + L::kBars;
  const auto k_bar = [&](int s) { return bars + 8u * unsigned(1 + s); };
  const auto v_bar = [&](int s) { return bars + 8u * unsigned(1 + L::kStages + s); };

  const int bh = int(blockIdx.x) % a.bh;
  const int q_tile = a.q_tiles - 1 - int(blockIdx.x) / a.bh;
  const int kv_tiles = a.causal ? q_tile + 1 : a.seq / kBlockN;
  const int head_row = bh * a.seq;  // the head's first row in the [bh x seq, HD] tensors
  const unsigned tid = threadIdx.x, wg = tid / 128, warp = (tid / 32) % 4, lane = tid % 32;

  const auto load_kv = [&](int stage, int tile) {
    const int row = head_row + tile * kBlockN;
    ptx::mbarrier_arrive_expect_tx(k_bar(stage), L::kTileBytes);
#pragma unroll
    for (int c = 0; c < L::kBoxes; ++c)
      ptx::tensor_load<2>(k_s + stage * L::kTileBytes + c * kBlockN * 128, &k_map, k_bar(stage), c * kBoxCols, row);
    ptx::mbarrier_arrive_expect_tx(v_bar(stage), L::kTileBytes);
#pragma unroll
    for (int c = 0; c < L::kBoxes; ++c)
      ptx::tensor_load<2>(v_s + stage * L::kTileBytes + c * kBlockN * 128, &v_map, v_bar(stage), c * kBoxCols, row);
  };

  if (tid == 0) {
    ptx::mbarrier_init(bars, 1);
    for (int s = 0; s < L::kStages; ++s) {
      ptx::mbarrier_init(k_bar(s), 1);
      ptx::mbarrier_init(v_bar(s), 1);
    }
    ptx::fence_mbarrier_init();
  }
  __syncthreads();
  BlockClock clock;
  clock.begin();
  if (tid == 0) {
    ptx::mbarrier_arrive_expect_tx(bars, L::kQBytes);
#pragma unroll
    for (int c = 0; c < L::kBoxes; ++c)
      ptx::tensor_load<2>(q_s + c * kBlockM * 128, &q_map, bars, c * kBoxCols, head_row + q_tile * kBlockM);
    const int first = V == Stage::NoLoad ? 1 : min(L::kStages, kv_tiles);
    for (int t = 0; t < first; ++t) load_kv(t, t);
  }

  constexpr int kS = kBlockN / 2;  // S accumulators per thread (m64n128, f32)
  constexpr int kO = HD / 2;       // O accumulators per thread
  float s[kS], o[kO];
  std::uint32_t p[kBlockN / 16][4];  // P as the A fragments of the kBlockN / 16 K steps of P V
#pragma unroll
  for (int i = 0; i < kO; ++i) o[i] = 0.f;
  if constexpr (V == Stage::NoQK) {
    // S from registers the compiler cannot see through (fence_operand each tile): a spread of
    // logits like a real S, so the softmax does the same work.
#pragma unroll
    for (int i = 0; i < kS; ++i) s[i] = 0.37f * float((tid * 7 + i * 13) % 17) - 3.f;
  }
  float m0 = -INFINITY, m1 = -INFINITY, l0 = 0.f, l1 = 0.f;  // rows r and r + 8 of this thread
  const int row_in_tile = int(wg) * 64 + int(warp) * 16 + int(lane / 4);
  const unsigned q_wg = q_s + wg * 64 * 128;  // this warpgroup's 64 rows in each atom column

  ptx::mbarrier_wait_parity(bars, 0);
  for (int t = 0; t < kv_tiles; ++t) {
    const int stage = V == Stage::NoLoad ? 0 : t % L::kStages;
    const unsigned parity = V == Stage::NoLoad ? 0u : unsigned(t / L::kStages) & 1u;
    const unsigned ks = k_s + stage * L::kTileBytes, vs = v_s + stage * L::kTileBytes;
    ptx::mbarrier_wait_parity(k_bar(stage), parity);
    if constexpr (V != Stage::NoQK) {
      wgmma::fence();
#pragma unroll
      for (int kk = 0; kk < HD / 16; ++kk)
        wgmma::f16f32_ss_scale_d<kBlockN>(s, wgmma::kmajor_desc(q_wg, 32 * kk, kBlockM, Swizzle::B128),
                                          wgmma::kmajor_desc(ks, 32 * kk, kBlockN, Swizzle::B128), kk > 0);
      wgmma::commit_group();
      wgmma::wait_group<0>();
    }
#pragma unroll
    for (int i = 0; i < kS; ++i) wgmma::fence_operand(s[i]);

    // The diagonal tile of a causal CTA: keys after the row are masked.
    if (a.causal && t == q_tile) {
#pragma unroll
      for (int j = 0; j < kBlockN / 8; ++j)
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const int col = 8 * j + 2 * int(lane % 4) + (q & 1), row = row_in_tile + 8 * (q >> 1);
          if (col > row) s[4 * j + q] = -INFINITY;
        }
    }

    if constexpr (V == Stage::NoSoftmax) {
#pragma unroll
      for (int j = 0; j < kBlockN / 8; ++j) {
        p[j / 2][2 * (j % 2)] = pack_f16x2(s[4 * j], s[4 * j + 1]);
        p[j / 2][2 * (j % 2) + 1] = pack_f16x2(s[4 * j + 2], s[4 * j + 3]);
      }
    } else {
      float mx0 = -INFINITY, mx1 = -INFINITY;
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
      const float n0 = fmaxf(m0, mx0 * a.scale_log2), n1 = fmaxf(m1, mx1 * a.scale_log2);
      const float c0 = exp2_of<V>(m0 - n0), c1 = exp2_of<V>(m1 - n1);
      m0 = n0;
      m1 = n1;
      float r0 = 0.f, r1 = 0.f;  // this thread's part of the row sums; the quad adds them at the end
#pragma unroll
      for (int j = 0; j < kBlockN / 8; ++j) {
        const float e0 = exp2_of<V>(fmaf(s[4 * j], a.scale_log2, -n0));
        const float e1 = exp2_of<V>(fmaf(s[4 * j + 1], a.scale_log2, -n0));
        const float e2 = exp2_of<V>(fmaf(s[4 * j + 2], a.scale_log2, -n1));
        const float e3 = exp2_of<V>(fmaf(s[4 * j + 3], a.scale_log2, -n1));
        r0 += e0 + e1;
        r1 += e2 + e3;
        p[j / 2][2 * (j % 2)] = pack_f16x2(e0, e1);
        p[j / 2][2 * (j % 2) + 1] = pack_f16x2(e2, e3);
      }
      l0 = fmaf(l0, c0, r0);
      l1 = fmaf(l1, c1, r1);
#pragma unroll
      for (int j = 0; j < HD / 8; ++j) {
        o[4 * j] *= c0;
        o[4 * j + 1] *= c0;
        o[4 * j + 2] *= c1;
        o[4 * j + 3] *= c1;
      }
    }

    ptx::mbarrier_wait_parity(v_bar(stage), parity);
    if constexpr (V != Stage::NoPV) {
#pragma unroll
      for (int i = 0; i < kO; ++i) wgmma::fence_operand(o[i]);
      wgmma::fence();
#pragma unroll
      for (int kk = 0; kk < kBlockN / 16; ++kk)
        wgmma::F16F32TransB::mma<HD, true>(
            o, p[kk], 0, wgmma::mn_major_desc_b128(vs + kk * 16 * 128, kBlockN * 128, 1024), 0);
      wgmma::commit_group();
      wgmma::wait_group<0>();
#pragma unroll
      for (int i = 0; i < kO; ++i) wgmma::fence_operand(o[i]);
    } else {
      // P stays live and O stays unknown (its rescale is softmax work), at no instruction's cost.
#pragma unroll
      for (int kk = 0; kk < kBlockN / 16; ++kk)
#pragma unroll
        for (int r = 0; r < 4; ++r) wgmma::fence_operand(p[kk][r]);
#pragma unroll
      for (int i = 0; i < kO; ++i) wgmma::fence_operand(o[i]);
    }
    // Both warpgroups are done with the stage: thread 0 refills it.
    __syncthreads();
    if (V != Stage::NoLoad && tid == 0 && t + L::kStages < kv_tiles) load_kv(stage, t + L::kStages);
  }
  clock.end(a.timing);

  l0 += __shfl_xor_sync(0xffffffffu, l0, 1);
  l0 += __shfl_xor_sync(0xffffffffu, l0, 2);
  l1 += __shfl_xor_sync(0xffffffffu, l1, 1);
  l1 += __shfl_xor_sync(0xffffffffu, l1, 2);
  const float inv0 = V == Stage::NoSoftmax ? 1.f : 1.f / l0, inv1 = V == Stage::NoSoftmax ? 1.f : 1.f / l1;
  const std::size_t row0 = std::size_t(head_row) + std::size_t(q_tile) * kBlockM + std::size_t(row_in_tile);
  std::uint32_t* out0 = reinterpret_cast<std::uint32_t*>(a.o + row0 * HD);
  std::uint32_t* out1 = reinterpret_cast<std::uint32_t*>(a.o + (row0 + 8) * HD);
#pragma unroll
  for (int j = 0; j < HD / 8; ++j) {
    const unsigned col2 = 4 * j + lane % 4;  // (8 j + 2 (lane % 4)) / 2: the half2 index
    out0[col2] = pack_f16x2(o[4 * j] * inv0, o[4 * j + 1] * inv0);
    out1[col2] = pack_f16x2(o[4 * j + 2] * inv1, o[4 * j + 3] * inv1);
  }
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
namespace {

using namespace attention_fwd;

// --- the variants ---------------------------------------------------------------------------
using FwdKernel = void (*)(CUtensorMap, CUtensorMap, CUtensorMap, FwdArgs);

struct VariantRow {
  const char* name;  // axis value
  Stage stage;
  FwdKernel hd64, hd128;
  bool computes_attention;  // its output is softmax(QK^T/sqrt(d))V and is checked
  bool exp_on_mufu;         // MUFU.EX2 expected in the timed loop (else forbidden)
  int hgmma_min;            // wgmma per tile in the loop: QK^T's and P V's that remain
};
template <Stage V>
constexpr VariantRow variant(const char* name, bool attention, bool mufu, int hgmma_min) {
  return {name, V, attention_fwd_kernel<64, V>, attention_fwd_kernel<128, V>, attention, mufu, hgmma_min};
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

const VariantRow& variant_named(const std::string& name) {
  for (const VariantRow& v : kVariants)
    if (name == v.name) return v;
  std::string all;
  for (const VariantRow& v : kVariants) all += std::string(all.empty() ? "" : ", ") + v.name;
  throw UserError("unknown attention variant '" + name + "' (one of " + all + ")");
}

std::vector<std::string> variant_names() {
  std::vector<std::string> v;
  for (const VariantRow& r : kVariants) v.push_back(r.name);
  return v;
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
  const DeviceInfo& dev = ctx.device();
  const FwdKernel kernel = p.hd == 64 ? var.hd64 : var.hd128;
  const std::size_t smem = p.hd == 64 ? Smem<64>::kBytes : Smem<128>::kBytes;
  if (std::int64_t(smem) > dev.shared_per_block_optin)
    ctx.skip("the kernel needs " + std::to_string(smem) + " bytes of shared memory per block; the chip allows " +
             std::to_string(dev.shared_per_block_optin));
  GD_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));

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
                     float(1.4426950408889634 / std::sqrt(double(p.hd)))};
  const auto enqueue = [&] { launch(ctx, kernel, {dim3(blocks), dim3(kThreads), smem}, qm, km, vm, args); };
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
  ctx.extra()["ctas"] = blocks;
  ctx.extra()["tile"] = "128 query rows x 128 keys per CTA and K/V tile; TMA loads, " +
                        std::to_string(p.hd == 64 ? Smem<64>::kStages : Smem<128>::kStages) + "-stage ring";
}

void run_fwd(ProbeContext& ctx) { run_point(ctx, variant_named("full")); }
void run_breakdown(ProbeContext& ctx) { run_point(ctx, variant_named(ctx.str_param("variant"))); }

// Per (head_dim, causal, seq): each stage's share of the full kernel's time, from the variants
// that leave it out, and the cycles per K/V tile they save. The SM clock differs between variants
// (each draws its own power), so the shares from cycles per tile, which take the clock out, are
// kept beside them in extra.shares_by_cycles_pct, with each variant's clock in extra.sm_clock_mhz.
void summarize_breakdown(SummaryContext& sc) {
  std::vector<Params> groups;
  for (const Record* r : sc.ok_records({{"variant", std::string("full")}})) {
    Params g;
    for (const auto& kv : r->params)
      if (kv.first != "variant") g.push_back(kv);
    groups.push_back(g);
  }
  for (const Params& g : groups) {
    const auto find = [&](const char* name) -> const Record* {
      Params where = g;
      where.emplace_back("variant", std::string(name));
      const auto recs = sc.ok_records(where);
      return recs.empty() ? nullptr : recs.front();
    };
    std::vector<const Record*> srcs;
    AttentionStageTimes us, cyc;
    double* fields_us[] = {&us.full, &us.no_softmax, &us.poly_exp2, &us.no_pv, &us.no_qk, &us.no_load};
    double* fields_cyc[] = {&cyc.full, &cyc.no_softmax, &cyc.poly_exp2, &cyc.no_pv, &cyc.no_qk, &cyc.no_load};
    bool complete = true;
    for (std::size_t i = 0; i < std::size(kVariants); ++i) {
      const Record* r = find(kVariants[i].name);
      const Metric* t = r ? r->metric("time/us") : nullptr;
      const Metric* c = r ? r->metric("cycles/per_kv_tile") : nullptr;
      if (!t || !c) {
        complete = false;
        break;
      }
      srcs.push_back(r);
      *fields_us[i] = t->value();
      *fields_cyc[i] = c->value();
    }
    if (!complete) continue;
    const AttentionStageShares s = attention_stage_shares(us);
    const AttentionStageShares by_cycles = attention_stage_shares(cyc);
    Params params = g;
    params.emplace_back("variant", std::string("breakdown"));
    Record& d = sc.derive(params, srcs);
    d.extra["shares_by_cycles_pct"] = {{"softmax", by_cycles.softmax_pct}, {"qk_mma", by_cycles.qk_pct},
                                       {"pv_mma", by_cycles.pv_pct},        {"mma", by_cycles.mma_pct},
                                       {"memory", by_cycles.memory_pct},
                                       {"exp2_poly_extra", by_cycles.exp2_poly_extra_pct}};
    for (std::size_t i = 0; i < srcs.size(); ++i) d.extra["sm_clock_mhz"][kVariants[i].name] = srcs[i]->sm_clock_mhz;
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

// --- registration ---------------------------------------------------------------------------------
Requirements attention_requirements() {
  Requirements q;  // wgmma is sm_90a-only: sm_100a (tcgen05) and sm_120a (mma.sync) would need other kernels
  q.min_cc = 90;
  q.max_cc = 90;
  q.features = {Feature::Wgmma, Feature::Tma};
  return q;
}

// Per variant and head dimension: its HGMMA in the timed loop; MUFU.EX2 where the exponential
// runs on the SFU, none where it is a polynomial or gone; no local memory anywhere in the kernel.
std::vector<SassExpectation> attention_sass(bool only_full) {
  std::vector<SassExpectation> v;
  for (const VariantRow& r : kVariants) {
    if (only_full && r.stage != Stage::Full) continue;
    const std::string glob = "*attention_fwd_kernel<*Stage)" + std::to_string(int(r.stage)) + ">*";
    std::vector<OpcodeExpectation> req = {{"HGMMA", r.hgmma_min, -1}};
    std::vector<std::string> forbid = {"LDL", "STL"};
    if (r.exp_on_mufu) req.push_back({"MUFU.EX2", 1, -1});
    else forbid.push_back("MUFU.EX2");
    v.push_back(expect_sass(glob, SassRegion::Clocked, req, forbid));
    v.push_back(expect_sass(glob, SassRegion::Whole, {{"HGMMA", r.hgmma_min, -1}}, {"LDL", "STL"}));
  }
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

// head_dim x causal x seq; --quick keeps the listed values.
std::vector<Axis> shape_axes(std::vector<std::int64_t> quick_head_dims, std::vector<std::int64_t> quick_causal,
                             std::vector<std::int64_t> seqs, std::vector<std::int64_t> quick_seqs) {
  return {std::move(Axis::list("head_dim", {64, 128})).quick(std::move(quick_head_dims)),
          std::move(Axis::list("causal", {0, 1})).quick(std::move(quick_causal)),
          std::move(Axis::list("seq", std::move(seqs))).quick(std::move(quick_seqs))};
}

ProbeSpec fwd_spec() {
  ProbeSpec s;
  s.id = "attention.fwd";
  s.description = "fused attention forward (wgmma + TMA + online softmax), f16, checked: time, TFLOPS, % of tensor peak";
  s.needs = attention_requirements();
  s.axes = shape_axes({64, 128}, {0, 1}, {1024, 2048, 4096, 8192, 16384}, {1024, 4096});
  s.sass = attention_sass(true);
  s.metrics = point_metrics();
  s.run = run_fwd;
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
  s.axes = shape_axes({128}, {0}, {4096}, {2048});
  s.axes.push_back(Axis::list("variant", variant_names()));
  s.sass = attention_sass(false);
  s.metrics = point_metrics();
  for (MetricSpec m : std::vector<MetricSpec>{
           {"share/softmax_pct", "%", "(full - no_softmax) / full"},
           {"share/qk_mma_pct", "%", "(full - no_qk) / full"},
           {"share/pv_mma_pct", "%", "(full - no_pv) / full"},
           {"share/mma_pct", "%", "the two MMA shares added"},
           {"share/memory_pct", "%", "(full - no_load) / full"},
           {"share/sum_pct", "%", "softmax + MMA + memory shares (below 100: stages overlap or other work)"},
           {"share/exp2_poly_extra_pct", "%", "(poly_exp2 - full) / full: the polynomial exp2's extra time"},
           {"cycles/softmax_per_kv_tile", "cycles", "full minus no_softmax, per K/V tile"},
           {"cycles/mma_per_kv_tile", "cycles", "full minus no_qk plus full minus no_pv, per K/V tile"},
           {"cycles/exp2_poly_minus_mufu_per_kv_tile", "cycles", "poly_exp2 minus full, per K/V tile"}})
    s.metrics.push_back(m);
  s.run = run_breakdown;
  s.summarize = summarize_breakdown;
  ReportView table;  // variants x shapes, with the derived shares: a table reads best
  table.kind = ReportView::Kind::Table;
  table.metric = "time/us";
  s.views = {table};
  const Params where = {{"head_dim", std::int64_t(128)}, {"causal", std::int64_t(0)}, {"variant", std::string("breakdown")}};
  s.covers = {{"attention.flash.softmax_share", "share/softmax_pct", where},
              {"attention.flash.mma_share", "share/mma_pct", where},
              {"attention.flash.softmax_cycles", "cycles/softmax_per_kv_tile", where},
              {"attention.flash.mma_cycles", "cycles/mma_per_kv_tile", where}};
  s.time_cap_s = 30;
  s.quick_time_cap_s = 5;
  return s;
}

GD_REGISTER_PROBE(fwd_spec());
GD_REGISTER_PROBE(breakdown_spec());

}  // namespace
}  // namespace gd
