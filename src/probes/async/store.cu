// TMA stores (shared -> global bulk and tensor copies, UBLKCP / UTMASTG): latency to commit
// (source readable again, wait_group.read) against full completion, store bandwidth by depth, and
// a bulk copy into another CTA's shared memory: what an epilogue pays to hand its tile off.
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/chain.hpp"
#include "core/launch.cuh"
#include "core/ptx_async.cuh"
#include "core/registry.hpp"
#include "core/tensor_map.hpp"
#include "core/timing.cuh"
#include "async_common.cuh"
#include "variant_table.cuh"

namespace gd {
namespace probe_store {

constexpr int kUnroll = 4;
constexpr unsigned kTile = 4096;       // bytes staged in shared memory
constexpr unsigned kSlots = 1024;      // destinations cycled through: 4 MiB, L2-resident
constexpr unsigned kBoxX = 32, kBoxY = 32;  // the tensor store's box: 4 KiB of 4-byte elements

// One store and its wait, to destination slot k. Bytes is the bulk size.
template <unsigned Bytes, bool Complete>
struct BulkStore {
  __device__ static void step(char* dst, const CUtensorMap*, unsigned src, unsigned k) {
    ptx::bulk_store(dst + (k % kSlots) * kTile, src, Bytes);
    ptx::bulk_commit();
    if constexpr (Complete) ptx::bulk_wait_all();
    else ptx::bulk_wait_read_all();
  }
};
template <bool Complete>
struct TensorStore {
  __device__ static void step(char*, const CUtensorMap* map, unsigned src, unsigned k) {
    ptx::tensor_store_2d(map, 0, int(k % kSlots) * int(kBoxY), src);
    ptx::bulk_commit();
    if constexpr (Complete) ptx::bulk_wait_all();
    else ptx::bulk_wait_read_all();
  }
};
struct Bulk128Read : BulkStore<128, false> { static constexpr const char *name = "bulk128_read", *tag = "Bulk128Read", *sass = "UBLKCP.G.S+UTMACMDFLUSH+DEPBAR.LE"; };
struct Bulk128Complete : BulkStore<128, true> { static constexpr const char *name = "bulk128_complete", *tag = "Bulk128Complete", *sass = "UBLKCP.G.S+UTMACMDFLUSH+DEPBAR.LE"; };
struct Bulk4kRead : BulkStore<kTile, false> { static constexpr const char *name = "bulk4k_read", *tag = "Bulk4kRead", *sass = "UBLKCP.G.S+UTMACMDFLUSH+DEPBAR.LE"; };
struct Bulk4kComplete : BulkStore<kTile, true> { static constexpr const char *name = "bulk4k_complete", *tag = "Bulk4kComplete", *sass = "UBLKCP.G.S+UTMACMDFLUSH+DEPBAR.LE"; };
struct Tensor4kRead : TensorStore<false> { static constexpr const char *name = "tensor4k_read", *tag = "Tensor4kRead", *sass = "UTMASTG.2D+UTMACMDFLUSH+DEPBAR.LE"; };
struct Tensor4kComplete : TensorStore<true> { static constexpr const char *name = "tensor4k_complete", *tag = "Tensor4kComplete", *sass = "UTMASTG.2D+UTMACMDFLUSH+DEPBAR.LE"; };

template <class Op>
__global__ void store_chain_kernel(char* dst, const __grid_constant__ CUtensorMap map, int trips, unsigned* out,
                                   RegionTiming* timing) {
  __shared__ alignas(1024) unsigned tile[kTile / 4];
  for (unsigned i = threadIdx.x; i < kTile / 4; i += blockDim.x) tile[i] = i * 2654435761u + unsigned(trips);
  ptx::fence_proxy_async_shared();  // the tile's generic writes before the async proxy reads it
  __syncthreads();
  if (threadIdx.x != 0) return;
  const unsigned src = ptx::smem_u32(tile);
  unsigned k = 0;
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int i = 0; i < trips; ++i) {
#pragma unroll
    for (int j = 0; j < kUnroll; ++j, ++k) Op::step(dst, &map, src, k);
  }
  const RegionTiming t = clock.end();
  out[0] = k;
  timing[0] = t;
}

using Stores = async::VariantTable<Bulk128Read, Bulk128Complete, Bulk4kRead, Bulk4kComplete, Tensor4kRead, Tensor4kComplete>;

void run_store_latency(ProbeContext& ctx) {
  async::require_sm90_code(ctx);
  const std::string op = ctx.str_param("store");
  DeviceBuffer<char> dst(std::size_t(kSlots) * kTile);
  TiledTensorMapSpec spec;
  spec.rank = 2;
  spec.base = dst.get();
  spec.dims = {kBoxX, std::uint64_t(kSlots) * kBoxY, 1, 1, 1};
  spec.strides = {0, kBoxX * 4, 0, 0, 0};
  spec.box = {kBoxX, kBoxY, 1, 1, 1};
  const CUtensorMap map = encode_tiled_tensor_map(spec);
  DeviceBuffer<unsigned> out(1);
  DeviceBuffer<RegionTiming> timing(1);
  const auto chain = [&](std::int64_t steps) {
    Stores::with(op, [&](auto o) {
      launch(ctx, store_chain_kernel<decltype(o)>, {1, 128}, dst.get(), map, int(steps / kUnroll), out.get(), timing.get());
    });
    GD_CUDA_CHECK_LAUNCH();
    // The last slot written holds the tile: word i of the tile is i * 2654435761 + trips.
    std::vector<unsigned> got(2);
    const unsigned k = unsigned(steps - 1) % kSlots;
    GD_CUDA_CHECK(cudaMemcpy(got.data(), dst.get() + std::size_t(k) * kTile + 4, 8, cudaMemcpyDeviceToHost));
    const unsigned trips = unsigned(steps / kUnroll);
    if (got[0] != 2654435761u + trips) throw Error(op + ": the stored tile is not the shared-memory tile");
    return timing.to_host()[0];
  };
  RepeatPolicy policy;
  policy.target_rel_ci = 0.01;
  policy.time_cap_s = 0.4;
  const std::vector<std::int64_t> lengths{128, 256, 512, 1024};
  emit_chain_latency(ctx, measure_chain_latency(ctx, lengths, chain, policy));
}

ProbeSpec store_latency_spec() {
  ProbeSpec s;
  s.id = "async.store.latency";
  s.description = "TMA store (bulk 128 B / 4 KiB, 2D tensor 4 KiB) latency to commit (wait_group.read) and to completion";
  s.needs.min_cc = 90;
  s.needs.features = {Feature::Tma};
  s.axes = {Axis::list("store", Stores::names())};
  s.sass = Stores::sass("store_chain_kernel", SassRegion::Clocked, kUnroll);
  s.metrics = chain_latency_metrics("cycles from issuing one store to its wait returning (chain slope)");
  s.covers = {{"async.tma.store.latency_issue", "latency/cycles", {{"store", std::string("tensor4k_read")}}},
              {"async.tma.store.latency_complete", "latency/cycles", {{"store", std::string("tensor4k_complete")}}}};
  s.run = run_store_latency;
  s.time_cap_s = 4;
  s.quick_time_cap_s = 2;
  return s;
}

GD_REGISTER_PROBE(store_latency_spec());

// --- bandwidth: each CTA streams its tile to fresh DRAM, keeping Depth stores reading ---------
template <int Depth>
__global__ void __launch_bounds__(32) store_stream_kernel(char* dst, unsigned chunk, int trips, RegionTiming* timing) {
  extern __shared__ __align__(128) unsigned staged[];
  BlockClock clock;
  clock.begin();
  for (unsigned i = threadIdx.x; i < chunk / 4; i += blockDim.x) staged[i] = i ^ blockIdx.x;
  ptx::fence_proxy_async_shared();
  __syncwarp();
  if (threadIdx.x == 0) {
    const unsigned src = ptx::smem_u32(staged);
    for (int t = 0; t < trips; ++t) {
      ptx::bulk_store(dst + ((unsigned long long)t * gridDim.x + blockIdx.x) * chunk, src, chunk);
      ptx::bulk_commit();
      ptx::bulk_wait_read<Depth - 1>();
    }
    ptx::bulk_wait_all();
  }
  clock.end(timing);
}

void run_store_bandwidth(ProbeContext& ctx) {
  async::require_sm90_code(ctx);
  const DeviceInfo& d = ctx.device();
  const int depth = int(ctx.int_param("depth"));
  const unsigned chunk = unsigned(ctx.int_param("chunk_bytes"));
  const auto kernel = depth == 1 ? store_stream_kernel<1> : depth == 4 ? store_stream_kernel<4> : depth == 16 ? store_stream_kernel<16> : nullptr;
  if (!kernel) throw UserError("depth must be 1, 4 or 16");
  GD_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(chunk)));
  const unsigned blocks = ctx.sized(unsigned(d.sm_count * 2), 4u);
  const long long buffer = async::stream_source(ctx, "dram").buffer_bytes;
  const long long per_trip = (long long)blocks * chunk;
  const long long bytes = async::launch_bytes(ctx, "dram", double(per_trip) * depth, per_trip, 4, buffer);
  const int trips = int(bytes / per_trip);
  DeviceBuffer<char> dst{std::size_t(bytes)};
  DeviceBuffer<RegionTiming> timing(blocks);
  const LaunchShape shape{blocks, 32, chunk};
  const auto stream = [&] { launch(ctx, kernel, shape, dst.get(), chunk, trips, timing.get()); };
  const Summary tbps =
      measure_event_timed(ctx, stream, [&](double s) { return double(bytes) / s / 1e12; }, async::stream_policy()).summary;
  unsigned got = 0;
  const unsigned b = blocks - 1;
  GD_CUDA_CHECK(cudaMemcpy(&got, dst.get() + ((long long)(trips - 1) * blocks + b) * chunk + 8, 4, cudaMemcpyDeviceToHost));
  if (got != (2u ^ b)) throw Error("the bulk stores wrote other bytes than the staged tile");
  ctx.set_observed_sm_clock_mhz(clock_mhz(timing.to_host()),
                                "clock64 over %globaltimer, read by thread 0 of every block of the last timed launch");
  ctx.metric("bandwidth/tbps", tbps);
  ctx.metric("inflight/bytes_per_sm", 2.0 * depth * chunk);
  ctx.extra()["bytes_per_launch"] = bytes;
}

