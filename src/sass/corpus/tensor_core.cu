// ISA corpus (compiled by `gpudissect isa` with nvcc at run time, not by the build): tensor-core
// instructions. Warp-level mma.sync (HMMA/IMMA/DMMA/BMMA/QMMA/OMMA) for every data type and
// shape, sparse mma.sp, ldmatrix/stmatrix/movmatrix (LDSM/STSM/MOVM); Hopper wgmma (HGMMA/IGMMA/
// QGMMA, sm_90a); Blackwell tcgen05 tensor memory and UTC*MMA (sm_100a); sm_120a's f8f6f4 and
// block-scaled mma.sync kinds. Fragments come from memory and results go back to memory; the
// operand values are arbitrary, only the encodings matter. Builds for sm_90a, sm_100a and sm_120a.
#include <cstdint>

// Loads n 32-bit fragment registers for this lane from p.
template <int N>
__device__ __forceinline__ void load_frag(uint32_t (&r)[N], const uint32_t* p) {
#pragma unroll
  for (int k = 0; k < N; ++k) r[k] = p[(threadIdx.x & 31) * N + k];
}

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// HMMA: f16 and bf16 inputs, f16 and f32 accumulators, shapes m16n8k8 / m16n8k16 / m8n8k4.
extern "C" __global__ void corpus_mma_f16_bf16(float* o, const uint32_t* in, int n) {
  uint32_t a[4], b[2], h[2];
  load_frag(a, in);
  load_frag(b, in + 128);
  load_frag(h, in + 192);
  float d[4] = {__uint_as_float(in[256]), 0.f, 0.f, __uint_as_float(in[257])};
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(a[0]), "r"(b[1]), "r"(b[0]));
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[2]), "r"(b[1]));
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[3]), "r"(a[1]), "r"(b[0]));
  // f16 accumulators
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"
               : "+r"(h[0]), "+r"(h[1])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%0,%1};"
               : "+r"(h[0]), "+r"(h[1])
               : "r"(a[2]), "r"(a[3]), "r"(b[1]));
  // Volta-era m8n8k4 (quad-pair) shape
  float q[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) q[k] = d[k & 3] + float(k);
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, "
               "{%0,%1,%2,%3,%4,%5,%6,%7};"
               : "+f"(q[0]), "+f"(q[1]), "+f"(q[2]), "+f"(q[3]), "+f"(q[4]), "+f"(q[5]), "+f"(q[6]), "+f"(q[7])
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]));
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int k = 0; k < 4; ++k) o[t * 16 + k] = d[k];
#pragma unroll
  for (int k = 0; k < 8; ++k) o[t * 16 + 4 + k] = q[k];
  o[t * 16 + 12] = __uint_as_float(h[0]);
  o[t * 16 + 13] = __uint_as_float(h[1]);
}

// HMMA.1684/1688 .TF32 and DMMA: tf32 and f64 shapes (m16n8k4/k8/k16 f64 are sm_90+).
extern "C" __global__ void corpus_mma_tf32_f64(float* o, double* od, const uint32_t* in, const double* ind) {
  uint32_t a[4], b[2];
  load_frag(a, in);
  load_frag(b, in + 128);
  float d[4] = {__uint_as_float(in[256]), 1.f, 2.f, __uint_as_float(in[257])};
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[1]), "r"(a[3]), "r"(b[1]));
  const int lane = threadIdx.x & 31;
  double x[8], y[4], c[4];
#pragma unroll
  for (int k = 0; k < 8; ++k) x[k] = ind[lane * 8 + k];
#pragma unroll
  for (int k = 0; k < 4; ++k) y[k] = ind[256 + lane * 4 + k], c[k] = ind[384 + k];
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
               : "+d"(c[0]), "+d"(c[1]) : "d"(x[0]), "d"(y[0]));
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
               : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3]) : "d"(x[1]), "d"(x[2]), "d"(y[1]));
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
               : "d"(x[0]), "d"(x[1]), "d"(x[2]), "d"(x[3]), "d"(y[2]), "d"(y[3]));
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, "
               "{%12,%13,%14,%15}, {%0,%1,%2,%3};"
               : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
               : "d"(x[0]), "d"(x[1]), "d"(x[2]), "d"(x[3]), "d"(x[4]), "d"(x[5]), "d"(x[6]), "d"(x[7]), "d"(y[0]),
                 "d"(y[1]), "d"(y[2]), "d"(y[3]));
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int k = 0; k < 4; ++k) o[t * 4 + k] = d[k], od[t * 4 + k] = c[k];
}

