// GEMM ceilings through CUTLASS's Hopper kernels (TMA + warp-specialized wgmma; DMMA for fp64),
// compiled here from the pinned nvidia-cutlass headers: a ceiling that is not cuBLAS's, with the
// same shapes, inputs, reference check, power and clock as gemm.ceiling.cublas, and its SASS checked.
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "gemm_cutlass.hpp"
#include "gemm_measure.hpp"
#include "gemm_runner.hpp"

namespace gd {
namespace probe_gemm_cutlass {

using namespace gemm;

// Every precision of gemm_inputs.hpp: its unit's kernel, or why it has none.
std::vector<CutlassKernel> cutlass_kernels() {
  std::vector<CutlassKernel> k = {cutlass_kernel_fp64(), cutlass_kernel_tf32(), cutlass_kernel_fp16(),
                                  cutlass_kernel_bf16(), cutlass_kernel_int8(), cutlass_kernel_fp8_e4m3()};
  CutlassKernel fp32;
  fp32.type = "fp32";
  fp32.missing = "no CUTLASS fp32 kernel is built: on sm_90 it is a SIMT (FFMA) GEMM, left out to save build time "
                 "(tf32 is the tensor-core path for fp32 data; cuBLAS's SGEMM is in gemm.ceiling.cublas)";
  k.push_back(fp32);
  return k;
}

const CutlassKernel& cutlass_kernel(const std::string& type) {
  static const std::vector<CutlassKernel> kernels = cutlass_kernels();
  for (const auto& k : kernels)
    if (k.type == type) return k;
  throw Error("no CUTLASS entry for GEMM precision '" + type + "'");
}

void run_cutlass(ProbeContext& ctx) {
  const GemmType& t = gemm_type(ctx.str_param("type"));
  const CutlassKernel& k = cutlass_kernel(t.name);
  if (!k.missing.empty()) ctx.skip(k.missing);
  const DeviceInfo& d = ctx.device();
  const Shape s = parse_shape(ctx.str_param("shape"));
  Operands op(t, s, false);
  const std::unique_ptr<CutlassGemm> gemm = k.prepare(op.a.get(), op.b.get(), op.d.get(), s, d);
  (*gemm)(ctx);
  GD_CUDA_CHECK(cudaDeviceSynchronize());
  const double worst_error = check_outputs(op, true, k.out, op.d, t.tol);

  measure_gemm(ctx, t, s, [&] { (*gemm)(ctx); });
  ctx.extra()["kernel"] = k.config;
  ctx.extra()["layout"] = "TN (A K x M, B K x N, D M x N, column-major); C not read (beta = 0)";
  ctx.extra()["max_sampled_error"] = worst_error;
  ctx.extra()["inputs"] = t.integer ? "uniform integers in [-64, 64]" : "uniform in [-1, 1), rounded to the type";
}

ProbeSpec cutlass_spec() {
  ProbeSpec s;
  s.id = "gemm.ceiling.cutlass";
  s.description =
      "CUTLASS Hopper GEMM (TMA warp-specialized wgmma; DMMA fp64) throughput, power, clock, % of tensor peak";
  // Only sm_90a code carries the kernels (their units compile CUTLASS for no other target).
  s.needs.min_cc = 90;
  s.needs.max_cc = 90;
  s.needs.features = {Feature::Wgmma};
  // The shape names of gemm.ceiling.cublas, so one --axis restriction serves both.
  s.axes = {Axis::list("shape", std::vector<std::string>{"sq8192", "m128_n8192_k8192", "sq4096",
                                                         "m16384_n16384_k1024", "sq16384"})
                .quick_list({std::string("sq8192")}),
            std::move(Axis::list("type", type_names())).quick_list({std::string("bf16"), std::string("fp8_e4m3")})};
  s.metrics = measure_gemm_metrics();
  // Each compiled kernel: its tensor-core instruction, no local-memory spills, anywhere in it
  // (CUTLASS's kernels have no clocked region).
  for (const CutlassKernel& k : cutlass_kernels())
    if (k.missing.empty())
      s.sass.push_back(expect_sass(k.kernel_glob, SassRegion::Whole, {{k.mma_opcode, 1}}));
  // A build without the headers launches nothing: its points are skipped with the reason.
  s.runs_no_sm_kernel = s.sass.empty();
  s.views = {grid_view(ReportView::Kind::Heatmap, "shape", "type", "throughput/first_calls_tflops"),
             grid_view(ReportView::Kind::Heatmap, "shape", "type", "throughput/steady_tflops")};
  s.run = run_cutlass;
  s.time_cap_s = 150;  // about 3 s a point (gemm.ceiling.cublas says why)
  s.quick_time_cap_s = 10;
  return s;
}

GD_REGISTER_PROBE(cutlass_spec());

}  // namespace probe_gemm_cutlass
}  // namespace gd
