// nlohmann::json for code that .cu files include: the library in host passes and host-only
// units, a declaration-only stand-in in nvcc's device passes (core/json_device_pass.hpp says why).
#pragma once
#if defined(__CUDA_ARCH__)
#include "core/json_device_pass.hpp"
#else
#include <nlohmann/json.hpp>
#endif
