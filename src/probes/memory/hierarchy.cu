// The memory hierarchy discovered rather than assumed (Mei and Chu 2016; Jia et al. 2018; MT4G
// 2025): each cache's capacity, line and fetch granularity, ways and replacement policy, for every
// load path a kernel has: plain loads through L1 (ca), L2 only (cg), the read-only path (nc), the
// texture path (tex) and the constant caches (const). One dependent chase kernel serves every
// experiment; what differs is the chain the host writes into the buffer:
//   capacity  a random cycle over slots `stride` bytes apart: latency steps up where the
//             footprint outgrows a level (analysis/change_point), and where that knee moves with
//             the stride tells the line (analysis/fetch_granularity);
//   carveout  the L1 capacity at each shared-memory carveout the driver is asked for;
//   fetch     a sequential first-touch walk at a stride: loads miss on a share stride / G, so the
//             latency ramps up to the fetch granularity G;
//   ways      n lines a fixed distance apart walked cyclically: the distance that makes them
//             conflict and the n where they stop fitting give the set stride and the ways
//             (analysis/cache_ways), and a re-reference test tells LRU from FIFO;
//   eviction  where no distance conflicts (a hashed set index), a search for the fewest lines
//             that evict a target (analysis/eviction_set), then the ways by walking that set.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "analysis/cache_ways.hpp"
#include "analysis/change_point.hpp"
#include "analysis/eviction_set.hpp"
#include "analysis/fetch_granularity.hpp"
#include "core/device_buffer.hpp"
#include "core/launch.cuh"
#include "core/launch_ex.cuh"
#include "core/ptx_memory.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"
#include "memory_tools.hpp"
#include "sass/module_copy.hpp"
#include "sass/patch_experiment.hpp"

namespace gd {
namespace probe_hierarchy {

enum Path : int { kCa = 0, kCg = 1, kNc = 2, kTex = 3, kConst = 4 };
const std::vector<std::string> kPathNames = {"ca", "cg", "nc", "tex", "const"};

constexpr int kConstWords = 16384;  // 64 KiB: all a kernel may declare
constexpr int kUnroll = 8;
constexpr int kWarmThreads = 512;
__constant__ unsigned gd_hier_const[kConstWords];

// The next index of the chain through the path's load; every path holds word indices.
template <int P>
__device__ __forceinline__ unsigned next_index(const unsigned* buf, cudaTextureObject_t tex, unsigned i) {
  if constexpr (P == kCa) return ptx::ldw_plain<4>(buf + i);
  else if constexpr (P == kCg) return ptx::ldw_cg<4>(buf + i);
  else if constexpr (P == kNc) return ptx::ldw_nc<4>(buf + i);
  else if constexpr (P == kTex) return tex1Dfetch<unsigned>(tex, int(i));
  else return gd_hier_const[i];
}

// The block first loads every `slot_words`-th word of the first `warm_words` (0: none) through
// the path, in parallel and in no particular order; thread 0 then follows the chain untimed for
// `warm_steps` and timed for `steps`, and writes the timed region to `timing`.
template <int P>
__device__ __forceinline__ void warm_then_chase(const unsigned* buf, cudaTextureObject_t tex, unsigned warm_words,
                                                unsigned slot_words, unsigned start, int warm_steps, int steps,
                                                RegionTiming* timing, unsigned* sink) {
  unsigned touched = 0;
  for (unsigned w = threadIdx.x * slot_words; w < warm_words; w += blockDim.x * slot_words)
    touched ^= next_index<P>(buf, tex, w);
  __syncthreads();
  if (threadIdx.x != 0) {
    if (touched == 0xffffffffu) sink[1] = touched;  // keeps the warm loads; no index is that large
    return;
  }
  unsigned i = start;
#pragma unroll 1
  for (int s = 0; s < warm_steps; ++s) i = next_index<P>(buf, tex, i);
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int s = 0; s < steps; s += kUnroll) {
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) i = next_index<P>(buf, tex, i);
  }
  *timing = clock.end();
  sink[0] = i;
}

template <int P>
__global__ void __launch_bounds__(kWarmThreads) hier_chase_kernel(const unsigned* buf, cudaTextureObject_t tex,
                                                                  unsigned warm_words, unsigned slot_words,
                                                                  unsigned start, int warm_steps, int steps,
                                                                  RegionTiming* timing, unsigned* sink) {
  warm_then_chase<P>(buf, tex, warm_words, slot_words, start, warm_steps, steps, timing, sink);
}

// The .cg chase with one block per SM, each on its own slice of `slice_words` (its chain's indices
// relative to the slice), each writing timing[its block].
__global__ void __launch_bounds__(kWarmThreads) all_sms_chase_kernel(const unsigned* buf, unsigned slice_words,
                                                                     unsigned slot_words, int warm_steps, int steps,
                                                                     RegionTiming* timing, unsigned* sink) {
  // The slice's base through an opaque move: without it ptxas re-adds the block's offset at every
  // step of the timed chase (four instructions a load instead of one), and the chase would time
  // more than its loads.
  std::uintptr_t base = reinterpret_cast<std::uintptr_t>(buf + std::size_t(blockIdx.x) * slice_words);
  asm volatile("mov.b64 %0, %0;" : "+l"(base));
  warm_then_chase<kCg>(reinterpret_cast<const unsigned*>(base), cudaTextureObject_t{}, slice_words, slot_words, 0,
                       warm_steps, steps, timing + blockIdx.x, sink);
}

// Brings `words` into L2 (.cg: no L1 allocation), or with `scrub` evicts what L2 held by reading
// another buffer: the state a first-touch walk starts from.
__global__ void hier_l2_touch_kernel(const unsigned* buf, long long words, unsigned* sink) {
  unsigned acc = 0;
  for (long long w = (blockIdx.x * (long long)blockDim.x + threadIdx.x) * 8; w < words; w += (long long)gridDim.x * blockDim.x * 8)
    acc ^= ptx::ldw_cg<4>(buf + w);
  if (acc == 0xffffffffu) sink[0] = acc;
}

int path_of(const std::string& name) {
  const auto at = std::find(kPathNames.begin(), kPathNames.end(), name);
  if (at == kPathNames.end()) throw UserError("unknown load path '" + name + "' (ca, cg, nc, tex or const)");
  return int(at - kPathNames.begin());
}

// A linear texture over the buffer's words, for the tex path (0 for the others).
class LinearTexture {
 public:
  LinearTexture(const unsigned* buf, std::size_t words, bool wanted) {
    if (!wanted) return;
    cudaResourceDesc res{};
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = const_cast<unsigned*>(buf);
    res.res.linear.desc = cudaCreateChannelDesc<unsigned>();
    res.res.linear.sizeInBytes = words * sizeof(unsigned);
    cudaTextureDesc desc{};
    desc.readMode = cudaReadModeElementType;
    GD_CUDA_CHECK(cudaCreateTextureObject(&tex_, &res, &desc, nullptr));
  }
  ~LinearTexture() {
    if (tex_) GD_CUDA_CHECK_NOTHROW(cudaDestroyTextureObject(tex_));
  }
  LinearTexture(const LinearTexture&) = delete;
  LinearTexture& operator=(const LinearTexture&) = delete;
  cudaTextureObject_t get() const { return tex_; }

 private:
  cudaTextureObject_t tex_ = 0;
};

// The chain lives in device memory for the global and texture paths and in the constant table
// for const; this owns both and the launch of one chase.
class Chase {
 public:
  Chase(ProbeContext& ctx, int path, std::size_t words)
      : ctx_(ctx), path_(path), words_(words), buf_(path == kConst ? 0 : words), tex_(buf_.get(), words, path == kTex) {
    if (path == kConst && words > std::size_t(kConstWords))
      throw UserError("the constant path holds at most " + std::to_string(kConstWords * 4) + " bytes");
    if (path == kTex) {
      int max_width = 0;
      GD_CUDA_CHECK(cudaDeviceGetAttribute(&max_width, cudaDevAttrMaxTexture1DLinearWidth, 0));
      if (words > std::size_t(max_width)) ctx.skip("footprint exceeds the largest linear texture");
    }
  }
  // Writes the chain (next index per word; words not on the chain point to themselves).
  void write(const std::vector<unsigned>& chain) {
    if (path_ == kConst) GD_CUDA_CHECK(cudaMemcpyToSymbol(gd_hier_const, chain.data(), chain.size() * sizeof(unsigned)));
    else buf_.from_host(chain);
  }
  // The driver's preferred carveout for this path's kernel, in percent of the most shared memory.
  void set_carveout(int percent_shared) {
    GD_CUDA_CHECK(cudaFuncSetAttribute(kernel(), cudaFuncAttributePreferredSharedMemoryCarveout, percent_shared));
    cudaFuncAttributes attr{};
    GD_CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel()));
    ctx_.extra()["shared_carveout"] = {{"requested_percent", percent_shared},
                                       {"reported_preferred_percent", attr.preferredShmemCarveout},
                                       {"device_shared_per_sm_bytes", ctx_.device().shared_per_sm}};
  }
  // One launch; steps is rounded up to the unroll. Returns the timed region.
  RegionTiming run(unsigned warm_words, unsigned slot_words, unsigned start, int warm_steps, int steps) {
    steps = (steps + kUnroll - 1) / kUnroll * kUnroll;
    launch(ctx_, kernel(), {1, kWarmThreads}, buf_.get(), tex_.get(), warm_words, slot_words, start, warm_steps, steps,
           timing_.get(), sink_.get());
    GD_CUDA_CHECK_LAUNCH();
    last_ = timing_.to_host()[0];
    return last_;
  }
  // L2 made to hold the chain (.cg reads of every sector) or not to (reads of a scrub buffer two
  // L2s long); the constant table's global copy is reached through its symbol address.
  void touch_l2(bool scrub) {
    const unsigned* data = buf_.get();
    if (path_ == kConst) {
      void* symbol = nullptr;
      GD_CUDA_CHECK(cudaGetSymbolAddress(&symbol, gd_hier_const));
      data = static_cast<const unsigned*>(symbol);
    }
    long long words = (long long)words_;
    if (scrub) {
      if (scrub_.size() == 0) {
        scrub_ = DeviceBuffer<unsigned>(std::size_t(2 * ctx_.device().l2_bytes / 4));
        scrub_.fill_zero();
      }
      data = scrub_.get();
      words = (long long)scrub_.size();
    }
    launch(ctx_, hier_l2_touch_kernel, {unsigned(ctx_.device().sm_count * 2), 256}, data, words, sink_.get());
    GD_CUDA_CHECK_LAUNCH();
  }
  const RegionTiming& last() const { return last_; }

 private:
  using Kernel = void (*)(const unsigned*, cudaTextureObject_t, unsigned, unsigned, unsigned, int, int, RegionTiming*,
                          unsigned*);
  Kernel kernel() const {
    constexpr Kernel kernels[] = {hier_chase_kernel<kCa>, hier_chase_kernel<kCg>, hier_chase_kernel<kNc>,
                                  hier_chase_kernel<kTex>, hier_chase_kernel<kConst>};
    return kernels[path_];
  }
  ProbeContext& ctx_;
  int path_;
  std::size_t words_;
  DeviceBuffer<unsigned> buf_;
  LinearTexture tex_;
  DeviceBuffer<unsigned> scrub_;
  DeviceBuffer<RegionTiming> timing_{1};
  DeviceBuffer<unsigned> sink_{2};
  RegionTiming last_{};
};

double cycles_per_step(const RegionTiming& t, int steps) {
  return double(t.cycles) / double((steps + kUnroll - 1) / kUnroll * kUnroll);
}

// Repeats one measurement (cycles per step) and records its median and the SM clock seen.
// A chase's repeats: its time per step is known to 2 % in a few launches.
RepeatPolicy chase_policy() {
  RepeatPolicy policy;
  policy.min_samples = 3;
  policy.max_samples = 9;
  policy.target_rel_ci = 0.02;
  policy.time_cap_s = 0.5;
  return policy;
}

void emit_per_step(ProbeContext& ctx, Chase& chase, const std::function<double()>& sample) {
  const RepeatResult r = ctx.measure(sample, chase_policy());
  ctx.metric("latency/cycles", r.summary);
  ctx.set_observed_sm_clock_mhz(clock_mhz(std::vector<RegionTiming>{chase.last()}));
}

// ---- the whole L2: every SM chasing its own slice at once ----------------------------------------
// One SM alone sees one L2 segment (l2_capacity's first step). Here every SM chases a private
// random cycle over its slice of the footprint at the same time, so the SMs of both partitions
// hold their lines together: the footprint where the latency steps is what the whole L2 holds of
// the SMs' private working sets ("the whole chip as every SM sees it").
constexpr int kAllSmSlotBytes = 128;
constexpr int kAllSmMaxTimedSteps = 16384;

