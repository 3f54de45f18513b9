// Near and far L2 hit and DRAM latency of every SM and the partition map: each SM in turn reads the
// same sampled lines; clustering the SM x line latencies splits SMs and lines into L2 partitions.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "analysis/ncu_counters.hpp"
#include "analysis/partition.hpp"
#include "core/device_buffer.hpp"
#include "core/launch.cuh"
#include "core/median.hpp"
#include "core/ptx.cuh"
#include "core/ptx_memory.cuh"
#include "core/registry.hpp"
#include "core/timing.cuh"
#include "memory_tools.hpp"

namespace gd {
namespace probe_l2_partition {

constexpr int kLineBytes = 128;
constexpr long long kRegionBytes = 2 << 20;  // one 2 MiB page: no TLB step inside the region
constexpr unsigned kNoSm = 0xffffffffu;

// Links the sampled lines into one cycle in `order` (each holds the next one's address), written
// by the block on SM `writer` only (one block per SM, as below). The write also resets each
// line's L2 state before every SM's measurement: every read below is the first since a write.
// On an H200 a line just written by an SM reads at near latency from every SM of the writer's
// partition, so each reader's lines are written by an SM of the other partition.
__global__ void __launch_bounds__(32) link_sampled_kernel(char* region, const unsigned* order, int lines, unsigned writer) {
  if (ptx::smid() != writer) return;
  for (int k = threadIdx.x; k < lines; k += blockDim.x)
    *reinterpret_cast<const void**>(region + std::size_t(order[k]) * kLineBytes) =
        region + std::size_t(order[(k + 1) % lines]) * kLineBytes;
}

// Writes every line of `scrub` (several times the L2 size): afterwards L2 holds none of the
// sampled lines, which were written back to DRAM as the scrub's lines displaced them.
__global__ void scrub_l2_kernel(uint4* scrub, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    scrub[i] = make_uint4(unsigned(i), 0u, 0u, 0u);
}

// One block per SM (the dynamic shared memory keeps a second one off); every block names its SM,
// and the block on `target` times each line twice (first read after the reset, then again)
// with one dependent .cg load per line. Line 0 of the region is read first, untimed, so the
// SM's TLB holds the page.
__global__ void __launch_bounds__(32) line_latency_kernel(const char* region, const void* start, unsigned long long zero,
                                                          int lines, unsigned target, unsigned* block_sm,
                                                          long long* cycles, RegionTiming* timing, const void** sink) {
  extern __shared__ long long hold[];
  if (threadIdx.x == 0) block_sm[blockIdx.x] = ptx::smid();
  if (threadIdx.x != 0 || ptx::smid() != target) return;
  const void* warm = nullptr;
  ptx::timed_chase_cg(region, zero, &warm);
  // Each pass's last pointer is folded into `ends`, so no pass is dead code to ptxas.
  std::uintptr_t ends = reinterpret_cast<std::uintptr_t>(warm);
  RegionClock clock;
  clock.begin();
  for (int pass = 0; pass < 2; ++pass) {
    const void* p = start;
    for (int k = 0; k < lines; ++k) hold[pass * lines + k] = ptx::timed_chase_cg(p, zero, &p);
    ends ^= reinterpret_cast<std::uintptr_t>(p);
  }
  const RegionTiming t = clock.end();
  for (int k = 0; k < 2 * lines; ++k) cycles[k] = hold[k];
  timing[0] = t;
  if (zero == 1) sink[0] = reinterpret_cast<const void*>(ends);
}

using Matrix = std::vector<std::vector<double>>;

// A sample is a whole pass over every SM (tens of milliseconds): a few passes, within 3 s.
RepeatPolicy pass_policy(int max_samples, double rel_ci) {
  RepeatPolicy p;
  p.min_samples = 3;
  p.max_samples = max_samples;
  p.target_rel_ci = rel_ci;
  p.time_cap_s = 3;
  return p;
}

Matrix elementwise_median(const std::vector<Matrix>& passes) {
  Matrix out = passes.front();
  for (std::size_t s = 0; s < out.size(); ++s)
    for (std::size_t j = 0; j < out[s].size(); ++j) {
      std::vector<double> v;
      for (const Matrix& m : passes) v.push_back(m[s][j]);
      out[s][j] = summarize(v).median;
    }
  return out;
}

nlohmann::json rounded(const Matrix& m) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& row : m) {
    nlohmann::json r = nlohmann::json::array();
    for (double v : row) r.push_back(std::round(v * 10) / 10);
    j.push_back(r);
  }
  return j;
}

