// Latency of one asynchronous copy, issue to completion, for an L2 hit and from DRAM: a cp.async
// group (to wait_group), a bulk copy and a 1D or 2D tensor (TMA) load (to mbarrier completion), each
// beside a plain load of the same lines: the overhead a pipeline's first stage pays per trip.
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
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
namespace probe_copy_latency {

constexpr int kLineBytes = 128;  // one link per line: every step touches a new line
constexpr int kUnroll = 4;

// Each mechanism fetches the 16 bytes at line `idx` and returns the next index they hold.
struct PlainLoad {
  static constexpr const char* name = "ld";
  static constexpr const char* tag = "PlainLoad";
  static constexpr const char* sass = "LDG.E.STRONG.GPU";
  __device__ static unsigned step(const char* base, const CUtensorMap*, unsigned, unsigned, unsigned idx, int) {
    return ptx::ld_cg_u32(base + (unsigned long long)idx * kLineBytes);
  }
};
struct CpAsyncGroup {
  static constexpr const char* name = "cp_async";
  static constexpr const char* tag = "CpAsyncGroup";
  static constexpr const char* sass = "LDGSTS.E.BYPASS.128+DEPBAR.LE+LDS";
  __device__ static unsigned step(const char* base, const CUtensorMap*, unsigned slot, unsigned, unsigned idx, int) {
    ptx::cp_async<16, ptx::CpAsyncCache::Cg>(slot, base + (unsigned long long)idx * kLineBytes);
    ptx::cp_async_commit();
    ptx::cp_async_wait<0>();
    return ptx::ld_shared_u32(slot);
  }
};
struct BulkCopy {
  static constexpr const char* name = "bulk";
  static constexpr const char* tag = "BulkCopy";
  static constexpr const char* sass = "UBLKCP.S.G+SYNCS.PHASECHK+LDS";
  __device__ static unsigned step(const char* base, const CUtensorMap*, unsigned slot, unsigned bar, unsigned idx, int k) {
    ptx::mbarrier_arrive_expect_tx(bar, 16);
    ptx::bulk_load(slot, base + (unsigned long long)idx * kLineBytes, 16, bar);
    ptx::mbarrier_wait_parity(bar, unsigned(k) & 1u);
    return ptx::ld_shared_u32(slot);
  }
};
struct TensorLoad1d {
  static constexpr const char* name = "tensor_1d";
  static constexpr const char* tag = "TensorLoad1d";
  static constexpr const char* sass = "UTMALDG.1D+SYNCS.PHASECHK+LDS";
  __device__ static unsigned step(const char*, const CUtensorMap* map, unsigned slot, unsigned bar, unsigned idx, int k) {
    ptx::mbarrier_arrive_expect_tx(bar, 16);
    ptx::tensor_load<1>(slot, map, bar, int(idx * (kLineBytes / 4)));
    ptx::mbarrier_wait_parity(bar, unsigned(k) & 1u);
    return ptx::ld_shared_u32(slot);
  }
};

// The same 16 bytes through a 2D map: the chase viewed as rows of one line each, a box of 4 x 1
// at column 0 of row idx (a tile load's descriptor walk over two dimensions).
struct TensorLoad2d {
  static constexpr const char* name = "tensor_2d";
  static constexpr const char* tag = "TensorLoad2d";
  static constexpr const char* sass = "UTMALDG.2D+SYNCS.PHASECHK+LDS";
  __device__ static unsigned step(const char*, const CUtensorMap* map, unsigned slot, unsigned bar, unsigned idx, int k) {
    ptx::mbarrier_arrive_expect_tx(bar, 16);
    ptx::tensor_load<2>(slot, map, bar, 0, int(idx));
    ptx::mbarrier_wait_parity(bar, unsigned(k) & 1u);
    return ptx::ld_shared_u32(slot);
  }
};

// One thread chases the links; the k-th step of a launch uses mbarrier phase k & 1.
template <class Mech>
__global__ void copy_chase_kernel(const char* base, const __grid_constant__ CUtensorMap map, unsigned start, int trips,
                                  unsigned* out, RegionTiming* timing) {
  __shared__ alignas(128) unsigned slot[32];
  __shared__ alignas(8) unsigned long long bar;
  if (threadIdx.x != 0) return;
  const unsigned s = ptx::smem_u32(slot), b = ptx::smem_u32(&bar);
  if constexpr (!std::is_same_v<Mech, PlainLoad> && !std::is_same_v<Mech, CpAsyncGroup>) {
    ptx::mbarrier_init(b, 1);
    ptx::fence_mbarrier_init();
  }
  unsigned idx = start;
  int k = 0;
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int i = 0; i < trips; ++i) {
#pragma unroll
    for (int j = 0; j < kUnroll; ++j, ++k) idx = Mech::step(base, &map, s, b, idx, k);
  }
  const RegionTiming t = clock.end();
  out[0] = idx;
  timing[0] = t;
}

