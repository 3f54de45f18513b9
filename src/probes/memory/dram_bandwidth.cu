// Sustained DRAM bandwidth for read, write, copy and triad streams over buffers far larger than
// L2, across occupancies and kernel shapes: the ceiling every memory-bound kernel meets.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "analysis/fit.hpp"
#include "core/device_buffer.hpp"
#include "core/event_timing.hpp"
#include "core/launch.cuh"
#include "core/ptx.cuh"
#include "core/ptx_memory.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"
#include "memory_common.hpp"

namespace gd {
namespace probe_dram_bandwidth {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;  // independent 16-byte accesses in flight per thread per trip

// Each thread handles kUnroll vectors per trip, a grid-stride apart, so a warp's accesses are
// contiguous and every load of a trip is issued before the first is used. n is a multiple of
// the grid's work per trip, so there is no tail; the 32-bit trip counter keeps 64-bit compares
// (and, on sm_100a, a register spill) out of the loop.
__device__ __forceinline__ long long first_index() { return blockIdx.x * (long long)blockDim.x + threadIdx.x; }
__device__ __forceinline__ long long grid_stride() { return (long long)gridDim.x * blockDim.x; }
__device__ __forceinline__ int trips_for(long long n) { return int(n / (grid_stride() * kUnroll)); }
__global__ void __launch_bounds__(kThreads) dram_read_kernel(const int4* a, long long n, int4* sink,
                                                             RegionTiming* timing) {
  BlockClock clock;
  clock.begin();
  const long long stride = grid_stride();
  const int trips = trips_for(n);
  int acc = 0;
  for (int t = 0; t < trips; ++t) {
    const long long i = first_index() + t * stride * kUnroll;
    int4 v[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) v[k] = ptx::ld_nc_v4(a + i + k * stride);
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
  }
  if (acc == 0x7fffffff) sink[0] = make_int4(acc, 0, 0, 0);  // keeps the loads; practically never taken
  clock.end(timing);
}

__global__ void __launch_bounds__(kThreads) dram_write_kernel(int4* a, long long n, int seed, RegionTiming* timing) {
  BlockClock clock;
  clock.begin();
  const long long stride = grid_stride();
  const int trips = trips_for(n);
  for (int t = 0; t < trips; ++t) {
    const long long i = first_index() + t * stride * kUnroll;
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
      const int v = int(i) + k + seed;
      ptx::st_cs_v4(a + i + k * stride, make_int4(v, v, v, v));
    }
  }
  clock.end(timing);
}

__global__ void __launch_bounds__(kThreads) dram_copy_kernel(int4* b, const int4* a, long long n, RegionTiming* timing) {
  BlockClock clock;
  clock.begin();
  const long long stride = grid_stride();
  const int trips = trips_for(n);
  for (int t = 0; t < trips; ++t) {
    const long long i = first_index() + t * stride * kUnroll;
    int4 v[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) v[k] = ptx::ld_nc_v4(a + i + k * stride);
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) ptx::st_cs_v4(b + i + k * stride, v[k]);
  }
  clock.end(timing);
}

__global__ void __launch_bounds__(kThreads) dram_triad_kernel(float4* a, const float4* b, const float4* c, float s,
                                                         long long n, RegionTiming* timing) {
  BlockClock clock;
  clock.begin();
  const long long stride = grid_stride();
  const int trips = trips_for(n);
  for (int t = 0; t < trips; ++t) {
    const long long i = first_index() + t * stride * kUnroll;
    float4 x[kUnroll], y[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
      x[k] = ptx::ld_nc_f4(b + i + k * stride);
      y[k] = ptx::ld_nc_f4(c + i + k * stride);
    }
#pragma unroll
    for (int k = 0; k < kUnroll; ++k)
      ptx::st_cs_f4(a + i + k * stride, make_float4(x[k].x + s * y[k].x, x[k].y + s * y[k].y,
                                                    x[k].z + s * y[k].z, x[k].w + s * y[k].w));
  }
  clock.end(timing);
}

__global__ void fill_kernel(float4* a, long long n, float base) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    a[i] = make_float4(base + float(i & 1023), base - float(i & 511), base * 0.5f, float(i & 7));
}

struct Buffers {
  long long n;  // 16-byte vectors per array, a multiple of the grid's work per trip
  DeviceBuffer<float4> a, b, c;
  DeviceBuffer<int4> sink{1};
  DeviceBuffer<RegionTiming> timing;  // one per block of the timed kernel
};