// next_slot[s] is slot s's successor (its index within the slice); it becomes the word index the
// chase loads, written at the start of each 128-byte slot.
__global__ void all_sms_link_kernel(unsigned* buf, const unsigned* next_slot, unsigned slots) {
  for (unsigned s = blockIdx.x * blockDim.x + threadIdx.x; s < slots; s += gridDim.x * blockDim.x)
    buf[std::size_t(s) * (kAllSmSlotBytes / 4)] = next_slot[s] * (kAllSmSlotBytes / 4);
}

void run_l2_all_sms(ProbeContext& ctx) {
  const std::int64_t bytes = ctx.int_param("bytes");
  const int blocks = ctx.device().sm_count;
  const std::int64_t slice_slots = bytes / kAllSmSlotBytes / blocks;
  if (slice_slots < 2) throw UserError("footprint must give every SM at least two 128-byte slots");
  if (bytes / 4 > std::int64_t(0xffffffffu)) throw UserError("footprint too large for 32-bit word indices");
  const std::size_t slots = std::size_t(slice_slots) * std::size_t(blocks);
  std::random_device seed_source;
  std::mt19937_64 rng((std::uint64_t(seed_source()) << 32) | seed_source());
  std::vector<unsigned> next(slots);
  for (int b = 0; b < blocks; ++b) {
    const std::vector<std::uint32_t> cycle = memory::random_cycle(std::size_t(slice_slots), rng);
    const std::size_t base = std::size_t(b) * std::size_t(slice_slots);
    for (std::size_t k = 0; k < cycle.size(); ++k) next[base + k] = cycle[k];
  }
  DeviceBuffer<unsigned> buf(slots * (kAllSmSlotBytes / 4)), next_dev(slots), sink(2);
  next_dev.from_host(next);
  launch(ctx, all_sms_link_kernel, {unsigned(blocks * 4), 256}, buf.get(), next_dev.get(), unsigned(slots));
  GD_CUDA_CHECK_LAUNCH();
  // One block per SM: the dynamic shared memory keeps a second block off an SM. Each block warms
  // its slice in parallel, then takes one untimed lap.
  const auto kernel = all_sms_chase_kernel;
  const std::size_t one_per_sm = std::size_t(ctx.device().shared_per_sm) / 2 + 1024;
  GD_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(one_per_sm)));
  const unsigned slice_words = unsigned(slice_slots) * (kAllSmSlotBytes / 4);
  const int steps = int(std::clamp<std::int64_t>(slice_slots, 2048, kAllSmMaxTimedSteps) / kUnroll * kUnroll);
  DeviceBuffer<RegionTiming> timing{std::size_t(blocks)};
  std::vector<RegionTiming> last;
  const RepeatResult r = ctx.measure(
      [&] {
        launch(ctx, kernel, LaunchShape{dim3(unsigned(blocks)), dim3(kWarmThreads), one_per_sm}, buf.get(), slice_words,
               unsigned(kAllSmSlotBytes / 4), int(slice_slots), steps, timing.get(), sink.get());
        GD_CUDA_CHECK_LAUNCH();
        last = timing.to_host();
        std::vector<double> per_block;
        for (const RegionTiming& t : last) per_block.push_back(double(t.cycles) / steps);
        return summarize(per_block).median;
      },
      chase_policy());
  ctx.metric("latency/cycles", r.summary);
  std::vector<double> per_block;
  for (const RegionTiming& t : last) per_block.push_back(double(t.cycles) / steps);
  const Summary spread = summarize(per_block);
  ctx.extra()["blocks"] = blocks;
  ctx.extra()["footprint_bytes"] = std::int64_t(slots) * kAllSmSlotBytes;
  ctx.extra()["slice_bytes"] = slice_slots * kAllSmSlotBytes;
  ctx.extra()["per_sm_cycles"] = {{"min", spread.min}, {"median", spread.median}, {"max", spread.max}};
  ctx.set_observed_sm_clock_mhz(clock_mhz(last), "clock64 over %globaltimer, thread 0 of every block of the last launch");
}

// ---- capacity: a random cycle over slots `stride` bytes apart ----------------------------------

// The time per step of a random cyclic chase over `bytes` with one pointer per `stride` bytes,
// after a lap that leaves the cache as a steady chase would (small footprints) or a parallel
// warm of every slot (footprints past kSerialWarmBytes, where a serial lap would take seconds).
constexpr std::int64_t kSerialWarmBytes = 4 << 20;
constexpr int kTimedSteps = 4096;

void measure_capacity(ProbeContext& ctx, int path, std::int64_t bytes, std::int64_t stride, int carveout) {
  if (stride < 4 || stride % 4) throw UserError("stride must be a positive multiple of 4 bytes");
  if (bytes < 2 * stride) throw UserError("footprint must hold at least two slots");
  const std::size_t slots = std::size_t(bytes / stride), slot_words = std::size_t(stride / 4);
  if (slots > (1u << 30)) throw UserError("footprint too large");
  std::random_device seed_source;
  std::mt19937_64 rng((std::uint64_t(seed_source()) << 32) | seed_source());
  const std::vector<std::uint32_t> next = memory::random_cycle(slots, rng);
  std::vector<unsigned> chain(slots * slot_words);
  for (std::size_t s = 0; s < slots; ++s) chain[s * slot_words] = unsigned(next[s] * slot_words);
  Chase chase(ctx, path, chain.size());
  chase.write(chain);
  if (path != kConst) chase.set_carveout(carveout);
  const bool serial = bytes <= kSerialWarmBytes;
  const int lap = int(slots);
  const int steps = serial ? std::max(kTimedSteps, std::min(lap, 4 * kTimedSteps)) : kTimedSteps;
  ctx.extra()["warm"] = serial ? "one serial lap of the chain" : "every slot loaded once by the block";
  emit_per_step(ctx, chase, [&] {
    const RegionTiming t = serial ? chase.run(0, unsigned(slot_words), 0, lap, steps)
                                  : chase.run(unsigned(chain.size()), unsigned(slot_words), 0, 0, steps);
    return cycles_per_step(t, steps);
  });
}

void run_capacity(ProbeContext& ctx) {
  measure_capacity(ctx, path_of(ctx.str_param("path")), ctx.int_param("bytes"), ctx.int_param("stride"),
                   cudaSharedmemCarveoutMaxL1);
}

void run_texture_line(ProbeContext& ctx) {
  measure_capacity(ctx, kTex, ctx.int_param("bytes"), ctx.int_param("stride"), cudaSharedmemCarveoutMaxL1);
}

void run_carveout(ProbeContext& ctx) {
  const std::int64_t carveout = ctx.int_param("carveout");
  if (carveout < 0 || carveout > 100) throw UserError("carveout is a percentage of the most shared memory, 0 to 100");
  measure_capacity(ctx, kCa, ctx.int_param("bytes"), 128, int(carveout));
}

void run_l2_capacity(ProbeContext& ctx) {
  measure_capacity(ctx, kCg, ctx.int_param("bytes"), ctx.int_param("stride"), cudaSharedmemCarveoutMaxL1);
}

void run_const_capacity(ProbeContext& ctx) {
  measure_capacity(ctx, kConst, ctx.int_param("bytes"), ctx.int_param("stride"), 0);
}

// ---- fetch: a sequential first-touch walk ------------------------------------------------------

constexpr std::int64_t kFetchBufferBytes = 16 << 20;  // many L1s: a window comes back evicted
constexpr int kFetchSteps = 512;
constexpr int kConstFetchSteps = 96;                  // the constant table is 64 KiB

void run_fetch(ProbeContext& ctx) {
  const int path = path_of(ctx.str_param("path"));
  const std::int64_t stride = ctx.int_param("stride");
  if (stride < 4 || stride % 4 || stride > 4096) throw UserError("stride must be a multiple of 4 bytes up to 4096");
  const std::size_t words = path == kConst ? kConstWords : std::size_t(kFetchBufferBytes / 4);
  const std::size_t stride_words = std::size_t(stride / 4), slots = words / stride_words;
  const int steps = path == kConst ? std::min<int>(kConstFetchSteps, int(slots) - 1) : kFetchSteps;
  if (steps < kUnroll) throw UserError("stride too large for the path's buffer");
  // One sequential cycle through the buffer at the stride; each sample walks on from where the
  // last stopped, so each load is the first touch of its address since the cache last wrapped.
  std::vector<unsigned> chain(words, 0);
  for (std::size_t s = 0; s < slots; ++s) chain[s * stride_words] = unsigned(((s + 1) % slots) * stride_words);
  Chase chase(ctx, path, words);
  chase.write(chain);
  if (path != kConst) chase.set_carveout(cudaSharedmemCarveoutMaxL1);
  std::size_t position = 0;
  const bool from_dram = path == kCg;
  ctx.extra()["start_state"] = path == kCg     ? "L2 scrubbed before each walk (the L2 fetch from DRAM)"
                               : path == kConst ? "constant table rewritten before each walk (constant caches cold)"
                                                : "L2 holds the buffer, L1 does not (the fetch from L2)";
  emit_per_step(ctx, chase, [&] {
    if (path == kConst) chase.write(chain);  // a write of the bank invalidates the constant caches
    else chase.touch_l2(from_dram);
    const RegionTiming t = chase.run(0, 1, unsigned(position * stride_words), 0, steps);
    position = (position + std::size_t((steps + kUnroll - 1) / kUnroll * kUnroll)) % slots;
    return cycles_per_step(t, steps);
  });
}

// ---- ways: conflict sets and the re-reference test ---------------------------------------------

struct Conflict {
  std::int64_t distance = 0;
  std::vector<ConflictPoint> points;
  Ways ways;
};

// Cycles per step of a cyclic walk over n lines `distance` bytes apart, after a warm lap.
double walk_lines(Chase& chase, std::size_t words, std::int64_t distance, int n) {
  const std::size_t dw = std::size_t(distance / 4);
  std::vector<unsigned> chain(words, 0);
  for (int k = 0; k < n; ++k) chain[std::size_t(k) * dw] = unsigned(std::size_t((k + 1) % n) * dw);
  chase.write(chain);
  const int steps = std::max(256, 8 * n);
  return cycles_per_step(chase.run(0, 1, 0, n, steps), steps);
}

Conflict sweep_distance(Chase& chase, std::size_t words, std::int64_t distance, int max_lines) {
  Conflict c;
  c.distance = distance;
  for (int n = 1; n <= max_lines; ++n) {
    std::vector<double> reps;
    for (int r = 0; r < 3; ++r) reps.push_back(walk_lines(chase, words, distance, n));
    std::nth_element(reps.begin(), reps.begin() + 1, reps.end());
    c.points.push_back({double(n), reps[1]});
  }
  c.ways = infer_ways(c.points);
  return c;
}

// The re-reference test on one set: fill it with `ways` lines (words of distinct lines), touch the
// first line again (another word of it), bring in one more line, then time the first line once
// more (a third word) followed by seven loads of that same word. Kept: the timed steps cost
// under the midpoint of a hit and a miss of the first load.
bool first_line_kept(Chase& chase, std::size_t words, std::size_t base_words, std::int64_t distance, int ways,
                     double hit, double miss, bool new_line = true) {
  const std::size_t dw = std::size_t(distance / 4);
  std::vector<unsigned> chain(words, 0);
  std::vector<std::size_t> order;
  for (int k = 0; k < ways; ++k) order.push_back(base_words + std::size_t(k) * dw);
  order.push_back(base_words + 1);                            // the first line again
  if (new_line) order.push_back(base_words + std::size_t(ways) * dw);  // one line more (not in the control)
  order.push_back(base_words + 2);                            // the first line, timed
  for (std::size_t i = 0; i + 1 < order.size(); ++i) chain[order[i]] = unsigned(order[i + 1]);
  chain[order.back()] = unsigned(order.back());               // then seven hits on that word
  chase.write(chain);
  const double per_step = cycles_per_step(chase.run(0, 1, unsigned(order.front()), int(order.size()) - 1, kUnroll), kUnroll);
  const double first = per_step * kUnroll - 7 * hit;
  return first < (hit + miss) / 2;
}

constexpr int kRereferenceTrials = 24;

