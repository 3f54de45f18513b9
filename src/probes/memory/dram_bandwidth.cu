// Sustained DRAM bandwidth for read, write, copy and triad streams with 16-byte accesses over
// buffers far larger than L2, across occupancies: the ceiling every memory-bound kernel meets.
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
#include "core/registry.hpp"
#include "core/timing.cuh"

namespace gd {
namespace {

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
long long array_bytes(const DeviceInfo& d) {
  return std::min(std::max<long long>(64 * d.l2_bytes, 4LL << 30), d.global_mem_bytes / 12);
}

long long vectors_per_array(const DeviceInfo& d, long long per_trip) {
  const long long want = array_bytes(d);
  const long long bytes = std::min(want, d.global_mem_bytes / 12);
  return bytes / 16 / per_trip * per_trip;
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

// Streaming needs time under load before it is steady: on an H200 the first ~100 ms ran up to
// 13 % slower. The same policy serves the SM streams and the copy engines.
RepeatPolicy streaming_policy() {
  RepeatPolicy policy;
  policy.warmup = 2;
  policy.warmup_s = 0.1;
  policy.target_rel_ci = 0.003;
  return policy;
}

// TB/s of `bytes_moved` per launch, timed by events and repeated adaptively.
Summary measure_tbps(ProbeContext& ctx, const std::function<void()>& launch, double bytes_moved) {
  return measure_event_timed(ctx, launch, [&](double s) { return bytes_moved / s / 1e12; }, streaming_policy()).summary;
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
  const int blocks = d.sm_count * warps_per_sm / (kThreads / 32);
  const long long per_trip = (long long)blocks * kThreads * kUnroll;

  Buffers buf{vectors_per_array(d, per_trip), {}, {}, {}, DeviceBuffer<int4>(1), DeviceBuffer<RegionTiming>(blocks)};
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
  const LaunchShape shape{unsigned(blocks), kThreads};
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
}

// Per op: the best occupancy's full statistics, and the knee (fewest warps within 95 % of it).
void summarize_bandwidth(SummaryContext& sc) {
  for (const std::string op : {"read", "write", "copy", "triad"}) {
    std::vector<double> warps, tbps;
    const std::vector<const Record*> points = sc.ok_records({{"op", op}});
    for (const Record* r : points) {
      warps.push_back(double(std::get<std::int64_t>(*find_param(r->params, "warps_per_sm"))));
      tbps.push_back(r->metric("bandwidth/tbps")->value());
    }
    if (warps.empty()) continue;
    const Knee k = find_knee(warps, tbps);
    Record* r = sc.derive_best({{"op", op}, {"warps_per_sm", std::string("best")}}, points, "bandwidth/tbps");
    r->extra["knee_warps_per_sm"] = k.x;
  }
}

ProbeSpec bandwidth_spec() {
  ProbeSpec s;
  s.id = "memory.bandwidth.dram";
  s.description = "DRAM bandwidth: read, write, copy, triad streams of 16-byte accesses over arrays >> L2, by occupancy";
  s.axes = {Axis::list("op", std::vector<std::string>{"read", "write", "copy", "triad"}),
            std::move(Axis::list("warps_per_sm", {8, 16, 32, 64})).quick({32, 64})};
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
  const long long bytes = array_bytes(ctx.device()) / 16 * 16;
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

}  // namespace
}  // namespace gd