// Arrays of 64 x L2 each (at least 4 GiB), within a quarter of device memory for all three.
// Measured on an H200: 1 GiB arrays read 5 % slower than 4 GiB (launch ramp and tail weigh more).
// A --functional run (compute-sanitizer) streams 4 MiB: a one-shot grid of a few thousand blocks.
long long array_bytes(const ProbeContext& ctx) {
  const DeviceInfo& d = ctx.device();
  return ctx.sized(std::min(std::max<long long>(64 * d.l2_bytes, 4LL << 30), d.global_mem_bytes / 12), 4LL << 20);
}

long long vectors_per_array(const ProbeContext& ctx, long long per_trip) {
  return array_bytes(ctx) / 16 / per_trip * per_trip;
}

// Checks that the timed kernels computed what they claim on a sample of elements.
void check_triad(const Buffers& buf, float s) {
  std::vector<float4> a(1), b(1), c(1);
  for (long long i : {0LL, buf.n / 3, buf.n - 1}) {
    GD_CUDA_CHECK(cudaMemcpy(a.data(), buf.a.get() + i, 16, cudaMemcpyDeviceToHost));
    GD_CUDA_CHECK(cudaMemcpy(b.data(), buf.b.get() + i, 16, cudaMemcpyDeviceToHost));
    GD_CUDA_CHECK(cudaMemcpy(c.data(), buf.c.get() + i, 16, cudaMemcpyDeviceToHost));
    const float want = b[0].x + s * c[0].x;
    if (std::fabs(a[0].x - want) > 1e-5f * std::fabs(want) + 1e-6f)
      throw Error("triad result wrong at element " + std::to_string(i));
  }
}

std::vector<MetricSpec> bandwidth_metrics() {
  return {{"bandwidth/tbps", "TB/s", "bytes read plus bytes written per second (10^12)"},
          {"bandwidth/percent_of_theoretical", "%", "of 2 x memory clock x bus width"}};
}

// When the last streaming measurement of this process ended (steady clock, seconds; < 0: none yet).
double g_last_stream_end_s = -1;

// Streaming needs time under load before it is steady: on an H200 the first ~100 ms ran up to
// 13 % slower. The same policy serves the SM streams and the copy engines. A quick run's points
// follow each other within milliseconds with the memory still streaming, so there a point that
// starts under kStillStreaming_s after the last warms 20 ms; a full run warms every point fully.
constexpr double kStillStreaming_s = 0.25;
RepeatPolicy streaming_policy(bool quick) {
  RepeatPolicy policy;
  policy.warmup = 2;
  const bool streaming = g_last_stream_end_s >= 0 && steady_now_s() - g_last_stream_end_s < kStillStreaming_s;
  policy.warmup_s = quick && streaming ? 0.02 : 0.1;
  policy.target_rel_ci = 0.003;
  return policy;
}

// TB/s of `bytes_moved` per launch, timed by events and repeated adaptively.
Summary measure_tbps(ProbeContext& ctx, const std::function<void()>& launch, double bytes_moved) {
  const Summary s =
      measure_event_timed(ctx, launch, [&](double t) { return bytes_moved / t / 1e12; }, streaming_policy(ctx.quick())).summary;
  g_last_stream_end_s = steady_now_s();
  return s;
}

// Both bandwidth probes report the same pair: TB/s and percent of the theoretical peak.
void emit_bandwidth(ProbeContext& ctx, const Summary& tbps) {
  ctx.metric("bandwidth/tbps", tbps);
  if (ctx.device().theoretical_dram_gbps > 0)
    ctx.metric("bandwidth/percent_of_theoretical", tbps.median * 1e3 / ctx.device().theoretical_dram_gbps * 100);
}

