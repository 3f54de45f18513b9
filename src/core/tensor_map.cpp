#include "core/tensor_map.hpp"

#include <string>

#include <cuda_runtime.h>

#include "core/error.hpp"

namespace gd {

std::uint32_t tensor_map_element_bytes(CUtensorMapDataType t) {
  switch (t) {
    case CU_TENSOR_MAP_DATA_TYPE_UINT8: return 1;
    case CU_TENSOR_MAP_DATA_TYPE_UINT16:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
    case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16: return 2;
    case CU_TENSOR_MAP_DATA_TYPE_UINT32:
    case CU_TENSOR_MAP_DATA_TYPE_INT32:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ:
    case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32:
    case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ: return 4;
    case CU_TENSOR_MAP_DATA_TYPE_UINT64:
    case CU_TENSOR_MAP_DATA_TYPE_INT64:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT64: return 8;
    default: throw Error("tensor map: element type " + std::to_string(int(t)) + " is not one the probes use");
  }
}

std::uint64_t tensor_map_box_bytes(const TiledTensorMapSpec& s) {
  std::uint64_t n = tensor_map_element_bytes(s.dtype);
  for (int d = 0; d < s.rank; ++d) n *= s.box[d];
  return n;
}

// The limits of the PTX ISA / CUDA driver documentation for tiled maps.
std::string tensor_map_spec_error(const TiledTensorMapSpec& s) {
  if (s.rank < 1 || s.rank > 5) return "rank " + std::to_string(s.rank) + " is outside 1..5";
  if (!s.base) return "no global address";
  if (reinterpret_cast<std::uintptr_t>(s.base) % 16) return "global address not 16-byte aligned";
  const std::uint64_t elem = tensor_map_element_bytes(s.dtype);
  for (int d = 0; d < s.rank; ++d) {
    const std::string dim = "dimension " + std::to_string(d);
    if (s.dims[d] == 0 || s.dims[d] > (1ull << 32)) return dim + " size " + std::to_string(s.dims[d]) + " is outside 1..2^32";
    if (s.box[d] == 0 || s.box[d] > 256) return dim + " box " + std::to_string(s.box[d]) + " is outside 1..256";
    if (s.element_strides[d] == 0 || s.element_strides[d] > 8) return dim + " element stride is outside 1..8";
    if (d >= 1 && (s.strides[d] % 16 || s.strides[d] == 0 || s.strides[d] >= (1ull << 40)))
      return dim + " stride " + std::to_string(s.strides[d]) + " bytes is not a positive multiple of 16 below 2^40";
  }
  const std::uint64_t inner_bytes = std::uint64_t(s.box[0]) * elem;
  if (s.swizzle == CU_TENSOR_MAP_SWIZZLE_NONE) {
    if (inner_bytes % 16) return "the box's inner extent (" + std::to_string(inner_bytes) + " bytes) is not a multiple of 16";
  } else {
    const std::uint64_t span = s.swizzle == CU_TENSOR_MAP_SWIZZLE_32B ? 32 : s.swizzle == CU_TENSOR_MAP_SWIZZLE_64B ? 64 : 128;
    if (inner_bytes > span)
      return "the box's inner extent (" + std::to_string(inner_bytes) + " bytes) exceeds the " + std::to_string(span) +
             "-byte swizzle span";
    if (inner_bytes % 16) return "the box's inner extent is not a multiple of 16 bytes";
  }
  return {};
}

namespace {

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

// The driver's entry point `name` (CUDA 12 ABI); throws Error naming it when the driver lacks it.
void* driver_entry(const char* name) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult status{};
  GD_CUDA_CHECK(cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &status));
  if (status != cudaDriverEntryPointSuccess || !p)
    throw Error(std::string("the CUDA driver does not provide ") + name + " (a CUDA 12 driver or newer is needed for TMA)");
  return p;
}

EncodeTiled encode_tiled_entry() {
  static const auto fn = reinterpret_cast<EncodeTiled>(driver_entry("cuTensorMapEncodeTiled"));
  return fn;
}

using EncodeIm2col = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                  const cuuint64_t*, const int*, const int*, cuuint32_t, cuuint32_t, const cuuint32_t*,
                                  CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                                  CUtensorMapFloatOOBfill);

