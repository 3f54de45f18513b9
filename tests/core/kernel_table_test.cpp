#include "core/kernel_table.hpp"

#include <gtest/gtest.h>

namespace gd {
namespace {

// Stand-ins for kernels: the table keeps addresses and never calls them.
void first_stand_in() {}
void second_stand_in() {}

TEST(KernelTable, AKernelRegisteredByOneUnitIsFoundByName) {
  register_kernel("kernel_table_test<found>", reinterpret_cast<const void*>(&first_stand_in));
  // Two units instantiating one template register one address: that is no conflict.
  register_kernel("kernel_table_test<found>", reinterpret_cast<const void*>(&first_stand_in));
  EXPECT_EQ(registered_kernel("kernel_table_test<found>"), reinterpret_cast<const void*>(&first_stand_in));
}

TEST(KernelTable, AMissingOrTwiceRegisteredKernelIsAnErrorNamingIt) {
  try {
    registered_kernel("kernel_table_test<never>");
    FAIL() << "a missing kernel was found";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("kernel_table_test<never>"), std::string::npos) << e.what();
  }
  register_kernel("kernel_table_test<twice>", reinterpret_cast<const void*>(&first_stand_in));
  register_kernel("kernel_table_test<twice>", reinterpret_cast<const void*>(&second_stand_in));
  EXPECT_THROW(registered_kernel("kernel_table_test<twice>"), Error);
}

}  // namespace
}  // namespace gd