void run_bandwidth(ProbeContext& ctx) {
  const std::string op = ctx.str_param("op");
  const int warps_per_sm = int(ctx.int_param("warps_per_sm"));
  const DeviceInfo& d = ctx.device();
  if (warps_per_sm > d.max_warps_per_sm) ctx.skip("more warps per SM than the device holds");
  if (warps_per_sm < 1) throw Error("warps_per_sm must be at least 1");
  // One block per SM below 8 warps (smaller blocks), so every SM streams at every occupancy. A
  // --functional run: one SM's worth of blocks.
  const int threads = std::min(kThreads, warps_per_sm * 32);
  const int blocks_per_sm = warps_per_sm * 32 / threads;
  const int blocks = ctx.sized(d.sm_count * blocks_per_sm, blocks_per_sm);
  const long long per_trip = (long long)blocks * threads * kUnroll;

  Buffers buf{vectors_per_array(ctx, per_trip), {}, {}, {}, DeviceBuffer<int4>(1), DeviceBuffer<RegionTiming>(blocks)};
  buf.a = DeviceBuffer<float4>(buf.n);
  buf.b = DeviceBuffer<float4>(buf.n);
  if (op == "triad") buf.c = DeviceBuffer<float4>(buf.n);
  std::mt19937 rng(std::random_device{}());
  const float base = std::uniform_real_distribution<float>(1.0f, 2.0f)(rng);
  const float s = std::uniform_real_distribution<float>(0.5f, 1.5f)(rng);
  const LaunchShape fill_shape{unsigned(d.sm_count * 8), 256};
  launch(ctx, fill_kernel, fill_shape, buf.b.get(), buf.n, base);
  if (op == "triad") launch(ctx, fill_kernel, fill_shape, buf.c.get(), buf.n, base * 0.25f);
  GD_CUDA_CHECK_LAUNCH();

  const auto a4 = reinterpret_cast<int4*>(buf.a.get());
  const auto b4 = reinterpret_cast<const int4*>(buf.b.get());
  RegionTiming* const timing = buf.timing.get();
  const LaunchShape shape{unsigned(blocks), unsigned(threads)};
  double bytes_moved = 0;
  std::function<void()> stream;
  if (op == "read") {
    bytes_moved = 16.0 * buf.n;
    stream = [&] { launch(ctx, dram_read_kernel, shape, b4, buf.n, buf.sink.get(), timing); };
  } else if (op == "write") {
    bytes_moved = 16.0 * buf.n;
    stream = [&] { launch(ctx, dram_write_kernel, shape, a4, buf.n, int(rng()), timing); };
  } else if (op == "copy") {
    bytes_moved = 32.0 * buf.n;
    stream = [&] { launch(ctx, dram_copy_kernel, shape, a4, b4, buf.n, timing); };
  } else if (op == "triad") {
    bytes_moved = 48.0 * buf.n;
    stream = [&] { launch(ctx, dram_triad_kernel, shape, buf.a.get(), buf.b.get(), buf.c.get(), s, buf.n, timing); };
  } else {
    throw Error("unknown bandwidth op '" + op + "'");
  }
  const Summary tbps = measure_tbps(ctx, stream, bytes_moved);
  ctx.set_observed_sm_clock_mhz(clock_mhz(buf.timing.to_host()),
                                "clock64 over %globaltimer, read by thread 0 of every block of the last timed launch");
  if (op == "triad") check_triad(buf, s);
  if (op == "copy") {
    float4 got{}, want{};
    GD_CUDA_CHECK(cudaMemcpy(&got, buf.a.get() + buf.n / 2, 16, cudaMemcpyDeviceToHost));
    GD_CUDA_CHECK(cudaMemcpy(&want, buf.b.get() + buf.n / 2, 16, cudaMemcpyDeviceToHost));
    if (std::memcmp(&got, &want, 16) != 0) throw Error("copy result wrong");
  }
  emit_bandwidth(ctx, tbps);
  ctx.extra()["bytes_per_launch"] = bytes_moved;
  ctx.extra()["blocks"] = blocks;
  ctx.extra()["threads_per_block"] = threads;
  ctx.extra()["kernel"] = "persistent grid-stride: one occupancy's worth of blocks walks the whole array";
}

// Per op: the best occupancy's full statistics, and the knee (fewest warps within 95 % of it).
void summarize_bandwidth(SummaryContext& sc) {
  for (const std::string op : {"read", "write", "copy", "triad"}) {
    std::vector<double> warps, tbps;
    const std::vector<const Record*> points = sc.ok_records({{"op", op}});
    for (const Record* r : points) {
      const Metric* m = r->metric("bandwidth/tbps");
      if (!m) continue;  // a point without its bandwidth (a damaged run file) is no knee point
      warps.push_back(double(std::get<std::int64_t>(*find_param(r->params, "warps_per_sm"))));
      tbps.push_back(m->value());
    }
    if (warps.empty()) continue;
    const Knee k = find_knee(warps, tbps);
    Record* r = sc.derive_best({{"op", op}, {"warps_per_sm", std::string("best")}}, points, "bandwidth/tbps");
    r->extra["knee_warps_per_sm"] = k.x;
    // The sweep brackets its optimum only when the best occupancy is inside it, not at an edge.
    const double best_warps = warps[std::size_t(std::max_element(tbps.begin(), tbps.end()) - tbps.begin())];
    r->extra["best_at_sweep_edge"] = best_warps == *std::min_element(warps.begin(), warps.end()) ||
                                     best_warps == *std::max_element(warps.begin(), warps.end());
    r->extra["kernel"] = "persistent grid-stride (memory.bandwidth.dram_shape measures one-shot grids and other shapes)";
  }
}