ProbeSpec store_bandwidth_spec() {
  ProbeSpec s;
  s.id = "async.store.bandwidth";
  s.description = "TMA bulk store (shared -> global) write bandwidth to DRAM by stores in flight (wait_group.read depth)";
  s.needs.min_cc = 90;
  s.needs.features = {Feature::Tma};
  s.axes = {std::move(Axis::list("depth", {1, 4, 16})).quick({4}), Axis::list("chunk_bytes", {4096, 16384})};
  for (const std::string n : {"1", "4", "16"})
    s.sass.push_back(expect_sass("*store_stream_kernel<" + n + ">*", SassRegion::Whole, {{"UBLKCP.G.S", 1, -1}, {"UTMACMDFLUSH", 1, -1}, {"DEPBAR.LE", 1, -1}}));
  s.metrics = {{"bandwidth/tbps", "TB/s", "bytes stored per second (10^12)"},
               {"inflight/bytes_per_sm", "B", "bytes of stores allowed in flight per SM (2 CTAs x depth x chunk)"}};
  s.run = run_store_bandwidth;
  s.time_cap_s = 6;
  s.quick_time_cap_s = 2;
  return s;
}

GD_REGISTER_PROBE(store_bandwidth_spec());

}  // namespace probe_store
}  // namespace gd
