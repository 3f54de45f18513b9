// The second constant bank of const_l15_two_banks.cu (its own translation unit, so its own module and
// its own 64 KiB c[3] bank at other global addresses). Experiment only, not part of the suite.
#include "common.cuh"

__constant__ unsigned bank_b[kBankWords];

// Only the block on SM `sm` walks: a lap of `warm` steps untimed, then `steps` timed.
__global__ void chase_b(unsigned sm, int warm, int steps, long long* cyc, unsigned* sink) {
  if (sm_id() != sm || threadIdx.x != 0) return;
  unsigned i = 0;
  for (int s = 0; s < warm; ++s) i = bank_b[i];
  const long long t0 = clock64();
  for (int s = 0; s < steps; ++s) i = bank_b[i];
  const long long t1 = clock64();
  cyc[0] = t1 - t0;
  sink[0] = i;
}

cudaError_t write_bank_b(const unsigned* words, size_t n) { return cudaMemcpyToSymbol(bank_b, words, n * 4); }
void launch_b(unsigned sm, int blocks, size_t shared, int warm, int steps, long long* cyc, unsigned* sink) {
  chase_b<<<blocks, 32, shared>>>(sm, warm, steps, cyc, sink);
}
void allow_b(size_t shared) { cudaFuncSetAttribute(chase_b, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)); }

// For const_l15_concurrent.cu: waits for flag 0 (A's lines are in), laps `steps` of bank B, raises flag 1.
__global__ void chase_b_concurrent(unsigned sm, int steps, volatile unsigned* flags, unsigned* sink) {
  if (sm_id() != sm || threadIdx.x != 0) return;
  const long long t0 = clock64();
  while (flags[0] < 1)
    if (clock64() - t0 > 200000000LL) return;
  unsigned i = 0;
  for (int s = 0; s < steps; ++s) i = bank_b[i];
  sink[0] = i;
  __threadfence();
  flags[1] = 1;
}

void launch_b_concurrent(unsigned sm, int blocks, size_t shared, cudaStream_t s, int steps, volatile unsigned* flags,
                         unsigned* sink) {
  chase_b_concurrent<<<blocks, 32, shared, s>>>(sm, steps, flags, sink);
}
void allow_b_concurrent(size_t shared) {
  cudaFuncSetAttribute(chase_b_concurrent, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared));
}