// Line i links to (a * i + c) mod lines: with lines a power of two, a = 1 mod 4 and c odd, one
// cycle through every line (Hull-Dobell), jumping far each step; a and c are drawn per run.
__global__ void link_lines_lcg_kernel(unsigned* lines, unsigned n, unsigned a, unsigned c) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    lines[(unsigned long long)i * (kLineBytes / 4)] = (a * i + c) & (n - 1);
}

template <class Mech>
using ChaseKernel = void (*)(const char*, const CUtensorMap, unsigned, int, unsigned*, RegionTiming*);

using Mechanisms = async::VariantTable<PlainLoad, CpAsyncGroup, BulkCopy, TensorLoad1d, TensorLoad2d>;

void run_copy_latency(ProbeContext& ctx) {
  const std::string mech = ctx.str_param("mechanism"), level = ctx.str_param("level");
  if (mech != "ld" && mech != "cp_async") async::require_sm90_code(ctx);
  const DeviceInfo& d = ctx.device();
  // L2: 1 MiB, far above L1 reach of a .cg/bulk path (they bypass L1) and far below L2.
  // DRAM: at least four L2s, with L2 scrubbed before every chain.
  unsigned lines = 1u << 13;
  if (level == "dram") {
    while ((long long)lines * kLineBytes < 4 * d.l2_bytes) lines *= 2;
  } else if (level != "l2") {
    throw UserError("unknown level '" + level + "' (l2 or dram)");
  }
  std::mt19937 rng(std::random_device{}());
  const unsigned a = (rng() & ~3u) | 1u, c = rng() | 1u;
  DeviceBuffer<unsigned> chase(std::size_t(lines) * (kLineBytes / 4));
  launch(ctx, link_lines_lcg_kernel, {unsigned(d.sm_count * 4), 256}, chase.get(), lines, a, c);
  GD_CUDA_CHECK_LAUNCH();
  DeviceBuffer<char> scrub(level == "dram" ? std::size_t(2 * d.l2_bytes) : 0);

  CUtensorMap map{};
  if (mech == "tensor_1d") {
    TiledTensorMapSpec spec;
    spec.rank = 1;
    spec.base = chase.get();
    spec.dims[0] = chase.size();
    spec.box[0] = 4;  // 16 bytes, as the other mechanisms copy
    map = encode_tiled_tensor_map(spec);
  } else if (mech == "tensor_2d") {
    TiledTensorMapSpec spec;
    spec.rank = 2;
    spec.base = chase.get();
    spec.dims[0] = kLineBytes / 4;
    spec.dims[1] = lines;
    spec.strides[1] = kLineBytes;
    spec.box[0] = 4;
    spec.box[1] = 1;
    map = encode_tiled_tensor_map(spec);
  }
  DeviceBuffer<unsigned> out(1);
  DeviceBuffer<RegionTiming> timing(1);
  const auto chain = [&](std::int64_t steps) {
    const unsigned start = rng() & (lines - 1);
    if (level == "dram") GD_CUDA_CHECK(cudaMemsetAsync(scrub.get(), int(rng() & 0xff), scrub.bytes()));
    Mechanisms::with(mech, [&](auto m) {
      launch(ctx, copy_chase_kernel<decltype(m)>, {1, 32}, reinterpret_cast<const char*>(chase.get()), map, start,
             int(steps / kUnroll), out.get(), timing.get());
    });
    GD_CUDA_CHECK_LAUNCH();
    unsigned want = start;
    for (std::int64_t i = 0; i < steps; ++i) want = (a * want + c) & (lines - 1);
    if (out.to_host()[0] != want) throw Error(mech + " chase ended at another line than the links lead to: the copies did not deliver the data");
    return timing.to_host()[0];
  };
  const std::vector<std::int64_t> lengths =
      level == "dram" ? std::vector<std::int64_t>{128, 256, 512} : std::vector<std::int64_t>{256, 512, 1024, 2048};
  RepeatPolicy policy;
  policy.target_rel_ci = 0.01;
  policy.time_cap_s = 0.5;
  emit_chain_latency(ctx, measure_chain_latency(ctx, lengths, chain, policy));
  ctx.extra()["lines"] = lines;
}

