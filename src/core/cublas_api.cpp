#include "core/cublas_api.hpp"

#include <dlfcn.h>

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
  return l;
}

}  // namespace

const CublasApi* cublas_api(std::string& why) {
  static const Loaded loaded = load();
  why = loaded.why;
  return loaded.ok ? &loaded.api : nullptr;
}

void check_cublas(int status, const char* what) {
  if (status != 0) throw Error(std::string(what) + " failed with cuBLAS status " + std::to_string(status));
}

}  // namespace gd
