// Two streams side by side in one block, each timed by its own warps (the pair kernels of
// compute/alu_streams.cuh and pipes/*): one side's inputs, launch and host check (Side), and the
// runner that splits a launch's warp timings by side into per-SM rates (PairRunner). Shared by
// the interference rows, the co-issue matrix and the memory / V-pipe pairs.
#pragma once
#include <algorithm>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "../compute/alu_streams.cuh"

namespace gd::pipe_pairs {

using alu_streams::PairSide;
using alu_streams::kPairIlp;
constexpr int kWarps = 32;          // per block, one block per SM: 16 per side, 4 per scheduler
constexpr int kSideWarps = kWarps / 2;

// One side's device inputs and what its rate is counted in.
struct Side {
  std::string name;
  DeviceBuffer<unsigned long long> x0, out;  // 8-byte slots hold any row type
  PairSide side;
  double steps_per_trip = 0;         // per thread, in the pair kernel
  double stream_steps_per_trip = 0;  // per thread, in the ILP-4 stream kernel
  double instr_per_step = 1;  // the row's named opcodes per step: issue slots per step
  std::function<RegionTiming*(int trips, int warps, RegionTiming* timing)> alone;  // stream kernel
  // Why the side's first and last chain after a pair launch of `trips` (read from `out`) are not
  // the host reference's, or "": the pair kernel's numbers stand on code that computes the row.
  std::function<std::string(const std::vector<unsigned long long>& out, int trips)> mismatch;
};

template <class Op>
Side make_side(ProbeContext& ctx, alu_catalog::Rng& rng) {
  using T = typename Op::T;
  Side s;
  s.name = Op::name;
  std::vector<T> x0;
  const auto [a, b] = alu_streams::stream_inputs<Op>(rng, kPairIlp, x0);
  std::vector<unsigned long long> raw(x0.size());
  for (std::size_t i = 0; i < x0.size(); ++i) raw[i] = 0;
  std::memcpy(raw.data(), x0.data(), x0.size() * sizeof(T));
  s.x0 = DeviceBuffer<unsigned long long>(raw.size());
  s.x0.from_host(raw);
  s.out = DeviceBuffer<unsigned long long>(kPairIlp + 1);
  s.side.x0 = s.x0.get();
  s.side.out = s.out.get();
  s.side.a = alu_streams::to_bits(a);
  s.side.b = alu_streams::to_bits(b);
  s.steps_per_trip = alu_streams::pair_steps_per_trip<Op>();
  s.stream_steps_per_trip = alu_streams::steps_per_trip<Op, kPairIlp>();
  s.instr_per_step = 0;
  for (const auto& op : Op::sass()) s.instr_per_step += op.per_step;
  const T* in = reinterpret_cast<const T*>(s.x0.get());
  T* out = reinterpret_cast<T*>(s.out.get());
  s.mismatch = [x0, a, b](const std::vector<unsigned long long>& raw_out, int trips) {
    std::vector<T> got(kPairIlp + 1);
    std::memcpy(got.data(), raw_out.data(), got.size() * sizeof(T));
    const std::int64_t steps = std::int64_t(trips) * (alu_streams::pair_steps_per_trip<Op>() / kPairIlp);
    for (int k : {0, kPairIlp - 1})
      if (std::string why = alu_streams::chain_mismatch<Op>(got[k], x0[k], a, b, steps); !why.empty())
        return "pair kernel: " + why;
    return std::string();
  };
  s.alone = [&ctx, in, out, a, b](int trips, int warps, RegionTiming* timing) {
    launch(ctx, alu_streams::pair_stream_kernel<Op>(), {unsigned(ctx.device().sm_count), unsigned(warps * 32)}, out,
           timing, in, a, b, trips);
    return timing;
  };
  return s;
}

// Per-side rates (steps per clock per SM) of one pair launch, from each warp's own timing.
struct PairRates {
  double x = 0, y = 0;
  double x_cycles_per_step = 0;  // X's warps: median cycles per step of one chain
  double y_cycles_per_step = 0;
};

class PairRunner {
 public:
  PairRunner(ProbeContext& ctx, void (*kernel)(RegionTiming*, PairSide, PairSide, int))
      : ctx_(ctx), kernel_(kernel), timing_(std::size_t(ctx.device().sm_count) * kWarps) {}