EncodeIm2col encode_im2col_entry() {
  static const auto fn = reinterpret_cast<EncodeIm2col>(driver_entry("cuTensorMapEncodeIm2col"));
  return fn;
}

}  // namespace

std::string im2col_spec_error(const Im2colTensorMapSpec& s) {
  if (s.rank < 3 || s.rank > 5) return "im2col rank must be 3, 4 or 5 (got " + std::to_string(s.rank) + ")";
  if (reinterpret_cast<std::uintptr_t>(s.base) % 16) return "the global address must be 16-byte aligned";
  const std::uint32_t elem = tensor_map_element_bytes(s.dtype);
  for (int d = 1; d < s.rank; ++d)
    if (s.strides[d] % 16) return "stride of dimension " + std::to_string(d) + " is not a multiple of 16 bytes";
  for (int d = 0; d < s.rank; ++d)
    if (s.dims[d] == 0 || s.dims[d] > (std::uint64_t(1) << 32)) return "dimension " + std::to_string(d) + " must be 1..2^32";
  const int spatial = s.rank - 2, bits = 16 / spatial;  // the corners share 16 bits
  const int lo = -(1 << (bits - 1)), hi = (1 << (bits - 1)) - 1;
  for (int d = 0; d < spatial; ++d)
    if (s.lower[d] < lo || s.lower[d] > hi || s.upper[d] < lo || s.upper[d] > hi)
      return "bounding-box corners of a rank-" + std::to_string(s.rank) + " im2col map must lie in " + std::to_string(lo) +
             ".." + std::to_string(hi);
  if (s.channels_per_pixel < 1 || s.channels_per_pixel > 256) return "channels_per_pixel must be 1..256";
  if (s.channels_per_pixel * elem % 16) return "a pixel's channels must span a multiple of 16 bytes";
  if (s.pixels_per_column < 1 || s.pixels_per_column > 1024) return "pixels_per_column must be 1..1024";
  return "";
}

CUtensorMap encode_im2col_tensor_map(const Im2colTensorMapSpec& s) {
  if (const std::string why = im2col_spec_error(s); !why.empty()) throw UserError("im2col tensor map: " + why);
  cuuint64_t dims[5], strides[4];
  cuuint32_t estrides[5];
  for (int d = 0; d < s.rank; ++d) {
    dims[d] = s.dims[d];
    estrides[d] = 1;
    if (d >= 1) strides[d - 1] = s.strides[d];
  }
  CUtensorMap map{};
  const CUresult r = encode_im2col_entry()(&map, s.dtype, cuuint32_t(s.rank), s.base, dims, strides, s.lower.data(),
                                           s.upper.data(), s.channels_per_pixel, s.pixels_per_column, estrides,
                                           CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                           CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw Error("cuTensorMapEncodeIm2col rejected a rank-" + std::to_string(s.rank) + " map (CUresult " +
                std::to_string(int(r)) + ")");
  return map;
}

CUtensorMap encode_tiled_tensor_map(const TiledTensorMapSpec& s) {
  if (const std::string why = tensor_map_spec_error(s); !why.empty()) throw UserError("tensor map: " + why);
  cuuint64_t dims[5], strides[4];
  cuuint32_t box[5], estrides[5];
  for (int d = 0; d < s.rank; ++d) {
    dims[d] = s.dims[d];
    box[d] = s.box[d];
    estrides[d] = s.element_strides[d];
    if (d >= 1) strides[d - 1] = s.strides[d];
  }
  CUtensorMap map{};
  const CUresult r = encode_tiled_entry()(&map, s.dtype, cuuint32_t(s.rank), s.base, dims, strides, box, estrides,
                                          CU_TENSOR_MAP_INTERLEAVE_NONE, s.swizzle, s.l2_promotion, s.oob_fill);
  if (r != CUDA_SUCCESS)
    throw Error("cuTensorMapEncodeTiled rejected a rank-" + std::to_string(s.rank) + " map (CUresult " +
                std::to_string(int(r)) + ")");
  return map;
}

}  // namespace gd
