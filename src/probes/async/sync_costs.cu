// What the bookkeeping around async copies costs: mbarrier init / arrive / expect_tx / try_wait,
// fence.proxy.async, elect.sync, prefetch.tensormap and tensormap.replace, in cycles per
// operation issued back to back by one thread (slope over loop lengths): a pipeline pays these per stage.
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "analysis/chain.hpp"
#include "core/device_buffer.hpp"
#include "core/launch.cuh"
#include "core/ptx_async.cuh"
#include "core/registry.hpp"
#include "core/tensor_map.hpp"
#include "core/timing.cuh"
#include "async_common.cuh"
#include "variant_table.cuh"

namespace gd {
namespace probe_sync_costs {

constexpr int kUnroll = 16;
constexpr unsigned kMaxArrivals = (1u << 20) - 1;  // an mbarrier's largest expected count

// What each operation works on: a barrier that never completes its phase (count kMaxArrivals),
// one whose phase 0 has completed, the kernel's tensor map and a copy of it in global memory.
struct CostState {
  unsigned open_bar, done_bar;
  const CUtensorMap* map;
  CUtensorMap* global_map;
  unsigned long long value;  // run-time operand (an address for tensormap.replace)
};

struct MbarrierInit {
  static constexpr const char* name = "mbarrier_init", *tag = "MbarrierInit", *sass = "SYNCS.EXCH.64";
  __device__ static unsigned op(const CostState& s, unsigned acc) {
    ptx::mbarrier_init(s.open_bar, kMaxArrivals);
    return acc;
  }
};
struct MbarrierArrive {
  static constexpr const char* name = "mbarrier_arrive", *tag = "MbarrierArrive", *sass = "SYNCS.ARRIVE.TRANS64";
  __device__ static unsigned op(const CostState& s, unsigned acc) { return acc ^ unsigned(ptx::mbarrier_arrive(s.open_bar)); }
};
struct MbarrierArriveExpectTx {
  static constexpr const char* name = "mbarrier_arrive_expect_tx", *tag = "MbarrierArriveExpectTx", *sass = "SYNCS.ARRIVE.TRANS64";
  __device__ static unsigned op(const CostState& s, unsigned acc) {
    ptx::mbarrier_arrive_expect_tx(s.open_bar, 16);
    return acc;
  }
};
// mbarrier.expect_tx alone is not a row: ptxas merges back-to-back (relaxed) expect_tx on one
// barrier into one instruction carrying the sum, so a loop of them times one.
// On a completed phase: returns at once, what a consumer pays when the data is already there.
struct MbarrierTryWait {
  static constexpr const char* name = "mbarrier_try_wait", *tag = "MbarrierTryWait", *sass = "SYNCS.PHASECHK.TRANS64.TRYWAIT";
  __device__ static unsigned op(const CostState& s, unsigned acc) { return acc + ptx::mbarrier_try_wait_parity(s.done_bar, 0); }
};
struct FenceProxyAsync {
  static constexpr const char* name = "fence_proxy_async", *tag = "FenceProxyAsync", *sass = "FENCE.VIEW.ASYNC.S";
  __device__ static unsigned op(const CostState&, unsigned acc) {
    ptx::fence_proxy_async_shared();
    return acc;
  }
};
struct ElectSync {
  static constexpr const char* name = "elect_sync", *tag = "ElectSync", *sass = "ELECT";
  __device__ static unsigned op(const CostState&, unsigned acc) { return acc + ptx::elect_one(); }
};
struct PrefetchTensormap {
  static constexpr const char* name = "prefetch_tensormap", *tag = "PrefetchTensormap", *sass = "UTMACCTL.PF";
  __device__ static unsigned op(const CostState& s, unsigned acc) {
    ptx::prefetch_tensormap(s.map);
    return acc;
  }
};
// tensormap.replace is a plain 8-byte store into the map on sm_90a (STG.E.64), and ptxas
// merges back-to-back ones; what a kernel pays per update is the store plus the release fence
// that makes it visible to the tensor-map proxy before the next copy, so that is the row.
struct TensormapReplace {
  static constexpr const char* name = "tensormap_replace_fence", *tag = "TensormapReplace", *sass = "STG.E.64+MEMBAR.ALL.GPU";
  __device__ static unsigned op(const CostState& s, unsigned acc) {
    ptx::tensormap_replace_global_address(s.global_map, s.value + acc);
    ptx::fence_proxy_tensormap_release();
    return acc + 1;
  }
};

// One thread runs the loop (a whole warp for elect.sync, which needs it): barrier counts stay
// within their limits (2^20 - 1 arrivals and transaction bytes per phase).
template <class Op>
__global__ void sync_cost_kernel(const __grid_constant__ CUtensorMap map, CUtensorMap* global_map, unsigned long long value,
                                 int trips, unsigned* out, RegionTiming* timing) {
  __shared__ alignas(8) unsigned long long bars[2];
  const CostState s{ptx::smem_u32(&bars[0]), ptx::smem_u32(&bars[1]), &map, global_map, value};
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(s.open_bar, kMaxArrivals);
    ptx::mbarrier_init(s.done_bar, 1);
    ptx::mbarrier_arrive(s.done_bar);  // phase 0 completes
  }
  __syncwarp();
  unsigned acc = threadIdx.x;
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int i = 0; i < trips; ++i) {
#pragma unroll
    for (int j = 0; j < kUnroll; ++j) acc = Op::op(s, acc);
  }
  const RegionTiming t = clock.end();
  if (threadIdx.x == 0) {
    out[0] = acc;
    timing[0] = t;
  }
}

