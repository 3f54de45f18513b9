// GEMM ceilings of the vendor library: cuBLAS (cublasGemmEx) and cuBLASLt (FP8) throughput per
// precision and shape on random inputs, each checked against a host reference on sampled outputs.
// What a kernel author's own GEMM is measured against.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>


#include "core/cublas_api.hpp"
#include "gemm_inputs.hpp"
#include "core/device_buffer.hpp"
#include "core/event_timing.hpp"
#include "core/registry.hpp"

namespace gd {
namespace {

using namespace gemm;

double read_c(const GemmType& t, const DeviceBuffer<unsigned char>& c, std::size_t index) {
  unsigned char raw[8];
  GD_CUDA_CHECK(cudaMemcpy(raw, c.get() + index * t.c_bytes, t.c_bytes, cudaMemcpyDeviceToHost));
  switch (t.c) {
    case CUDA_R_64F: { double d; std::memcpy(&d, raw, 8); return d; }
    case CUDA_R_32F: { float f; std::memcpy(&f, raw, 4); return f; }
    case CUDA_R_32I: { std::int32_t i; std::memcpy(&i, raw, 4); return i; }
    case CUDA_R_16F: { __half h; std::memcpy(&h, raw, 2); return __half2float(h); }
    case CUDA_R_16BF: { __nv_bfloat16 h; std::memcpy(&h, raw, 2); return __bfloat162float(h); }
    default: throw Error("read_c: unhandled data type");
  }
}

// One GEMM call, C = A^T B in column-major ("TN": both operands K-major, the layout FP8 and
// INT8 tensor-core kernels require): A is K x M, B is K x N, C is M x N.
class Gemm {
 public:
  Gemm(const CublasApi& api, const GemmType& t, Shape s, const void* a, const void* b, void* c)
      : api_(api), t_(t), s_(s), a_(a), b_(b), c_(c) {
    if (t.lt_fp8) setup_lt();
    else {
      check_cublas(api.create(&handle_), "cublasCreate");
      check_cublas(api.set_math_mode(handle_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    }
  }
  ~Gemm() {
    if (pref_) api_.lt_pref_destroy(pref_);
    for (auto* l : {la_, lb_, lc_})
      if (l) api_.lt_layout_destroy(l);
    if (desc_) api_.lt_desc_destroy(desc_);
    if (lt_) api_.lt_destroy(lt_);
    if (handle_) api_.destroy(handle_);
  }
  Gemm(const Gemm&) = delete;
  Gemm& operator=(const Gemm&) = delete;

  void operator()() {
    const double one_d = 1, zero_d = 0;
    const float one_f = 1, zero_f = 0;
    const std::int32_t one_i = 1, zero_i = 0;
    const void* alpha = t_.integer ? static_cast<const void*>(&one_i) : t_.c == CUDA_R_64F ? static_cast<const void*>(&one_d) : &one_f;
    const void* beta = t_.integer ? static_cast<const void*>(&zero_i) : t_.c == CUDA_R_64F ? static_cast<const void*>(&zero_d) : &zero_f;
    if (t_.lt_fp8) {
      check_cublas(api_.lt_matmul(lt_, desc_, alpha, a_, la_, b_, lb_, beta, c_, lc_, c_, lc_, &algo_, workspace_.get(),
                                  workspace_.bytes(), nullptr),
                   "cublasLtMatmul");
      return;
    }
    check_cublas(api_.gemm_ex(handle_, CUBLAS_OP_T, CUBLAS_OP_N, int(s_.m), int(s_.n), int(s_.k), alpha, a_, t_.ab,
                              int(s_.k), b_, t_.ab, int(s_.k), beta, c_, t_.c, int(s_.m), t_.compute,
                              CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
  }

 private:
  void setup_lt() {
    check_cublas(api_.lt_create(&lt_), "cublasLtCreate");
    check_cublas(api_.lt_desc_create(&desc_, t_.compute, CUDA_R_32F), "cublasLtMatmulDescCreate");
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    check_cublas(api_.lt_desc_set(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), "TRANSA");
    check_cublas(api_.lt_desc_set(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), "TRANSB");
    // Per-tensor scales (1.0): the FP8 path as frameworks call it.
    scales_ = DeviceBuffer<float>(2);
    const std::vector<float> ones{1.f, 1.f};
    scales_.from_host(ones);
    const float* sa = scales_.get();
    const float* sb = scales_.get() + 1;
    check_cublas(api_.lt_desc_set(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa, sizeof sa), "A_SCALE_POINTER");
    check_cublas(api_.lt_desc_set(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb, sizeof sb), "B_SCALE_POINTER");
    check_cublas(api_.lt_layout_create(&la_, t_.ab, s_.k, s_.m, s_.k), "layout A");
    check_cublas(api_.lt_layout_create(&lb_, t_.ab, s_.k, s_.n, s_.k), "layout B");
    check_cublas(api_.lt_layout_create(&lc_, t_.c, s_.m, s_.n, s_.m), "layout C");
    workspace_ = DeviceBuffer<unsigned char>(std::size_t(64) << 20);
    check_cublas(api_.lt_pref_create(&pref_), "cublasLtMatmulPreferenceCreate");
    const std::uint64_t ws = workspace_.bytes();
    check_cublas(api_.lt_pref_set(pref_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws), "workspace");
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    check_cublas(api_.lt_heuristic(lt_, desc_, la_, lb_, lc_, lc_, pref_, 1, &result, &found), "cublasLtMatmulAlgoGetHeuristic");
    if (found < 1) throw SkipProbe("cuBLASLt offers no FP8 algorithm for this shape on this chip");
    algo_ = result.algo;
  }

  const CublasApi& api_;
  const GemmType& t_;
  Shape s_;
  const void* a_;
  const void* b_;
  void* c_;
  cublasHandle_t handle_ = nullptr;
  cublasLtHandle_t lt_ = nullptr;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t la_ = nullptr, lb_ = nullptr, lc_ = nullptr;
  cublasLtMatmulPreference_t pref_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  DeviceBuffer<float> scales_;
  DeviceBuffer<unsigned char> workspace_;
};

// Samples outputs against the host reference; returns the worst error relative to the
// magnitude sum (a wrong result fails the point).
double check_outputs(const GemmType& t, Shape s, const Pool& pa, const Pool& pb, std::size_t b_offset,
                     const DeviceBuffer<unsigned char>& c) {
  std::mt19937 rng(7);
  double worst = 0;
  for (int sample = 0; sample < 8; ++sample) {
    const long long i = std::uniform_int_distribution<long long>(0, s.m - 1)(rng);
    const long long j = std::uniform_int_distribution<long long>(0, s.n - 1)(rng);
    double ref = 0, mag = 0;
    for (long long k = 0; k < s.k; ++k) {
      const double a = pa.values[std::size_t(i * s.k + k) % kPool];
      const double b = pb.values[(std::size_t(j * s.k + k) + b_offset) % kPool];
      ref += a * b;
      mag += std::fabs(a * b);
    }
    const double got = read_c(t, c, std::size_t(i + j * s.m));
    const double err = std::fabs(got - ref) / std::max(mag, 1e-30);
    if (!(err <= t.tol))
      throw Error(std::string("cuBLAS ") + t.name + " GEMM: C(" + std::to_string(i) + "," + std::to_string(j) + ") = " +
                  std::to_string(got) + ", reference " + std::to_string(ref) + " (error " + std::to_string(err) +
                  " of sum |a b|, allowed " + std::to_string(t.tol) + ")");
    worst = std::max(worst, err);
  }
  return worst;
}

void run_gemm(ProbeContext& ctx) {
  std::string why;
  const CublasApi* api = cublas_api(why);
  if (!api) ctx.skip(why);
  const GemmType& t = gemm_type(ctx.str_param("type"));
  const DeviceInfo& d = ctx.device();
  if (d.cc_major * 10 + d.cc_minor < t.min_cc)
    ctx.skip(std::string(t.name) + " GEMM needs compute capability " + std::to_string(t.min_cc / 10) + "." +
             std::to_string(t.min_cc % 10));
  const Shape s = parse_shape(ctx.str_param("shape"));
  const Pool pa = make_pool(t, 1), pb = make_pool(t, 2);
  const std::size_t b_offset = 12345;  // B's entries start elsewhere in its pool
  DeviceBuffer<unsigned char> a(std::size_t(s.k * s.m) * t.ab_bytes), b(std::size_t(s.k * s.n) * t.ab_bytes),
      c(std::size_t(s.m * s.n) * t.c_bytes);
  {
    std::vector<unsigned char> host;
    fill_from_pool(host, pa, std::size_t(s.k * s.m), 0, t.ab_bytes);
    GD_CUDA_CHECK(cudaMemcpy(a.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
    fill_from_pool(host, pb, std::size_t(s.k * s.n), b_offset, t.ab_bytes);
    GD_CUDA_CHECK(cudaMemcpy(b.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
  }
  Gemm gemm(*api, t, s, a.get(), b.get(), c.get());
  gemm();
  GD_CUDA_CHECK(cudaDeviceSynchronize());
  const double worst_error = check_outputs(t, s, pa, pb, b_offset, c);

  RepeatPolicy policy;
  policy.warmup_s = 0.2;  // clocks settle under tensor load
  policy.min_samples = 5;
  policy.max_samples = 30;
  policy.target_rel_ci = 0.01;
  policy.time_cap_s = 1.5;
  const double ops = 2.0 * double(s.m) * double(s.n) * double(s.k);
  const RepeatResult r = measure_event_timed(ctx, [&] { gemm(); }, [&](double sec) { return ops / sec / 1e12; }, policy);
  ctx.metric(t.integer ? "throughput/tops" : "throughput/tflops", r.summary);
  ctx.no_sm_clock("the timed kernels are cuBLAS's, which read no clock of ours (NVML's clock after the point is in "
                  "device_state)");
  ctx.extra()["library"] = t.lt_fp8 ? api->cublaslt_path : api->cublas_path;
  ctx.extra()["layout"] = "TN (A K x M, B K x N, column-major)";
  ctx.extra()["max_sampled_error"] = worst_error;
  ctx.extra()["inputs"] = t.integer ? "uniform integers in [-64, 64]" : "uniform in [-1, 1), rounded to the type";
}

ProbeSpec gemm_spec() {
  ProbeSpec s;
  s.id = "gemm.ceiling.cublas";
  s.description = "cuBLAS/cuBLASLt GEMM throughput per precision and shape, random inputs, checked on sampled outputs";
  std::vector<std::string> types;
  for (const auto& t : kTypes) types.push_back(t.name);
  s.axes = {Axis::list("type", types),
            Axis::list("shape", std::vector<std::string>{"sq4096", "sq8192", "sq16384", "m16384_n16384_k1024",
                                                         "m128_n8192_k8192"})
                .quick_list({std::string("sq8192")})};
  s.metrics = {{"throughput/tflops", "TFLOPS", "floating-point GEMM rate, 2MNK per call"},
               {"throughput/tops", "TOPS", "integer GEMM rate, 2MNK per call"}};
  // cuBLAS's kernels are not ours: nothing of ours runs on the SMs, so no SASS is declared.
  s.runs_no_sm_kernel = true;
  s.views = {grid_view(ReportView::Kind::Heatmap, "shape", "type", "throughput/tflops")};
  s.covers = {{"gemm.cublas.fp16.tflops", "throughput/tflops", {{"type", "fp16"}, {"shape", "sq8192"}}},
              {"gemm.cublas.bf16.tflops", "throughput/tflops", {{"type", "bf16"}, {"shape", "sq8192"}}},
              {"gemm.cublas.tf32.tflops", "throughput/tflops", {{"type", "tf32"}, {"shape", "sq8192"}}},
              {"gemm.cublas.fp32.tflops", "throughput/tflops", {{"type", "fp32"}, {"shape", "sq8192"}}},
              {"gemm.cublas.int8.tops", "throughput/tops", {{"type", "int8"}, {"shape", "sq8192"}}},
              {"gemm.cublas.fp8_e4m3.tflops", "throughput/tflops", {{"type", "fp8_e4m3"}, {"shape", "sq8192"}}}};
  s.run = run_gemm;
  s.time_cap_s = 90;
  s.quick_time_cap_s = 20;
  return s;
}

GD_REGISTER_PROBE(gemm_spec());

}  // namespace
}  // namespace gd
