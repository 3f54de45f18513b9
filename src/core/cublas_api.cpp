#include "core/cublas_api.hpp"

#include <dlfcn.h>

#include <deque>
#include <mutex>

#include "core/error.hpp"

namespace gd {

namespace {

void* open_first(std::initializer_list<const char*> names, std::string& opened, std::string& why) {
  for (const char* n : names)
    if (void* h = ::dlopen(n, RTLD_NOW | RTLD_LOCAL)) {
      opened = n;
      return h;
    }
  why = std::string("cannot load ") + *names.begin() + " (" + (::dlerror() ? ::dlerror() : "not found") +
        "); the CUDA toolkit's cuBLAS libraries must be on the loader path";
  return nullptr;
}

template <class F>
bool bind(void* lib, const char* name, F& fn, std::string& why) {
  fn = reinterpret_cast<F>(::dlsym(lib, name));
  if (!fn) why = std::string("cuBLAS lacks ") + name;
  return fn != nullptr;
}

struct Loaded {
  CublasApi api;
  std::string why;
  bool ok = false;
};

Loaded load() {
  Loaded l;
  void* blas = open_first({"libcublas.so.13", "libcublas.so.12", "libcublas.so"}, l.api.cublas_path, l.why);
  if (!blas) return l;
  void* lt = open_first({"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"}, l.api.cublaslt_path, l.why);
  if (!lt) return l;
  auto& a = l.api;
  l.ok = bind(blas, "cublasCreate_v2", a.create, l.why) && bind(blas, "cublasDestroy_v2", a.destroy, l.why) &&
         bind(blas, "cublasSetMathMode", a.set_math_mode, l.why) && bind(blas, "cublasGemmEx", a.gemm_ex, l.why) &&
         bind(blas, "cublasGetVersion_v2", a.get_version, l.why) && bind(lt, "cublasLtCreate", a.lt_create, l.why) &&
         bind(lt, "cublasLtDestroy", a.lt_destroy, l.why) &&
         bind(lt, "cublasLtMatmulDescCreate", a.lt_desc_create, l.why) &&
         bind(lt, "cublasLtMatmulDescDestroy", a.lt_desc_destroy, l.why) &&
         bind(lt, "cublasLtMatmulDescSetAttribute", a.lt_desc_set, l.why) &&
         bind(lt, "cublasLtMatrixLayoutCreate", a.lt_layout_create, l.why) &&
         bind(lt, "cublasLtMatrixLayoutDestroy", a.lt_layout_destroy, l.why) &&
         bind(lt, "cublasLtMatmulPreferenceCreate", a.lt_pref_create, l.why) &&
         bind(lt, "cublasLtMatmulPreferenceDestroy", a.lt_pref_destroy, l.why) &&
         bind(lt, "cublasLtMatmulPreferenceSetAttribute", a.lt_pref_set, l.why) &&
         bind(lt, "cublasLtMatmulAlgoGetHeuristic", a.lt_heuristic, l.why) &&
         bind(lt, "cublasLtMatmul", a.lt_matmul, l.why) &&
         bind(lt, "cublasLtMatmulAlgoConfigGetAttribute", a.lt_algo_config_get, l.why);
  std::string optional;
  bind(lt, "cublasLtLoggerSetCallback", a.lt_logger_set_callback, optional);
  bind(lt, "cublasLtLoggerSetMask", a.lt_logger_set_mask, optional);
  return l;
}

}  // namespace

const CublasApi* cublas_api(std::string& why) {
  static const Loaded loaded = load();
  why = loaded.why;
  return loaded.ok ? &loaded.api : nullptr;
}

namespace {
std::deque<std::string>& lt_log() {
  static std::deque<std::string> messages;
  return messages;
}
void keep_lt_message(int level, const char* function, const char* message) {
  auto& log = lt_log();
  log.push_back("[" + std::to_string(level) + "] " + (function ? function : "") + ": " + (message ? message : ""));
  if (log.size() > 4) log.pop_front();
}
constexpr int kErrorsAndHints = 1 | 4;  // cuBLASLt logger mask bits
}  // namespace

LtMessages::LtMessages(const CublasApi& api) : api_(api) {
  lt_log().clear();
  if (api_.lt_logger_set_callback && api_.lt_logger_set_mask) {
    api_.lt_logger_set_callback(keep_lt_message);
    api_.lt_logger_set_mask(kErrorsAndHints);
  }
}

LtMessages::~LtMessages() {
  if (api_.lt_logger_set_callback && api_.lt_logger_set_mask) {
    api_.lt_logger_set_mask(0);
    api_.lt_logger_set_callback(nullptr);
  }
}

std::string LtMessages::recent() const {
  std::string out;
  for (const auto& m : lt_log()) out += (out.empty() ? "" : "; ") + m;
  return out;
}

void check_cublas(int status, const char* what) {
  if (status != 0) throw Error(std::string(what) + " failed with cuBLAS status " + std::to_string(status));
}

}  // namespace gd
