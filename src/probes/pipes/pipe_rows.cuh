// Instructions the pipe studies need beyond the catalog's (latency/alu_catalog.cuh), in its row
// shape (a dependent step the host reproduces, its operands and its SASS), so that the pair
// kernels time them beside the pipe references: LDG for the memory side of the co-issue study and
// of the pipe map, DMMA and IMMA for the tensor instructions' pipes. Kept out of the catalog, whose
// every change recompiles the families that instantiate all of it.
// Each including unit gets its own table (an anonymous namespace): the rows' kernels only follow
// the pointers they are given, so which unit's table the host filled does not matter.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "core/error.hpp"
#include "../latency/alu_catalog.cuh"

namespace gd {
namespace {

// LDG as a pointer chase: entry i of a 32-entry table in global memory holds the address of
// entry next(i), so the step is one 8-byte load and nothing else (no address arithmetic on the
// ALU pipes the pairs measure it beside). Every lane and warp follows the same addresses: after
// the first pass the table is one line in each SM's L1.
constexpr unsigned kChaseEntries = 32;
__device__ unsigned long long g_ldg_chase_table[kChaseEntries];
__host__ __device__ constexpr unsigned long long chase_next(unsigned long long i) { return (i * 13 + 7) % kChaseEntries; }

__host__ __device__ __forceinline__ unsigned long long ldg_chase_step(unsigned long long x, unsigned long long base) {
#ifdef __CUDA_ARCH__
  (void)base;
  unsigned long long next;
  asm volatile("ld.global.u64 %0, [%1];" : "=l"(next) : "l"(x));
  return next;
#else
  return base + 8 * chase_next((x - base) / 8);
#endif
}

// Fills the table (the same content every call) and starts the chain at a random entry; b = 0 is
// never an address, so no thread but the checked one stores.
inline std::array<unsigned long long, 3> ldg_chase_inputs(alu_catalog::Rng& r) {
  void* at = nullptr;
  GD_CUDA_CHECK(cudaGetSymbolAddress(&at, g_ldg_chase_table));
  const auto base = reinterpret_cast<unsigned long long>(at);
  std::array<unsigned long long, kChaseEntries> table{};
  for (unsigned i = 0; i < kChaseEntries; ++i) table[i] = base + 8 * chase_next(i);
  GD_CUDA_CHECK(cudaMemcpyToSymbol(g_ldg_chase_table, table.data(), sizeof(table)));
  return {base + 8 * (r() % kChaseEntries), base, 0};
}

GD_ALU_VARIANT(LdgChase, "ldg", unsigned long long, ldg_chase_inputs, alu_catalog::kExact, alu_catalog::AnyCc,
               "LDG.E.64 pointer chase through a 32-entry table (L1 hits after the first pass)", ldg_chase_step(x, a),
               {"LDG.E.64"});

// DMMA and IMMA with B = 0, so D = C: the accumulator is the chain and the host model is the
// identity (as the catalog's HMMA row). A nonzero b has no host model and fails the check.
__host__ __device__ inline double dmma_acc(double x, double a, double b) {
#ifdef __CUDA_ARCH__
  double d0 = x, d1 = x;
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
               : "+d"(d0), "+d"(d1)
               : "d"(a), "d"(b));
  return d0;
#else
  (void)a;
  return b == 0 ? x : -x;
#endif
}
// m16n8k32 s8 x s8 + s32: two of the four accumulators carry the chain (x's halves), the other two
// copies of them.
__host__ __device__ inline unsigned long long imma_acc(unsigned long long x, unsigned long long a, unsigned long long b) {
#ifdef __CUDA_ARCH__
  uint32_t d0 = uint32_t(x), d1 = uint32_t(x >> 32), d2 = d0, d3 = d1;
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %4, %5}, {%6, %7}, {%0, %1, %2, %3};"
               : "+r"(d0), "+r"(d1), "+r"(d2), "+r"(d3)
               : "r"(uint32_t(a)), "r"(uint32_t(a >> 32)), "r"(uint32_t(b)), "r"(uint32_t(b >> 32)));
  return (static_cast<unsigned long long>(d1) << 32) | d0;
#else
  (void)a;
  return b == 0 ? x : ~x;
#endif
}

inline std::array<double, 3> dmma_operands(alu_catalog::Rng& r) {
  return {alu_catalog::uniform(r, -1, 1), alu_catalog::uniform(r, -1, 1), 0.0};
}
GD_ALU_VARIANT(DmmaF64, "dmma", double, dmma_operands, alu_catalog::kExact, alu_catalog::AnyCc,
               "DMMA (DMMA.8x8x4 on sm_90 and later, DMMA.884 on sm_80; mma.sync m8n8k4 f64, B = 0): the accumulator "
               "is the chain",
               dmma_acc(x, a, b), {"DMMA"});

inline std::array<unsigned long long, 3> imma_operands(alu_catalog::Rng& r) { return {r(), r(), 0}; }
GD_ALU_VARIANT(ImmaS8, "imma", unsigned long long, imma_operands, alu_catalog::kExact, alu_catalog::AnyCc,
               "IMMA.16832.S8.S8 (mma.sync m16n8k32 s8 x s8 + s32, B = 0): the accumulators are the chain",
               imma_acc(x, a, b), {"IMMA.16832.S8.S8"});

}  // namespace
}  // namespace gd
