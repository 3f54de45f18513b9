// ISA corpus (compiled by `gpudissect isa` with nvcc at run time, not by the build): texture and
// surface instructions (TEX/TLD/TLD4/TXQ/SULD/SUST/SURED), control flow (jump tables, indirect and
// recursive calls, traps, divergent loops), the uniform datapath (U* opcodes on warp-uniform values)
// and integer/predicate conversions (I2I, I2IP, HSETP2, FSET). Every kernel reads its inputs from
// memory or parameters and writes its results. Builds for sm_90a, sm_100a and sm_120a.
#include <cuda_fp16.h>
#include <cstdio>

// TEX / TLD / TLD4 / TXQ: texture fetches through bindless texture objects passed as parameters.
extern "C" __global__ void corpus_texture(float4* o, cudaTextureObject_t t1, cudaTextureObject_t t2,
                                          cudaTextureObject_t t3, const float* coords, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float u = coords[i], v = coords[i + n], w = coords[i + 2 * n];
  float4 r = tex2D<float4>(t2, u, v);
  float4 l = tex2DLod<float4>(t2, u, v, w);
  float4 g = tex2Dgather<float4>(t2, u, v, 1);
  float4 gr = tex2DGrad<float4>(t2, u, v, make_float2(w, 0.f), make_float2(0.f, w));
  float4 c = tex3D<float4>(t3, u, v, w);
  float f = tex1Dfetch<float>(t1, i);
  float la = tex2DLayered<float>(t2, u, v, i & 3);
  int width, height;
  asm volatile("txq.width.b32 %0, [%1];" : "=r"(width) : "l"(t2));
  asm volatile("txq.height.b32 %0, [%1];" : "=r"(height) : "l"(t2));
  r.x += l.y + g.z + gr.w + c.x + f + la + float(width * height);
  o[i] = r;
}

// SULD / SUST / SURED: surface loads, stores and reductions through a surface object parameter.
extern "C" __global__ void corpus_surface(int* o, cudaSurfaceObject_t s, cudaSurfaceObject_t s3, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  float4 v = surf2Dread<float4>(s, x * 16, y, cudaBoundaryModeClamp);
  int b = surf1Dread<int>(s, x * 4, cudaBoundaryModeZero);
  surf2Dwrite(make_float4(v.w, v.z, v.y, v.x), s, x * 16, y + n, cudaBoundaryModeTrap);
  surf3Dwrite(b + 1, s3, x * 4, y, n);
  asm volatile("sured.b.add.2d.u32.trap [%0, {%1, %2}], %3;" ::"l"(s), "r"(x * 4), "r"(y), "r"(b) : "memory");
  int sw;
  asm volatile("suq.width.b32 %0, [%1];" : "=r"(sw) : "l"(s));
  o[x + y * n] = b + sw + int(v.x);
}

__device__ __noinline__ int corpus_fib(int k) { return k < 2 ? k : corpus_fib(k - 1) + corpus_fib(k - 2); }
__device__ __noinline__ int corpus_op_add(int a, int b) { return a + b; }
__device__ __noinline__ int corpus_op_mul(int a, int b) { return a * b; }
__device__ __noinline__ int corpus_op_xor(int a, int b) { return a ^ (b << 3); }
__device__ int (*const corpus_ops[3])(int, int) = {corpus_op_add, corpus_op_mul, corpus_op_xor};

