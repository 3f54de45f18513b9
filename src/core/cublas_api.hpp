// cuBLAS and cuBLASLt opened at run time (dlopen), so the binary starts, lists and runs its own
// probes on a machine without them; the GEMM-ceiling probes skip there with the reason.
#pragma once
#include <string>

#include <cublasLt.h>
#include <cublas_v2.h>

namespace gd {

struct CublasApi {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetMathMode) set_math_mode = nullptr;
  // cublasGemmEx is overloaded in C++ (the C API's cudaDataType compute-type form): name the one.
  cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                            const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                            cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
  decltype(&cublasGetVersion_v2) get_version = nullptr;
  decltype(&cublasLtCreate) lt_create = nullptr;
  decltype(&cublasLtDestroy) lt_destroy = nullptr;
  decltype(&cublasLtMatmulDescCreate) lt_desc_create = nullptr;
  decltype(&cublasLtMatmulDescDestroy) lt_desc_destroy = nullptr;
  decltype(&cublasLtMatmulDescSetAttribute) lt_desc_set = nullptr;
  decltype(&cublasLtMatrixLayoutCreate) lt_layout_create = nullptr;
  decltype(&cublasLtMatrixLayoutDestroy) lt_layout_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceCreate) lt_pref_create = nullptr;
  decltype(&cublasLtMatmulPreferenceDestroy) lt_pref_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceSetAttribute) lt_pref_set = nullptr;
  decltype(&cublasLtMatmulAlgoGetHeuristic) lt_heuristic = nullptr;
  decltype(&cublasLtMatmul) lt_matmul = nullptr;
  decltype(&cublasLtMatmulAlgoConfigGetAttribute) lt_algo_config_get = nullptr;
  // Optional (experimental API): cuBLASLt's own account of why a call was refused.
  decltype(&cublasLtLoggerSetCallback) lt_logger_set_callback = nullptr;
  decltype(&cublasLtLoggerSetMask) lt_logger_set_mask = nullptr;
  std::string cublas_path, cublaslt_path;
};

// The loaded libraries, or nullptr with `why` saying what is missing (searched: the sonames of
// CUDA 13 and 12, then the unversioned names).
const CublasApi* cublas_api(std::string& why);

// While one is alive, cuBLASLt's error and hint messages are kept (the last few), so a refused
// call can say why; without the logger API it keeps nothing. Not thread-safe: one at a time.
class LtMessages {
 public:
  explicit LtMessages(const CublasApi& api);
  ~LtMessages();
  LtMessages(const LtMessages&) = delete;
  LtMessages& operator=(const LtMessages&) = delete;
  std::string recent() const;  // "" when none

 private:
  const CublasApi& api_;
};

// Throws Error naming the call when a cuBLAS(Lt) status is not success.
void check_cublas(int status, const char* what);

}  // namespace gd