// The sampled lines of one 2 MiB region and the launches over them, shared by the L2 and the
// DRAM probes: `link(writer)` writes the lines' cycle from SM `writer`, `measure(target)` has SM
// `target` time every line twice; `sms` are the SM ids the one-block-per-SM grid covers.
struct SampledLines {
  ProbeContext& ctx;
  int lines;
  std::vector<unsigned> order;
  DeviceBuffer<char> region{std::size_t(kRegionBytes)};
  DeviceBuffer<unsigned> order_dev, block_sm;
  DeviceBuffer<long long> cycles;
  DeviceBuffer<RegionTiming> timing{1};
  DeviceBuffer<const void*> sink{1};
  LaunchShape one_per_sm;
  std::vector<unsigned> sms;
  std::vector<RegionTiming> clocks;

  SampledLines(ProbeContext& c, int n)
      : ctx(c), lines(n), order_dev(std::size_t(n)), block_sm(std::size_t(c.device().sm_count)),
        cycles(2 * std::size_t(n)) {
    const DeviceInfo& d = ctx.device();
    const long long region_lines = kRegionBytes / kLineBytes;
    if (lines < 8 || lines >= region_lines)
      throw UserError("lines must be between 8 and " + std::to_string(region_lines - 1) + " (the region's lines)");
    std::mt19937_64 rng(std::random_device{}());
    std::vector<unsigned> all(region_lines - 1);
    std::iota(all.begin(), all.end(), 1u);  // line 0 is the TLB warm-up line, never sampled
    std::shuffle(all.begin(), all.end(), rng);
    order.assign(all.begin(), all.begin() + lines);
    region.fill_zero();
    order_dev.from_host(order);
    const std::size_t smem = std::size_t(d.shared_per_block_optin);
    if (smem < 2 * std::size_t(lines) * sizeof(long long)) ctx.skip("shared memory too small to hold the timings");
    GD_CUDA_CHECK(cudaFuncSetAttribute(line_latency_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    GD_CUDA_CHECK(cudaFuncSetAttribute(link_sampled_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    one_per_sm = {unsigned(d.sm_count), 32, smem};
    measure(kNoSm);  // which SM ids the grid covers (one block each)
    sms = block_sm.to_host();
    std::sort(sms.begin(), sms.end());
    sms.erase(std::unique(sms.begin(), sms.end()), sms.end());
    if (sms.size() < 2) ctx.skip("fewer than two SMs ran a block: nothing to compare");
  }
  void link(unsigned writer) {
    launch(ctx, link_sampled_kernel, one_per_sm, region.get(), order_dev.get(), lines, writer);
  }
  void measure(unsigned target) {
    const void* start = region.get() + std::size_t(order[0]) * kLineBytes;
    launch(ctx, line_latency_kernel, one_per_sm, region.get(), start, 0ull, lines, target, block_sm.get(), cycles.get(),
           timing.get(), sink.get());
    GD_CUDA_CHECK_LAUNCH();
  }
  // After measure(): row s of the first and the repeated reads.
  void collect(std::size_t s, Matrix& first, Matrix& again) {
    const std::vector<long long> c = cycles.to_host();
    first[s].assign(c.begin(), c.begin() + lines);
    again[s].assign(c.begin() + lines, c.end());
    clocks.push_back(timing.to_host()[0]);
  }
};

void run_partition(ProbeContext& ctx) {
  SampledLines sl(ctx, int(ctx.int_param("lines")));
  const int lines = sl.lines;
  const std::vector<unsigned>& sms = sl.sms;
  const std::vector<unsigned>& order = sl.order;
  std::vector<RegionTiming>& clocks = sl.clocks;
  // One pass: every SM reads the lines after they were written by writer_of(SM).
  const auto pass = [&](const std::function<unsigned(std::size_t)>& writer_of, Matrix& first, Matrix& again) {
    first.assign(sms.size(), {});
    again.assign(sms.size(), {});
    for (std::size_t s = 0; s < sms.size(); ++s) {
      sl.link(writer_of(s));
      sl.measure(sms[s]);
      sl.collect(s, first, again);
    }
  };
  // Pass 0, one writer for all: the SMs of the writer's partition read every line near, the
  // others split the lines; that is enough to tell the partitions apart and pick writers.
  Matrix probe_first, probe_again;
  pass([&](std::size_t) { return sms[0]; }, probe_first, probe_again);
  const PartitionMap coarse = partition_two_way(probe_first);
  std::vector<unsigned> writer(sms.size(), sms[0]);
  std::vector<double> same_partition_writer;
  for (std::size_t s = 0; s < sms.size(); ++s) {
    for (std::size_t o = 0; o < sms.size(); ++o)
      if (coarse.sm_group[o] != coarse.sm_group[s]) {
        writer[s] = sms[o];
        break;
      }
    if (coarse.sm_group[s] == coarse.sm_group[0] && s != 0)
      for (double v : probe_first[s]) same_partition_writer.push_back(v);
  }
  std::vector<Matrix> first_passes, repeat_passes;
  ctx.measure(
      [&] {
        Matrix first, again;
        pass([&](std::size_t s) { return writer[s]; }, first, again);
        first_passes.push_back(first);
        repeat_passes.push_back(again);
        return partition_two_way(first).separation;
      },
      pass_policy(7, 0.03));
  const double mhz = clock_mhz(clocks);
  ctx.set_observed_sm_clock_mhz(mhz, "clock64 over %globaltimer around each SM's timed reads");
  const Matrix first = elementwise_median(first_passes), again = elementwise_median(repeat_passes);
  const PartitionMap m = partition_two_way(first);
  const PartitionMap m_again = partition_two_way(again);
  std::vector<double> far_again;
  for (std::size_t s = 0; s < sms.size(); ++s)
    for (int j = 0; j < lines; ++j)
      if (m.line_home[j] != m.sm_group[s]) far_again.push_back(again[s][j]);
  const std::vector<double> nears = m.nears(), fars = m.fars();
  ctx.metric("latency/near_cycles", summarize(nears));
  if (!fars.empty()) ctx.metric("latency/far_cycles", summarize(fars));
  ctx.metric("latency/near_ns", summarize(nears).median / mhz * 1e3);
  if (!fars.empty()) ctx.metric("latency/far_ns", summarize(fars).median / mhz * 1e3);
  if (!far_again.empty()) ctx.metric("latency/far_lines_again_cycles", summarize(far_again));
  ctx.metric("partition/separation_cycles", m.separation);
  ctx.extra()["sm_ids"] = sms;
  ctx.extra()["sampled_lines"] = order;
  ctx.extra()["latency_first_cycles"] = rounded(first);
  ctx.extra()["latency_again_separation_cycles"] = m_again.separation;
  ctx.extra()["passes"] = first_passes.size();
  ctx.extra()["writer_of_sm"] = writer;
  if (!same_partition_writer.empty())
    ctx.metric("latency/after_same_partition_write_cycles", summarize(same_partition_writer));
}

// The partition map as a derived record: groups with their SM ids, per-SM near/far latency, the
// lines' homes and the SM-to-SM distance matrix (RMS difference of the SMs' latency rows).
// One SM's latency across the sampled lines, as the curve's levels: "SM 0 over 128 lines: 64
// homed near at 282 cycles (median), 64 far at 463; 270-481 cycles". An item about one SM's L2
// latency across addresses reads it.
std::string first_sm_curve(const Matrix& first, const PartitionMap& m, const std::vector<unsigned>& sms) {
  if (first.empty() || sms.empty()) return "";
  std::vector<double> near, far, all;
  for (std::size_t l = 0; l < first[0].size(); ++l) {
    if (!std::isfinite(first[0][l])) continue;
    all.push_back(first[0][l]);
    (m.line_home[l] == m.sm_group[0] ? near : far).push_back(first[0][l]);
  }
  if (all.empty()) return "";
  const auto median_or_0 = [](const std::vector<double>& v) { return v.empty() ? 0.0 : median_of(v); };
  const auto [lo, hi] = std::minmax_element(all.begin(), all.end());
  return "SM " + std::to_string(sms[0]) + " over " + std::to_string(all.size()) + " lines: " + std::to_string(near.size()) +
         " homed near at " + std::to_string(std::lround(median_or_0(near))) + " cycles (median), " + std::to_string(far.size()) +
         " far at " + std::to_string(std::lround(median_or_0(far))) + "; " + std::to_string(std::lround(*lo)) + "-" +
         std::to_string(std::lround(*hi)) + " cycles";
}

void summarize_partition(SummaryContext& sc) {
  for (const Record* r : sc.ok_records()) {
    if (!r->extra.contains("latency_first_cycles")) continue;
    const Matrix first = r->extra["latency_first_cycles"].get<Matrix>();
    const std::vector<unsigned> sms = r->extra["sm_ids"].get<std::vector<unsigned>>();
    const PartitionMap m = partition_two_way(first);
    Record& out = sc.derive({{"lines", std::string("partition_map")}}, {r});
    out.metrics = r->metrics;
    nlohmann::json groups = {nlohmann::json::array(), nlohmann::json::array()};
    nlohmann::json per_sm = nlohmann::json::array();
    for (std::size_t s = 0; s < sms.size(); ++s) {
      groups[m.sm_group[s]].push_back(sms[s]);
      per_sm.push_back({{"sm", sms[s]}, {"group", m.sm_group[s]},
                        {"near_cycles", std::isfinite(m.near[s]) ? nlohmann::json(m.near[s]) : nlohmann::json()},
                        {"far_cycles", std::isfinite(m.far[s]) ? nlohmann::json(m.far[s]) : nlohmann::json()},
                        {"near_ns", r->sm_clock_mhz > 0 && std::isfinite(m.near[s]) ? m.near[s] / r->sm_clock_mhz * 1e3 : 0.0},
                        {"far_ns", r->sm_clock_mhz > 0 && std::isfinite(m.far[s]) ? m.far[s] / r->sm_clock_mhz * 1e3 : 0.0}});
    }
    out.extra["groups_sm_ids"] = groups;
    out.extra["per_sm"] = per_sm;
    out.extra["line_home_group"] = m.line_home;
    out.extra["first_sm_curve"] = first_sm_curve(first, m, sms);
    out.extra["sm_distance_cycles"] = rounded(m.distance);
    out.extra["method"] =
        "every SM reads the same sampled lines, each the first read after a write; two-means over the SMs' latency "
        "rows (seeded with the two most distant SMs) gives the groups, a line is homed in the group that reads it "
        "faster, near/far are each SM's median over lines homed in its own / the other group; the distance of two "
        "SMs is the RMS difference of their rows. Cycles are clock to clock around one load (a few cycles of clock "
        "read included)";
  }
}

ProbeSpec partition_spec() {
  ProbeSpec s;
  s.id = "memory.latency.l2_partition";
  s.description = "near/far L2 hit latency per SM, L2 partition map and SM-to-SM distance matrix from sampled lines";
  s.axes = {std::move(Axis::list("lines", std::vector<std::int64_t>{128})).quick({64})};
  s.sass = {expect_sass("*line_latency_kernel*", SassRegion::Clocked, {{"LDG.E.64.STRONG.GPU", 1, -1}},
                        {"LDL", "STL", "LDG.E.64.CONSTANT"}),
            expect_sass("*link_sampled_kernel*", SassRegion::Whole, {{"STG.E.64", 1, -1}})};
  s.metrics = {{"latency/near_cycles", "cycles", "per-SM median over lines homed in its own partition (median over SMs)"},
               {"latency/far_cycles", "cycles", "per-SM median over lines homed in the other partition (median over SMs)"},
               {"latency/near_ns", "ns", "near latency at the observed SM clock"},
               {"latency/far_ns", "ns", "far latency at the observed SM clock"},
               {"latency/far_lines_again_cycles", "cycles", "far-homed lines read a second time by the same SM"},
               {"partition/separation_cycles", "cycles", "median over SMs of far - near"},
               {"latency/after_same_partition_write_cycles", "cycles",
                "every line read first by an SM of the partition whose SM wrote it (pass 0): near or far homing hidden"}};
  // The SM x SM matrix is the derived record's extra.sm_distance_cycles; separation (far - near,
  // median over SMs) is the number that stands for it.
  s.covers = {{"topology.l2_distance_matrix", "partition/separation_cycles", {{"lines", std::string("partition_map")}}},
              {"topology.l2_latency_per_sm_curve", "extra.first_sm_curve", {{"lines", std::string("partition_map")}}}};
  s.run = run_partition;
  s.summarize = summarize_partition;
  s.time_cap_s = 6;
  s.quick_time_cap_s = 3;
  return s;
}

GD_REGISTER_PROBE(partition_spec());

// ------------------------------------------------------------------------------ near/far DRAM

constexpr int kScrubL2s = 3;  // the scrub writes this many L2 sizes between a link and a read

// Every SM reads the same sampled lines right after a scrub has pushed them out of L2, so each
// first read is served by DRAM; the second read of each line (an L2 hit) is the witness that the
// first was not. Clustering the first reads splits SMs and lines as the L2 probe does: a line's
// DRAM is reached through its home L2 partition, so "near DRAM" is a miss homed in the reader's
// partition and "far DRAM" one homed in the other.
void run_dram_partition(ProbeContext& ctx) {
  SampledLines sl(ctx, int(ctx.int_param("lines")));
  const DeviceInfo& d = ctx.device();
  // Under `run --ncu` (counters only; its timings are not kept) a few SMs of the id list suffice,
  // and every profiled launch costs a tenth of a second.
  if (!ctx.ncu_tag().empty() && sl.sms.size() > 4)
    sl.sms = {sl.sms[0], sl.sms[sl.sms.size() / 4], sl.sms[sl.sms.size() / 2], sl.sms[3 * sl.sms.size() / 4]};
  const std::vector<unsigned>& sms = sl.sms;
  DeviceBuffer<uint4> scrub(std::size_t(kScrubL2s) * std::size_t(d.l2_bytes) / sizeof(uint4));
  const LaunchShape scrub_shape{unsigned(d.sm_count * 4), 512};
  std::vector<Matrix> cold_passes, hit_passes;
  ctx.measure(
      [&] {
        Matrix cold(sms.size()), hit(sms.size());
        for (std::size_t s = 0; s < sms.size(); ++s) {
          sl.link(sms[(s + sms.size() / 2) % sms.size()]);
          launch(ctx, scrub_l2_kernel, scrub_shape, scrub.get(), (long long)scrub.size());
          sl.measure(sms[s]);
          sl.collect(s, cold, hit);
        }
        cold_passes.push_back(cold);
        hit_passes.push_back(hit);
        return partition_two_way(cold).separation;
      },
      pass_policy(5, 0.05));
  const double mhz = clock_mhz(sl.clocks);
  ctx.set_observed_sm_clock_mhz(mhz, "clock64 over %globaltimer around each SM's timed reads");
  const Matrix cold = elementwise_median(cold_passes), hit = elementwise_median(hit_passes);
  const PartitionMap m = partition_two_way(cold);
  const PartitionMap by_hits = partition_two_way(hit);
  // The witness: every (SM, line) first read against the same SM's repeat of that line.
  std::size_t slower = 0, cells = 0;
  std::vector<double> all_cold, all_hit;
  for (std::size_t s = 0; s < sms.size(); ++s)
    for (int j = 0; j < sl.lines; ++j) {
      ++cells;
      if (cold[s][j] > 1.3 * hit[s][j]) ++slower;
      all_cold.push_back(cold[s][j]);
      all_hit.push_back(hit[s][j]);
    }
  // Whether the DRAM clustering finds the same partitions as the L2 hits (labels may swap).
  std::size_t same_sm = 0, same_line = 0;
  for (std::size_t s = 0; s < sms.size(); ++s) same_sm += m.sm_group[s] == by_hits.sm_group[s];
  for (int j = 0; j < sl.lines; ++j) same_line += m.line_home[j] == by_hits.line_home[j];
  same_sm = std::max(same_sm, sms.size() - same_sm);
  same_line = std::max(same_line, std::size_t(sl.lines) - same_line);
  const std::vector<double> nears = m.nears(), fars = m.fars();
  ctx.metric("latency/near_dram_cycles", summarize(nears));
  ctx.metric("latency/near_dram_ns", summarize(nears).median / mhz * 1e3);
  if (!fars.empty()) {
    ctx.metric("latency/far_dram_cycles", summarize(fars));
    ctx.metric("latency/far_dram_ns", summarize(fars).median / mhz * 1e3);
  }
  ctx.metric("latency/dram_all_cycles", summarize(all_cold));
  ctx.metric("latency/l2_hit_after_cycles", summarize(all_hit));
  ctx.metric("partition/separation_cycles", m.separation);
  ctx.metric("proof/first_reads_slower_percent", 100.0 * double(slower) / double(cells));
  ctx.metric("partition/sm_agreement_percent", 100.0 * double(same_sm) / double(sms.size()));
  ctx.metric("partition/line_agreement_percent", 100.0 * double(same_line) / double(sl.lines));
  ctx.extra()["sm_ids"] = sms;
  ctx.extra()["sm_group"] = m.sm_group;
  ctx.extra()["line_home_group"] = m.line_home;
  ctx.extra()["dram_latency_cycles"] = rounded(cold);
  ctx.extra()["passes"] = cold_passes.size();
  ctx.extra()["scrub_bytes"] = double(scrub.bytes());
  ctx.extra()["method"] =
      "per SM: link the lines (written by an SM half the id list away), write " + std::to_string(kScrubL2s) +
      " L2 sizes of scrub lines, then time one dependent .cg load per line twice; the first reads cluster "
      "(two-means over SM rows) into near/far DRAM, the second reads (L2 hits) witness that the first were misses";
}

// With --ncu, the measuring kernel's L2 lookups: misses should be one per sampled line (the first
// reads) and hits one per line (the repeats), plus the TLB warm-up line.
void summarize_dram_partition(SummaryContext& sc) {
  for (const Record* r : sc.ok_records()) {
    Record& out = sc.derive({{"lines", std::string("l2_lookups")}}, {r});
    out.metrics = r->metrics;
    const auto miss = ncu_counter(r->extra, "line_latency_kernel", "lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum");
    const auto hit = ncu_counter(r->extra, "line_latency_kernel", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum");
    if (miss && hit) {
      sc.add_metric(out, "ncu/l2_read_miss_sectors", single_value(*miss));
      sc.add_metric(out, "ncu/l2_read_hit_sectors", single_value(*hit));
      out.extra["ncu_expect"] = "per launch: about one miss per sampled line (the first reads) and one hit per line";
    } else {
      out.extra["ncu"] = ncu_absent_note();
    }
  }
}

ProbeSpec dram_partition_spec() {
  ProbeSpec s;
  s.id = "memory.latency.dram_partition";
  s.description = "DRAM latency per SM with L2 scrubbed (witnessed by the L2-hit repeat), near vs far DRAM by home partition";
  s.axes = {std::move(Axis::list("lines", std::vector<std::int64_t>{64})).quick({32})};
  s.sass = {expect_sass("*line_latency_kernel*", SassRegion::Clocked, {{"LDG.E.64.STRONG.GPU", 1, -1}},
                        {"LDL", "STL", "LDG.E.64.CONSTANT"}),
            expect_sass("*link_sampled_kernel*", SassRegion::Whole, {{"STG.E.64", 1, -1}}),
            expect_sass("*scrub_l2_kernel*", SassRegion::Whole, {{"STG.E.128", 1, -1}})};
  s.metrics = {{"latency/near_dram_cycles", "cycles", "per-SM median first read of lines homed in its own partition (median over SMs)"},
               {"latency/far_dram_cycles", "cycles", "per-SM median first read of lines homed in the other partition"},
               {"latency/near_dram_ns", "ns", "near DRAM latency at the observed SM clock"},
               {"latency/far_dram_ns", "ns", "far DRAM latency at the observed SM clock"},
               {"latency/dram_all_cycles", "cycles", "every first read (SM x line)"},
               {"latency/l2_hit_after_cycles", "cycles", "every repeated read (L2 hits after the DRAM fill)"},
               {"partition/separation_cycles", "cycles", "median over SMs of far - near DRAM"},
               {"proof/first_reads_slower_percent", "%", "(SM, line) cells whose first read took over 1.3x the repeat"},
               {"partition/sm_agreement_percent", "%",
                "SMs grouped alike by the DRAM reads and by the L2-hit repeats; near 50 % when the repeats carry no "
                "partition signal (on an H200 a line read once is then served near from every SM)"},
               {"partition/line_agreement_percent", "%", "lines homed alike by the DRAM reads and by the L2-hit repeats (as above)"},
               {"ncu/l2_read_miss_sectors", "sectors", "--ncu: L2 read lookups missing, per measuring launch"},
               {"ncu/l2_read_hit_sectors", "sectors", "--ncu: L2 read lookups hitting, per measuring launch"}};
  s.ncu_metrics = memory::l2_read_lookup_metrics();
  s.run = run_dram_partition;
  s.summarize = summarize_dram_partition;
  s.time_cap_s = 6;
  s.quick_time_cap_s = 3;
  return s;
}

GD_REGISTER_PROBE(dram_partition_spec());

}  // namespace probe_l2_partition
}  // namespace gd