// IMMA / BMMA: s8/u8, s4/u4 (sub-byte) and b1 (and/xor popc) integer shapes, with and without .satfinite.
extern "C" __global__ void corpus_mma_int(int* o, const uint32_t* in) {
  uint32_t a[4], b[2];
  load_frag(a, in);
  load_frag(b, in + 128);
  int d[4] = {int(in[256]), 0, 0, int(in[257])};
  int e[2] = {int(in[258]), int(in[259])};
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
               : "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(a[0]), "r"(b[1]), "r"(b[0]));
  asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.s8.u8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
               : "r"(a[0]), "r"(a[2]), "r"(b[0]));
  asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%0,%1}, {%2}, {%3}, {%0,%1};"
               : "+r"(e[0]), "+r"(e[1]) : "r"(a[3]), "r"(b[1]));
  asm volatile("mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u4.s4.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
               : "r"(a[1]), "r"(a[3]), "r"(b[1]));
  asm volatile("mma.sync.aligned.m8n8k32.row.col.satfinite.s32.u4.u4.s32 {%0,%1}, {%2}, {%3}, {%0,%1};"
               : "+r"(e[0]), "+r"(e[1]) : "r"(a[2]), "r"(b[0]));
  asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  asm volatile("mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.xor.popc {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(b[0]));
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int k = 0; k < 4; ++k) o[t * 6 + k] = d[k];
  o[t * 6 + 4] = e[0];
  o[t * 6 + 5] = e[1];
}

// FP8 (e4m3/e5m2) mma.sync (sm_89+), and sparse mma.sp with ordered metadata (f16, bf16, s8).
extern "C" __global__ void corpus_mma_fp8_sparse(float* o, int* oi, const uint32_t* in, uint32_t meta) {
  uint32_t a[4], b[4];
  load_frag(a, in);
  load_frag(b, in + 128);
  float d[4] = {__uint_as_float(in[256]), 0.f, 0.f, __uint_as_float(in[257])};
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[3]), "r"(a[2]), "r"(a[1]), "r"(a[0]), "r"(b[2]), "r"(b[3]));
  asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
               "{%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, 0x0;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(meta));
  asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, "
               "{%6,%7}, {%0,%1,%2,%3}, %8, 0x1;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[1]), "r"(a[2]), "r"(b[1]), "r"(b[2]), "r"(meta));
  int e[4] = {int(in[258]), 0, 0, 0};
  asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.satfinite.s32.s8.s8.s32 {%0,%1,%2,%3}, "
               "{%4,%5,%6,%7}, {%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, 0x0;"
               : "+r"(e[0]), "+r"(e[1]), "+r"(e[2]), "+r"(e[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(meta));
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int k = 0; k < 4; ++k) o[t * 4 + k] = d[k], oi[t * 4 + k] = e[k];
}

// LDSM / STSM / MOVM: ldmatrix (x1/x2/x4, .trans), stmatrix (sm_90+), movmatrix; Blackwell b8 shapes.
extern "C" __global__ void corpus_ldmatrix(uint32_t* o, const uint32_t* in, int shift) {
  __shared__ alignas(128) uint32_t tile[1024];
  for (int k = threadIdx.x; k < 1024; k += blockDim.x) tile[k] = in[k];
  __syncthreads();
  const int lane = threadIdx.x & 31;
  const unsigned row = smem_addr(&tile[(lane * 4 + shift * 32) & 1023]);
  uint32_t r[8], m;
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(r[1]), "=r"(r[2]) : "r"(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]) : "r"(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared::cta.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[7]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]) : "r"(row + 16));
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(m) : "r"(r[0] ^ r[7]));
  __syncthreads();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(row), "r"(r[1]) : "memory");
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1,%2};" ::"r"(row + 4096 % 2048), "r"(r[2]),
               "r"(r[3]) : "memory");
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};" ::"r"(row), "r"(r[4]), "r"(r[5]),
               "r"(r[6]), "r"(m) : "memory");
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};" ::"r"(row + 512), "r"(r[6]),
               "r"(r[5]), "r"(r[4]), "r"(r[7]) : "memory");
#endif
  uint32_t bw[4] = {0, 0, 0, 0};
