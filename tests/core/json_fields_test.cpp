// The one set of JSON field helpers: strict readers name the field that is wrong; lenient readers
// (for rendering hand-made or older documents) read absent, null, wrong-typed and the driver's
// zero as "not known" instead of throwing.
#include "core/json_fields.hpp"

#include <gtest/gtest.h>

namespace gd::json_fields {
namespace {

using nlohmann::json;

const json kDevice = {{"name", "H200"}, {"empty", ""}, {"clock", 1980}, {"zero", 0}, {"nothing", nullptr},
                      {"cc", 9}, {"ratio", 0.5}};

TEST(JsonFields, StrictReadersNameTheField) {
  EXPECT_EQ(string_at(kDevice, "name"), "H200");
  try {
    string_at(kDevice, "clock");
    FAIL() << "expected a type error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'clock'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(required(kDevice, "missing"), std::invalid_argument);
}

TEST(JsonFields, LenientReadersSayNotKnownInsteadOfThrowing) {
  EXPECT_EQ(nonempty_string(kDevice, "name"), "H200");
  EXPECT_FALSE(nonempty_string(kDevice, "empty"));
  EXPECT_FALSE(nonempty_string(kDevice, "clock")) << "wrong type";
  EXPECT_EQ(positive_number(kDevice, "clock"), 1980);
  EXPECT_FALSE(positive_number(kDevice, "zero")) << "zero is the driver's unknown";
  EXPECT_FALSE(positive_number(kDevice, "nothing"));
  EXPECT_EQ(integer_if(kDevice, "cc"), 9);
  EXPECT_FALSE(integer_if(kDevice, "ratio"));
  EXPECT_EQ(present(kDevice, "nothing"), nullptr) << "null is absent";
  EXPECT_NE(present(kDevice, "zero"), nullptr);
  EXPECT_EQ(present(json::array(), "name"), nullptr) << "not an object";
}

}  // namespace
}  // namespace gd::json_fields
