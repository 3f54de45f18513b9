// The warps x ILP throughput sweep the tensor probes share: one block per SM, trips calibrated to
// a target span, per-SM rates from each block's own clock, the plateau and its knee.
#pragma once
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "core/json.hpp"

#include "analysis/throughput.hpp"
#include "core/error.hpp"
#include "core/probe.hpp"
#include "core/timing.hpp"

namespace gd::tensor {

struct RateSweep {
  Summary best;          // the best cell's rate (work per clock per SM)
  ThroughputKnee knee;
  double clock_mhz = 0;  // over every timed block of the sweep
  nlohmann::json grid = nlohmann::json::array();
};

// run(ilp, warps, trips) launches one block of `warps` warps per SM and returns every block's
// timed region; work_per_trip_per_warp is the work one warp does per trip. fits(ilp, warps) says
// why a cell cannot run ("" when it can); such cells are listed in the grid and left out.
inline RateSweep sweep_rate(ProbeContext& ctx, const std::vector<int>& ilps, const std::vector<int>& warps,
                            double work_per_trip_per_warp, double target_cycles,
                            const std::function<std::string(int ilp, int warps)>& fits,
                            const std::function<std::vector<RegionTiming>(int ilp, int warps, int trips)>& run) {
  RepeatPolicy policy;
  policy.min_samples = 3;
  policy.target_rel_ci = 0.01;
  policy.time_cap_s = 0.1;
  RateSweep out;
  std::vector<RatePoint> points;
  std::vector<RegionTiming> all;
  for (int ilp : ilps)
    for (int w : warps) {
      if (const std::string why = fits(ilp, w); !why.empty()) {
        out.grid.push_back({{"ilp", ilp}, {"warps_per_sm", w}, {"skipped", why}});
        continue;
      }
      std::vector<double> cyc;
      for (const RegionTiming& t : run(ilp, w, 2)) cyc.push_back(double(t.cycles));
      const int trips = std::clamp(int(target_cycles / std::max(1.0, summarize(cyc).median / 2)), 2, 1 << 20);
      const double work = work_per_trip_per_warp * w * trips;  // per block
      const Summary s = ctx.measure([&] {
                           const auto t = run(ilp, w, trips);
                           all.insert(all.end(), t.begin(), t.end());
                           return per_sm_rate(t, work);
                         }, policy).summary;
      points.push_back({double(ilp), double(w), s.median});
      out.grid.push_back({{"ilp", ilp}, {"warps_per_sm", w}, {"per_clk_per_sm", s.median}, {"trips", trips}});
      if (!(out.best.median >= s.median)) out.best = s;
    }
  if (points.empty()) throw Error("no warps x ilp cell of the throughput sweep fits the SM");
  out.knee = throughput_knee(points);
  out.clock_mhz = clock_mhz(all);
  if (out.clock_mhz > 0) ctx.set_observed_sm_clock_mhz(out.clock_mhz);
  return out;
}

}  // namespace gd::tensor
