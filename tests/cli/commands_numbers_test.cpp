// Numbers on the command line (src/cli/commands_numbers.cpp): `--device -1` printed a 309-digit
// range, `--device abc` and `--threshold abc` said "not in range" instead of "not a number", and
// `--threshold 4` silently meant 400 % while the docs say "default 4 %".
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "cli/commands.hpp"
#include "sass/disasm.hpp"
#include "support/shell.hpp"
#include "support/text.hpp"
#include "support/committed_suite.hpp"

namespace gd {
namespace {

using test_support::kSmallRun;


std::string threshold_error(const std::string& text) {
  try {
    cli::fraction_from_threshold(text, 10);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(Threshold, APercentageOrAFractionNeverABareNumberOfOneOrMore) {
  EXPECT_EQ(std::stod(cli::fraction_from_threshold("4%", 10)), 0.04);
  EXPECT_EQ(std::stod(cli::fraction_from_threshold("0.04", 10)), 0.04);
  EXPECT_EQ(std::stod(cli::fraction_from_threshold(" 12.5% ", 10)), 0.125);
  EXPECT_EQ(std::stod(cli::fraction_from_threshold("0", 10)), 0.0);
  EXPECT_EQ(std::stod(cli::fraction_from_threshold("250%", 10)), 2.5);
  EXPECT_EQ(threshold_error("4"), "'4' is ambiguous: write 4% for a percentage, or a fraction below 1 (0.04 is 4%)");
  EXPECT_TRUE(contains(threshold_error("1"), "is ambiguous")) << "1 % or 100 %?";
  EXPECT_TRUE(contains(threshold_error("abc"), "'abc' is not a number")) << threshold_error("abc");
  EXPECT_TRUE(contains(threshold_error("abc%"), "'abc%' is not a percentage")) << threshold_error("abc%");
  EXPECT_TRUE(contains(threshold_error("-0.1"), "out of range (0% to 1000%)")) << threshold_error("-0.1");
  EXPECT_TRUE(contains(threshold_error("2000%"), "out of range")) << threshold_error("2000%");
  EXPECT_TRUE(contains(threshold_error(""), "is not a number"));
}

TEST(NumberOptions, NotANumberSaysSoAndARangeIsPlainFigures) {
  struct Case {
    std::string args, says;
  };
  for (const Case& c : std::vector<Case>{
           {"info --device -1", "--device: -1 is out of range (from 0 to 1023)"},
           {"info --device abc", "--device: 'abc' is not a number"},
           {"info --device 1.5", "--device: '1.5' is not a whole number"},
           {"run --device -1 --filter latency.alu.ffma", "--device: -1 is out of range (from 0 to 1023)"},
           {"run --min-samples x --filter latency.alu.ffma", "--min-samples: 'x' is not a number"},
           {"run --max-noise 2 --filter latency.alu.ffma", "--max-noise: 2 is out of range (from 1e-06 to 1)"},
           {"run --watchdog soon --filter latency.alu.ffma", "--watchdog: 'soon' is not a number"},
           {"compare " + kSmallRun + " " + kSmallRun + " --threshold abc", "--threshold: 'abc' is not a number"},
           {"compare " + kSmallRun + " " + kSmallRun + " --threshold 4", "--threshold: '4' is ambiguous: write 4%"},
           {"merge " + kSmallRun + " --threshold 5", "--threshold: '5' is ambiguous: write 5%"},
       }) {
    const auto r = gpudissect(c.args);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.output;
    EXPECT_TRUE(contains(r.output, c.says)) << c.args << "\n" << r.output;
    EXPECT_LT(r.output.size(), 400u) << "a short message, not a 309-digit range: " << r.output;
  }
}

TEST(NumberOptions, ThresholdTakesAPercentageAndAFraction) {
  for (const std::string t : {"4%", "0.04", "10%"}) {
    const auto r = gpudissect("compare " + kSmallRun + " " + kSmallRun + " --threshold " + t);
    EXPECT_EQ(r.status, 0) << t << "\n" << r.output.substr(0, 2000);
    const std::string shown = t == "10%" ? "10.0%" : "4.0%";
    EXPECT_TRUE(contains(r.output, "or the " + shown + " threshold")) << t << "\n" << r.output.substr(0, 3000);
  }
}

}  // namespace
}  // namespace gd