ProbeSpec bandwidth_spec() {
  ProbeSpec s;
  s.id = "memory.bandwidth.dram";
  s.description = "DRAM bandwidth of a persistent grid-stride kernel: read, write, copy, triad streams of 16-byte "
                  "accesses over arrays >> L2, by occupancy";
  // 2 and 4 warps per SM bracket the write stream's optimum (8 warps/SM was the best and the
  // sweep's lowest on an H200).
  s.axes = {Axis::list("op", std::vector<std::string>{"read", "write", "copy", "triad"}),
            std::move(Axis::list("warps_per_sm", {2, 4, 8, 16, 32, 64})).quick({32, 64})};
  s.sass = {expect_sass("*dram_read_kernel*", SassRegion::Whole, {{"LDG.E.128.CONSTANT", kUnroll, -1}}),
            expect_sass("*dram_write_kernel*", SassRegion::Whole, {{"STG.E.EF.128", kUnroll, -1}}),
            expect_sass("*dram_copy_kernel*", SassRegion::Whole, {{"LDG.E.128.CONSTANT", kUnroll, -1}, {"STG.E.EF.128", kUnroll, -1}}),
            expect_sass("*dram_triad_kernel*", SassRegion::Whole, {{"LDG.E.128.CONSTANT", 2 * kUnroll, -1}, {"STG.E.EF.128", kUnroll, -1}, {"FFMA", 4 * kUnroll, -1}}),
            // Set-up: fills the source arrays with run-time values (16-byte stores).
            expect_sass("*fill_kernel*", SassRegion::Whole, {{"STG.E.128", 1, -1}})};
  s.metrics = bandwidth_metrics();
  s.views = {line_view("warps_per_sm", "bandwidth/tbps", "op")};
  s.covers = {{"memory.dram.bandwidth", "bandwidth/tbps", {{"op", "read"}, {"warps_per_sm", "best"}}}};
  s.run = run_bandwidth;
  s.summarize = summarize_bandwidth;
  s.time_cap_s = 20;
  s.quick_time_cap_s = 4;
  return s;
}

GD_REGISTER_PROBE(bandwidth_spec());

// The copy engines (DMA) behind cudaMemsetAsync and device-to-device cudaMemcpyAsync: no SM
// kernel runs (ncu sees none on an H200), so these are the driver's own ceilings to set the SM
// streams against.
void run_copy_engine(ProbeContext& ctx) {
  const std::string op = ctx.str_param("op");
  const long long bytes = array_bytes(ctx) / 16 * 16;
  DeviceBuffer<char> a(bytes), b(op == "memcpy_d2d" ? bytes : 0);
  a.fill_zero();
  std::mt19937 rng(std::random_device{}());
  double bytes_moved = 0;
  std::function<void()> launch;
  if (op == "memset") {
    bytes_moved = double(bytes);
    launch = [&] { GD_CUDA_CHECK(cudaMemsetAsync(a.get(), int(rng() & 0xff), bytes)); };
  } else if (op == "memcpy_d2d") {
    bytes_moved = 2.0 * double(bytes);
    launch = [&] { GD_CUDA_CHECK(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice)); };
  } else {
    throw Error("unknown copy-engine op '" + op + "'");
  }
  const Summary tbps = measure_tbps(ctx, launch, bytes_moved);
  ctx.no_sm_clock("no SM code runs: the copy engines move the data (NVML's clock after the point is in device_state)");
  emit_bandwidth(ctx, tbps);
  ctx.extra()["bytes_per_launch"] = bytes_moved;
}

ProbeSpec copy_engine_spec() {
  ProbeSpec s;
  s.id = "memory.bandwidth.copy_engine";
  s.description = "DRAM bandwidth of the driver's memset and device-to-device memcpy (copy engines, no SM kernel)";
  s.axes = {Axis::list("op", std::vector<std::string>{"memset", "memcpy_d2d"})};
  s.metrics = bandwidth_metrics();
  s.runs_no_sm_kernel = true;
  s.run = run_copy_engine;
  s.time_cap_s = 4;
  s.quick_time_cap_s = 1;
  return s;
}

GD_REGISTER_PROBE(copy_engine_spec());

// --- the kernel's shape as an axis -------------------------------------------------------------
// One kernel serves every shape. Per trip, a block moves `E` contiguous runs of blockDim
// accesses of W bytes (each run one coalesced instruction per warp), and the grid moves one
// contiguous window of grid x E x blockDim accesses. A one-shot grid is the same code with one
// trip and one block per chunk of the array; a persistent grid is one occupancy's worth of
// blocks walking the array window by window (grid-stride). Loads take the read-only path and
// stores are the plain write-back STG ordinary code emits.
enum class StreamOp { Read, Write, Copy };
constexpr int kShapedMaxThreads = 1024;
constexpr int kTimedBlocks = 4096;  // blocks that time themselves (evenly sampled over the grid)

