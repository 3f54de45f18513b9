#include "core/tensor_map.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace gd {
namespace {

TiledTensorMapSpec valid_2d() {
  TiledTensorMapSpec s;
  s.rank = 2;
  s.base = reinterpret_cast<void*>(std::uintptr_t(0x10000));
  s.dims = {1024, 1024, 1, 1, 1};
  s.strides = {0, 4096, 0, 0, 0};
  s.box = {32, 64, 1, 1, 1};
  return s;
}

TEST(TensorMap, AcceptsAValidTiledSpecAndCountsItsBox) {
  EXPECT_EQ(tensor_map_spec_error(valid_2d()), "");
  EXPECT_EQ(tensor_map_box_bytes(valid_2d()), 32u * 64u * 4u);
  EXPECT_EQ(tensor_map_element_bytes(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16), 2u);
  EXPECT_EQ(tensor_map_element_bytes(CU_TENSOR_MAP_DATA_TYPE_FLOAT64), 8u);
}

TEST(TensorMap, NamesWhatIsWrongBeforeTheDriverIsAsked) {
  auto s = valid_2d();
  s.rank = 6;
  EXPECT_NE(tensor_map_spec_error(s).find("rank 6"), std::string::npos);
  s = valid_2d();
  s.base = reinterpret_cast<void*>(std::uintptr_t(0x10008));
  EXPECT_NE(tensor_map_spec_error(s).find("16-byte aligned"), std::string::npos);
  s = valid_2d();
  s.box[1] = 257;
  EXPECT_NE(tensor_map_spec_error(s).find("dimension 1 box 257"), std::string::npos);
  s = valid_2d();
  s.strides[1] = 4100;
  EXPECT_NE(tensor_map_spec_error(s).find("multiple of 16"), std::string::npos);
  s = valid_2d();
  s.box[0] = 3;  // 12 bytes
  EXPECT_NE(tensor_map_spec_error(s).find("inner extent"), std::string::npos);
  s = valid_2d();
  s.swizzle = CU_TENSOR_MAP_SWIZZLE_64B;  // 32 x 4 B = 128 B rows exceed the 64-byte span
  EXPECT_NE(tensor_map_spec_error(s).find("64-byte swizzle span"), std::string::npos);
  s.swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
  EXPECT_EQ(tensor_map_spec_error(s), "");
}

TEST(TensorMap, EncodingAnInvalidSpecIsAUserErrorWithoutTouchingTheDriver) {
  auto s = valid_2d();
  s.box[0] = 0;
  EXPECT_THROW(encode_tiled_tensor_map(s), UserError);
}

}  // namespace
}  // namespace gd
