// The fused attention probe's CPU side (src/probes/system/attention.cu): one output row of
// softmax(Q K^T / sqrt(d)) V in double precision, the check of a device row against it, the FLOP
// count behind the probe's TFLOPS, the stage shares of its leave-one-out breakdown and the gains
// of its schedules.
#pragma once
#include <span>
#include <string>
#include <vector>

namespace gd {

// Row `row` of softmax(q K^T / sqrt(head_dim)) V for one head: q_row holds head_dim values, k and
// v are seq x head_dim row-major. Causal: keys after `row` are masked out. Throws
// std::invalid_argument on sizes that do not match or a row outside [0, seq).
std::vector<double> attention_reference_row(std::span<const float> q_row, std::span<const float> k,
                                            std::span<const float> v, int seq, int head_dim, int row, bool causal);

// How far a device row may stray: |got - ref| <= abs + rel |ref| per element. The defaults cover
// f16 inputs, P rounded to f16 before the second MMA, fp32 accumulation and an f16 output.
struct AttentionTolerance {
  double abs = 2e-3;
  double rel = 1e-2;
};

// Empty when every element of `got` is within tolerance of `ref` (and finite); otherwise which
// element is the worst and by how much.
std::string attention_row_mismatch(std::span<const double> ref, std::span<const float> got,
                                   AttentionTolerance tol = {});

// The matrix FLOP of a forward pass: 4 B H N^2 d (two GEMMs of 2 N^2 d each), halved when causal
// (the convention FlashAttention's benchmarks use). Throws std::invalid_argument on a
// non-positive size.
double attention_flops(long long batch_heads, long long seq, int head_dim, bool causal);

// Times of the same kernel with one stage left out (any one unit: seconds, cycles per tile).
struct AttentionStageTimes {
  double full = 0;        // the whole kernel
  double no_softmax = 0;  // P = S cast to f16: no max, exp, sum or rescale
  double poly_exp2 = 0;   // exp2 by a polynomial on the FMA pipe instead of MUFU.EX2
  double no_pv = 0;       // the second MMA (P V) left out
  double no_qk = 0;       // the first MMA (Q K^T) left out, S from registers
  double no_load = 0;     // every K/V tile is the first one: no loads after it
};

// Each stage's share of the full time: (full - without) / full in percent. A stage that
// overlaps others costs less than it takes, so the shares need not sum to 100; sum_pct says
// what they add up to. exp2_poly_extra_pct: how much slower (positive) the polynomial exp2 is.
// not_isolated: the stages (softmax, qk_mma, pv_mma, memory) whose removal made the kernel
// slower: leave-one-out cannot isolate them (an overlapped schedule hides them, and the kernel
// without them loses the pacing it relied on), so their negative shares are no cost estimate.
struct AttentionStageShares {
  double softmax_pct = 0, qk_pct = 0, pv_pct = 0, mma_pct = 0, memory_pct = 0, exp2_poly_extra_pct = 0, sum_pct = 0;
  std::vector<std::string> not_isolated;
};
// Throws std::invalid_argument when a time is not positive and finite.
AttentionStageShares attention_stage_shares(const AttentionStageTimes& t);

// Times of the full kernel under each schedule of the probe's schedule axis, same shape (any
// one unit).
struct AttentionScheduleTimes {
  double simple = 0;     // a wait after each MMA, both warpgroups meeting every tile
  double ws = 0;         // producer warpgroup + per-stage release, no overlap
  double pingpong = 0;   // ws + consumers taking turns at the tensor cores
  double pipelined = 0;  // ws + softmax of tile t under P V of tile t - 1
  double fa3 = 0;        // both overlaps
};

// What each step of the schedule buys, as speedups (old time / new time; above 1 is faster).
struct AttentionScheduleGains {
  double ws = 0;           // simple / ws: warp specialization alone
  double pingpong = 0;     // ws / pingpong
  double pipelined = 0;    // ws / pipelined
  double fa3 = 0;          // ws / fa3: both overlaps on top of warp specialization
  double total = 0;        // simple / fa3
  // fa3 / (pingpong x pipelined): 1 when the two overlaps add up independently, below 1 when
  // they hide the same time, above 1 when each needs the other.
  double interaction = 0;
};
// Throws std::invalid_argument when a time is not positive and finite.
AttentionScheduleGains attention_schedule_gains(const AttentionScheduleTimes& t);

}  // namespace gd