  PairRates run(const Side& x, int x_trips, int x_active, const Side* y, int y_trips, int y_active, int ref) {
    PairSide xs = x.side, ys = y ? y->side : PairSide{};
    xs.trips = x_trips;
    xs.active = x_active;
    ys.trips = y_trips;
    ys.active = y ? y_active : 0;
    launch(ctx_, kernel_, {unsigned(ctx_.device().sm_count), unsigned(kWarps * 32)}, timing_.get(), xs, ys, ref);
    GD_CUDA_CHECK_LAUNCH();
    if (x_active > 0) check(x, x_trips);
    if (y && y_active > 0) check(*y, y_trips);
    const auto t = timing_.to_host();
    std::vector<RegionTiming> xt, yt;
    std::vector<double> x_step, y_step;
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (t[i].cycles <= 0) continue;
      const bool on_y = (i % kWarps / 4) % 2 != 0;
      (on_y ? yt : xt).push_back(t[i]);
      if (on_y) y_step.push_back(double(t[i].cycles) / (y->steps_per_trip / kPairIlp * y_trips));
      else x_step.push_back(double(t[i].cycles) / (x.steps_per_trip / kPairIlp * x_trips));
      all_.push_back(t[i]);
    }
    PairRates r;
    r.x = per_sm_rate(xt, 32.0 * x.steps_per_trip * x_trips);
    if (y) r.y = per_sm_rate(yt, 32.0 * y->steps_per_trip * y_trips);
    if (!x_step.empty()) r.x_cycles_per_step = summarize(x_step).median;
    if (!y_step.empty()) r.y_cycles_per_step = summarize(y_step).median;
    return r;
  }
  // A side alone in the ILP-4 stream kernel at kSideWarps warps (the launch whose counters
  // `run --ncu` reads): steps per clock per SM, and the cycles one launch took (median over SMs).
  std::pair<double, double> stream_alone(const Side& s, int trips) {
    DeviceBuffer<RegionTiming> t(ctx_.device().sm_count);
    s.alone(trips, kSideWarps, t.get());
    GD_CUDA_CHECK_LAUNCH();
    const auto h = t.to_host();
    all_.insert(all_.end(), h.begin(), h.end());
    std::vector<double> c;
    for (const auto& b : h) c.push_back(double(b.cycles));
    return {per_sm_rate(h, 32.0 * kSideWarps * s.stream_steps_per_trip * trips), summarize(c).median};
  }
  const std::vector<RegionTiming>& timings() const { return all_; }

 private:
  static void check(const Side& s, int trips) {
    if (const std::string why = s.mismatch(s.out.to_host(), trips); !why.empty()) throw Error(why);
  }
  ProbeContext& ctx_;
  void (*kernel_)(RegionTiming*, PairSide, PairSide, int);
  DeviceBuffer<RegionTiming> timing_;
  std::vector<RegionTiming> all_;
};

// Pair-kernel trips for about `cycles` with one side alone, from a two-trip calibration.
inline int trips_for(double cycles_per_step, const Side& s, double cycles) {
  const double per_trip = std::max(1.0, cycles_per_step * s.steps_per_trip / kPairIlp);
  return std::clamp(int(cycles / per_trip), 2, 1 << 20);
}

// Issue slots per clock per scheduler of a rate in steps per clock per SM.
inline double issue_rate(double steps_per_clk_per_sm, const Side& s) { return steps_per_clk_per_sm / 32 / 4 * s.instr_per_step; }

}  // namespace gd::pipe_pairs
