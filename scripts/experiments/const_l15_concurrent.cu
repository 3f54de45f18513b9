// Experiment (not part of the suite; issue 34): the constant L1.5's capacity and line, past the
// 64 KiB a kernel may declare. The L1.5 starts every launch empty (const_l15_two_banks.cu), so two
// modules' banks must be walked in one time window: kernel A (bank A, this file) and kernel B (bank B,
// const_l15_bank_b.cu's table, reached through chase_b_concurrent) run at the same time, A on SM 0 and
// B on another SM of its GPC, one block each (two streams):
//   A laps F_A of bank A, raises flag 1; B waits for it, laps F_B of bank B, raises flag 2; A waits
//   for that and times a lap of F_A. Past the L1.5's capacity (F_A + F_B), A's lap misses to L2.
// With B also on SM 0 it did not work on 2026-12-04 (GPU-ddd71cac): every trial timed out (A never saw
// flag 2; 300 s of device time on 2 s waits), probably because B's blocks went to idle SMs rather than
// beside A (placement not recorded). B now runs on SM 1 by default (second argument), A's TPC partner,
// in A's GPC; a B on another GPC's SM is the control (no eviction expected).
// Build: nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o const_l15c const_l15_concurrent.cu const_l15_bank_b.cu
#include "common.cuh"

__constant__ unsigned bank_a[kBankWords];

// Waits for *flag to reach `value`, at most about 0.1 s: false when it never came.
__device__ bool wait_for(volatile unsigned* flag, unsigned value) {
  const long long t0 = clock64();
  while (*flag < value)
    if (clock64() - t0 > 200000000LL) return false;
  return true;
}

__global__ void chase_a_concurrent(unsigned sm, int lines, volatile unsigned* flags, long long* cyc, unsigned* sink) {
  if (sm_id() != sm || threadIdx.x != 0) return;
  unsigned i = 0;
  for (int s = 0; s < 2 * lines; ++s) i = bank_a[i];  // two laps: every line in the L1.5
  __threadfence();
  flags[0] = 1;
  if (!wait_for(flags + 1, 1)) {
    cyc[0] = -1;
    return;
  }
  const long long t0 = clock64();
  for (int s = 0; s < lines; ++s) i = bank_a[i];
  const long long t1 = clock64();
  cyc[0] = t1 - t0;
  sink[0] = i;
}

cudaError_t write_bank_b(const unsigned* words, size_t n);
void launch_b_concurrent(unsigned sm, int blocks, size_t shared, cudaStream_t s, int lines, volatile unsigned* flags,
                         unsigned* sink);
void allow_b_concurrent(size_t shared);


int main(int argc, char** argv) {
  const int stride = argc > 1 ? atoi(argv[1]) : 256;
  // B's SM: 0 (beside A) or another SM of A's GPC (1, its TPC partner): the L1.5 is per GPC.
  const unsigned b_sm = argc > 2 ? unsigned(atoi(argv[2])) : 1;
  int sms = 0, shared_max = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&shared_max, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0));
  const size_t shared = size_t(shared_max) / 2 - 2048;  // two blocks per SM, not three
  CK(cudaFuncSetAttribute(chase_a_concurrent, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
  allow_b_concurrent(shared);
  cudaStream_t sa, sb;
  CK(cudaStreamCreateWithFlags(&sa, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&sb, cudaStreamNonBlocking));
  long long* cyc;
  unsigned *sink, *flags;
  CK(cudaMalloc(&cyc, 8));
  CK(cudaMalloc(&sink, 8));
  CK(cudaMalloc(&flags, 8));
  std::mt19937 rng(777);
  printf("stride %d B (F_A, then F_B: median of 3 of A's timed lap, cycles per load)\n", stride);
  for (int fa_kib : {32, 64}) {
    const int la = fa_kib * 1024 / stride;
    const std::vector<unsigned> a = random_cycle(la, stride, rng);
    CK(cudaMemcpyToSymbol(bank_a, a.data(), a.size() * 4));
    printf("F_A %d KiB:", fa_kib);
    for (int fb_kib : {0, 8, 16, 24, 32, 40, 48, 56, 64}) {
      const int lb = std::max(1, fb_kib * 1024 / stride);
      const std::vector<unsigned> b = fb_kib ? random_cycle(lb, stride, rng) : std::vector<unsigned>(kBankWords, 0);
      CK(write_bank_b(b.data(), b.size()));
      std::vector<double> got;
      for (int rep = 0; rep < 3; ++rep) {
        CK(cudaMemset(flags, 0, 8));
        CK(cudaDeviceSynchronize());
        chase_a_concurrent<<<sms, 32, shared, sa>>>(0, la, flags, cyc, sink);
        launch_b_concurrent(b_sm, sms, shared, sb, fb_kib ? 2 * lb : 0, flags, sink + 1);
        CK(cudaDeviceSynchronize());
        long long c;
        CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
        got.push_back(c < 0 ? -1 : double(c) / la);
      }
      std::sort(got.begin(), got.end());
      printf(" B %d: %.1f", fb_kib, got[1]);  // -1: the two blocks never met
      fflush(stdout);
    }
    printf("\n");
  }
  return 0;
}
