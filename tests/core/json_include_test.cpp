// Headers and CUDA sources reach nlohmann::json only through core/json.hpp, whose device passes
// see a declaration-only stand-in (core/json_device_pass.hpp says why): one direct include of the
// library in a header every probe sees would add about two seconds per GPU target to every
// probe unit, and nothing else would notice.
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace fs = std::filesystem;

namespace {

const std::regex kLibraryInclude(R"(^\s*#\s*include\s*[<"]nlohmann/json(_fwd)?\.hpp[>"])");
const std::regex kStandInInclude(R"(^\s*#\s*include\s*[<"]core/json_device_pass\.hpp[>"])");

bool device_visible(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".hpp" || ext == ".cuh" || ext == ".cu" || ext == ".h";
}

// Files under `dir` (relative to the checkout) whose lines match `re`, but for `allowed`.
std::vector<std::string> offenders(const std::string& dir, const std::regex& re, const std::string& allowed) {
  const fs::path root = GPUDISSECT_SOURCE_DIR;
  std::vector<std::string> found;
  for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
    if (!e.is_regular_file() || !device_visible(e.path())) continue;
    const std::string rel = fs::relative(e.path(), root).generic_string();
    if (rel == allowed) continue;
    std::ifstream in(e.path());
    for (std::string line; std::getline(in, line);)
      if (std::regex_search(line, re)) found.push_back(rel + ": " + line);
  }
  return found;
}

std::string joined(const std::vector<std::string>& v) {
  std::ostringstream o;
  for (const auto& s : v) o << "\n  " << s;
  return o.str();
}

}  // namespace

TEST(JsonInclude, HeadersAndCudaSourcesUseTheCoreHeader) {
  for (const std::string dir : {"src", "tests/probes", "tests/support"}) {
    const auto bad = offenders(dir, kLibraryInclude, "src/core/json.hpp");
    EXPECT_TRUE(bad.empty()) << "include \"core/json.hpp\" instead of the library in:" << joined(bad);
  }
}

TEST(JsonInclude, OnlyTheCoreHeaderNamesTheStandIn) {
  const auto bad = offenders("src", kStandInInclude, "src/core/json.hpp");
  EXPECT_TRUE(bad.empty()) << "the device-pass stand-in is chosen by core/json.hpp alone:" << joined(bad);
}