template <StreamOp Op, int W, int E>
__global__ void __launch_bounds__(kShapedMaxThreads) shaped_stream_kernel(ptx::Vec<W>* dst, const ptx::Vec<W>* src,
                                                                          int trips, unsigned seed, int sample_every,
                                                                          RegionTiming* timing) {
  const bool timed = threadIdx.x == 0 && blockIdx.x % sample_every == 0;
  // In shared memory: with 1024-thread blocks (64 registers) the two 64-bit start values would
  // otherwise spill to local memory across the loop.
  __shared__ RegionClock clock;
  if (timed) clock.begin();
  unsigned acc = 0;
  // Not unrolled across trips: on sm_100a/sm_120a that precomputes many 64-bit addresses and spills.
#pragma unroll 1
  for (int t = 0; t < trips; ++t) {
    const long long base = ((long long)t * gridDim.x + blockIdx.x) * E * blockDim.x + threadIdx.x;
    ptx::Vec<W> v[E];
    if constexpr (Op != StreamOp::Write) {
#pragma unroll
      for (int k = 0; k < E; ++k) v[k] = ptx::ldw_nc<W>(src + base + k * blockDim.x);
    }
#pragma unroll
    for (int k = 0; k < E; ++k) {
      if constexpr (Op == StreamOp::Read) acc ^= ptx::fold<W>(v[k]);
      else if constexpr (Op == StreamOp::Write) ptx::stw_plain<W>(dst + base + k * blockDim.x, ptx::splat<W>(unsigned(base) + k + seed));
      else ptx::stw_plain<W>(dst + base + k * blockDim.x, v[k]);
    }
  }
  if constexpr (Op == StreamOp::Read) {
    if (acc == 0x7fffffffu) dst[0] = ptx::splat<W>(acc);  // keeps the loads; practically never taken
  }
  if (timed) timing[blockIdx.x / sample_every] = clock.end();
}

constexpr int kShapedWidths[] = {4, 8, 16};
constexpr int kShapedPerThread[] = {1, 4};

StreamOp stream_op(const std::string& op) {
  if (op == "read") return StreamOp::Read;
  if (op == "write") return StreamOp::Write;
  if (op == "copy") return StreamOp::Copy;
  throw Error("unknown stream op '" + op + "' (expected read, write or copy)");
}

// The SM clock from the sampled blocks of the last launch.
void observe_block_clock(ProbeContext& ctx, const DeviceBuffer<RegionTiming>& timing) {
  ctx.set_observed_sm_clock_mhz(clock_mhz(timing.to_host()),
                                "clock64 over %globaltimer, read by thread 0 of sampled blocks of the last timed launch");
}

// Chooses the grid for a shape: one-shot covers the array with one block per chunk; persistent
// fills every SM to full occupancy and walks the array in trips.
struct StreamGrid {
  long long n = 0;       // accesses in the array
  long long blocks = 0;
  int trips = 1;
  int blocks_per_sm = 0;  // persistent only
  int sample_every = 1;
};

StreamGrid stream_grid(const ProbeContext& ctx, bool persistent, int width, int block, int per_thread) {
  const DeviceInfo& d = ctx.device();
  StreamGrid g;
  const long long chunk = (long long)block * per_thread;
  const long long want = array_bytes(ctx) / width;
  if (persistent) {
    g.blocks_per_sm = d.max_warps_per_sm * 32 / block;
    g.blocks = ctx.sized((long long)d.sm_count * g.blocks_per_sm, (long long)g.blocks_per_sm);  // --functional: one SM's worth
    g.trips = int(want / (chunk * g.blocks));
    g.n = chunk * g.blocks * g.trips;
  } else {
    g.blocks = want / chunk;
    g.n = chunk * g.blocks;
  }
  g.sample_every = int(std::max<long long>(1, g.blocks / kTimedBlocks));
  return g;
}