void run_ways(ProbeContext& ctx) {
  const int path = path_of(ctx.str_param("path"));
  if (path != kCa && path != kConst) throw UserError("ways are measured for the ca and const paths");
  const std::size_t words = path == kConst ? kConstWords : std::size_t(8 << 20) / 4;
  const int max_lines = path == kConst ? 40 : 48;
  const std::vector<std::int64_t> distances = path == kConst
                                                  ? std::vector<std::int64_t>{64, 128, 256, 512, 1024}
                                                  : std::vector<std::int64_t>{2048, 4096, 8192, 16384, 32768, 65536, 131072};
  Chase chase(ctx, path, words);
  if (path != kConst) chase.set_carveout(cudaSharedmemCarveoutMaxL1);
  std::vector<Conflict> sweeps;
  for (std::int64_t d : distances) {
    const int lines = int(std::min<std::size_t>(std::size_t(max_lines), words / std::size_t(d / 4) - 1));
    sweeps.push_back(sweep_distance(chase, words, d, lines));
  }
  std::vector<DistanceWays> by_distance;
  nlohmann::json curves = nlohmann::json::array();
  for (const Conflict& c : sweeps) {
    by_distance.push_back({double(c.distance), c.ways});
    nlohmann::json pts = nlohmann::json::array();
    for (const ConflictPoint& p : c.points) pts.push_back({p.lines, p.latency});
    curves.push_back({{"distance_bytes", c.distance}, {"lines_and_cycles", pts}, {"ways_found", c.ways.found},
                      {"ways", c.ways.ways}, {"confidence", c.ways.confidence}, {"note", c.ways.note}});
  }
  ctx.extra()["conflict_sweeps"] = curves;
  ctx.set_observed_sm_clock_mhz(clock_mhz(std::vector<RegionTiming>{chase.last()}));
  const SetGeometry set = infer_set_geometry(by_distance);
  ctx.extra()["note"] = set.note;
  ctx.extra()["ways_answer"] = set.found ? std::to_string(set.ways) + " ways, sets " + std::to_string(int(set.set_stride)) + " B apart"
                                         : "undetermined: " + set.note;
  ctx.metric("ways/found", set.found ? 1.0 : 0.0);
  if (!set.found) return;
  const Ways& w = *set.at;
  ctx.metric("ways/count", double(set.ways));
  ctx.metric("ways/confidence", w.confidence);
  ctx.metric("ways/set_stride_bytes", set.set_stride);
  ctx.metric("ways/capacity_bytes", set.set_stride * set.ways);
  ctx.metric("ways/hit_cycles", w.hit_latency);
  ctx.metric("ways/miss_cycles", w.miss_latency);
  if (w.next_measured) ctx.metric("ways/miss_share_next", w.miss_share_next);
  ctx.extra()["policy_from_conflict"] = w.policy;
  // The re-reference trials, on sets at random offsets inside the buffer.
  std::mt19937_64 rng(0x7e4e);
  const std::int64_t stride = std::int64_t(set.set_stride);
  const std::size_t span_words = std::size_t(stride / 4) * std::size_t(set.ways + 1);
  if (span_words + 64 > words) return;
  std::uniform_int_distribution<std::size_t> pick(0, (words - span_words - 4) / 32);
  int kept = 0;
  for (int t = 0; t < kRereferenceTrials; ++t)
    kept += first_line_kept(chase, words, pick(rng) * 32, stride, set.ways, w.hit_latency, w.miss_latency);
  // The control: the same trials without the extra line must keep the first line every time,
  // or the timing cannot tell a hit from a miss and the verdict means nothing.
  int control = 0;
  for (int t = 0; t < kRereferenceTrials; ++t)
    control += first_line_kept(chase, words, pick(rng) * 32, stride, set.ways, w.hit_latency, w.miss_latency, false);
  ctx.metric("replacement/control_kept", double(control));
  if (control < kRereferenceTrials - 1) {
    ctx.extra()["replacement_policy"] = "not determined: the control trials did not all hit";
    return;
  }
  const Rereference rr = infer_rereference(kept, kRereferenceTrials);
  ctx.metric("replacement/kept", double(rr.kept));
  ctx.metric("replacement/trials", double(rr.trials));
  ctx.metric("replacement/confidence", rr.confidence);
  ctx.extra()["replacement_policy"] = w.policy == "not-lru" ? "not-lru (" + rr.policy + " in the re-reference test)" : rr.policy;
}

// ---- eviction sets: the L1's ways when no distance makes lines conflict ------------------------

// The L1 hashes its set index (no distance in `ways` conflicts), so its sets are found by search
// (analysis/eviction_set): which lines of a pool, walked, evict a target line. The pool is twice
// the largest L1 of 128-byte lines; word k of a line serves lap k of the walk, so one chain holds
// the whole experiment: a lap of the lines (word 1), the target (words 0 and 1), kEvictionLaps - 1
// more laps, then the target timed (word 7, then seven hits on it). Every word is in the line's
// first 32-byte sector: the L1 fetches sectors, and a word of another sector would miss in a line
// that is present. The target is touched twice: on the H200 a load right after the target's first
// miss missed again for many targets (721-757 cycles against 508-525 for a hit,
// scripts/experiments/NOTES.md), so a "hit" timed after one touch was a second miss, and every
// walk read as an eviction. The target enters after the set is full on purpose: a policy that
// evicts the newest line would never evict a target loaded first.
constexpr std::size_t kPoolLines = 4096;
constexpr std::size_t kLineWords = 32;
constexpr std::size_t kSectorWords = 8;
constexpr int kEvictionLaps = 6;     // words 1-6 of the sector
constexpr int kOracleWalks = 5;      // a question's answer: the majority of up to five walks
constexpr int kMaxCongruentWalk = 64;  // the longest one-set walk timed

class EvictionProbe {
 public:
  EvictionProbe(ProbeContext& ctx, std::size_t target) : chase_(ctx, kCa, kPoolLines * kLineWords), target_(target) {
    chase_.set_carveout(cudaSharedmemCarveoutMaxL1);
    // Medians: a single short launch can be slow for reasons of its own (a fresh buffer's first
    // translations). The timed region's fixed cost is in both and cancels in first_load.
    hit_ = median_of(5, [&] { return target_load({}, 0, 2); });  // nothing walked: all eight loads hit
    hit_one_touch_ = median_of(5, [&] { return target_load({}, 0, 1); });
    const std::vector<std::size_t> all = others();
    miss_ = median_of(3, [&] { return first_load(all, 2); });  // two laps of twice the L1: the target is gone
  }
  // Cycles of the target's first timed load after `laps` laps of `lines` (the seven hits after it
  // taken off at the calibrated hit latency).
  double first_load(std::span<const std::size_t> lines, int laps) { return (target_load(lines, laps, 2) - hit_) * 8 + hit_; }
  // One walk's answer: the target's timed load nearer the miss than the hit.
  bool walk_evicts(std::span<const std::size_t> lines) {
    ++walks_;
    return first_load(lines, kEvictionLaps) > (hit_ + miss_) / 2;
  }
  // Every pool line but the target.
  std::vector<std::size_t> others() const {
    std::vector<std::size_t> v;
    for (std::size_t l = 0; l < kPoolLines; ++l)
      if (l != target_) v.push_back(l);
    return v;
  }
  static double median_of(int n, const std::function<double()>& f) {
    std::vector<double> v;
    for (int i = 0; i < n; ++i) v.push_back(f());
    std::nth_element(v.begin(), v.begin() + n / 2, v.end());
    return v[std::size_t(n / 2)];
  }
  double hit() const { return hit_; }
  double hit_one_touch() const { return hit_one_touch_; }
  double miss() const { return miss_; }
  int walks() const { return walks_; }
  Chase& chase() { return chase_; }

 private:
  // Cycles per timed step: the target's load then seven loads of the same word; the target
  // touched `touches` times (words 0, 1) after the first lap.
  double target_load(std::span<const std::size_t> lines, int laps, int touches) {
    std::vector<std::size_t> order;
    for (std::size_t l : lines) order.push_back(l * kLineWords + 1);
    for (int t = 0; t < touches; ++t) order.push_back(target_ * kLineWords + std::size_t(t));
    for (int k = 2; k <= laps; ++k)
      for (std::size_t l : lines) order.push_back(l * kLineWords + std::size_t(k));
    order.push_back(target_ * kLineWords + kSectorWords - 1);
    std::vector<unsigned> chain(kPoolLines * kLineWords, 0);
    for (std::size_t i = 0; i + 1 < order.size(); ++i) chain[order[i]] = unsigned(order[i + 1]);
    chain[order.back()] = unsigned(order.back());
    chase_.write(chain);
    return cycles_per_step(chase_.run(0, 1, unsigned(order.front()), int(order.size()) - 1, kUnroll), kUnroll);
  }
  Chase chase_;
  std::size_t target_;
  double hit_ = 0, hit_one_touch_ = 0, miss_ = 0;
  int walks_ = 0;
};

// Cycles per step of a cyclic walk over `lines` (pool line numbers), after a warm lap.
double walk_pool_lines(Chase& chase, std::span<const std::size_t> lines) {
  std::vector<unsigned> chain(kPoolLines * kLineWords, 0);
  for (std::size_t k = 0; k < lines.size(); ++k) chain[lines[k] * kLineWords] = unsigned(lines[(k + 1) % lines.size()] * kLineWords);
  chase.write(chain);
  const int steps = std::max(256, 8 * int(lines.size()));
  return cycles_per_step(chase.run(0, 1, unsigned(lines[0] * kLineWords), int(lines.size()), steps), steps);
}

void run_eviction_set(ProbeContext& ctx) {
  const double start_s = steady_now_s();
  const std::int64_t target = ctx.int_param("target");
  if (target < 0 || target >= std::int64_t(kPoolLines)) throw UserError("target is a line of the pool, 0 to 4095");
  // The search is about 300 walks (2 s on the H200): more than a quick run's point can spend.
  if (ctx.quick()) ctx.skip("the eviction-set search takes about 300 walks (2 s on an H200): the full run measures it");
  EvictionProbe probe(ctx, std::size_t(target));
  ctx.metric("eviction/hit_cycles", probe.hit());
  ctx.metric("eviction/hit_one_touch_cycles", probe.hit_one_touch());
  ctx.metric("eviction/miss_cycles", probe.miss());
  if (probe.miss() < probe.hit() + 60)
    ctx.skip("no hit/miss contrast on the L1: after two laps of the whole pool the target's load took " +
             std::to_string(int(probe.miss())) + " cycles against " + std::to_string(int(probe.hit())) + " for a hit");
  std::mt19937_64 rng(0xe71c + std::uint64_t(target));
  std::vector<std::size_t> pool = probe.others();
  std::shuffle(pool.begin(), pool.end(), rng);
  const EvictionOracle oracle =
      majority_oracle(kOracleWalks, [&](std::span<const std::size_t> lines) { return probe.walk_evicts(lines); });
  // The search stops at 70 % of the point's budget, leaving the rest for the congruence and the
  // one-set walk should it find a set.
  const auto out_of_time = [&] { return steady_now_s() - start_s > 0.7 * ctx.time_budget_s(); };
  const EvictionSearch s = find_eviction_set(pool, oracle, {.max_set = 256, .max_calls = 3000, .out_of_time = out_of_time});
  ctx.set_observed_sm_clock_mhz(clock_mhz(std::vector<RegionTiming>{probe.chase().last()}));
  ctx.metric("eviction/start_lines", double(s.start_lines));
  ctx.metric("eviction/oracle_calls", double(s.oracle_calls));
  ctx.metric("eviction/walks", double(probe.walks()));
  ctx.extra()["search_note"] = s.note;
  ctx.extra()["laps"] = kEvictionLaps;
  ctx.extra()["pool_lines"] = kPoolLines;
  ctx.extra()["oracle"] = "majority of up to " + std::to_string(kOracleWalks) + " walks";
  const auto undetermined = [&](const std::string& why) {
    ctx.extra()["ways_answer"] = "undetermined: " + why;
    ctx.extra()["replacement_policy"] = "undetermined: no walk over one set (" + why + ")";
  };
  if (!s.minimal_checked) return undetermined(s.note);
  ctx.metric("eviction/set_lines", double(s.set.size()));
  ctx.metric("eviction/dispensable_lines", double(s.dispensable));
  nlohmann::json offsets = nlohmann::json::array();
  for (std::size_t l : s.set) offsets.push_back((std::int64_t(l) - target) * 128);
  ctx.extra()["set_offsets_bytes"] = offsets;
  if (!s.found) return undetermined(s.note);
  // The target's set among other pool lines, then the classic cyclic walk over lines of that one
  // set: its step from hits to misses is the ways, whatever the replacement policy.
  // Every other pool line is a candidate: about one in (sets) shares the target's set, and the
  // one-set walk needs more of them than the ways.
  std::vector<std::size_t> candidates;
  for (std::size_t l : pool)
    if (std::find(s.set.begin(), s.set.end(), l) == s.set.end()) candidates.push_back(l);
  const Congruence c = classify_congruent(s.set, candidates, oracle, [&] { return steady_now_s() - start_s > 0.9 * ctx.time_budget_s(); });
  ctx.metric("eviction/congruent_lines", double(c.congruent.size()));
  ctx.metric("eviction/candidates", double(c.tested));
  if (c.sets > 0) ctx.metric("eviction/sets", c.sets);
  std::vector<std::size_t> one_set = {std::size_t(target)};
  one_set.insert(one_set.end(), s.set.begin(), s.set.end());
  one_set.insert(one_set.end(), c.congruent.begin(), c.congruent.end());
  if (one_set.size() > std::size_t(kMaxCongruentWalk)) one_set.resize(kMaxCongruentWalk);
  std::vector<ConflictPoint> points;
  nlohmann::json pts = nlohmann::json::array();
  // Each length timed twice: a set of w ways gives a walk of about 2w points, too few for the
  // step's permutation test to be significant when each length is one point (9 points: p 0.014).
  for (std::size_t n = 1; n <= one_set.size(); ++n)
    for (int rep = 0; rep < 2; ++rep) {
      const double cyc = walk_pool_lines(probe.chase(), std::span(one_set).first(n));
      points.push_back({double(n), cyc});
      pts.push_back({n, cyc});
    }
  ctx.extra()["one_set_walk"] = pts;
  const Ways w = infer_ways(points);
  ctx.extra()["walk_note"] = w.note;
  ctx.metric("ways/found", w.found ? 1.0 : 0.0);
  if (!w.found) return undetermined("minimal eviction set " + std::to_string(s.set.size()) + " lines; the one-set walk: " + w.note);
  ctx.extra()["ways_answer"] = std::to_string(w.ways) + " ways (one-set walk; minimal eviction set " + std::to_string(s.set.size()) + " lines)";
  ctx.metric("ways/count", double(w.ways));
  ctx.metric("ways/confidence", w.confidence);
  if (w.next_measured) ctx.metric("ways/miss_share_next", w.miss_share_next);
  // Ways x sets x line: what a uniform set-associative array of this geometry would hold, to set
  // against the capacity the footprint sweep measures (memory.hierarchy.l1_carveout).
  if (c.sets > 0) ctx.metric("eviction/implied_bytes", c.sets * w.ways * 128);
  ctx.extra()["replacement_policy"] = w.policy == "lru-like" ? "lru or fifo (a walk one line past the ways misses on every load)"
                                                             : "not lru: " + w.note;
}

