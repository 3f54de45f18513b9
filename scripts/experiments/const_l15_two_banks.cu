// Experiment (not part of the suite; issue 34): does the constant L1.5 keep a kernel's lines across a
// launch, and how much does it hold when two modules' constant banks (two translation units, two
// 64 KiB c[3] banks at different global addresses) are walked in turn? A kernel may declare only
// 64 KiB, which the L1.5 holds whole, so its capacity and line cannot show inside one bank.
//   1. kernel A laps F_A bytes of bank A (lines `stride` apart, a random cycle) and times a lap;
//   2. kernel A times a lap with no warm-up: the L1.5 kept A's lines across the launch if it still
//      reads at L1.5 latency (about 100 cycles) rather than L2's;
//   3. kernel B laps F_B bytes of bank B, then kernel A times its lap with no warm-up: if A's lines
//      are gone once F_A + F_B passes the L1.5's size, that is its capacity; at strides 64-512 B the
//      knee in bytes would move with a line longer than the stride;
//   4. (argument `c`) inside one launch, n lines d bytes apart for d = 1-32 KiB: a set conflict in the
//      L1.5 would show L2 latency once n passes its ways.
// Every walk runs on the block on SM 0 (one block per SM, held apart by dynamic shared memory).
// Build: nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o const_l15 const_l15_two_banks.cu const_l15_bank_b.cu
#include "common.cuh"

__constant__ unsigned bank_a[kBankWords];

__global__ void chase_a(unsigned sm, int warm, int steps, long long* cyc, unsigned* sink) {
  if (sm_id() != sm || threadIdx.x != 0) return;
  unsigned i = 0;
  for (int s = 0; s < warm; ++s) i = bank_a[i];
  const long long t0 = clock64();
  for (int s = 0; s < steps; ++s) i = bank_a[i];
  const long long t1 = clock64();
  cyc[0] = t1 - t0;
  sink[0] = i;
}

cudaError_t write_bank_b(const unsigned* words, size_t n);
void launch_b(unsigned sm, int blocks, size_t shared, int warm, int steps, long long* cyc, unsigned* sink);
void allow_b(size_t shared);

// A random cycle over `lines` slots `stride` bytes apart, as word indices in a 64 KiB table.

// n lines `distance` bytes apart in bank A, walked in order (0, d, 2d, ...) cyclically.
std::vector<unsigned> strided(int lines, int distance) {
  std::vector<unsigned> words(kBankWords, 0);
  for (int k = 0; k < lines; ++k) words[k * (distance / 4)] = ((k + 1) % lines) * (distance / 4);
  return words;
}

int main(int argc, char** argv) {
  const int stride = argc > 1 ? atoi(argv[1]) : 256;
  const bool conflicts = argc > 2 && argv[2][0] == 'c';
  int sms = 0, shared_max = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&shared_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  const size_t shared = size_t(shared_max);  // one block per SM
  CK(cudaFuncSetAttribute(chase_a, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
  allow_b(shared);
  long long* cyc;
  unsigned* sink;
  CK(cudaMalloc(&cyc, 8));
  CK(cudaMalloc(&sink, 8));
  std::mt19937 rng(12345);
  const auto run_a = [&](int lines, int warm) {
    chase_a<<<sms, 32, shared>>>(0, warm, lines, cyc, sink);
    CK(cudaDeviceSynchronize());
    long long c;
    CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
    return double(c) / lines;
  };
  const auto run_b = [&](int lines) {
    launch_b(0, sms, shared, lines, 1, cyc, sink);
    CK(cudaDeviceSynchronize());
  };
  if (conflicts) {
    // 4. Inside one launch: n lines d apart (up to the 64 KiB bank), warm lap then timed lap. A
    //    set-associative L1.5 whose set stride divides d shows L2 latency once n passes its ways.
    for (int d : {1024, 2048, 4096, 8192, 16384, 32768}) {
      printf("distance %5d B:", d);
      for (int n = 2; n * d <= 65536; n *= 2) {
        const std::vector<unsigned> a = strided(n, d);
        CK(cudaMemcpyToSymbol(bank_a, a.data(), a.size() * 4));
        std::vector<double> got;
        for (int rep = 0; rep < 3; ++rep) got.push_back(run_a(std::max(n, 64), std::max(n, 64)));
        std::sort(got.begin(), got.end());
        printf(" n=%d %.1f", n, got[1]);
      }
      printf("\n");
    }
    return 0;
  }
  printf("stride %d B\n", stride);
  for (int fa_kib : {8, 16, 32, 64}) {
    const int la = fa_kib * 1024 / stride;
    const std::vector<unsigned> a = random_cycle(la, stride, rng);
    CK(cudaMemcpyToSymbol(bank_a, a.data(), a.size() * 4));
    const double warmed = run_a(la, la);
    const double across = run_a(la, 0);  // right after the warmed launch
    printf("F_A %2d KiB: warmed lap %.1f cycles/load, next launch cold lap %.1f;", fa_kib, warmed, across);
    for (int fb_kib : {0, 8, 16, 32, 48, 64}) {
      std::vector<double> got;
      for (int rep = 0; rep < 3; ++rep) {
        run_a(la, la);  // A's lines in the L1.5
        if (fb_kib > 0) {
          const int lb = fb_kib * 1024 / stride;
          const std::vector<unsigned> b = random_cycle(lb, stride, rng);
          CK(write_bank_b(b.data(), b.size()));
          run_a(la, la);  // the copy to bank B may have flushed: warm A again
          run_b(lb);
        }
        got.push_back(run_a(la, 0));
      }
      std::sort(got.begin(), got.end());
      printf(" B %d KiB: %.1f", fb_kib, got[1]);
    }
    printf("\n");
  }
  return 0;
}