void run_shaped(ProbeContext& ctx) {
  const StreamOp op = stream_op(ctx.str_param("op"));
  const std::string kind = ctx.str_param("launch");
  if (kind != "oneshot" && kind != "persistent") throw Error("unknown launch '" + kind + "' (expected oneshot or persistent)");
  const int width = int(ctx.int_param("width"));
  const int block = int(ctx.int_param("block"));
  const int per_thread = int(ctx.int_param("per_thread"));
  const DeviceInfo& d = ctx.device();
  if (block > d.max_threads_per_block || block > kShapedMaxThreads) ctx.skip("block larger than the device or kernel allows");
  const StreamGrid g = stream_grid(ctx, kind == "persistent", width, block, per_thread);
  if (g.blocks < 1 || g.trips < 1 || g.blocks > 0x7fffffffLL) ctx.skip("array too small or too large for this shape");

  const std::size_t bytes = std::size_t(g.n) * width;
  DeviceBuffer<char> src(op == StreamOp::Write ? 0 : bytes), dst(op == StreamOp::Read ? 16 : bytes);
  DeviceBuffer<RegionTiming> timing(std::size_t(g.blocks / g.sample_every + 1));
  timing.fill_zero();
  std::mt19937 rng(std::random_device{}());
  if (op != StreamOp::Write) {
    launch(ctx, fill_kernel, {unsigned(d.sm_count * 8), 256}, reinterpret_cast<float4*>(src.get()),
           (long long)(bytes / 16), std::uniform_real_distribution<float>(1.0f, 2.0f)(rng));
    GD_CUDA_CHECK_LAUNCH();
  }
  std::function<void()> stream;
  memory::with_value<4, 8, 16>(width, "width", [&](auto wc) {
    constexpr int W = decltype(wc)::value;
    memory::with_value<1, 4>(per_thread, "per_thread", [&](auto ec) {
      constexpr int E = decltype(ec)::value;
      const auto go = [&](auto kernel) {
        stream = [&, kernel] {
          launch(ctx, kernel, {unsigned(g.blocks), unsigned(block)}, reinterpret_cast<ptx::Vec<W>*>(dst.get()),
                 reinterpret_cast<const ptx::Vec<W>*>(src.get()), g.trips, unsigned(rng()), g.sample_every, timing.get());
        };
      };
      if (op == StreamOp::Read) go(shaped_stream_kernel<StreamOp::Read, W, E>);
      else if (op == StreamOp::Write) go(shaped_stream_kernel<StreamOp::Write, W, E>);
      else go(shaped_stream_kernel<StreamOp::Copy, W, E>);
    });
  });
  const double bytes_moved = double(bytes) * (op == StreamOp::Copy ? 2 : 1);
  const Summary tbps = measure_tbps(ctx, stream, bytes_moved);
  observe_block_clock(ctx, timing);
  if (op == StreamOp::Copy) {
    std::uint32_t got = 0, want = 1;
    GD_CUDA_CHECK(cudaMemcpy(&got, dst.get() + bytes / 2, 4, cudaMemcpyDeviceToHost));
    GD_CUDA_CHECK(cudaMemcpy(&want, src.get() + bytes / 2, 4, cudaMemcpyDeviceToHost));
    if (got != want) throw Error("copy result wrong");
  }
  emit_bandwidth(ctx, tbps);
  ctx.extra()["bytes_per_launch"] = bytes_moved;
  ctx.extra()["grid_blocks"] = g.blocks;
  ctx.extra()["trips"] = g.trips;
  if (g.blocks_per_sm > 0) ctx.extra()["blocks_per_sm"] = g.blocks_per_sm;
  // The address window in flight at once: a persistent grid's whole trip; a one-shot grid's
  // resident blocks (as many as fit at full occupancy).
  const long long resident = std::min<long long>(g.blocks, (long long)d.sm_count * (d.max_warps_per_sm * 32 / block));
  ctx.extra()["active_window_bytes"] = double(resident) * block * per_thread * width;
}

// Per op: the best shape as a derived record (its params are extra.best_point), with the best
// of each launch kind beside it.
void summarize_shaped(SummaryContext& sc) {
  for (const std::string op : {"read", "write", "copy"}) {
    Record* best = sc.derive_best({{"op", op}, {"launch", std::string("best")}}, sc.ok_records({{"op", op}}), "bandwidth/tbps");
    if (best == nullptr) continue;
    for (const std::string kind : {"oneshot", "persistent"}) {
      double top = 0;
      for (const Record* r : sc.ok_records({{"op", op}, {"launch", kind}}))
        if (const Metric* m = r->metric("bandwidth/tbps")) top = std::max(top, m->value());
      if (top > 0) best->extra["best_tbps_" + kind] = top;
    }
    best->extra["note"] =
        "best over every kernel shape measured (launch kind, block size, accesses per thread, access width); "
        "the shape that won is extra.best_point. A one-shot grid retires blocks roughly in address order, so the "
        "addresses in flight form one compact front moving through the array (few DRAM pages open at once); a "
        "persistent grid-stride grid keeps a whole trip's window (extra.active_window_bytes) in flight and its "
        "blocks drift apart across trips, spreading accesses over more DRAM pages";
  }
}