// ---- sharing: one path evicting another, and who shares a constant L1.5 ------------------------

// One warp's lane 0 (warm_warp) follows chain A for warm_a steps, then chain B for lap_b steps;
// after the block's barrier, lane 0 of timer_warp times lap_a steps of A. The same warp warming and timing: if B's
// lines took A's storage, A's timed lap misses. Different warps (placed on different SM
// sub-partitions): if their L1 is one, the timer finds the warmer's lines.
template <int PA, int PB>
__global__ void __launch_bounds__(128) evict_kernel(const unsigned* a, cudaTextureObject_t ta, const unsigned* b,
                                                    cudaTextureObject_t tb, int warm_a, int lap_a, int lap_b,
                                                    int warm_warp, int timer_warp, RegionTiming* timing, unsigned* sink) {
  const bool warmer = threadIdx.x == 32u * unsigned(warm_warp), timer = threadIdx.x == 32u * unsigned(timer_warp);
  unsigned i = 0, j = 0;
  if (warmer) {
#pragma unroll 1
    for (int s = 0; s < warm_a; ++s) i = next_index<PA>(a, ta, i);
#pragma unroll 1
    for (int s = 0; s < lap_b; ++s) j = next_index<PB>(b, tb, j);
    sink[1] = j;
  }
  __syncthreads();
  if (!timer) return;
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int s = 0; s < lap_a; s += kUnroll) {
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) i = next_index<PA>(a, ta, i);
  }
  timing[0] = clock.end();
  sink[0] = i;
}

constexpr std::int64_t kEvictBytes = 144 << 10;  // each chain alone fits L1; the two together do not

struct PathPair {
  const char* name;
  int a, b;
  void (*kernel)(const unsigned*, cudaTextureObject_t, const unsigned*, cudaTextureObject_t, int, int, int, int, int,
                 RegionTiming*, unsigned*);
};
const PathPair kPairs[] = {{"ca_ca", kCa, kCa, evict_kernel<kCa, kCa>},
                           {"ca_nc", kCa, kNc, evict_kernel<kCa, kNc>},
                           {"ca_tex", kCa, kTex, evict_kernel<kCa, kTex>},
                           {"nc_tex", kNc, kTex, evict_kernel<kNc, kTex>}};

// A random cycle over `bytes` in 128-byte slots, as word indices.
std::vector<unsigned> random_chain(std::int64_t bytes, std::mt19937_64& rng) {
  const std::size_t slots = std::size_t(bytes / 128), slot_words = 32;
  const std::vector<std::uint32_t> next = memory::random_cycle(slots, rng);
  std::vector<unsigned> chain(slots * slot_words, 0);
  for (std::size_t s = 0; s < slots; ++s) chain[s * slot_words] = unsigned(next[s] * slot_words);
  return chain;
}

void run_evict(ProbeContext& ctx) {
  const std::string pair = ctx.str_param("pair");
  const PathPair* pp = nullptr;
  for (const PathPair& p : kPairs)
    if (pair == p.name) pp = &p;
  if (!pp) throw UserError("unknown path pair '" + pair + "' (ca_ca, ca_nc, ca_tex or nc_tex)");
  std::mt19937_64 rng(0x5ba2e);
  const std::vector<unsigned> chain_a = random_chain(kEvictBytes, rng), chain_b = random_chain(kEvictBytes, rng);
  DeviceBuffer<unsigned> a(chain_a.size()), b(chain_b.size()), sink(2);
  a.from_host(chain_a);
  b.from_host(chain_b);
  const LinearTexture ta(a.get(), chain_a.size(), pp->a == kTex), tb(b.get(), chain_b.size(), pp->b == kTex);
  GD_CUDA_CHECK(cudaFuncSetAttribute(pp->kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxL1));
  DeviceBuffer<RegionTiming> timing(1);
  const int lap = int(kEvictBytes / 128);
  RegionTiming last{};
  const auto per_step = [&](int lap_b) {
    launch(ctx, pp->kernel, {1, 32}, a.get(), ta.get(), b.get(), tb.get(), lap, lap, lap_b, 0, 0, timing.get(), sink.get());
    GD_CUDA_CHECK_LAUNCH();
    last = timing.to_host()[0];
    return cycles_per_step(last, lap);
  };
  RepeatPolicy policy;
  policy.min_samples = 3;
  policy.max_samples = 9;
  policy.time_cap_s = 0.3;
  const Summary alone = ctx.measure([&] { return per_step(0); }, policy).summary;
  const Summary after = ctx.measure([&] { return per_step(lap); }, policy).summary;
  ctx.metric("latency/cycles", after);
  ctx.metric("sharing/alone_cycles", alone);
  ctx.metric("sharing/slowdown", after.median / alone.median);
  ctx.set_observed_sm_clock_mhz(clock_mhz(std::vector<RegionTiming>{last}));
  ctx.extra()["chains_bytes"] = kEvictBytes;
  ctx.extra()["verdict"] = after.median > 1.5 * alone.median
                               ? "shared: the second path's lines evicted the first's (one storage)"
                               : "separate: the first path's lines survived the second's";
}

// ---- sub-partitions: how many L1s one SM has ---------------------------------------------------

// Warps 0-3 of a block run on the SM's four sub-partitions (warp w on sub-partition w mod 4). One
// warp warms a chain small enough for a quarter of the L1, another times a lap of it: a hit means
// the two sub-partitions load through one L1. Every pair is tried; the L1s are the groups of
// sub-partitions that find each other's lines.
constexpr int kSubpartitions = 4;
constexpr std::int64_t kSubpartitionBytes = 32 << 10;

void run_subpartitions(ProbeContext& ctx) {
  std::mt19937_64 rng(0x5b9a);
  const std::vector<unsigned> chain = random_chain(kSubpartitionBytes, rng);
  DeviceBuffer<unsigned> a(chain.size()), sink(2);
  a.from_host(chain);
  const LinearTexture none(a.get(), chain.size(), false);
  const auto kernel = evict_kernel<kCa, kCa>;
  GD_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxL1));
  DeviceBuffer<RegionTiming> timing(1);
  const int lap = int(kSubpartitionBytes / 128);
  RegionTiming last{};
  RepeatPolicy policy;
  policy.min_samples = 3;
  policy.max_samples = 9;
  policy.time_cap_s = 0.2;
  const auto timed_lap = [&](int warm_laps, int warm_warp, int timer_warp) {
    return ctx.measure([&] {
      launch(ctx, kernel, {1, unsigned(32 * kSubpartitions)}, a.get(), none.get(), a.get(), none.get(), warm_laps * lap, lap, 0,
             warm_warp, timer_warp, timing.get(), sink.get());
      GD_CUDA_CHECK_LAUNCH();
      last = timing.to_host()[0];
      return cycles_per_step(last, lap);
    }, policy).summary;
  };
  const Summary own = timed_lap(1, 0, 0), cold = timed_lap(0, 0, 1);
  ctx.metric("subpartition/own_cycles", own);
  ctx.metric("subpartition/cold_cycles", cold);
  ctx.set_observed_sm_clock_mhz(clock_mhz(std::vector<RegionTiming>{last}));
  if (cold.median < own.median + 60)
    ctx.skip("no hit/miss contrast: a warp's own second lap took " + std::to_string(int(own.median)) +
             " cycles per load against " + std::to_string(int(cold.median)) + " with nothing warmed");
  std::vector<double> cycles(std::size_t(kSubpartitions * kSubpartitions), 0.0), across;
  nlohmann::json pairs = nlohmann::json::array();
  for (int w = 0; w < kSubpartitions; ++w)
    for (int t = 0; t < kSubpartitions; ++t) {
      if (w == t) continue;
      const double c = timed_lap(1, w, t).median;
      cycles[std::size_t(w * kSubpartitions + t)] = c;
      across.push_back(c);
      pairs.push_back({{"warm_warp", w}, {"timer_warp", t}, {"cycles", c}});
    }
  const CacheSharing sharing = sharing_groups(kSubpartitions, cycles, own.median, cold.median);
  const int l1s = int(sharing.groups.size());
  ctx.metric("latency/cycles", summarize(across));
  ctx.metric("subpartition/l1s_per_sm", double(l1s));
  ctx.extra()["pairs"] = pairs;
  ctx.extra()["groups"] = sharing.groups;
  ctx.extra()["note"] = sharing.note;
  ctx.extra()["chain_bytes"] = kSubpartitionBytes;
  ctx.extra()["verdict"] = l1s == 1 ? "one L1 per SM: every sub-partition found the lines another warmed"
                                    : std::to_string(l1s) + " groups of sub-partitions that do not find each other's lines";
}

// Every block (one per SM: its dynamic shared memory leaves room for no second) takes a ticket;
// the first warms the constant table's chain with a lap and raises `ready`, the others wait for
// it; then each times a lap. An SM that shares the leader's constant L1.5 finds the lines there.
__global__ void __launch_bounds__(32) l15_scope_kernel(int lap, unsigned* ticket, volatile unsigned* ready,
                                                       RegionTiming* timing, unsigned* order_out, unsigned* sink) {
  extern __shared__ unsigned pad[];
  if (threadIdx.x != 0) return;
  pad[0] = blockIdx.x;  // the allocation, not its use, keeps one block per SM
  const unsigned order = atomicAdd(ticket, 1u);
  unsigned i = 0;
  if (order == 0) {
#pragma unroll 1
    for (int s = 0; s < lap; ++s) i = gd_hier_const[i];
    __threadfence();
    *ready = 1u + (i == 0xffffffffu);
  } else {
    while (*ready == 0u) {
    }
  }
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int s = 0; s < lap; s += kUnroll) {
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) i = gd_hier_const[i];
  }
  timing[blockIdx.x] = clock.end();
  order_out[blockIdx.x] = order;
  sink[blockIdx.x] = i + pad[0];
}

constexpr std::int64_t kScopeBytes = 16 << 10;  // past the constant L1, inside the L1.5
constexpr int kScopeTrials = 8;

