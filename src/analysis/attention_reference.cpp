#include "analysis/attention_reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace gd {

std::vector<double> attention_reference_row(std::span<const float> q_row, std::span<const float> k,
                                            std::span<const float> v, int seq, int head_dim, int row, bool causal) {
  if (seq < 1 || head_dim < 1) throw std::invalid_argument("attention reference: seq and head_dim must be positive");
  const std::size_t n = std::size_t(seq) * std::size_t(head_dim);
  if (q_row.size() != std::size_t(head_dim) || k.size() != n || v.size() != n)
    throw std::invalid_argument("attention reference: q must hold head_dim values, k and v seq x head_dim");
  if (row < 0 || row >= seq) throw std::invalid_argument("attention reference: row outside the sequence");
  const int keys = causal ? row + 1 : seq;
  const double scale = 1.0 / std::sqrt(double(head_dim));
  std::vector<double> logit(std::size_t(keys), 0.0);
  double mx = -std::numeric_limits<double>::infinity();
  for (int j = 0; j < keys; ++j) {
    double dot = 0;
    for (int c = 0; c < head_dim; ++c) dot += double(q_row[c]) * double(k[std::size_t(j) * head_dim + c]);
    logit[j] = dot * scale;
    mx = std::max(mx, logit[j]);
  }
  std::vector<double> out(std::size_t(head_dim), 0.0);
  double sum = 0;
  for (int j = 0; j < keys; ++j) {
    const double w = std::exp(logit[j] - mx);
    sum += w;
    for (int c = 0; c < head_dim; ++c) out[c] += w * double(v[std::size_t(j) * head_dim + c]);
  }
  for (double& x : out) x /= sum;
  return out;
}

std::string attention_row_mismatch(std::span<const double> ref, std::span<const float> got, AttentionTolerance tol) {
  if (ref.size() != got.size())
    return "row length " + std::to_string(got.size()) + " differs from the reference's " + std::to_string(ref.size());
  std::size_t worst = 0;
  double worst_excess = -1;  // |err| - allowed, the largest
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double err = std::abs(double(got[i]) - ref[i]);
    const double excess = std::isfinite(got[i]) ? err - (tol.abs + tol.rel * std::abs(ref[i]))
                                                : std::numeric_limits<double>::infinity();
    if (excess > worst_excess) {
      worst_excess = excess;
      worst = i;
    }
  }
  if (worst_excess <= 0) return {};
  char buf[160];
  std::snprintf(buf, sizeof buf, "column %zu: got %.6g, reference %.6g (allowed %.2g + %.2g x |ref|)", worst,
                double(got[worst]), ref[worst], tol.abs, tol.rel);
  return buf;
}

double attention_flops(long long batch_heads, long long seq, int head_dim, bool causal) {
  if (batch_heads < 1 || seq < 1 || head_dim < 1) throw std::invalid_argument("attention_flops: sizes must be positive");
  const double f = 4.0 * double(batch_heads) * double(seq) * double(seq) * double(head_dim);
  return causal ? f / 2 : f;
}

AttentionStageShares attention_stage_shares(const AttentionStageTimes& t) {
  for (double x : {t.full, t.no_softmax, t.poly_exp2, t.no_pv, t.no_qk, t.no_load})
    if (!(x > 0) || !std::isfinite(x)) throw std::invalid_argument("attention_stage_shares: every time must be positive");
  const auto share = [&](double without) { return 100.0 * (t.full - without) / t.full; };
  AttentionStageShares s;
  s.softmax_pct = share(t.no_softmax);
  s.qk_pct = share(t.no_qk);
  s.pv_pct = share(t.no_pv);
  s.mma_pct = s.qk_pct + s.pv_pct;
  s.memory_pct = share(t.no_load);
  s.exp2_poly_extra_pct = 100.0 * (t.poly_exp2 - t.full) / t.full;
  s.sum_pct = s.softmax_pct + s.mma_pct + s.memory_pct;
  for (const auto& [name, pct] : {std::pair<const char*, double>{"softmax", s.softmax_pct},
                                  {"qk_mma", s.qk_pct}, {"pv_mma", s.pv_pct}, {"memory", s.memory_pct}})
    if (pct < 0) s.not_isolated.emplace_back(name);
  return s;
}

AttentionScheduleGains attention_schedule_gains(const AttentionScheduleTimes& t) {
  for (double x : {t.simple, t.ws, t.pingpong, t.pipelined, t.fa3})
    if (!(x > 0) || !std::isfinite(x)) throw std::invalid_argument("attention_schedule_gains: every time must be positive");
  AttentionScheduleGains g;
  g.ws = t.simple / t.ws;
  g.pingpong = t.ws / t.pingpong;
  g.pipelined = t.ws / t.pipelined;
  g.fa3 = t.ws / t.fa3;
  g.total = t.simple / t.fa3;
  g.interaction = g.fa3 / (g.pingpong * g.pipelined);
  return g;
}

}  // namespace gd