#if defined(__CUDA_ARCH_FEAT_SM100_ALL) || defined(__CUDA_ARCH_FEAT_SM120_ALL)
  // 8-bit and packed 6/4-bit element shapes (sm_100a/sm_120a)
  asm volatile("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%0,%1}, [%2];" : "=r"(bw[0]), "=r"(bw[1]) : "r"(row));
  asm volatile("ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b6x16_p32 {%0}, [%1];" : "=r"(bw[2]) : "r"(row));
  asm volatile("ldmatrix.sync.aligned.m8n16.x2.shared.b8x16.b4x16_p64 {%0,%1}, [%2];" : "=r"(bw[3]), "=r"(bw[1]) : "r"(row + 256));
  asm volatile("stmatrix.sync.aligned.m16n8.x1.trans.shared.b8 [%0], {%1};" ::"r"(row), "r"(bw[0] ^ bw[2]) : "memory");
#endif
  __syncthreads();
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  o[t] = r[0] + r[1] + r[2] + r[3] + r[4] + r[5] + r[6] + r[7] + m + tile[lane] + bw[0] + bw[1] + bw[2] + bw[3];
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// Shared-memory matrix descriptor for wgmma (no swizzle): start>>4, leading and stride byte offsets >>4.
__device__ __forceinline__ uint64_t wgmma_desc(unsigned addr, unsigned lbo, unsigned sbo) {
  return uint64_t((addr & 0x3ffff) >> 4) | uint64_t((lbo & 0x3ffff) >> 4) << 16 | uint64_t((sbo & 0x3ffff) >> 4) << 32;
}

// HGMMA / IGMMA / QGMMA: wgmma.mma_async with shared-memory and register A, f16/bf16/tf32/fp8/s8, sparse.
extern "C" __global__ void __launch_bounds__(128) corpus_wgmma(float* o, int* oi, const uint32_t* in, int scale_d,
                                                               uint32_t meta) {
  __shared__ alignas(128) uint32_t sa[2048];
  __shared__ alignas(128) uint32_t sb[1024];
  for (int k = threadIdx.x; k < 2048; k += blockDim.x) sa[k] = in[k];
  for (int k = threadIdx.x; k < 1024; k += blockDim.x) sb[k] = in[2048 + k];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const uint64_t da = wgmma_desc(smem_addr(sa), 128, 256), db = wgmma_desc(smem_addr(sb), 128, 256);
  float d[4] = {0.f, 0.f, 0.f, 0.f};
  uint32_t h[2] = {in[4000], in[4001]};
  int e[4] = {0, 0, 0, 0};
  uint32_t a[4];
  load_frag(a, in + 3072);
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("{ .reg .pred p; setp.ne.b32 p, %6, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, %4, %5, p, 1, 1, 0, 0; }"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "l"(da), "l"(db), "r"(scale_d));
  asm volatile("{ .reg .pred p; setp.ne.b32 p, %6, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0,%1,%2,%3}, %4, %5, p, -1, 1, 1, 1; }"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "l"(da), "l"(db), "r"(scale_d));
  asm volatile("{ .reg .pred p; setp.ne.b32 p, %4, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {%0,%1}, %2, %3, p, 1, -1, 0, 1; }"
               : "+r"(h[0]), "+r"(h[1]) : "l"(da), "l"(db), "r"(scale_d));
  asm volatile("{ .reg .pred p; setp.ne.b32 p, %6, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%0,%1,%2,%3}, %4, %5, p, 1, 1; }"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "l"(da), "l"(db), "r"(scale_d));
  asm volatile("{ .reg .pred p; setp.ne.b32 p, %6, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2 {%0,%1,%2,%3}, %4, %5, p, 1, 1; }"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "l"(da), "l"(db), "r"(scale_d));
  asm volatile("{ .reg .pred p; setp.ne.b32 p, %6, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.u8 {%0,%1,%2,%3}, %4, %5, p; }"
               : "+r"(e[0]), "+r"(e[1]), "+r"(e[2]), "+r"(e[3]) : "l"(da), "l"(db), "r"(scale_d));
  asm volatile("{ .reg .pred p; setp.ne.b32 p, %6, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8.satfinite {%0,%1,%2,%3}, %4, %5, p; }"
               : "+r"(e[0]), "+r"(e[1]), "+r"(e[2]), "+r"(e[3]) : "l"(da), "l"(db), "r"(scale_d));
  // A from registers
  asm volatile("{ .reg .pred p; setp.ne.b32 p, %9, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, {%4,%5,%6,%7}, %8, p, 1, 1, 0; }"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
  // structured-sparse A
  asm volatile("{ .reg .pred p; setp.ne.b32 p, %7, 0;\n"
               "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%0,%1,%2,%3}, %4, %5, %6, 0, p, 1, 1, 0, 0; }"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "l"(da), "l"(db), "r"(meta), "r"(scale_d));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int k = 0; k < 4; ++k) o[t * 6 + k] = d[k], oi[t * 4 + k] = e[k];
  o[t * 6 + 4] = __uint_as_float(h[0]);
  o[t * 6 + 5] = __uint_as_float(h[1]);
}
#endif

