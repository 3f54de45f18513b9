#include "core/launch_ex.cuh"

#include <gtest/gtest.h>

namespace gd {
namespace {

TEST(LaunchConfig, CarriesOnlyTheAttributesAsked) {
  cudaLaunchAttribute at[3];
  const LaunchShape shape{dim3(32), dim3(128), 1024, nullptr};
  cudaLaunchConfig_t plain = launch_config(shape, LaunchAttrs{}, at);
  EXPECT_EQ(plain.numAttrs, 0u);
  EXPECT_EQ(plain.gridDim.x, 32u);
  EXPECT_EQ(plain.blockDim.x, 128u);
  EXPECT_EQ(plain.dynamicSmemBytes, 1024u);

  cudaLaunchConfig_t all = launch_config(shape, LaunchAttrs{16, true, true}, at);
  ASSERT_EQ(all.numAttrs, 3u);
  EXPECT_EQ(all.attrs[0].id, cudaLaunchAttributeClusterDimension);
  EXPECT_EQ(all.attrs[0].val.clusterDim.x, 16u);
  EXPECT_EQ(all.attrs[0].val.clusterDim.y, 1u);
  EXPECT_EQ(all.attrs[1].id, cudaLaunchAttributeProgrammaticStreamSerialization);
  EXPECT_EQ(all.attrs[1].val.programmaticStreamSerializationAllowed, 1);
  EXPECT_EQ(all.attrs[2].id, cudaLaunchAttributeCooperative);

  cudaLaunchConfig_t pdl = launch_config(shape, LaunchAttrs{0, true}, at);
  ASSERT_EQ(pdl.numAttrs, 1u);
  EXPECT_EQ(pdl.attrs[0].id, cudaLaunchAttributeProgrammaticStreamSerialization);
}

}  // namespace
}  // namespace gd