void run_l15_scope(ProbeContext& ctx) {
  const DeviceInfo& d = ctx.device();
  const unsigned blocks = unsigned(d.sm_count);
  // More than half the SM's shared memory per block: no two blocks share an SM, and every SM
  // holds one (the grid is one block per SM), so the waiting blocks cannot starve the leader.
  const int pad_bytes = int(d.shared_per_block_optin);
  if (pad_bytes * 2 <= d.shared_per_sm) ctx.skip("cannot force one block per SM with shared memory on this chip");
  GD_CUDA_CHECK(cudaFuncSetAttribute(l15_scope_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, pad_bytes));
  std::mt19937_64 rng(0x15c0e);
  const std::vector<std::uint32_t> next = memory::random_cycle(std::size_t(kScopeBytes / 64), rng);
  std::vector<unsigned> chain(kConstWords, 0);
  for (std::size_t s = 0; s < next.size(); ++s) chain[s * 16] = unsigned(next[s] * 16);
  const int lap = int(next.size());
  DeviceBuffer<unsigned> ticket(1), ready(1), order(blocks), sink(blocks);
  DeviceBuffer<RegionTiming> timing(blocks);
  nlohmann::json trials = nlohmann::json::array();
  std::vector<double> partners, leader_cycles, other_cycles;
  std::vector<RegionTiming> last;
  for (int t = 0; t < kScopeTrials; ++t) {
    GD_CUDA_CHECK(cudaMemcpyToSymbol(gd_hier_const, chain.data(), chain.size() * sizeof(unsigned)));  // caches cold
    ticket.fill_zero();
    ready.fill_zero();
    launch(ctx, l15_scope_kernel, {blocks, 32, std::size_t(pad_bytes)}, lap, ticket.get(), ready.get(), timing.get(),
           order.get(), sink.get());
    GD_CUDA_CHECK_LAUNCH();
    last = timing.to_host();
    const std::vector<unsigned> ord = order.to_host();
    const auto leader = std::size_t(std::find(ord.begin(), ord.end(), 0u) - ord.begin());
    const double lead = cycles_per_step(last[leader], lap);
    std::vector<double> others;
    for (std::size_t k = 0; k < last.size(); ++k)
      if (k != leader) others.push_back(cycles_per_step(last[k], lap));
    std::vector<double> sorted = others;
    std::nth_element(sorted.begin(), sorted.begin() + std::ptrdiff_t(sorted.size() / 2), sorted.end());
    const double median_other = sorted[sorted.size() / 2];
    // A partner finds the lines in the L1.5 it shares: nearer the leader's time than the others'.
    nlohmann::json sharers = nlohmann::json::array();
    for (std::size_t k = 0; k < last.size(); ++k)
      if (k != leader && cycles_per_step(last[k], lap) < (lead + median_other) / 2) sharers.push_back(last[k].smid);
    partners.push_back(double(sharers.size()));
    leader_cycles.push_back(lead);
    other_cycles.push_back(median_other);
    trials.push_back({{"leader_sm", last[leader].smid}, {"leader_cycles", lead}, {"median_other_cycles", median_other},
                      {"sharing_sms", sharers}});
    if (t == 0) {
      nlohmann::json per_sm = nlohmann::json::object();
      for (const RegionTiming& rt : last) per_sm[std::to_string(rt.smid)] = cycles_per_step(rt, lap);
      ctx.extra()["first_trial_cycles_by_sm"] = per_sm;
    }
  }
  ctx.metric("latency/cycles", summarize(other_cycles));
  ctx.metric("scope/leader_cycles", summarize(leader_cycles));
  ctx.metric("scope/sms_sharing", summarize(partners).median + 1);
  ctx.set_observed_sm_clock_mhz(clock_mhz(last));
  ctx.extra()["trials"] = trials;
  ctx.extra()["chain_bytes"] = kScopeBytes;
}

// ---- the constant L1.5's capacity and line: several modules' banks walked at once -------------
// A kernel may declare 64 KiB of constant data and the L1.5 holds all of it; it also starts every
// launch empty (scripts/experiments/NOTES.md), so a second bank walked by a later launch cannot
// overflow it. Its capacity shows only with several modules' banks walked at the same time from
// SMs that share it: one GPC (const_l15_scope). Each module is a copy of this unit's cubin
// (sass::ModuleCopy) with its own gd_hier_const, the code byte for byte the verified kernel's.

// The SMs of one GPC: a cluster's blocks run on one GPC, and with more than half an SM's shared
// memory each, on as many SMs.
__global__ void __launch_bounds__(32) l15_gpc_kernel(unsigned* sms) {
  extern __shared__ unsigned pad[];
  if (threadIdx.x != 0) return;
  pad[0] = blockIdx.x;
  sms[blockIdx.x] = ptx::smid() + (pad[0] == 0xffffffffu);
}

// One block per SM (its dynamic shared memory leaves room for no second block, of any module); the
// first block of module `table` to land on an SM of `gpc` walks the module's bank: two laps, then
// it meets the other modules' walkers, then times two more laps while they time theirs. A walker
// that waits a second for the others gives up and reports no cycles.
__global__ void __launch_bounds__(32) l15_capacity_kernel(int lap, const unsigned* gpc, int gpc_size, unsigned* taken,
                                                          int table, int tables, unsigned* arrived,
                                                          RegionTiming* timing, unsigned* sink) {
  extern __shared__ unsigned pad[];
  if (threadIdx.x != 0) return;
  pad[0] = blockIdx.x;
  const unsigned sm = ptx::smid();
  bool ours = false;
  for (int k = 0; k < gpc_size; ++k) ours |= gpc[k] == sm;
  if (!ours) return;
  const unsigned won = atomicCAS(taken + table, 0u, 1u);
  if (won != 0u) return;
  // The chase starts at the atomic's result (0): an index the compiler can prove uniform would
  // make it a ULDC chain through the uniform datapath, which the other constant probes do not time.
  unsigned i = won;
#pragma unroll 1
  for (int s = 0; s < 2 * lap; ++s) i = gd_hier_const[i];
  __threadfence();
  atomicAdd(arrived, 1u);
  // The wait reads %globaltimer, not the SM clock: clock reads bound the region the verifier checks.
  const unsigned long long t0 = ptx::globaltimer_ns();
  while (*static_cast<volatile unsigned*>(arrived) < unsigned(tables))
    if (ptx::globaltimer_ns() - t0 > 1000000000ull) {
      timing[table] = RegionTiming{};
      return;
    }
  RegionClock clock;
  clock.begin();
#pragma unroll 1
  for (int s = 0; s < 2 * lap; s += kUnroll) {
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) i = gd_hier_const[i];
  }
  timing[table] = clock.end();
  sink[table] = i + pad[0];
}

constexpr int kL15Tables = 8;  // a portable cluster's size: the GPC's SMs the walkers may use

// This device's copies of the unit's cubin and the SMs of one GPC, made once per process (loading
// eight copies costs more than a point). Never unloaded: the context's teardown frees them.
struct L15Setup {
  std::string kernel;  // mangled name
  std::vector<sass::ModuleCopy*> copies;
  std::vector<unsigned> gpc;
  int pad_bytes = 0;
};

const L15Setup& l15_setup(ProbeContext& ctx) {
  static std::map<int, L15Setup> by_device;
  const DeviceInfo& d = ctx.device();
  if (auto it = by_device.find(d.index); it != by_device.end()) return it->second;
  if (d.cc() < 90) ctx.skip("needs thread-block clusters (compute capability 9.0 or later) to find one GPC's SMs");
  const int pad_bytes = int(d.shared_per_block_optin);
  if (pad_bytes * 2 <= d.shared_per_sm) ctx.skip("cannot force one block per SM with shared memory on this chip");
  L15Setup s;
  s.pad_bytes = pad_bytes;
  const sass::LocatedKernel located = sass::locate_own_kernel(d, "l15_capacity_kernel");
  s.kernel = located.name;
  const auto* cubin = new sass::Cubin(located.cubin);  // the copies look their symbols up in it
  for (int t = 0; t < kL15Tables; ++t) {
    s.copies.push_back(new sass::ModuleCopy(*cubin));
    s.copies.back()->allow_dynamic_shared(s.kernel, pad_bytes);
  }
  allow_cluster_launch(l15_gpc_kernel, std::size_t(pad_bytes));
  DeviceBuffer<unsigned> sms(kL15Tables);
  launch_ex(ctx, l15_gpc_kernel, {kL15Tables, 32, std::size_t(pad_bytes)}, LaunchAttrs{kL15Tables}, sms.get());
  GD_CUDA_CHECK_LAUNCH();
  s.gpc = sms.to_host();
  std::vector<unsigned> distinct = s.gpc;
  std::sort(distinct.begin(), distinct.end());
  if (std::unique(distinct.begin(), distinct.end()) != distinct.end())
    throw Error("a cluster of " + std::to_string(kL15Tables) + " one-block-per-SM blocks shared an SM");
  return by_device.emplace(d.index, std::move(s)).first->second;
}

// Streams destroyed on every path.
struct Streams {
  std::vector<cudaStream_t> s;
  explicit Streams(int n) : s(std::size_t(n)) {
    for (auto& x : s) GD_CUDA_CHECK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
  }
  ~Streams() {
    for (auto x : s) cudaStreamDestroy(x);
  }
};

void run_l15_capacity(ProbeContext& ctx) {
  const std::int64_t stride = ctx.int_param("stride"), bytes = ctx.int_param("bytes");
  if (stride < 4 || stride % 4 || stride > 4096) throw UserError("stride must be a multiple of 4 bytes up to 4096");
  std::vector<int> lines;
  try {
    lines = split_over_tables(bytes, stride, kUnroll / 2, std::int64_t(kConstWords) * 4, kL15Tables);
  } catch (const std::invalid_argument& e) {
    throw UserError(e.what());
  }
  const L15Setup& setup = l15_setup(ctx);
  const int tables = int(lines.size());
  std::mt19937_64 rng(0x15ca9 + std::uint64_t(bytes) * 31 + std::uint64_t(stride));
  const std::size_t stride_words = std::size_t(stride / 4);
  for (int t = 0; t < tables; ++t) {
    const std::vector<std::uint32_t> next = memory::random_cycle(std::size_t(lines[std::size_t(t)]), rng);
    std::vector<unsigned> chain(kConstWords, 0);
    for (std::size_t k = 0; k < next.size(); ++k) chain[k * stride_words] = unsigned(next[k] * stride_words);
    std::size_t bank_bytes = 0;
    void* bank = setup.copies[std::size_t(t)]->global("gd_hier_const", &bank_bytes);
    if (bank_bytes != chain.size() * sizeof(unsigned)) throw Error("the module copy's constant table is not 64 KiB");
    GD_CUDA_CHECK(cudaMemcpy(bank, chain.data(), bank_bytes, cudaMemcpyHostToDevice));
  }
  DeviceBuffer<unsigned> gpc(setup.gpc.size()), taken(kL15Tables), arrived(1), sink(kL15Tables);
  gpc.from_host(setup.gpc);
  DeviceBuffer<RegionTiming> timing(kL15Tables);
  const Streams streams(tables);
  const unsigned blocks = unsigned(ctx.device().sm_count);
  std::vector<RegionTiming> last;
  int gave_up = 0;
  const auto sample = [&] {
    for (int attempt = 0;; ++attempt) {
      taken.fill_zero();
      arrived.fill_zero();
      timing.fill_zero();
      GD_CUDA_CHECK(cudaDeviceSynchronize());
      ctx.launched(reinterpret_cast<const void*>(l15_capacity_kernel));  // the copies run its code
      const ncu::Range profiled_as(ctx.ncu_tag());
      for (int t = 0; t < tables; ++t) {
        int lap = lines[std::size_t(t)], gpc_size = int(setup.gpc.size()), table = t, count = tables;
        unsigned *g = gpc.get(), *tk = taken.get(), *ar = arrived.get(), *sk = sink.get();
        RegionTiming* tm = timing.get();
        void* params[] = {&lap, &g, &gpc_size, &tk, &table, &count, &ar, &tm, &sk};
        setup.copies[std::size_t(t)]->launch(setup.kernel, blocks, 32, std::size_t(setup.pad_bytes),
                                             streams.s[std::size_t(t)], params);
      }
      GD_CUDA_CHECK(cudaDeviceSynchronize());
      last = timing.to_host();
      last.resize(std::size_t(tables));
      std::vector<double> per_load;
      for (int t = 0; t < tables; ++t)
        if (last[std::size_t(t)].cycles > 0) per_load.push_back(cycles_per_step(last[std::size_t(t)], 2 * lines[std::size_t(t)]));
      if (int(per_load.size()) == tables) return summarize(per_load).median;
      ++gave_up;
      if (attempt == 2)
        throw Error("the " + std::to_string(tables) + " tables' walkers did not all meet in three attempts (a module found no SM of the GPC free)");
    }
  };
  RepeatPolicy policy;
  policy.min_samples = 3;
  policy.time_cap_s = 0.2;
  ctx.metric("latency/cycles", ctx.measure(sample, policy).summary);
  ctx.set_observed_sm_clock_mhz(clock_mhz(last));
  nlohmann::json per_table = nlohmann::json::array();
  for (int t = 0; t < tables; ++t)
    per_table.push_back({{"lines", lines[std::size_t(t)]}, {"sm", last[std::size_t(t)].smid},
                         {"cycles_per_load", cycles_per_step(last[std::size_t(t)], 2 * lines[std::size_t(t)])}});
  ctx.extra()["tables"] = per_table;
  ctx.extra()["bytes_walked"] = std::int64_t(std::accumulate(lines.begin(), lines.end(), 0)) * stride;
  ctx.extra()["gpc_sms"] = setup.gpc;
  ctx.extra()["attempts_given_up"] = gave_up;
}