#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
// SM100 shared-memory matrix descriptor (no swizzle, K-major): start, LBO, SBO (all >>4), version 1 at bit 46.
__device__ __forceinline__ uint64_t umma_desc(unsigned addr, unsigned lbo, unsigned sbo) {
  return uint64_t((addr & 0x3ffff) >> 4) | uint64_t((lbo & 0x3ffff) >> 4) << 16 |
         uint64_t((sbo & 0x3ffff) >> 4) << 32 | uint64_t(1) << 46;
}

// Instruction descriptor for tcgen05.mma kind::f16/tf32/f8f6f4/i8: D format at bit 4, A format at bit 7,
// B format at bit 10, N>>3 at bit 17, M>>4 at bit 24 (M = 128, N = 64 here).
__device__ __forceinline__ uint32_t umma_idesc(uint32_t dfmt, uint32_t afmt, uint32_t bfmt) {
  return dfmt << 4 | afmt << 7 | bfmt << 10 | (64u >> 3) << 17 | (128u >> 4) << 24;
}

// Tensor memory and UTC*MMA: tcgen05.alloc/dealloc/relinquish, mma (f16/tf32/f8f6f4/i8, A in TMEM,
// block-scaled mxf8f6f4), commit, cp, shift, ld/st and their waits and fences.
extern "C" __global__ void __launch_bounds__(128) corpus_tcgen05(float* o, const uint32_t* in, int accumulate) {
  __shared__ alignas(1024) uint32_t sa[4096];
  __shared__ alignas(1024) uint32_t sb[2048];
  __shared__ alignas(16) uint32_t tmem_base;
  __shared__ alignas(8) unsigned long long bar;
  for (int k = threadIdx.x; k < 4096; k += blockDim.x) sa[k] = in[k];
  for (int k = threadIdx.x; k < 2048; k += blockDim.x) sb[k] = in[4096 + k];
  const int warp = threadIdx.x / 32;
  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 256;" ::"r"(smem_addr(&tmem_base))
                 : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  }
  if (threadIdx.x == 32) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bar)) : "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const uint32_t tmem = tmem_base;  // column 0: accumulator, 64: A operand, 128/192: scale factors
  const uint64_t da = umma_desc(smem_addr(sa), 128, 1024), db = umma_desc(smem_addr(sb), 128, 1024);
  if (threadIdx.x == 0) {
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %4, 0;\n"
                 "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p; }"
                 ::"r"(tmem), "l"(da), "l"(db), "r"(umma_idesc(1, 0, 0)), "r"(accumulate) : "memory");
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %4, 0;\n"
                 "tcgen05.mma.cta_group::1.kind::tf32 [%0], %1, %2, %3, p; }"
                 ::"r"(tmem), "l"(da), "l"(db), "r"(umma_idesc(1, 2, 2)), "r"(accumulate) : "memory");
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %4, 0;\n"
                 "tcgen05.mma.cta_group::1.kind::f8f6f4 [%0], %1, %2, %3, p; }"
                 ::"r"(tmem), "l"(da), "l"(db), "r"(umma_idesc(1, 0, 1)), "r"(accumulate) : "memory");
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %4, 0;\n"
                 "tcgen05.mma.cta_group::1.kind::i8 [%0], %1, %2, %3, p; }"
                 ::"r"(tmem + 32), "l"(da), "l"(db), "r"(umma_idesc(2, 1, 1)), "r"(accumulate) : "memory");
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %4, 0;\n"
                 "tcgen05.mma.cta_group::1.kind::f16 [%0], [%1], %2, %3, p; }"
                 ::"r"(tmem), "r"(tmem + 64), "l"(db), "r"(umma_idesc(1, 1, 1)), "r"(accumulate) : "memory");
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %4, 0;\n"
                 "tcgen05.mma.ws.cta_group::1.kind::f16 [%0], %1, %2, %3, p; }"
                 ::"r"(tmem), "l"(da), "l"(db), "r"(umma_idesc(1, 0, 0)), "r"(accumulate) : "memory");
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %4, 0;\n"
                 "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [%0], %1, %2, %3, [%5], [%6], p; }"
                 ::"r"(tmem), "l"(da), "l"(db), "r"(umma_idesc(1, 0, 0)), "r"(accumulate), "r"(tmem + 128),
                 "r"(tmem + 192) : "memory");
    asm volatile("tcgen05.cp.cta_group::1.128x256b [%0], %1;" ::"r"(tmem + 128), "l"(da) : "memory");
    asm volatile("tcgen05.shift.cta_group::1.down [%0];" ::"r"(tmem + 64) : "memory");
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(smem_addr(&bar))
                 : "memory");
  }
  asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0; @!p bra W; }"
               ::"r"(smem_addr(&bar)) : "memory");
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  // each warp reads its 32-lane slice of TMEM
  const uint32_t lane_base = tmem + (uint32_t(warp * 32) << 16);
  uint32_t r[8], p2[2];
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x4.b32 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(lane_base));
  asm volatile("tcgen05.ld.sync.aligned.16x64b.x2.b32 {%0,%1}, [%2];" : "=r"(r[4]), "=r"(r[5]) : "r"(lane_base + 8));
  asm volatile("tcgen05.ld.sync.aligned.16x256b.x1.b32 {%0,%1,%2,%3}, [%4];" : "=r"(r[6]), "=r"(r[7]), "=r"(p2[0]),
               "=r"(p2[1]) : "r"(lane_base + 16));
  uint32_t q[2];
  asm volatile("tcgen05.ld.sync.aligned.16x32bx2.x2.pack::16b.b32 {%0,%1}, [%2], 4;" : "=r"(q[0]), "=r"(q[1])
               : "r"(lane_base + 32));
  asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
  asm volatile("tcgen05.st.sync.aligned.32x32b.x2.b32 [%0], {%1,%2};" ::"r"(lane_base + 64), "r"(r[0] ^ q[0]), "r"(r[1])
               : "memory");
  asm volatile("tcgen05.st.sync.aligned.16x128b.x1.unpack::16b.b32 [%0], {%1,%2};" ::"r"(lane_base + 72), "r"(q[1]),
               "r"(r[2]) : "memory");
  asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  if (warp == 0) asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 256;" ::"r"(tmem) : "memory");
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.f;
#pragma unroll
  for (int k = 0; k < 8; ++k) s += __uint_as_float(r[k]);
  o[t] = s + __uint_as_float(p2[0] ^ p2[1]);
}
#endif