ProbeSpec shaped_spec() {
  ProbeSpec s;
  s.id = "memory.bandwidth.dram_shape";
  s.description = "DRAM read/write/copy bandwidth by kernel shape: one-shot vs persistent grid, block size, accesses per thread, width";
  s.axes = {Axis::list("op", std::vector<std::string>{"read", "write", "copy"}),
            Axis::list("launch", std::vector<std::string>{"oneshot", "persistent"}),
            std::move(Axis::list("width", {4, 8, 16})).quick({16}),
            Axis::list("block", {256, 1024}),
            std::move(Axis::list("per_thread", {1, 4})).quick({1})};
  const char* ops[] = {"0", "1", "2"};  // StreamOp as it appears in the demangled name
  for (int op = 0; op < 3; ++op)
    for (int w : kShapedWidths)
      for (int e : kShapedPerThread) {
        std::vector<OpcodeExpectation> req;
        std::vector<std::string> forbid;
        if (op != 1) {
          req.push_back({"LDG.E" + memory::width_suffix(w) + ".CONSTANT", e, -1});
          forbid = memory::forbid_wider("LDG.E", w, forbid);
        }
        if (op != 0) {
          req.push_back({"STG.E" + memory::width_suffix(w), e, -1});
          forbid = memory::forbid_wider("STG.E", w, forbid);
          forbid.push_back("STG.E.EF");  // plain write-back stores, not evict-first
        }
        if (forbid.empty()) forbid = {"LDL", "STL"};
        s.sass.push_back(expect_sass(std::string("*shaped_stream_kernel<*)") + ops[op] + ", " + std::to_string(w) + ", " +
                                         std::to_string(e) + ">*",
                                     SassRegion::Clocked, req, forbid));  // the timing record's own stores come after
      }
  s.sass.push_back(expect_sass("*fill_kernel*", SassRegion::Whole, {{"STG.E.128", 1, -1}}));
  s.metrics = bandwidth_metrics();
  s.run = run_shaped;
  s.summarize = summarize_shaped;
  s.time_cap_s = 30;
  s.quick_time_cap_s = 6;
  return s;
}

GD_REGISTER_PROBE(shaped_spec());

// --- read/write mix ----------------------------------------------------------------------------
// A one-shot grid (256-thread blocks, one 16-byte access per thread) where a share of the
// accesses are reads and the rest writes, grouped per warp (reads and writes interleaved in
// every block), per block, or in phases (the first blocks of the grid read, the later ones
// write, so the DRAM bus turns around rarely).
enum class MixGrouping { Warp, Block, Phase };
constexpr int kMixThreads = 256;

__global__ void __launch_bounds__(kMixThreads) rw_mix_kernel(uint4* dst, const uint4* src, int read_quarters,
                                                             MixGrouping grouping, unsigned seed, int sample_every,
                                                             RegionTiming* timing) {
  const bool timed = threadIdx.x == 0 && blockIdx.x % sample_every == 0;
  RegionClock clock;
  if (timed) clock.begin();
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const int slot = grouping == MixGrouping::Warp    ? int(threadIdx.x / 32) % 4
                   : grouping == MixGrouping::Block ? int(blockIdx.x % 4)
                                                    : int((long long)blockIdx.x * 4 / gridDim.x);
  if (slot < read_quarters) {
    if (ptx::fold<16>(ptx::ldw_nc<16>(src + i)) == 0x7fffffffu) dst[0] = make_uint4(0, 0, 0, 0);
  } else {
    ptx::stw_plain<16>(dst + i, ptx::splat<16>(unsigned(i) + seed));
  }
  if (timed) timing[blockIdx.x / sample_every] = clock.end();
}

MixGrouping mix_grouping(const std::string& g) {
  if (g == "warp") return MixGrouping::Warp;
  if (g == "block") return MixGrouping::Block;
  if (g == "phase") return MixGrouping::Phase;
  throw Error("unknown grouping '" + g + "' (expected warp, block or phase)");
}

