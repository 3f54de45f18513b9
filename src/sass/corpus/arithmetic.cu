// ISA corpus (compiled by `gpudissect isa` with nvcc at run time, not by the build): integer,
// FP32, FP16, FP64, conversion and special-function code, so the tables see those encodings.
#include <cuda_fp16.h>

extern "C" __global__ void corpus_int(int* o, const int* in, unsigned s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int a = in[i], b = in[i + n], c = in[i + 2 * n];
  unsigned u = unsigned(a);
  int r = a * b + c;
  r ^= (a & b) | ~c;
  r += __popc(u) + __clz(a) + __ffs(b);
  r += __brev(u) >> (s & 31);
  r += max(a, b) - min(b, c);
  r += abs(a - c);
  r += __mulhi(a, b) + int(__umulhi(u, s));
  r += int(__funnelshift_l(u, s, c));
  r += __byte_perm(a, b, 0x5410);
  r += int(__sad(a, b, u));
  r += a / (b | 1) + a % (c | 1);
  long long w = (long long)a * c + ((long long)b << 33);
  o[i] = r + int(w >> 17) + (a < b ? 3 : 7);
}

extern "C" __global__ void corpus_fp32(float* o, const float* in, float k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a = in[i], b = in[i + n], c = in[i + 2 * n];
  float r = fmaf(a, b, c) + a * k - b;
  r += __fdividef(a, b) + sqrtf(fabsf(c)) + rsqrtf(fabsf(a) + 1.f);
  r += __expf(a) + __logf(fabsf(b) + 1.f) + __sinf(c) + __cosf(a) + exp2f(b);
  r += fminf(a, b) + fmaxf(b, c) + floorf(a) + ceilf(b) + truncf(c) + rintf(a);
  r += a / c;
  r += __saturatef(a);
  r += float(__float2int_rn(b)) + float(__float2uint_rz(c)) + __int2float_rn(n);
  o[i] = (a > b && c != 0.f) ? r : -r;
}

extern "C" __global__ void corpus_fp64(double* o, const double* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double a = in[i], b = in[i + n], c = in[i + 2 * n];
  double r = fma(a, b, c) + a * b - c + a / b + sqrt(fabs(c));
  r += double(float(a)) + double(__double2int_rn(b)) + fmin(a, c);
  o[i] = a < c ? r : -r;
}

extern "C" __global__ void corpus_fp16(__half2* o, const __half2* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  __half2 a = in[i], b = in[i + n], c = in[i + 2 * n];
  __half2 r = __hfma2(a, b, c);
  r = __hadd2(r, __hmul2(a, c));
  r = __hmax2(r, __hsub2(b, a));
  float2 f = __half22float2(r);
  o[i] = __floats2half2_rn(f.x * 2.f, f.y + 1.f);
}