#if defined(__CUDA_ARCH_FEAT_SM120_ALL)
// OMMA / QMMA on sm_120a: kind::f8f6f4 with fp4/fp6/fp8 operands, and block-scaled mxf8f6f4 / mxf4 / mxf4nvf4.
extern "C" __global__ void corpus_mma_sm120(float* o, const uint32_t* in, uint32_t sfa, uint32_t sfb) {
  uint32_t a[4], b[2];
  load_frag(a, in);
  load_frag(b, in + 128);
  float d[4] = {__uint_as_float(in[256]), 0.f, 0.f, __uint_as_float(in[257])};
  asm volatile("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e3m2.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
               "{%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  asm volatile("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
               "{%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(a[0]), "r"(b[1]), "r"(b[0]));
  asm volatile("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e4m3.e2m1.f32.ue8m0 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3}, {%10}, {%11,%12}, {%13}, {%14,%15};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(sfa), "h"((uint16_t)0),
                 "h"((uint16_t)1), "r"(sfb), "h"((uint16_t)0), "h"((uint16_t)2));
  asm volatile("mma.sync.aligned.kind::mxf4.block_scale.scale_vec::2X.m16n8k64.row.col.f32.e2m1.e2m1.f32.ue8m0 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3}, {%10}, {%11,%12}, {%13}, {%14,%15};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[3]), "r"(a[2]), "r"(a[1]), "r"(a[0]), "r"(b[0]), "r"(b[1]), "r"(sfa), "h"((uint16_t)1),
                 "h"((uint16_t)0), "r"(sfb), "h"((uint16_t)1), "h"((uint16_t)0));
  asm volatile("mma.sync.aligned.kind::mxf4nvf4.block_scale.scale_vec::4X.m16n8k64.row.col.f32.e2m1.e2m1.f32.ue4m3 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3}, {%10}, {%11,%12}, {%13}, {%14,%15};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[1]), "r"(b[0]), "r"(sfa ^ sfb), "h"((uint16_t)0),
                 "h"((uint16_t)0), "r"(sfb), "h"((uint16_t)0), "h"((uint16_t)0));
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int k = 0; k < 4; ++k) o[t * 4 + k] = d[k];
}
#endif