void run_rw_mix(ProbeContext& ctx) {
  const int reads = int(ctx.int_param("read_quarters"));
  const std::string grouping_name = ctx.str_param("grouping");
  const MixGrouping grouping = mix_grouping(grouping_name);
  if (reads < 0 || reads > 4) throw Error("read_quarters must be 0..4");
  if ((reads == 0 || reads == 4) && grouping != MixGrouping::Block)
    ctx.skip("all reads or all writes: grouping makes no difference (measured once, under grouping=block)");
  const DeviceInfo& d = ctx.device();
  const long long blocks = array_bytes(ctx) / 16 / kMixThreads / 4 * 4;
  const std::size_t n = std::size_t(blocks) * kMixThreads;
  DeviceBuffer<uint4> src(n), dst(n);
  const int sample_every = int(std::max<long long>(1, blocks / kTimedBlocks));
  DeviceBuffer<RegionTiming> timing(std::size_t(blocks / sample_every + 1));
  timing.fill_zero();
  std::mt19937 rng(std::random_device{}());
  launch(ctx, fill_kernel, {unsigned(d.sm_count * 8), 256}, reinterpret_cast<float4*>(src.get()), (long long)n, 1.5f);
  GD_CUDA_CHECK_LAUNCH();
  const Summary tbps = measure_tbps(
      ctx,
      [&] {
        launch(ctx, rw_mix_kernel, {unsigned(blocks), kMixThreads}, dst.get(), src.get(), reads, grouping, unsigned(rng()),
               sample_every, timing.get());
      },
      16.0 * double(n));
  observe_block_clock(ctx, timing);
  emit_bandwidth(ctx, tbps);
  ctx.extra()["read_share"] = reads / 4.0;
}

// Per grouping: how far each mixed ratio falls below the time-weighted blend of the pure read
// and pure write streams (no turnaround cost would give 0 %); the worst ratio is the record.
void summarize_rw_mix(SummaryContext& sc) {
  // The point at a read share and grouping, when it has its bandwidth (a damaged run file may not).
  const auto tbps_at = [&](int reads, const std::string& grouping) -> const Record* {
    const auto rs = sc.ok_records({{"read_quarters", std::int64_t(reads)}, {"grouping", grouping}});
    return rs.empty() || !rs.front()->metric("bandwidth/tbps") ? nullptr : rs.front();
  };
  const Record* pure_write = tbps_at(0, "block");
  const Record* pure_read = tbps_at(4, "block");
  if (pure_write == nullptr || pure_read == nullptr) return;
  const double bw_w = pure_write->metric("bandwidth/tbps")->value(), bw_r = pure_read->metric("bandwidth/tbps")->value();
  for (const std::string grouping : {"warp", "block", "phase"}) {
    const Record* worst = nullptr;
    double worst_penalty = -1e9;
    nlohmann::json by_ratio = nlohmann::json::object();
    for (int q = 1; q <= 3; ++q) {
      const Record* r = tbps_at(q, grouping);
      if (r == nullptr) continue;
      const double f = q / 4.0;
      const double blend = 1.0 / (f / bw_r + (1 - f) / bw_w);
      const double penalty = (1 - r->metric("bandwidth/tbps")->value() / blend) * 100;
      by_ratio[std::to_string(q * 25) + "%_reads"] = {{"tbps", r->metric("bandwidth/tbps")->value()}, {"blend_tbps", blend}, {"penalty_percent", penalty}};
      if (penalty > worst_penalty) worst_penalty = penalty, worst = r;
    }
    if (worst == nullptr) continue;
    Record& out = sc.derive({{"read_quarters", std::string("worst")}, {"grouping", grouping}}, {worst, pure_read, pure_write});
    sc.add_metric(out, "mix/penalty_percent", single_value(worst_penalty));
    out.extra["by_ratio"] = by_ratio;
    out.extra["note"] = "penalty: 1 - measured / (time-weighted blend of the pure read and pure write streams), "
                        "the cost of mixing reads and writes (DRAM bus turnaround) at this grouping";
  }
}

ProbeSpec rw_mix_spec() {
  ProbeSpec s;
  s.id = "memory.bandwidth.rw_mix";
  s.description = "DRAM bandwidth vs read:write ratio and how reads and writes are grouped (per warp, per block, in phases)";
  s.axes = {Axis::list("read_quarters", {0, 1, 2, 3, 4}),
            Axis::list("grouping", std::vector<std::string>{"warp", "block", "phase"})};
  s.sass = {expect_sass("*rw_mix_kernel*", SassRegion::Whole, {{"LDG.E.128.CONSTANT", 1, -1}, {"STG.E.128", 1, -1}}, {"LDL", "STL", "STG.E.EF"}),
            expect_sass("*fill_kernel*", SassRegion::Whole, {{"STG.E.128", 1, -1}})};
  s.metrics = bandwidth_metrics();
  s.metrics.push_back({"mix/penalty_percent", "%", "shortfall of the mixed stream below the blend of pure read and write"});
  s.run = run_rw_mix;
  s.summarize = summarize_rw_mix;
  s.time_cap_s = 10;
  s.quick_time_cap_s = 3;
  return s;
}

GD_REGISTER_PROBE(rw_mix_spec());

}  // namespace probe_dram_bandwidth
}  // namespace gd