// At the smallest distance, a walk that fills the capacity the set structure implies (to within
// one line) put every address in a line of its own: the line is no longer than that distance.
void summarize_ways(SummaryContext& sc) {
  for (const Record* r : sc.ok_records()) {
    const Metric* ways = r->metric("ways/count");
    const Metric* stride = r->metric("ways/set_stride_bytes");
    if (!ways || !stride || !r->extra.contains("conflict_sweeps") || r->extra["conflict_sweeps"].empty()) continue;
    const auto& nearest = r->extra["conflict_sweeps"][0];
    const double d = nearest["distance_bytes"].get<double>();
    const double fitted = nearest["ways"].get<double>() * d, capacity = ways->value() * stride->value();
    if (!nearest["ways_found"].get<bool>() || std::abs(fitted - capacity) > d) continue;
    Record& out = sc.derive({{"path", std::get<std::string>(*find_param(r->params, "path"))}, {"quantity", std::string("line")}}, {r});
    sc.add_metric(out, "ways/line_at_most_bytes", single_value(d));
    out.extra["note"] = "a walk of lines " + std::to_string(int(d)) + " B apart filled the " + std::to_string(int(capacity)) +
                        " B the sets hold: each address had a line of its own";
  }
}

// ---- summaries ---------------------------------------------------------------------------------

struct Curve {
  std::vector<double> x, y;
  std::vector<const Record*> sources;
};

// The points of the records matching `where`, ascending in `axis`.
Curve curve_of(SummaryContext& sc, const Params& where, const std::string& axis) {
  std::vector<std::pair<double, const Record*>> pts;
  for (const Record* r : sc.ok_records(where))
    if (r->metric("latency/cycles")) pts.push_back({double(std::get<std::int64_t>(*find_param(r->params, axis))), r});
  std::sort(pts.begin(), pts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  Curve c;
  for (const auto& [x, r] : pts) {
    c.x.push_back(x);
    c.y.push_back(r->metric("latency/cycles")->value());
    c.sources.push_back(r);
  }
  return c;
}

// Every step of a latency-versus-footprint curve as a derived record named by its level: the
// level ends at capacity/bytes (its last point), the curve has left it by capacity/upper_bytes.
// The steps are named `names` nearest level first; steps past the names are "step N". The first
// point past a level also tells its replacement: a cyclic chase a little larger than an LRU (or
// FIFO) cache misses on every load, so a partial rise there means another policy.
std::vector<ChangePoint> derive_steps(SummaryContext& sc, const Params& params, const Curve& c,
                                      const std::vector<std::string>& names) {
  if (c.x.size() < 5) return {};
  const ChangePoints cps = find_change_points(c.x, c.y);
  for (std::size_t i = 0; i < cps.steps.size(); ++i) {
    const ChangePoint& s = cps.steps[i];
    Params p = params;
    p.push_back({"level", i < names.size() ? names[i] : "step " + std::to_string(i + 1)});
    Record& r = sc.derive(p, c.sources);
    sc.add_metric(r, "latency/cycles", single_value(s.before));  // where the report draws the knee's band
    sc.add_metric(r, "capacity/bytes", single_value(s.last_before));
    sc.add_metric(r, "capacity/upper_bytes", single_value(s.first_after));
    sc.add_metric(r, "capacity/confidence", single_value(s.confidence));
    sc.add_metric(r, "latency/below_cycles", single_value(s.before));
    sc.add_metric(r, "latency/above_cycles", single_value(s.after));
    sc.add_metric(r, "capacity/miss_penalty_cycles", single_value(s.after - s.before));
    const std::size_t over = s.lower_end + 1;
    if (over < c.x.size() && s.after > s.before) {
      const double share = std::clamp((c.y[over] - s.before) / (s.after - s.before), 0.0, 1.0);
      sc.add_metric(r, "capacity/overflow_ratio", single_value(c.x[over] / s.last_before));
      sc.add_metric(r, "capacity/overflow_miss_share", single_value(share));
      // The curve's shape only: under a hashed set index a random footprint just past the
      // capacity overflows some sets before others, so even LRU keeps hitting on some loads there.
      // The policy is the one-set walk's (memory.hierarchy.l1_eviction_set).
      r.extra["replacement_hint"] = share >= 0.9 ? "abrupt: the first footprint past the level misses on nearly every load"
                                                 : "gradual: the first footprint past the level still hits on some loads "
                                                   "(with a hashed set index some sets overflow first: no verdict on the policy)";
    }
    r.extra["method"] = "binary segmentation of log latency over footprint, permutation test (analysis/change_point)";
  }
  if (!cps.found()) {
    Params p = params;
    p.push_back({"level", std::string("none")});
    sc.derive(p, c.sources).extra["note"] = "no step found: " + cps.note;
  }
  return cps.steps;
}

// The line from where the first level's knee moves with the stride (analysis/fetch_granularity).
void derive_line(SummaryContext& sc, const Params& params, const std::vector<std::int64_t>& strides,
                 const std::vector<std::string>& names) {
  std::vector<KneeAtStride> knees;
  std::vector<const Record*> all;
  double confidence = 1;
  for (std::int64_t stride : strides) {
    Params where = params;
    where.push_back({"stride", stride});
    const Curve c = curve_of(sc, where, "bytes");
    const std::vector<ChangePoint> steps = derive_steps(sc, where, c, names);
    if (steps.empty()) continue;
    const ChangePoint& knee = steps.front();
    knees.push_back({double(stride), knee.last_before});
    confidence = std::min(confidence, knee.confidence);
    all.insert(all.end(), c.sources.begin(), c.sources.end());
  }
  if (knees.size() < 2) return;
  const LineSize line = line_from_knees(knees);
  Params p = params;
  p.push_back({"level", names.front()});
  p.push_back({"quantity", std::string("line")});
  Record& r = sc.derive(p, all);
  r.extra["knee_ratios"] = line.ratios;
  r.extra["note"] = line.note;
  r.extra["line_answer"] = line.found ? std::to_string(int(line.line)) + " B" : "undetermined: " + line.note;
  if (!line.found) return;
  sc.add_metric(r, "line/bytes", single_value(line.line));
  sc.add_metric(r, "line/confidence", single_value(confidence));
}

// 512 B slots tell a 256-byte line from an index that a 256-byte stride folds onto half the sets.
const std::vector<std::int64_t> kCapacityStrides = {32, 64, 128, 256, 512};
const std::vector<std::int64_t> kL2Strides = {64, 128, 256};
const std::vector<std::int64_t> kConstStrides = {16, 32, 64, 128};
const std::vector<std::int64_t> kCarveouts = {0, 25, 50, 75, 100};

void summarize_capacity(SummaryContext& sc) {
  for (const std::string path : {"ca", "nc", "tex"})
    derive_line(sc, {{"path", path}}, kCapacityStrides, {"L1"});
}

// The texture knee stays at the same footprint from 32 to 512 B slots (memory.hierarchy.capacity),
// so the texture line is 512 B or more; slots of 1 and 2 KiB tell which: with a 512-byte line
// their knees double and quadruple (a one-set-per-stride index would have halved them instead).
const std::vector<std::int64_t> kTextureLineStrides = {128, 512, 1024, 2048};

void summarize_texture_line(SummaryContext& sc) { derive_line(sc, {}, kTextureLineStrides, {"texture"}); }

// The whole L2 from every SM at once: its first step, stated as the item's answer with its confidence.
void summarize_l2_all_sms(SummaryContext& sc) {
  const Curve c = curve_of(sc, {}, "bytes");
  const std::vector<ChangePoint> steps = derive_steps(sc, {}, c, {"L2"});
  Params p = {{"level", std::string("L2")}, {"quantity", std::string("capacity")}};
  Record& r = sc.derive(p, c.sources);
  r.extra["method"] = "every SM chasing a private random cycle over its slice at once; the first latency step by "
                      "binary segmentation and a permutation test (analysis/change_point)";
  if (steps.empty()) {
    r.extra["capacity_answer"] = c.x.size() < 5 ? "undetermined: fewer than five footprints measured"
                                                : "undetermined: no latency step inside the sweep";
    return;
  }
  const ChangePoint& s = steps.front();
  const auto mib = [](double b) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MiB", b / 1048576.0);
    return std::string(text);
  };
  r.extra["capacity_answer"] = mib(s.last_before) + " to " + mib(s.first_after) + " (confidence " +
                               std::to_string(int(std::lround(s.confidence * 1000))) + "/1000)";
  sc.add_metric(r, "capacity/bytes", single_value(s.last_before));
  sc.add_metric(r, "capacity/upper_bytes", single_value(s.first_after));
  sc.add_metric(r, "capacity/confidence", single_value(s.confidence));
}

void summarize_carveout(SummaryContext& sc) {
  for (std::int64_t carveout : kCarveouts)
    derive_steps(sc, {{"carveout", carveout}}, curve_of(sc, {{"carveout", carveout}}, "bytes"), {"L1"});
}

// The first step of the .cg curve is where one SM's view of L2 (its segment) ends; past it the
// latency climbs gradually towards DRAM, with no step at the L2's full size (see docs).
void summarize_l2(SummaryContext& sc) { derive_line(sc, {}, kL2Strides, {"L2.segment"}); }

// The constant L1.5 shows no step inside the 64 KiB a kernel may declare (the curve at a 64-byte
// stride stays on its level to the end), so its capacity is a lower bound: the largest footprint
// still within 15 % of the level.
void summarize_const(SummaryContext& sc) {
  derive_line(sc, {}, kConstStrides, {"constant.L1"});
  const Curve c = curve_of(sc, {{"stride", std::int64_t(64)}}, "bytes");
  if (c.x.size() < 5) return;
  const ChangePoints cps = find_change_points(c.x, c.y);
  if (cps.steps.size() != 1) return;  // a second step would be a measured L1.5 capacity, not a bound
  const std::vector<double> upper(c.y.begin() + std::ptrdiff_t(cps.steps[0].upper_begin), c.y.end());
  const double level = summarize(upper).median;
  double at_least = 0;
  for (std::size_t i = cps.steps[0].upper_begin; i < c.x.size(); ++i)
    if (std::abs(c.y[i] / level - 1) <= 0.15) at_least = c.x[i];
  Record& r = sc.derive({{"stride", std::int64_t(64)}, {"level", std::string("constant.L1.5")}}, c.sources);
  sc.add_metric(r, "capacity/at_least_bytes", single_value(at_least));
  sc.add_metric(r, "latency/below_cycles", single_value(level));
  r.extra["note"] = "no step past the constant L1 up to the largest constant table a kernel may declare: the L1.5 holds at least this much";
}

// The L1.5's knee from 64 B slots (inside its 256 B fetch) up: where it starts to move with the
// slot is its line. On the development runs of 2026-12-04 the knee stayed at 124-132 KiB from 64
// to 512 B slots, which a line of 512 B or more gives, and so does a set index that power-of-two
// slots fold onto fewer sets; at 384 and 768 B slots it moved 1.2x and 2.0x, in proportion to no
// single line size, so line_from_knees leaves the line undetermined and says why.
const std::vector<std::int64_t> kL15Strides = {64, 128, 256, 384, 512, 768};
void summarize_l15_capacity(SummaryContext& sc) { derive_line(sc, {}, kL15Strides, {"constant.L1.5"}); }

const std::vector<double> kFetchCandidates = {16, 32, 64, 128, 256, 512};