// Per level: each mechanism's latency over the plain load of the same lines.
void summarize_copy_latency(SummaryContext& sc) {
  for (const std::string level : {"l2", "dram"}) {
    const auto base = sc.ok_records({{"level", level}, {"mechanism", std::string("ld")}});
    if (base.empty() || !base[0]->metric("latency/cycles")) continue;
    for (const std::string& mech : Mechanisms::names()) {
      if (mech == "ld") continue;
      const auto m = sc.ok_records({{"level", level}, {"mechanism", mech}});
      if (m.empty() || !m[0]->metric("latency/cycles")) continue;
      Record& r = sc.derive({{"mechanism", mech}, {"level", level}, {"vs", std::string("ld")}}, {m[0], base[0]});
      sc.add_metric(r, "overhead/cycles", single_value(m[0]->metric("latency/cycles")->value() - base[0]->metric("latency/cycles")->value()));
      if (m[0]->metric("latency/ns") && base[0]->metric("latency/ns"))  // absent only in a damaged run file
        sc.add_metric(r, "overhead/ns", single_value(m[0]->metric("latency/ns")->value() - base[0]->metric("latency/ns")->value()));
    }
  }
}

ProbeSpec copy_latency_spec() {
  ProbeSpec s;
  s.id = "async.latency.copy";
  s.description = "issue-to-completion latency of one cp.async group, bulk copy and 1D/2D TMA load vs a plain ld, L2 hit and DRAM";
  s.needs.min_cc = 90;
  s.needs.features = {Feature::Tma};
  s.axes = {Axis::list("mechanism", Mechanisms::names()), Axis::list("level", std::vector<std::string>{"l2", "dram"})};
  s.sass = Mechanisms::sass("copy_chase_kernel", SassRegion::Clocked, kUnroll);
  for (SassExpectation& e : s.sass)
    if (e.kernel.find(TensorLoad1d::tag) != std::string::npos || e.kernel.find(TensorLoad2d::tag) != std::string::npos)
      e.forbid = async::tensor_copy_forbid();
  s.sass.push_back(expect_sass("*link_lines_lcg_kernel*", SassRegion::Whole, {{"STG.E", 1, -1}}));
  s.metrics = chain_latency_metrics("cycles from issuing one copy to its data being usable (chain slope)");
  s.metrics.push_back({"overhead/cycles", "cycles", "derived: latency over a plain ld.global.cg of the same lines"});
  s.metrics.push_back({"overhead/ns", "ns", "the same in ns"});
  s.covers = {{"async.tma.load.latency_1d", "latency/cycles",
               {{"mechanism", std::string("tensor_1d")}, {"level", std::string("dram")}}},
              {"async.tma.load.latency_2d", "latency/cycles",
               {{"mechanism", std::string("tensor_2d")}, {"level", std::string("dram")}}}};
  s.run = run_copy_latency;
  s.summarize = summarize_copy_latency;
  s.time_cap_s = 12;
  s.quick_time_cap_s = 4;
  return s;
}

GD_REGISTER_PROBE(copy_latency_spec());

}  // namespace probe_copy_latency
}  // namespace gd
