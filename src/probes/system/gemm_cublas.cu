// GEMM ceilings of the vendor library: cuBLAS (cublasGemmEx) and cuBLASLt (cublasLtMatmul, the
// fastest of the heuristic's candidates) per precision and shape on random inputs, each checked
// against a host reference on sampled outputs, timed as gemm_measure.hpp's first_calls and steady
// figures with the board power and SM clock NVML saw. What a kernel author's own GEMM is measured against.
#include <algorithm>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "gemm_measure.hpp"

namespace gd {
namespace probe_gemm_cublas {

using namespace gemm;

void run_gemm(ProbeContext& ctx) {
  const GemmType& t = gemm_type(ctx.str_param("type"));
  const Library lib = parse_library(ctx.str_param("library"));
  const CublasApi* api = &require_gemm(ctx, t);
  if (lib == Library::Blas && t.lt_fp8) ctx.skip("cublasGemmEx has no FP8 path; the cublaslt point runs FP8");
  const Shape s = parse_shape(ctx.str_param("shape"));
  Operands op(t, s, false);
  GemmCall gemm(*api, lib, op, ctx.quick() ? 0.2 : 0.5);
  gemm();
  GD_CUDA_CHECK(cudaDeviceSynchronize());
  const double worst_error = check_outputs(op, gemm.a_transposed(), gemm.out_type(), gemm.out(), gemm.tolerance());

  measure_gemm(ctx, t, s, [&] { gemm(); });
  ctx.extra()["library"] = lib == Library::Lt ? api->cublaslt_path : api->cublas_path;
  ctx.extra()["call"] = lib == Library::Lt ? "cublasLtMatmul (library kernel, no SASS of ours)"
                                           : "cublasGemmEx, CUBLAS_GEMM_DEFAULT (library kernel, no SASS of ours)";
  if (lib == Library::Lt) ctx.extra()["algorithm"] = gemm.choice();
  ctx.extra()["layout"] = gemm.a_transposed() ? "TN (A K x M, B K x N, column-major)"
                                              : "NN (A M x K, B K x N, column-major)";
  ctx.extra()["max_sampled_error"] = worst_error;
  ctx.extra()["inputs"] = t.integer ? "uniform integers in [-64, 64]" : "uniform in [-1, 1), rounded to the type";
}

ProbeSpec gemm_spec() {
  ProbeSpec s;
  s.id = "gemm.ceiling.cublas";
  s.description = "cuBLAS/cuBLASLt GEMM throughput, power and clock per precision and shape, random inputs, checked";
  // Shape outermost, the headline 8192^3 first: if the time cap cuts the sweep, it cuts 16384^3.
  s.axes = {Axis::list("shape", std::vector<std::string>{"sq8192", "m128_n8192_k8192", "sq4096",
                                                         "m16384_n16384_k1024", "sq16384"})
                .quick_list({std::string("sq8192")}),
            // Quick: the two headline types through cuBLASLt (each point builds 8192^2 random
            // operands and searches the heuristic's algorithms: about 2 s).
            std::move(Axis::list("type", type_names())).quick_list({std::string("bf16"), std::string("fp8_e4m3")}),
            std::move(Axis::list("library", std::vector<std::string>{"cublas", "cublaslt"}))
                .quick_list({std::string("cublaslt")})};
  s.metrics = measure_gemm_metrics();
  // cuBLAS's kernels are not ours: nothing of ours runs on the SMs, so no SASS is declared.
  s.runs_no_sm_kernel = true;
  s.views = {grid_view(ReportView::Kind::Heatmap, "shape", "type", "throughput/first_calls_tflops"),
             grid_view(ReportView::Kind::Heatmap, "shape", "type", "throughput/steady_tflops")};
  // The seed's figures are "measured peak" GEMM rates, timed as a framework benchmark times them:
  // the first_calls figure.
  const auto cover = [](const char* item, const char* type, const char* metric) {
    return SeedCover{item, metric, {{"type", std::string(type)}, {"library", std::string("cublaslt")}, {"shape", std::string("sq8192")}}};
  };
  s.covers = {cover("gemm.cublas.fp16.tflops", "fp16", "throughput/first_calls_tflops"),
              cover("gemm.cublas.bf16.tflops", "bf16", "throughput/first_calls_tflops"),
              cover("gemm.cublas.tf32.tflops", "tf32", "throughput/first_calls_tflops"),
              cover("gemm.cublas.fp32.tflops", "fp32", "throughput/first_calls_tflops"),
              cover("gemm.cublas.int8.tops", "int8", "throughput/first_calls_tops"),
              cover("gemm.cublas.fp8_e4m3.tflops", "fp8_e4m3", "throughput/first_calls_tflops"),
              // Efficiency against the tensor rate per clock at the clock read right after the
              // calls: a lower bound (the clock during them was at least as high).
              cover("gemm.cublas.fp16.efficiency", "fp16", "throughput/first_calls_percent_of_peak"),
              cover("gemm.cublas.bf16.efficiency", "bf16", "throughput/first_calls_percent_of_peak"),
              cover("gemm.cublas.tf32.efficiency", "tf32", "throughput/first_calls_percent_of_peak"),
              cover("gemm.cublas.fp8_e4m3.efficiency", "fp8_e4m3", "throughput/first_calls_percent_of_peak"),
              // SGEMM runs on the CUDA cores: against their FFMA rate (analysis/tensor_rate).
              cover("gemm.cublas.fp32.efficiency", "fp32", "throughput/first_calls_percent_of_peak")};
  s.run = run_gemm;
  // About 3 s a point (rests, at least 2 s of steady load, the algorithm search): the README's
  // two shapes take about 80 s; the full sweep's last shapes may still be cut.
  s.time_cap_s = 240;
  s.quick_time_cap_s = 30;
  return s;
}

GD_REGISTER_PROBE(gemm_spec());

}  // namespace probe_gemm_cublas
}  // namespace gd
