// Tensor maps (CUtensorMap) for TMA probes, encoded by the driver's cuTensorMapEncodeTiled,
// reached through cudaGetDriverEntryPoint: libcuda is not linked.
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include <cuda.h>

namespace gd {

// A tiled tensor of `rank` dimensions (1..5), innermost first, as cuTensorMapEncodeTiled takes it.
struct TiledTensorMapSpec {
  CUtensorMapDataType dtype = CU_TENSOR_MAP_DATA_TYPE_UINT32;
  int rank = 1;
  void* base = nullptr;                   // 16-byte aligned global address
  std::array<std::uint64_t, 5> dims{};    // elements per dimension
  std::array<std::uint64_t, 5> strides{}; // bytes between rows of dimension d (d >= 1); [0] unused
  std::array<std::uint32_t, 5> box{};     // box extent per dimension (1..256)
  std::array<std::uint32_t, 5> element_strides{1, 1, 1, 1, 1};
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  CUtensorMapL2promotion l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_NONE;
  CUtensorMapFloatOOBfill oob_fill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
};

// Bytes of one element of the type (1, 2, 4 or 8); throws Error for a type it does not know.
std::uint32_t tensor_map_element_bytes(CUtensorMapDataType t);
// Why the spec is invalid for the hardware (rank, alignment, box limits, swizzle span), or empty.
// Checked before the driver is asked, so a bad probe parameter gets a sentence, not a CUresult.
std::string tensor_map_spec_error(const TiledTensorMapSpec& s);
// Bytes one box moves into shared memory.
std::uint64_t tensor_map_box_bytes(const TiledTensorMapSpec& s);

// Encodes the map. Throws UserError for an invalid spec, Error when the driver lacks the entry
// point (a driver older than CUDA 12) or rejects the spec.
CUtensorMap encode_tiled_tensor_map(const TiledTensorMapSpec& s);

// An im2col tensor (cuTensorMapEncodeIm2col): rank 3..5, channels innermost (NWC, NHWC, NDHWC).
// A load walks `pixels_per_column` pixels through the bounding box [lower, dim + upper) of the
// spatial dimensions (image after image), `channels_per_pixel` channels of each.
struct Im2colTensorMapSpec {
  CUtensorMapDataType dtype = CU_TENSOR_MAP_DATA_TYPE_UINT32;
  int rank = 4;
  void* base = nullptr;                   // 16-byte aligned global address
  std::array<std::uint64_t, 5> dims{};    // elements per dimension, channels first
  std::array<std::uint64_t, 5> strides{}; // bytes between rows of dimension d (d >= 1); [0] unused
  std::array<int, 3> lower{}, upper{};    // bounding-box corners per spatial dimension (rank - 2 used)
  std::uint32_t channels_per_pixel = 0;   // 1..256
  std::uint32_t pixels_per_column = 0;    // 1..1024
};
// Why the spec is invalid (rank, alignment, corner range, box limits), or empty.
std::string im2col_spec_error(const Im2colTensorMapSpec& s);
CUtensorMap encode_im2col_tensor_map(const Im2colTensorMapSpec& s);

}  // namespace gd