void summarize_fetch(SummaryContext& sc) {
  for (const std::string& path : kPathNames) {
    const Curve c = curve_of(sc, {{"path", path}}, "stride");
    if (c.x.size() < 4) continue;
    std::vector<FetchPoint> pts;
    for (std::size_t i = 0; i < c.x.size(); ++i) pts.push_back({c.x[i], c.y[i]});
    // Only the constant path starts with two levels cold (L1 and L1.5); the others miss one.
    const FetchGranularity g = fetch_granularity(pts, kFetchCandidates, 0.10, path == "const" ? 2 : 1);
    Record& r = sc.derive({{"path", path}, {"quantity", "fetch"}}, c.sources);
    r.extra["note"] = g.note;
    if (!g.found) continue;
    sc.add_metric(r, "fetch/bytes", single_value(g.levels.front().granularity));
    sc.add_metric(r, "fetch/miss_cycles", single_value(g.levels.front().miss_cost));
    if (g.levels.size() > 1) {
      sc.add_metric(r, "fetch/next_bytes", single_value(g.levels.back().granularity));
      sc.add_metric(r, "fetch/next_miss_cycles", single_value(g.levels.back().miss_cost));
    }
    sc.add_metric(r, "fetch/hit_cycles", single_value(g.hit_latency));
    sc.add_metric(r, "fetch/confidence", single_value(g.confidence));
    sc.add_metric(r, "fetch/rms_log_error", single_value(g.rms_log_error));
  }
}

// ---- registration ------------------------------------------------------------------------------

std::vector<SassExpectation> chase_sass(std::vector<int> paths) {
  // The clocked loop is the path's load and nothing else from memory.
  const std::map<int, std::string> op = {{kCa, "LDG.E"}, {kCg, "LDG.E.STRONG.GPU"}, {kNc, "LDG.E.CONSTANT"},
                                         {kTex, "TLD"}, {kConst, "LDC"}};
  std::vector<SassExpectation> out;
  for (int p : paths) {
    std::vector<std::string> forbid = {"LDL", "STL", "LDS"};
    if (p == kCa || p == kNc) forbid.push_back("LDG.E.STRONG");
    if (p == kCa || p == kCg) forbid.push_back("LDG.E.CONSTANT");
    if (p == kTex || p == kConst) forbid.push_back("LDG");
    // LDC also loads a kernel parameter (c[0x0]) the compiler may place inside the loop: one more.
    out.push_back(expect_sass("*hier_chase_kernel<" + std::to_string(p) + ">*", SassRegion::Clocked,
                              {{op.at(p), kUnroll, p == kConst ? kUnroll + 1 : kUnroll}}, forbid));
  }
  return out;
}

std::vector<MetricSpec> chase_metrics() {
  return {{"latency/cycles", "cycles", "mean time of one dependent load of the chase (median over repeats; derived: the level's median)"},
          {"capacity/bytes", "bytes", "derived: the last footprint below a latency step (the level's capacity)"},
          {"capacity/upper_bytes", "bytes", "derived: the first footprint past the step"},
          {"capacity/confidence", "ratio", "derived: 1 - the step's permutation p-value"},
          {"latency/below_cycles", "cycles", "derived: median latency of the level below the step"},
          {"latency/above_cycles", "cycles", "derived: median latency of the level above the step"},
          {"line/bytes", "bytes", "derived: the largest stride whose capacity knee did not move (the line)"},
          {"line/confidence", "ratio", "derived: the least confidence of the knees it was read from"},
          {"capacity/overflow_ratio", "ratio", "derived: the first footprint past the level over its capacity"},
          {"capacity/miss_penalty_cycles", "cycles", "derived: the level above's latency minus this level's (MT4G's miss penalty)"},
          {"capacity/at_least_bytes", "bytes", "derived: a level with no step inside the sweep holds at least this much"},
          {"capacity/overflow_miss_share", "ratio",
           "derived: share of loads missing at that footprint (near 1: LRU or FIFO; partial: another policy)"}};
}

// Latency over footprint, each detected knee a band from the level's last point to the first past it.
ReportView footprint_view(std::string series) {
  ReportView v = line_view("bytes", "latency/cycles", std::move(series));
  v.log_x = true;
  v.span_first = "capacity/bytes";
  v.span_last = "capacity/upper_bytes";
  v.span_label = "level";
  return v;
}

// The four footprint sweeps differ in their axes, paths, figure series, covers and analysis only.
struct FootprintFamily {
  const char* id;
  const char* description;
  std::vector<Axis> axes;
  std::vector<int> paths;
  const char* series;
  std::vector<SeedCover> covers;
  void (*run)(ProbeContext&);
  void (*summarize)(SummaryContext&);
  double time_cap_s;
};

ProbeSpec footprint_spec(FootprintFamily f) {
  ProbeSpec s;
  s.id = f.id;
  s.description = f.description;
  s.axes = std::move(f.axes);
  s.sass = chase_sass(f.paths);
  s.metrics = chase_metrics();
  s.views = {footprint_view(f.series)};
  s.covers = std::move(f.covers);
  s.run = f.run;
  s.summarize = f.summarize;
  s.time_cap_s = f.time_cap_s;
  s.quick_time_cap_s = 3;
  return s;
}

ProbeSpec capacity_spec() {
  return footprint_spec(
      {"memory.hierarchy.capacity",
       "capacity and line size of the L1, read-only and texture paths: random chase latency vs footprint at 4 pointer strides",
       {std::move(Axis::list("path", std::vector<std::string>{"ca", "nc", "tex"})).quick_list({std::string("ca")}),
        std::move(Axis::list("stride", kCapacityStrides)).quick({128}),
        // 6 % steps from well inside L1 to past where a 512-byte stride's knee lands.
        std::move(Axis::log_spaced("bytes", 96 << 10, 1280 << 10, 45)).quick_list(Axis::log_spaced("bytes", 160 << 10, 400 << 10, 8).values)},
       {kCa, kNc, kTex},
       "stride",
       {{"hierarchy.readonly.size", "capacity/bytes", {{"path", "nc"}, {"stride", 128}, {"level", "L1"}}},
        {"hierarchy.texture.size", "capacity/bytes", {{"path", "tex"}, {"stride", 128}, {"level", "L1"}}},
        {"hierarchy.l1.line", "extra.line_answer", {{"path", "ca"}, {"quantity", "line"}}},
        {"hierarchy.readonly.line", "extra.line_answer", {{"path", "nc"}, {"quantity", "line"}}}},
       run_capacity,
       summarize_capacity,
       40});
}

ProbeSpec texture_line_spec() {
  return footprint_spec(
      {"memory.hierarchy.texture_line",
       "texture path line size: texture chase latency vs footprint at slots up to 2 KiB, past where the knee stops holding",
       {std::move(Axis::list("stride", kTextureLineStrides)).quick({512, 1024}),
        // 6 % steps from inside the texture cache to past a 2 KiB slot's knee (four times 232 KiB).
        std::move(Axis::log_spaced("bytes", 160 << 10, 1536 << 10, 40)).quick_list(Axis::log_spaced("bytes", 160 << 10, 1024 << 10, 8).values)},
       {kTex},
       "stride",
       {{"hierarchy.texture.line", "extra.line_answer", {{"level", "texture"}, {"quantity", "line"}}}},
       run_texture_line,
       summarize_texture_line,
       15});
}

ProbeSpec carveout_spec() {
  return footprint_spec(
      {"memory.hierarchy.l1_carveout",
       "L1 data cache capacity at each preferred shared-memory carveout (random chase, 128-byte slots)",
       {std::move(Axis::list("carveout", kCarveouts)).quick({0, 100}),
        // 4 KiB steps: the capacity is known to +-2 % at 200 KiB.
        std::move(Axis::range("bytes", 8 << 10, 296 << 10, 4 << 10)).quick_list(Axis::log_spaced("bytes", 8 << 10, 296 << 10, 16).values)},
       {kCa},
       "carveout",
       {{"hierarchy.l1.size", "capacity/bytes", {{"carveout", 0}, {"level", "L1"}}},
        {"hierarchy.l1.miss_penalty", "capacity/miss_penalty_cycles", {{"carveout", 0}, {"level", "L1"}}}},
       run_carveout,
       summarize_carveout,
       20});
}

ProbeSpec l2_spec() {
  return footprint_spec(
      {"memory.hierarchy.l2_capacity",
       "L2 capacity and its segments: .cg chase latency vs footprint, fine-grained around the L2 size",
       {std::move(Axis::list("stride", kL2Strides)).quick({128}),
        std::move(Axis::log_spaced("bytes", 4 << 20, std::int64_t(192) << 20, 44))
            .quick_list(Axis::log_spaced("bytes", 8 << 20, std::int64_t(128) << 20, 10).values)},
       {kCg},
       "stride",
       {{"hierarchy.l2.segment", "capacity/bytes", {{"stride", 128}, {"level", "L2.segment"}}},
        {"hierarchy.l2.line", "extra.line_answer", {{"level", "L2.segment"}, {"quantity", "line"}}}},
       run_l2_capacity,
       summarize_l2,
       20});
}

ProbeSpec l2_all_sms_spec() {
  ProbeSpec s;
  s.id = "memory.hierarchy.l2_all_sms";
  s.description = "the whole L2's capacity as every SM sees it: every SM chases a private slice of the footprint at once";
  // 5 % steps from well inside one segment to three times the driver's L2 size.
  s.axes = {std::move(Axis::log_spaced("bytes", 16 << 20, std::int64_t(192) << 20, 52))
                .quick_list(Axis::log_spaced("bytes", 24 << 20, std::int64_t(128) << 20, 8).values)};
  s.sass = {expect_sass("*all_sms_chase_kernel*", SassRegion::Clocked, {{"LDG.E.STRONG.GPU", kUnroll, kUnroll}},
                        {"LDL", "STL", "LDS", "LDG.E.CONSTANT"}),
            expect_sass("*all_sms_link_kernel*", SassRegion::Whole, {{"STG.E", 1, -1}})};
  s.metrics = chase_metrics();
  s.views = {footprint_view("")};
  s.covers = {{"hierarchy.l2.size", "extra.capacity_answer", {{"level", std::string("L2")}, {"quantity", std::string("capacity")}}}};
  // Under run --ncu, a second witness of the step: the chase's L2 hit and miss sectors per footprint
  // (ncu flushes the caches before each profiled launch, so its warm-up reads count as misses too).
  s.ncu_metrics = memory::l2_read_lookup_metrics();
  s.run = run_l2_all_sms;
  s.summarize = summarize_l2_all_sms;
  s.time_cap_s = 20;
  s.quick_time_cap_s = 3;
  return s;
}

ProbeSpec const_spec() {
  return footprint_spec(
      {"memory.hierarchy.const_capacity",
       "constant cache capacities (L1, L1.5) and line: LDC chase latency vs footprint at 4 strides",
       {std::move(Axis::list("stride", kConstStrides)).quick({64}),
        std::move(Axis::log_spaced("bytes", 512, 64 << 10, 29)).quick_list(Axis::log_spaced("bytes", 512, 64 << 10, 12).values)},
       {kConst},
       "stride",
       {{"hierarchy.const.l1_size", "capacity/bytes", {{"stride", 64}, {"level", "constant.L1"}}},
        {"hierarchy.const.l1_latency", "latency/below_cycles", {{"stride", 64}, {"level", "constant.L1"}}},
        {"hierarchy.const.l15_latency", "latency/below_cycles", {{"stride", 64}, {"level", "constant.L1.5"}}}},
       run_const_capacity,
       summarize_const,
       10});
}

