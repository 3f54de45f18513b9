// The warp-specialized producer/consumer kernel's shape and its CPU reference (probes/sass/
// setmaxnreg.cu): which tiles each consumer warp group takes and what each consumer lane computes.
#pragma once
#include <cmath>
#include <cstring>
#include <vector>

namespace gd::warp_specialized {

inline constexpr int kStages = 4, kTileFloats = 128 * 16;
inline constexpr unsigned kTileBytes = kTileFloats * 4;

template <int C>
struct WsShape;
template <>
struct WsShape<1> {  // two CTAs an SM: 128 registers a thread at launch, 40 + 216 after
  static constexpr int threads = 256, ctas_per_sm = 2, producer_regs = 40, consumer_regs = 216, acc = 176;
};
template <>
struct WsShape<2> {  // one CTA an SM: 168 at launch, 40 + 232 + 232 after
  static constexpr int threads = 384, ctas_per_sm = 1, producer_regs = 40, consumer_regs = 232, acc = 192;
};

// The same arithmetic on host and device, so the host checks every consumer lane bit for bit.
__host__ __device__ __forceinline__ float ws_acc_init(int j, int lane) { return float(j) * 0.00390625f + float(lane) * 1.52587890625e-05f; }

// The source tile CTA `cta` streams as its t-th of `tiles` (the producer's order).
__host__ __device__ __forceinline__ long long ws_tile(int cta, int tiles, int t, int src_tiles) {
  return (static_cast<long long>(cta) * tiles + t) % src_tiles;
}

// What consumer lane `lane` of consumer group `c` must end with in CTA `cta`.
template <int C>
unsigned ws_reference(const std::vector<float>& src, int src_tiles, int tiles_per_consumer, int cta, int c, int lane) {
  constexpr int A = WsShape<C>::acc;
  float acc[A];
  for (int j = 0; j < A; ++j) acc[j] = ws_acc_init(j, lane);
  const int tiles = tiles_per_consumer * C;
  for (int t = c; t < tiles; t += C) {
    const float* tile = &src[std::size_t(ws_tile(cta, tiles, t, src_tiles)) * kTileFloats];
    for (int k = 0; k < 4; ++k) {
      const float* q = tile + (k * 128 + lane) * 4;
      for (int j = 0; j < A; ++j) acc[j] = std::fma(acc[j], q[0], q[1]);
      for (int j = 0; j < A; ++j) acc[j] = std::fma(acc[j], q[2], q[3]);
    }
  }
  unsigned x = 0;
  for (int j = 0; j < A; ++j) {
    unsigned b;
    std::memcpy(&b, &acc[j], 4);
    x ^= b * unsigned(2 * j + 1);
  }
  return x;
}

}  // namespace gd::warp_specialized
