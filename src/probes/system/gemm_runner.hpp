// One GEMM through cuBLAS (cublasGemmEx) or cuBLASLt (cublasLtMatmul, with an algorithm chosen by
// timing the heuristic's candidates), on random or zero operands, checked against a host
// reference on sampled outputs. Shared by the GEMM-ceiling and the GEMM-power probes.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/json.hpp"

#include "core/cublas_api.hpp"
#include "core/device_buffer.hpp"
#include "core/event_timing.hpp"
#include "core/probe.hpp"
#include "core/timing.hpp"
#include "gemm_inputs.hpp"

namespace gd::gemm {

enum class Library { Blas, Lt };

inline Library parse_library(const std::string& name) {
  if (name == "cublas") return Library::Blas;
  if (name == "cublaslt") return Library::Lt;
  throw Error("unknown GEMM library '" + name + "' (cublas or cublaslt)");
}

// The device operands of one problem, column-major. B is K x N; A is K x M for C = A^T B ("TN":
// both operands K-major, the layout FP8 and INT8 tensor-core kernels require) or M x K for
// C = A B ("NN", what a framework's row-major A @ B becomes). The same bytes serve both: only
// the reference's indexing differs. The output buffers hold the widest type a configuration
// may pick.
struct Operands {
  Operands(const GemmType& type, Shape shape, bool zero)
      : t(type), s(shape), pa(make_pool(type, 1, zero)), pb(make_pool(type, 2, zero)),
        a(std::size_t(shape.k * shape.m) * type.ab_bytes), b(std::size_t(shape.k * shape.n) * type.ab_bytes),
        c(std::size_t(shape.m * shape.n) * std::max(type.c_bytes, 4)),
        d(std::size_t(shape.m * shape.n) * std::max(type.c_bytes, 4)) {
    std::vector<unsigned char> host;
    fill_from_pool(host, pa, std::size_t(s.k * s.m), 0, t.ab_bytes);
    GD_CUDA_CHECK(cudaMemcpy(a.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
    fill_from_pool(host, pb, std::size_t(s.k * s.n), b_offset, t.ab_bytes);
    GD_CUDA_CHECK(cudaMemcpy(b.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
    c.fill_zero();
  }
  const GemmType& t;
  Shape s;
  Pool pa, pb;
  std::size_t b_offset = 12345;  // B's entries start elsewhere in its pool
  DeviceBuffer<unsigned char> a, b, c, d;
};

inline std::vector<std::string> type_names() {
  std::vector<std::string> names;
  for (const auto& t : kTypes) names.push_back(t.name);
  return names;
}

// What a GEMM point reports over its timed `window`: rate, power, NVML clock, rate per watt.
inline std::vector<MetricSpec> gemm_metrics(const std::string& window) {
  return {{"throughput/tflops", "TFLOPS", "floating-point rate over the " + window + ", 2MNK per call"},
          {"throughput/tops", "TOPS", "integer rate over the " + window + ", 2MNK per call"},
          {"power/w", "W", "mean of NVML power samples over the " + window + " (energy counter figure in extra.power)"},
          {"clock/nvml_sm_mhz", "MHz", "mean SM clock NVML reported over the " + window},
          {"efficiency/tflops_per_w", "TFLOPS/W", "rate over mean power"},
          {"efficiency/tops_per_w", "TOPS/W", "rate over mean power"}};
}

// The loaded cuBLAS libraries and the precision's type, or the point is skipped with the reason.
inline const CublasApi& require_gemm(ProbeContext& ctx, const GemmType& t) {
  std::string why;
  const CublasApi* api = cublas_api(why);
  if (!api) ctx.skip(why);
  if (ctx.device().cc() < t.min_cc)
    ctx.skip(std::string(t.name) + " GEMM needs compute capability " + std::to_string(t.min_cc / 10) + "." +
             std::to_string(t.min_cc % 10));
  return *api;
}

inline double read_element(cudaDataType_t type, const DeviceBuffer<unsigned char>& buf, std::size_t index) {
  unsigned char raw[8];
  const std::size_t bytes = data_type_bytes(type);
  GD_CUDA_CHECK(cudaMemcpy(raw, buf.get() + index * bytes, bytes, cudaMemcpyDeviceToHost));
  switch (type) {
    case CUDA_R_64F: { double d; std::memcpy(&d, raw, 8); return d; }
    case CUDA_R_32F: { float f; std::memcpy(&f, raw, 4); return f; }
    case CUDA_R_32I: { std::int32_t i; std::memcpy(&i, raw, 4); return i; }
    case CUDA_R_16F: { __half h; std::memcpy(&h, raw, 2); return __half2float(h); }
    case CUDA_R_16BF: { __nv_bfloat16 h; std::memcpy(&h, raw, 2); return __bfloat162float(h); }
    case CUDA_R_8F_E4M3: { __nv_fp8_e4m3 q; std::memcpy(&q, raw, 1); return float(q); }
    default: throw Error("read_element: unhandled data type");
  }
}

// Samples outputs against the host reference; returns the worst error relative to the sum of
// |a b| (a wrong result throws, failing the point). `out` holds D of type `out_type`.
inline double check_outputs(const Operands& op, bool a_transposed, cudaDataType_t out_type,
                            const DeviceBuffer<unsigned char>& out, double tol, int samples = 8) {
  std::mt19937 rng(7);
  double worst = 0;
  const Shape s = op.s;
  for (int sample = 0; sample < samples; ++sample) {
    const long long i = std::uniform_int_distribution<long long>(0, s.m - 1)(rng);
    const long long j = std::uniform_int_distribution<long long>(0, s.n - 1)(rng);
    double ref = 0, mag = 0;
    for (long long k = 0; k < s.k; ++k) {
      const std::size_t ai = a_transposed ? std::size_t(i * s.k + k) : std::size_t(k * s.m + i);
      const double a = op.pa.values[ai % kPool];
      const double b = op.pb.values[(std::size_t(j * s.k + k) + op.b_offset) % kPool];
      ref += a * b;
      mag += std::fabs(a * b);
    }
    const double got = read_element(out_type, out, std::size_t(i + j * s.m));
    // Zero operands: the result must be exactly zero.
    const double err = mag == 0 ? std::fabs(got) : std::fabs(got - ref) / mag;
    if (!(err <= tol))
      throw Error(std::string(op.t.name) + " GEMM: C(" + std::to_string(i) + "," + std::to_string(j) + ") = " +
                  std::to_string(got) + ", reference " + std::to_string(ref) + " (error " + std::to_string(err) +
                  " of sum |a b|, allowed " + std::to_string(tol) + ")");
    worst = std::max(worst, err);
  }
  return worst;
}

// One cuBLASLt output configuration: the C/D types and whether D is scaled FP8. FP8 has
// several the library may or may not offer on a chip; the first that runs is used.
struct LtOutput {
  cudaDataType_t c, d;
  bool separate_d;  // D in its own buffer (C is not overwritten in place)
  bool a_transposed;  // TN, else NN
  bool fallback;    // tried only when no configuration before it ran
  const char* name;
  bool fast_accum = false;  // FP8: CUBLASLT_MATMUL_DESC_FAST_ACCUM (no periodic promotion to fp32)
  bool scales = true;       // FP8: per-tensor scale pointers set (else the library's implied 1)
};

// Non-FP8 types: both layouts compete. FP8 (TN only): bf16 output with and without fast
// accumulation compete; the other outputs are fallbacks.
inline std::vector<LtOutput> lt_outputs(const GemmType& t) {
  if (!t.lt_fp8) return {{t.c, t.c, false, true, false, "TN, C = D in place"},
                         {t.c, t.c, false, false, false, "NN, C = D in place"}};
  return {{CUDA_R_16BF, CUDA_R_16BF, false, true, false, "TN, C = D bf16 in place"},
          {CUDA_R_16BF, CUDA_R_16BF, false, true, false, "TN, C = D bf16 in place, fast accumulation", true},
          {CUDA_R_16BF, CUDA_R_16BF, true, true, true, "TN, C bf16, D bf16 separate"},
          {CUDA_R_32F, CUDA_R_32F, true, true, true, "TN, C fp32, D fp32 separate"},
          {CUDA_R_16BF, CUDA_R_8F_E4M3, true, true, true, "TN, C bf16, D e4m3 scaled, amax"},
          {CUDA_R_16BF, CUDA_R_16BF, false, true, true, "TN, C = D bf16 in place, no scale pointers", false, false}};
}

// A GEMM ready to call; cuBLASLt's algorithm is chosen by timing the heuristic's candidates.
class GemmCall {
 public:
  GemmCall(const CublasApi& api, Library lib, Operands& op, double search_budget_s)
      : api_(api), lib_(lib), op_(op) {
    if (lib == Library::Blas) {
      if (op.t.lt_fp8) throw SkipProbe("cublasGemmEx has no FP8 path; the cublaslt library point runs FP8");
      check_cublas(api.create(&handle_), "cublasCreate");
      check_cublas(api.set_math_mode(handle_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
      out_type_ = op.t.c;
      return;
    }
    check_cublas(api.lt_create(&lt_), "cublasLtCreate");
    workspace_ = DeviceBuffer<unsigned char>(std::size_t(64) << 20);
    // A, B, C, D scales and D's amax, each in its own 256-byte slot (as separate allocations
    // would be: kernels may load them with wide, aligned accesses).
    std::vector<float> slots(5 * kScaleSlot, 0.f);
    for (int i = 0; i < 4; ++i) slots[std::size_t(i) * kScaleSlot] = 1.f;
    scales_ = DeviceBuffer<float>(slots.size());
    scales_.from_host(slots);
    search(search_budget_s);
  }
  ~GemmCall() { release_lt(); if (handle_) api_.destroy(handle_); if (lt_) api_.lt_destroy(lt_); }
  GemmCall(const GemmCall&) = delete;
  GemmCall& operator=(const GemmCall&) = delete;

  void operator()() { check_cublas(run(algo_), lib_ == Library::Lt ? "cublasLtMatmul" : "cublasGemmEx"); }

  cudaDataType_t out_type() const { return out_type_; }
  bool a_transposed() const { return a_transposed_; }
  const DeviceBuffer<unsigned char>& out() const { return separate_d_ ? op_.d : op_.c; }
  // Allowed sampled error: the type's, widened when D is rounded to FP8 (2^-4 of |result|).
  double tolerance() const { return out_type_ == CUDA_R_8F_E4M3 ? std::max(op_.t.tol, 0.07) : op_.t.tol; }
  // The chosen algorithm and every candidate tried, for the record.
  const nlohmann::json& choice() const { return choice_; }

 private:
  int run(const cublasLtMatmulAlgo_t& algo) {
    const double one_d = 1, zero_d = 0;
    const float one_f = 1, zero_f = 0;
    const std::int32_t one_i = 1, zero_i = 0;
    const GemmType& t = op_.t;
    const void* alpha = t.integer ? static_cast<const void*>(&one_i) : t.c == CUDA_R_64F ? static_cast<const void*>(&one_d) : &one_f;
    const void* beta = t.integer ? static_cast<const void*>(&zero_i) : t.c == CUDA_R_64F ? static_cast<const void*>(&zero_d) : &zero_f;
    const Shape s = op_.s;
    if (lib_ == Library::Blas)
      return api_.gemm_ex(handle_, CUBLAS_OP_T, CUBLAS_OP_N, int(s.m), int(s.n), int(s.k), alpha, op_.a.get(), t.ab,
                          int(s.k), op_.b.get(), t.ab, int(s.k), beta, op_.c.get(), t.c, int(s.m), t.compute,
                          CUBLAS_GEMM_DEFAULT);
    void* d = separate_d_ ? op_.d.get() : op_.c.get();
    return api_.lt_matmul(lt_, desc_, alpha, op_.a.get(), la_, op_.b.get(), lb_, beta, op_.c.get(), lc_, d, ld_, &algo,
                          workspace_.get(), workspace_.bytes(), nullptr);
  }

  void release_lt() {
    if (pref_) api_.lt_pref_destroy(pref_);
    for (auto* l : {la_, lb_, lc_, ld_})
      if (l) api_.lt_layout_destroy(l);
    if (desc_) api_.lt_desc_destroy(desc_);
    pref_ = nullptr;
    la_ = lb_ = lc_ = ld_ = nullptr;
    desc_ = nullptr;
  }

  void describe(const LtOutput& o) {
    const GemmType& t = op_.t;
    const Shape s = op_.s;
    const bool f64 = t.c == CUDA_R_64F;
    const cudaDataType_t scale = t.integer ? CUDA_R_32I : f64 ? CUDA_R_64F : CUDA_R_32F;
    check_cublas(api_.lt_desc_create(&desc_, t.compute, scale), "cublasLtMatmulDescCreate");
    const cublasOperation_t ta = o.a_transposed ? CUBLAS_OP_T : CUBLAS_OP_N, tb = CUBLAS_OP_N;
    check_cublas(api_.lt_desc_set(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), "TRANSA");
    check_cublas(api_.lt_desc_set(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), "TRANSB");
    if (t.lt_fp8 && o.scales) {
      // Per-tensor scales of 1 (device pointers): the FP8 path as frameworks call it.
      const float* p = scales_.get();
      const float *sa = p, *sb = p + kScaleSlot, *sc = p + 2 * kScaleSlot, *sd = p + 3 * kScaleSlot;
      float* amax = scales_.get() + 4 * kScaleSlot;
      check_cublas(api_.lt_desc_set(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa, sizeof sa), "A_SCALE_POINTER");
      check_cublas(api_.lt_desc_set(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb, sizeof sb), "B_SCALE_POINTER");
      const std::int8_t fast = o.fast_accum ? 1 : 0;
      check_cublas(api_.lt_desc_set(desc_, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast), "FAST_ACCUM");
      if (o.d == CUDA_R_8F_E4M3) {
        check_cublas(api_.lt_desc_set(desc_, CUBLASLT_MATMUL_DESC_C_SCALE_POINTER, &sc, sizeof sc), "C_SCALE_POINTER");
        check_cublas(api_.lt_desc_set(desc_, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &sd, sizeof sd), "D_SCALE_POINTER");
        check_cublas(api_.lt_desc_set(desc_, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, &amax, sizeof amax), "AMAX_D_POINTER");
      }
    }
    if (o.a_transposed) check_cublas(api_.lt_layout_create(&la_, t.ab, s.k, s.m, s.k), "layout A");
    else check_cublas(api_.lt_layout_create(&la_, t.ab, s.m, s.k, s.m), "layout A");
    check_cublas(api_.lt_layout_create(&lb_, t.ab, s.k, s.n, s.k), "layout B");
    check_cublas(api_.lt_layout_create(&lc_, o.c, s.m, s.n, s.m), "layout C");
    check_cublas(api_.lt_layout_create(&ld_, o.d, s.m, s.n, s.m), "layout D");
    check_cublas(api_.lt_pref_create(&pref_), "cublasLtMatmulPreferenceCreate");
    const std::uint64_t ws = workspace_.bytes();
    check_cublas(api_.lt_pref_set(pref_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws), "workspace");
  }

  nlohmann::json algo_config(const cublasLtMatmulAlgo_t& algo) const {
    nlohmann::json j;
    const std::pair<cublasLtMatmulAlgoConfigAttributes_t, const char*> attrs[] = {
        {CUBLASLT_ALGO_CONFIG_ID, "algo_id"}, {CUBLASLT_ALGO_CONFIG_TILE_ID, "tile_id"},
        {CUBLASLT_ALGO_CONFIG_STAGES_ID, "stages_id"}, {CUBLASLT_ALGO_CONFIG_SPLITK_NUM, "splitk"},
        {CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, "swizzle"}};
    for (const auto& [attr, name] : attrs) {
      std::uint32_t v = 0;  // the attributes above are 32-bit
      std::size_t written = 0;
      if (api_.lt_algo_config_get(&algo, attr, &v, sizeof v, &written) == 0) j[name] = v;
    }
    std::uint16_t cluster = 0;
    std::size_t written = 0;
    if (api_.lt_algo_config_get(&algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &cluster, sizeof cluster, &written) == 0)
      j["cluster_shape_id"] = cluster;
    return j;
  }

  // Tries the output configurations in order (a fallback only while none has run); within each,
  // runs every heuristic candidate once (a NOT_SUPPORTED one is noted and passed over) and times
  // the rest within its share of the budget. The fastest over all is kept, with its configuration.
  void search(double budget_s) {
    const LtMessages messages(api_);
    nlohmann::json tried = nlohmann::json::array();
    const double flop = 2.0 * double(op_.s.m) * double(op_.s.n) * double(op_.s.k);
    const std::vector<LtOutput> outputs = lt_outputs(op_.t);
    double best_s = 0;
    const LtOutput* best_output = nullptr;
    for (const LtOutput& o : outputs) {
      if (o.fallback && best_output) break;
      release_lt();
      describe(o);
      constexpr int kRequested = 16;
      cublasLtMatmulHeuristicResult_t results[kRequested] = {};
      int found = 0;
      const int hs = api_.lt_heuristic(lt_, desc_, la_, lb_, lc_, ld_, pref_, kRequested, results, &found);
      if (hs != 0 || found < 1) {
        tried.push_back({{"output", o.name}, {"heuristic_status", hs}, {"found", found}});
        continue;
      }
      separate_d_ = o.separate_d;
      const double t0 = steady_now_s();
      EventTimer timer;
      for (int i = 0; i < found; ++i) {
        nlohmann::json c = algo_config(results[i].algo);
        c["output"] = o.name;
        c["rank"] = i;
        c["workspace_bytes"] = results[i].workspaceSize;
        const int status = run(results[i].algo);
        if (status != 0) {
          c["status"] = status;
          tried.push_back(c);
          continue;
        }
        GD_CUDA_CHECK(cudaDeviceSynchronize());
        double sec = 1e30;
        for (int rep = 0; rep < 2; ++rep) {
          timer.start();
          check_cublas(run(results[i].algo), "cublasLtMatmul");
          sec = std::min(sec, timer.stop_ms() * 1e-3);
        }
        c["search_tflops"] = flop / sec / 1e12;
        tried.push_back(c);
        if (best_s == 0 || sec < best_s) {
          best_s = sec;
          best_output = &o;
          algo_ = results[i].algo;
          choice_["chosen"] = c;
        }
        if (steady_now_s() - t0 > budget_s / double(outputs.size())) break;
      }
    }
    choice_["tried"] = tried;
    if (const std::string said = messages.recent(); !said.empty()) choice_["cublaslt_said"] = said;
    if (best_output) {
      // The descriptors of the winning configuration, for the timed calls.
      release_lt();
      describe(*best_output);
      separate_d_ = best_output->separate_d;
      a_transposed_ = best_output->a_transposed;
      out_type_ = best_output->d;
      return;
    }
    // Per configuration: how many candidates the heuristic offered and the statuses they returned.
    std::map<std::string, std::map<int, int>> statuses;
    std::map<std::string, int> heuristic;
    for (const auto& c : tried) {
      if (c.contains("heuristic_status")) heuristic[c["output"]] = c["heuristic_status"];
      else if (c.contains("status")) ++statuses[c["output"]][c["status"].get<int>()];
    }
    std::string why = std::string("cuBLASLt runs no ") + op_.t.name + " algorithm for this shape:";
    for (const auto& [o, st] : statuses) {
      why += " [" + o + ": status";
      for (const auto& [code, n] : st) why += " " + std::to_string(code) + " x" + std::to_string(n);
      why += "]";
    }
    for (const auto& [o, hs] : heuristic) why += " [" + o + ": heuristic status " + std::to_string(hs) + ", none offered]";
    if (const std::string said = messages.recent(); !said.empty()) why += "; cuBLASLt said: " + said;
    throw Error(why);
  }

  static constexpr std::size_t kScaleSlot = 64;  // floats: 256 bytes
  const CublasApi& api_;
  Library lib_;
  Operands& op_;
  cudaDataType_t out_type_{};
  bool separate_d_ = false;
  bool a_transposed_ = true;  // cublasGemmEx runs TN
  cublasHandle_t handle_ = nullptr;
  cublasLtHandle_t lt_ = nullptr;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t la_ = nullptr, lb_ = nullptr, lc_ = nullptr, ld_ = nullptr;
  cublasLtMatmulPreference_t pref_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  DeviceBuffer<float> scales_;
  DeviceBuffer<unsigned char> workspace_;
  nlohmann::json choice_ = nlohmann::json::object();
};

}  // namespace gd::gemm