ProbeSpec fetch_spec() {
  ProbeSpec s;
  s.id = "memory.hierarchy.fetch";
  s.description = "fetch granularity of each load path: first-touch sequential walk latency vs stride";
  s.axes = {std::move(Axis::list("path", kPathNames)).quick_list({std::string("ca"), std::string("cg")}),
            std::move(Axis::list("stride", {4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512}))
                .quick({4, 16, 32, 64, 128, 256})};
  s.sass = chase_sass({kCa, kCg, kNc, kTex, kConst});
  s.sass.push_back(expect_sass("*hier_l2_touch_kernel*", SassRegion::Whole, {{"LDG.E.STRONG.GPU", 1, -1}}));
  s.metrics = {{"latency/cycles", "cycles", "mean time of one load of the first-touch walk (median over walks)"},
               {"fetch/bytes", "bytes", "derived: the fetch granularity of the nearest level missed"},
               {"fetch/miss_cycles", "cycles", "derived: latency a miss of that level adds"},
               {"fetch/next_bytes", "bytes", "derived: the next level's fetch granularity, when two are missed together"},
               {"fetch/next_miss_cycles", "cycles", "derived: latency a miss of the next level adds"},
               {"fetch/hit_cycles", "cycles", "derived: fitted latency of a load that misses nothing"},
               {"fetch/confidence", "ratio", "derived: share of leave-one-out refits choosing the same granularities"},
               {"fetch/rms_log_error", "ratio", "derived: the fit's RMS error of log latency"}};
  s.views = {line_view("stride", "latency/cycles", "path")};
  s.covers = {{"hierarchy.l1.fetch", "fetch/bytes", {{"path", "ca"}}},
              {"hierarchy.l2.fetch", "fetch/bytes", {{"path", "cg"}}},
              {"hierarchy.l2.miss_penalty", "fetch/miss_cycles", {{"path", "cg"}}},
              {"hierarchy.readonly.fetch", "fetch/bytes", {{"path", "nc"}}},
              {"hierarchy.texture.fetch", "fetch/bytes", {{"path", "tex"}}},
              {"hierarchy.const.l1_fetch", "fetch/bytes", {{"path", "const"}}},
              {"hierarchy.const.l15_fetch", "fetch/next_bytes", {{"path", "const"}}}};
  s.run = run_fetch;
  s.summarize = summarize_fetch;
  s.time_cap_s = 15;
  s.quick_time_cap_s = 2;
  return s;
}

ProbeSpec ways_spec() {
  ProbeSpec s;
  s.id = "memory.hierarchy.ways";
  s.description = "associativity, set stride and replacement policy of the L1 data cache and the constant L1 (conflict sets, re-reference test)";
  s.axes = {std::move(Axis::list("path", std::vector<std::string>{"ca", "const"})).quick_list({std::string("const")})};
  s.sass = chase_sass({kCa, kConst});
  s.metrics = {{"ways/found", "bool", "1 when a distance made lines conflict before the cache was full"},
               {"ways/count", "lines", "lines of one set that still all hit (the ways)"},
               {"ways/confidence", "ratio", "1 - the permutation p-value of the step from hits to misses"},
               {"ways/set_stride_bytes", "bytes", "the smallest distance whose lines share a set (sets x line)"},
               {"ways/capacity_bytes", "bytes", "ways x set stride: the capacity the set structure implies"},
               {"ways/hit_cycles", "cycles", "latency per access while the set holds the walk"},
               {"ways/miss_cycles", "cycles", "latency per access once it does not"},
               {"ways/miss_share_next", "ratio", "share of misses of a walk one line longer than the ways (1: LRU or FIFO)"},
               {"ways/line_at_most_bytes", "bytes", "derived: the smallest distance whose walk filled the whole capacity: the line is no longer"},
               {"replacement/kept", "count", "re-reference trials in which the re-touched first line survived"},
               {"replacement/control_kept", "count", "control trials (no extra line) that kept the first line: all, or no verdict"},
               {"replacement/trials", "count", "re-reference trials"},
               {"replacement/confidence", "ratio", "confidence of the policy verdict (binomial)"}};
  s.covers = {{"hierarchy.const.l1_ways", "ways/count", {{"path", "const"}}},
              {"hierarchy.const.l1_line", "ways/line_at_most_bytes", {{"path", "const"}, {"quantity", "line"}}},
              {"hierarchy.const.l1_replacement", "extra.replacement_policy", {{"path", "const"}}}};
  s.run = run_ways;
  s.summarize = summarize_ways;
  s.time_cap_s = 20;
  s.quick_time_cap_s = 3;
  return s;
}

ProbeSpec eviction_set_spec() {
  ProbeSpec s;
  s.id = "memory.hierarchy.l1_eviction_set";
  s.description = "L1 data cache ways and sets under a hashed index: a minimal eviction set of a target line found by search, its set's other lines, and a walk over them";
  s.axes = {std::move(Axis::list("target", std::vector<std::int64_t>{1365, 2730})).quick({1365})};
  s.sass = chase_sass({kCa});
  s.metrics = {{"eviction/hit_cycles", "cycles", "the target's timed load with nothing walked before it, after two touches"},
               {"eviction/hit_one_touch_cycles", "cycles", "the same with the target touched once before it is timed (a second miss on some lines)"},
               {"eviction/miss_cycles", "cycles", "the target's timed load after two laps of the whole pool (twice the L1)"},
               {"eviction/start_lines", "lines", "the evicting prefix of the shuffled pool the group elimination started from"},
               {"eviction/oracle_calls", "count", "questions the search asked (each the majority of up to five walks)"},
               {"eviction/walks", "count", "walks timed by the search and the congruence"},
               {"eviction/set_lines", "lines", "lines of the eviction set the search ended with"},
               {"eviction/dispensable_lines", "lines", "lines of it whose removal still evicted (0: the set is minimal)"},
               {"eviction/congruent_lines", "lines", "candidates that, swapped into the set, restored the eviction (the target's set)"},
               {"eviction/candidates", "lines", "candidates classified"},
               {"eviction/sets", "sets", "lines considered over lines found in the target's set: the sets the pool spreads over, if evenly"},
               {"eviction/implied_bytes", "bytes", "sets x ways x 128 B: a uniform set-associative array of that geometry"},
               {"ways/found", "bool", "1 when the walk over the target's set stepped from hits to misses"},
               {"ways/count", "lines", "the longest walk over lines of one set that still hits (the ways)"},
               {"ways/confidence", "ratio", "1 - the permutation p-value of that step"},
               {"ways/miss_share_next", "ratio", "share of misses of a walk one line longer than the ways (1: LRU or FIFO)"}};
  // Target 1365: the line whose 9-line minimal set scripts/experiments/eviction_rate.cu found.
  s.covers = {{"hierarchy.l1.ways", "extra.ways_answer", {{"target", 1365}}},
              {"hierarchy.l1.replacement", "extra.replacement_policy", {{"target", 1365}}}};
  s.run = run_eviction_set;
  s.time_cap_s = 30;
  s.quick_time_cap_s = 2;  // skipped in a quick run (45 s in all)
  return s;
}

ProbeSpec evict_spec() {
  ProbeSpec s;
  s.id = "memory.hierarchy.sharing";
  s.description = "whether the L1, read-only and texture paths share storage: one path's lines evicted by another's";
  s.axes = {std::move(Axis::list("pair", std::vector<std::string>{"ca_ca", "ca_nc", "ca_tex", "nc_tex"}))
                .quick_list({std::string("ca_tex")})};
  const std::map<int, std::string> op = {{kCa, "LDG.E"}, {kNc, "LDG.E.CONSTANT"}, {kTex, "TLD"}};
  for (const PathPair& p : kPairs)
    s.sass.push_back(expect_sass("*evict_kernel<" + std::to_string(p.a) + ", " + std::to_string(p.b) + ">*",
                                 SassRegion::Clocked, {{op.at(p.a), kUnroll, kUnroll}}));
  s.metrics = {{"latency/cycles", "cycles", "per load of the first chain's lap after the second chain's lap"},
               {"sharing/alone_cycles", "cycles", "per load of the first chain's lap with nothing in between"},
               {"sharing/slowdown", "ratio", "after over alone: above 1.5, the paths share storage"}};
  s.covers = {{"hierarchy.sharing.l1_texture", "extra.verdict", {{"pair", "ca_tex"}}},
              {"hierarchy.sharing.l1_readonly", "extra.verdict", {{"pair", "ca_nc"}}}};
  s.run = run_evict;
  s.time_cap_s = 6;
  s.quick_time_cap_s = 1;
  return s;
}

ProbeSpec subpartition_spec() {
  ProbeSpec s;
  s.id = "memory.hierarchy.l1_subpartitions";
  s.description = "how many L1 data caches one SM has: a warp on one sub-partition warms a chain, a warp on another times it";
  s.sass = {expect_sass("*evict_kernel<" + std::to_string(kCa) + ", " + std::to_string(kCa) + ">*", SassRegion::Clocked,
                        {{"LDG.E", kUnroll, kUnroll}}, {"LDL", "STL", "LDG.E.CONSTANT"})};
  s.metrics = {{"latency/cycles", "cycles", "per load of a lap timed by one warp after another warp's lap (median over the 12 pairs)"},
               {"subpartition/own_cycles", "cycles", "per load of a warp's second lap of its own chain (an L1 hit)"},
               {"subpartition/cold_cycles", "cycles", "per load of a lap with nothing warmed (from L2)"},
               {"subpartition/l1s_per_sm", "count", "groups of sub-partitions that find each other's lines: the L1s of one SM"}};
  s.covers = {{"hierarchy.l1.per_sm", "subpartition/l1s_per_sm", {}}};
  s.run = run_subpartitions;
  s.time_cap_s = 4;
  s.quick_time_cap_s = 1;
  return s;
}

ProbeSpec l15_scope_spec() {
  ProbeSpec s;
  s.id = "memory.hierarchy.const_l15_scope";
  s.description = "how many SMs share a constant L1.5: one SM warms it, every other SM times the same lines";
  s.sass = {expect_sass("*l15_scope_kernel*", SassRegion::Clocked, {{"LDC", kUnroll, kUnroll + 1}}, {"LDL", "STL", "LDG"})};
  s.metrics = {{"latency/cycles", "cycles", "median over SMs not sharing the leader's L1.5 of their lap's time per load"},
               {"scope/leader_cycles", "cycles", "the leader's own second lap, per load (an L1.5 hit)"},
               {"scope/sms_sharing", "SMs", "SMs whose lap found the leader's lines, the leader included (median over trials)"}};
  s.covers = {{"hierarchy.const.l15_scope", "scope/sms_sharing", {}}};
  s.run = run_l15_scope;
  s.time_cap_s = 4;
  s.quick_time_cap_s = 1;
  return s;
}

// Footprints about 6 % apart, multiples of 2 KiB (whole groups of lines at the power-of-two
// slots; the others walk the whole groups that fit, `extra.bytes_walked`).
std::vector<std::int64_t> l15_footprints(std::int64_t from, std::int64_t to, int points) {
  std::vector<std::int64_t> out;
  for (const ParamValue& v : Axis::log_spaced("bytes", from, to, points).values) {
    const std::int64_t rounded = (std::get<std::int64_t>(v) + 1024) / 2048 * 2048;
    if (out.empty() || rounded != out.back()) out.push_back(rounded);
  }
  return out;
}

ProbeSpec l15_capacity_spec() {
  ProbeSpec s;
  s.id = "memory.hierarchy.const_l15_capacity";
  s.description = "constant L1.5 capacity and line: up to eight modules' constant banks chased at once from SMs of one GPC, at 6 strides";
  s.axes = {std::move(Axis::list("stride", kL15Strides)).quick({64}),
            std::move(Axis::list("bytes", l15_footprints(32 << 10, 480 << 10, 47))).quick_list(Axis::list("bytes", l15_footprints(32 << 10, 480 << 10, 10)).values)};
  s.sass = {expect_sass("*l15_capacity_kernel*", SassRegion::Clocked, {{"LDC", kUnroll, kUnroll + 1}}, {"LDL", "STL", "LDG"}),
            expect_sass("*l15_gpc_kernel*", SassRegion::Whole, {{"S2R", 1, -1}, {"STG.E", 1, -1}})};
  s.metrics = chase_metrics();
  s.views = {footprint_view("stride")};
  s.covers = {{"hierarchy.const.l15_size", "capacity/bytes", {{"stride", 64}, {"level", "constant.L1.5"}}},
              {"hierarchy.const.l15_line", "extra.line_answer", {{"level", "constant.L1.5"}, {"quantity", "line"}}}};
  s.run = run_l15_capacity;
  s.summarize = summarize_l15_capacity;
  s.time_cap_s = 15;
  s.quick_time_cap_s = 2;
  return s;
}

GD_REGISTER_PROBE(capacity_spec());
GD_REGISTER_PROBE(texture_line_spec());
GD_REGISTER_PROBE(carveout_spec());
GD_REGISTER_PROBE(l2_spec());
GD_REGISTER_PROBE(l2_all_sms_spec());
GD_REGISTER_PROBE(const_spec());
GD_REGISTER_PROBE(fetch_spec());
GD_REGISTER_PROBE(ways_spec());
GD_REGISTER_PROBE(eviction_set_spec());
GD_REGISTER_PROBE(subpartition_spec());
GD_REGISTER_PROBE(evict_spec());
GD_REGISTER_PROBE(l15_scope_spec());
GD_REGISTER_PROBE(l15_capacity_spec());

}  // namespace probe_hierarchy
}  // namespace gd
