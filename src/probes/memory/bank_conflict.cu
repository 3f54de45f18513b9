// Shared-memory bank conflicts: cycles per warp load (throughput, 32 warps) and per dependent load
// (latency, one warp) vs lane stride for 32/64/128-bit accesses and broadcast; the cost of a bad layout.
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "analysis/bank_model.hpp"
#include "analysis/fit.hpp"
#include "core/device_buffer.hpp"
#include "core/launch.cuh"
#include "core/ptx_memory.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"
#include "memory_common.hpp"

namespace gd {
namespace probe_bank_conflict {

// Lane 31 at stride 32 of 16-byte elements reads at 15.5 KiB; the throughput loads are spread
// over kBankUnroll rows of 128 bytes past that (every lane shifted alike: same banks).
constexpr int kBankSmemBytes = 18 << 10;
constexpr int kBankUnroll = 16;
constexpr int kBankThroughputThreads = 1024;

// Lane `lane` reads the element `lane x stride` (stride 0: every lane the same word, a broadcast).
__host__ __device__ constexpr unsigned lane_offset(unsigned lane, unsigned stride, unsigned w) { return lane * stride * w; }

template <int W>
__device__ __forceinline__ unsigned first_word(ptx::Vec<W> v) {
  if constexpr (W == 4) return v;
  else return v.x;
}

template <int W>
__device__ __forceinline__ unsigned other_words(ptx::Vec<W> v) {
  if constexpr (W == 4) return 0u;
  else if constexpr (W == 8) return v.y;
  else return v.y ^ v.z ^ v.w;
}

// Latency (Chain): one warp, each load's address is the value the previous one returned (every
// word holds its element's own offset, so the lane stays on its address). Throughput: 32 warps
// issue independent loads of their fixed address.
// `delta` (0 at run time) moves the throughput loads' base each trip, so ptxas can neither
// hoist them out of the loop nor merge them.
template <int W, bool Chain>
__global__ void __launch_bounds__(kBankThroughputThreads) bank_kernel(unsigned stride, unsigned delta, int trips,
                                                                     unsigned* sink, RegionTiming* timing) {
  __shared__ __align__(16) unsigned smem[kBankSmemBytes / 4];
  for (unsigned i = threadIdx.x; i < kBankSmemBytes / 4; i += blockDim.x) smem[i] = i * 4 / W * W;
  __syncthreads();
  const unsigned base = ptx::shared_addr(smem);
  unsigned off = lane_offset(threadIdx.x % 32, stride, W);
  unsigned acc = 0;
  RegionClock clock;
  clock.begin();
  // Not unrolled across trips: on sm_120a that runs out of registers and spills the clock.
#pragma unroll 1
  for (int t = 0; t < trips; ++t) {
#pragma unroll
    for (int k = 0; k < kBankUnroll; ++k) {
      if constexpr (Chain) {
        // The next address is the first word; folding the other words into acc (off the chain)
        // keeps the load at its full width (ptxas narrows a vector load whose other words are
        // unused). Leaving the first word out of acc keeps it from being held (spilled on sm_100a).
        const ptx::Vec<W> v = ptx::ldsw<W>(base + off);
        off = first_word<W>(v);
        acc ^= other_words<W>(v);
      }
      else acc ^= ptx::fold<W>(ptx::ldsw<W>(base + off + k * 128));
    }
    if constexpr (!Chain) off += delta;
  }
  __syncthreads();
  const RegionTiming r = clock.end();
  if (threadIdx.x == 0) timing[0] = r;
  if ((acc ^ off) == 0x7fffffffu) sink[0] = acc;  // keeps the loads; practically never taken
}

void run_bank(ProbeContext& ctx) {
  const int width = int(ctx.int_param("width"));
  const int stride = int(ctx.int_param("stride"));
  const std::string mode = ctx.str_param("mode");
  if (mode != "latency" && mode != "throughput") throw Error("mode must be latency or throughput");
  if (stride < 0 || stride > 32) throw Error("stride must be 0 (broadcast) to 32 elements");
  std::vector<unsigned> offsets;
  for (unsigned l = 0; l < 32; ++l) offsets.push_back(lane_offset(l, unsigned(stride), unsigned(width)));
  const int wavefronts = bank_wavefronts(offsets, width);
  const bool chain = mode == "latency";
  const int threads = chain ? 32 : kBankThroughputThreads;
  const int trips = ctx.sized(chain ? 64 : 256, 2);  // --functional: two trips of kBankUnroll loads
  DeviceBuffer<unsigned> sink(1);
  DeviceBuffer<RegionTiming> timing(1);
  std::vector<RegionTiming> last;
  RepeatResult r;
  memory::with_value<4, 8, 16>(width, "width", [&](auto wc) {
    constexpr int W = decltype(wc)::value;
    const auto go = [&](auto kernel) {
      r = ctx.measure([&] {
        launch(ctx, kernel, {1, unsigned(threads)}, unsigned(stride), 0u, trips, sink.get(), timing.get());
        GD_CUDA_CHECK_LAUNCH();
        last = timing.to_host();
        const double loads = double(trips) * kBankUnroll * (chain ? 1 : threads / 32);
        return double(last[0].cycles) / loads;
      });
    };
    if (chain) go(bank_kernel<W, true>);
    else go(bank_kernel<W, false>);
  });
  ctx.set_observed_sm_clock_mhz(clock_mhz(last));
  ctx.metric(chain ? "shared/latency_cycles" : "shared/cycles_per_warp_load", r.summary);
  if (!chain) {
    ctx.metric("shared/bytes_per_clk", 32.0 * width / r.summary.median);
    ctx.metric("shared/warp_loads_per_clk", 1.0 / r.summary.median);
  }
  ctx.metric("shared/model_wavefronts", double(wavefronts));
}

// The bank count and width the 32-bit throughput sweep shows (analysis/bank_model: the first
// stride whose time doubles names the banks; stride 1's bytes per clock over them the width).
void summarize_banks(SummaryContext& sc) {
  std::vector<long long> strides;
  std::vector<double> cycles;
  std::vector<const Record*> src;
  double stride1_bytes = 0;
  for (const Record* r : sc.ok_records({{"width", std::int64_t(4)}, {"mode", std::string("throughput")}})) {
    const ParamValue* k = find_param(r->params, "stride");
    if (!k || !std::holds_alternative<std::int64_t>(*k) || std::get<std::int64_t>(*k) < 1) continue;
    if (!r->metric("shared/cycles_per_warp_load")) continue;
    strides.push_back(std::get<std::int64_t>(*k));
    cycles.push_back(r->metric("shared/cycles_per_warp_load")->value());
    if (strides.back() == 1 && r->metric("shared/bytes_per_clk")) stride1_bytes = r->metric("shared/bytes_per_clk")->value();
    src.push_back(r);
  }
  BankInference b;
  try {
    b = infer_banks(strides, cycles, stride1_bytes);
  } catch (const std::invalid_argument&) {
    return;  // a sweep cut short (quick, time cap) without stride 1 or a conflict: nothing to say
  }
  Record& out = sc.derive({{"width", std::int64_t(4)}, {"stride", std::string("banks")}, {"mode", std::string("throughput")}}, src);
  sc.add_metric(out, "shared/banks", single_value(b.banks));
  sc.add_metric(out, "shared/bank_width_bytes", single_value(b.bank_width_bytes));
  out.extra["method"] = "first 32-bit stride whose time per warp load is d > 1 times stride 1's: banks = 32 * stride / d "
                        "(stride " + std::to_string(b.conflict_stride) + ", " + std::to_string(int(b.conflict_degree)) +
                        "-way); width = stride 1's bytes per clock over the banks";
}

// Per width and mode: the penalty per extra way, the slope of cycles over the bank model's
// wavefronts (for 32-bit accesses at stride 1..32 these are the conflict degrees 1..32).
void summarize_bank(SummaryContext& sc) {
  for (const std::string mode : {"latency", "throughput"})
    for (std::int64_t w : {4, 8, 16}) {
      std::vector<double> waves, cycles;
      std::vector<const Record*> src;
      const std::string m = mode == "latency" ? "shared/latency_cycles" : "shared/cycles_per_warp_load";
      for (const Record* r : sc.ok_records({{"width", w}, {"mode", mode}})) {
        const auto k = std::get<std::int64_t>(*find_param(r->params, "stride"));
        if (k < 1 || r->metric(m) == nullptr || r->metric("shared/model_wavefronts") == nullptr) continue;
        waves.push_back(r->metric("shared/model_wavefronts")->value());
        cycles.push_back(r->metric(m)->value());
        src.push_back(r);
      }
      if (std::set<double>(waves.begin(), waves.end()).size() < 3) continue;
      const LineFit f = fit_line(waves, cycles);
      Record& out = sc.derive({{"width", w}, {"stride", std::string("slope")}, {"mode", mode}}, src);
      sc.add_metric(out, "shared/cycles_per_extra_way", single_value(f.slope));
      out.extra["fit"] = {{"slope", f.slope}, {"intercept", f.intercept}, {"r2", f.r2}};
    }
  summarize_banks(sc);
}

ProbeSpec bank_spec() {
  ProbeSpec s;
  s.id = "memory.shared.bank_conflict";
  s.description = "shared-memory load cost vs lane stride (bank conflicts; 0 = broadcast) for 32/64/128-bit, latency and throughput";
  s.axes = {Axis::list("width", {4, 8, 16}), std::move(Axis::list("stride", {0, 1, 2, 4, 8, 16, 32})).quick({0, 1, 4, 32}),
            Axis::list("mode", std::vector<std::string>{"latency", "throughput"})};
  for (int w : {4, 8, 16})
    for (int chain = 0; chain < 2; ++chain)
      s.sass.push_back(expect_sass("*bank_kernel<" + std::to_string(w) + ", " + (chain ? "true" : "false") + ">*",
                                   SassRegion::Clocked, {{"LDS" + memory::width_suffix(w), kBankUnroll, -1}},
                                   memory::forbid_wider("LDS", w, {"LDG"})));
  s.metrics = {{"shared/latency_cycles", "cycles", "one dependent shared load (one warp)"},
               {"shared/cycles_per_warp_load", "cycles", "SM cycles per warp-wide shared load, 32 warps issuing"},
               {"shared/bytes_per_clk", "B/clk/SM", "bytes the warps asked for per SM clock"},
               {"shared/warp_loads_per_clk", "inst/cyc/SM", "warp-wide shared loads per SM clock, 32 warps issuing"},
               {"shared/model_wavefronts", "passes", "bank model: most distinct words one bank must deliver (conflict degree)"},
               {"shared/cycles_per_extra_way", "cycles", "slope of cycles over the model's wavefronts (stride >= 1)"},
               {"shared/banks", "count", "banks the 32-bit stride sweep shows (analysis/bank_model infer_banks)"},
               {"shared/bank_width_bytes", "B", "stride 1's bytes per clock over the banks"}};
  // 32-bit words: the seeds' banks are 4 B wide. Stride 1 is conflict-free (stride 0 broadcasts);
  // stride 32 puts all 32 lanes in one bank. The penalty per way is the derived slope.
  const auto lat = [](ParamValue stride) {
    return Params{{"mode", std::string("latency")}, {"stride", std::move(stride)}, {"width", std::int64_t(4)}};
  };
  const Params banks{{"mode", std::string("throughput")}, {"stride", std::string("banks")}, {"width", std::int64_t(4)}};
  s.covers = {{"smem.latency", "shared/latency_cycles", lat(std::int64_t(1))},
              {"smem.bank_conflict.latency_32way", "shared/latency_cycles", lat(std::int64_t(32))},
              {"smem.bank_conflict.penalty_per_way", "shared/cycles_per_extra_way", lat(std::string("slope"))},
              {"smem.banks", "shared/banks", banks},
              {"throughput.sm_ipc.smem", "shared/warp_loads_per_clk",
               {{"mode", std::string("throughput")}, {"stride", std::int64_t(1)}, {"width", std::int64_t(4)}}},
              {"smem.bank_width", "shared/bank_width_bytes", banks}};
  s.run = run_bank;
  s.summarize = summarize_bank;
  s.time_cap_s = 6;
  s.quick_time_cap_s = 2;
  return s;
}

GD_REGISTER_PROBE(bank_spec());

}  // namespace probe_bank_conflict
}  // namespace gd