using Ops = async::VariantTable<MbarrierInit, MbarrierArrive, MbarrierArriveExpectTx, MbarrierTryWait, FenceProxyAsync,
                    ElectSync, PrefetchTensormap, TensormapReplace>;

void run_sync_cost(ProbeContext& ctx) {
  async::require_sm90_code(ctx);
  const std::string op = ctx.str_param("op");
  const std::string& code = ctx.device().arch_code_loaded;
  if (op == TensormapReplace::name && (code.empty() || code.back() != 'a'))
    ctx.skip("tensormap.replace exists only in arch-specific code (sm_90a, sm_100a, sm_120a); the loaded code is " + code);
  DeviceBuffer<unsigned> target(1024);
  TiledTensorMapSpec spec;
  spec.base = target.get();
  spec.dims[0] = 1024;
  spec.box[0] = 64;
  const CUtensorMap map = encode_tiled_tensor_map(spec);
  DeviceBuffer<CUtensorMap> global_map(1);
  global_map.from_host({map});
  DeviceBuffer<unsigned> out(1);
  DeviceBuffer<RegionTiming> timing(1);
  const auto chain = [&](std::int64_t steps) {
    Ops::with(op, [&](auto o) {
      launch(ctx, sync_cost_kernel<decltype(o)>, {1, std::is_same_v<decltype(o), ElectSync> ? 32u : 1u}, map, global_map.get(),
             (unsigned long long)(target.get()), int(steps / kUnroll), out.get(), timing.get());
    });
    GD_CUDA_CHECK_LAUNCH();
    return timing.to_host()[0];
  };
  const std::vector<std::int64_t> lengths{256, 512, 1024, 2048};
  RepeatPolicy policy;
  policy.target_rel_ci = 0.02;
  policy.time_cap_s = 0.3;
  emit_chain_latency(ctx, measure_chain_latency(ctx, lengths, chain, policy));
}

ProbeSpec sync_cost_spec() {
  ProbeSpec s;
  s.id = "async.cost.sync";
  s.description = "cycles per mbarrier / proxy-fence / elect / tensormap operation issued back to back by one warp";
  s.needs.min_cc = 90;
  s.needs.features = {Feature::Tma};
  s.axes = {Axis::list("op", Ops::names())};
  s.sass = Ops::sass("sync_cost_kernel", SassRegion::Clocked, kUnroll);
  s.metrics = chain_latency_metrics("cycles per operation, issued back to back (loop-length slope)");
  const auto op = [](const char* name) { return Params{{"op", std::string(name)}}; };
  // The seeds name mbarrier timing without a figure: arrive is the operation every pipeline stage pays.
  s.covers = {{"async.tensormap.replace", "latency/cycles", op("tensormap_replace_fence")},
              {"sync.fence_proxy_async", "latency/cycles", op("fence_proxy_async")},
              {"sync.mbarrier.ops", "latency/cycles", op("mbarrier_arrive")}};
  s.run = run_sync_cost;
  s.time_cap_s = 6;
  s.quick_time_cap_s = 2;
  return s;
}

GD_REGISTER_PROBE(sync_cost_spec());

}  // namespace probe_sync_costs
}  // namespace gd