// BRX / CALL (indirect, recursive) / BREAK / BPT / KILL-free exits: control flow shapes.
extern "C" __global__ void corpus_control_flow(int* o, const int* in, int sel, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i], r = 0;
  switch ((v + sel) & 15) {  // dense switch: jump table (BRX)
    case 0: r = v * 3; break;
    case 1: r = v ^ 0x55; break;
    case 2: r = v + sel; break;
    case 3: r = v >> 2; break;
    case 4: r = v * v; break;
    case 5: r = ~v; break;
    case 6: r = v - 17; break;
    case 7: r = v | 0x100; break;
    case 8: r = v & sel; break;
    case 9: r = v << 5; break;
    default: r = -v;
  }
  r += corpus_ops[(v & 0x7fffffff) % 3](r, sel);  // indirect call
  r += corpus_fib(sel & 7);                       // recursion: stack frame, RET
  for (int k = 0; k < n; ++k) {                   // divergent loop with data-dependent break
    if (in[i + k] == sel) break;
    r += in[i + k] >> (k & 7);
  }
  if (r == 0x7fffffff) __trap();
  if (r == 0x7ffffffe) __brkpt();
  if (v == 0x7ffffffd) printf("corpus %d %d\n", v, r);
  if (v == 0x7ffffffc) asm volatile("pmevent 3;");
  if (v == 0x7ffffffb) asm volatile("exit;");
  o[i] = r;
}

// Uniform datapath: integer and float arithmetic on warp-uniform values (kernel parameters, block ids).
extern "C" __global__ void corpus_uniform(float* o, const int* in, int a, int b, unsigned c, float x, float y) {
  unsigned bx = blockIdx.x, by = blockIdx.y;
  int u = a * int(bx) + b;
  u ^= int(__popc(c ^ bx)) + int(__brev(c + by)) + __clz(a + int(bx));
  u += max(a, b + int(by)) - min(int(c), a) + abs(b - int(bx));
  u += int(__funnelshift_l(c, unsigned(a), by)) + __byte_perm(a, b, c & 0x7777);
  unsigned long long w = (unsigned long long)unsigned(a) * c + bx;
  float fu = float(u) * x + y;                 // I2F / FFMA on uniform values
  fu = fmaxf(fu, x - float(by)) + floorf(y * float(bx));
  int iu = __float2int_rz(fu) + int(w >> 29);
  bool p = (fu > y) && (iu != a);
  const int* base = in + (u & 1023);           // uniform address: LDG with UR base
  int idx = int(threadIdx.x);
  o[bx * blockDim.x + idx] = float(base[idx]) + (p ? fu : float(iu));
}

// I2I / I2IP / F2I saturating narrowing; HSETP2 / FSET / ISET style comparisons producing values.
extern "C" __global__ void corpus_narrow_and_compare(unsigned* o, const int* in, const float* fin, const __half2* hin,
                                                     int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int a = in[i], b = in[i + n];
  float x = fin[i], y = fin[i + n];
  unsigned r = 0, t;
  asm("cvt.sat.s8.s32 %0, %1;" : "=r"(t) : "r"(a)); r += t;
  asm("cvt.sat.u16.s32 %0, %1;" : "=r"(t) : "r"(b)); r += t;
  asm("cvt.s16.s8 %0, %1;" : "=r"(t) : "r"(a ^ b)); r += t;
  asm("cvt.pack.sat.s8.s32.b32 %0, %1, %2, %3;" : "=r"(t) : "r"(a), "r"(b), "r"(r)); r += t;
  asm("cvt.pack.sat.u16.s32 %0, %1, %2;" : "=r"(t) : "r"(a), "r"(b)); r += t;
  asm("cvt.rni.sat.s8.f32 %0, %1;" : "=r"(t) : "f"(x)); r += t;
  asm("set.lt.u32.f32 %0, %1, %2;" : "=r"(t) : "f"(x), "f"(y)); r += t;
  asm("set.gtu.f32.f32 %0, %1, %2;" : "=f"(x) : "f"(x), "f"(y)); r += __float_as_uint(x);
  asm("set.ge.u32.s32 %0, %1, %2;" : "=r"(t) : "r"(a), "r"(b)); r += t;
  __half2 h = hin[i], k = hin[i + n];
  if (__hbgt2(h, k)) r += 7;  // both lanes: HSETP2 .AND
  if (__hbeq2(h, k) || __hisnan(__low2half(h))) r ^= 3;
  unsigned m = __hgtu2_mask(h, k);
  o[i] = r + m;
}
