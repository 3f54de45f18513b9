// Probe files compile several to a unit on small machines (CMakeLists.txt, GPUDISSECT_UNITY_BATCH):
// two files' helpers in anonymous namespaces would then meet (two `kUnroll`s, two `run_latency`s)
// and the build would fail only where unity units are on, or only once a new file lands beside
// an old one. So each probe file keeps its helpers in a namespace named after it, probe_<file>;
// only the catalogs, which are units of their own (GPUDISSECT_SLICED_SOURCES), and the CUTLASS
// units (a library of their own) are exempt.
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace fs = std::filesystem;

namespace {

std::string probe_ns_text_of(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The catalogs CMakeLists.txt compiles alone ("src/probes/x/y.cu=N" in GPUDISSECT_SLICED_SOURCES).
std::set<std::string> probe_ns_catalogs() {
  const std::string cmake = probe_ns_text_of(fs::path(GPUDISSECT_SOURCE_DIR) / "CMakeLists.txt");
  const std::regex entry(R"re("(src/probes/[^"=]+\.cu)=[0-9]+")re");
  std::set<std::string> out;
  for (auto it = std::sregex_iterator(cmake.begin(), cmake.end(), entry); it != std::sregex_iterator(); ++it)
    out.insert((*it)[1]);
  return out;
}

// Why a probe file cannot share a unit, or empty when it can.
std::string probe_ns_problem(const std::string& text, const std::string& stem) {
  if (std::regex_search(text, std::regex(R"(^\s*namespace\s*\{)", std::regex::multiline)))
    return "has an anonymous namespace";
  if (text.find("namespace probe_" + stem + " {") == std::string::npos) return "has no namespace probe_" + stem;
  return {};
}

std::vector<std::string> probe_ns_offenders() {
  const fs::path root = GPUDISSECT_SOURCE_DIR;
  const auto catalogs = probe_ns_catalogs();
  std::vector<std::string> found;
  for (const auto& e : fs::recursive_directory_iterator(root / "src/probes")) {
    if (!e.is_regular_file() || e.path().extension() != ".cu") continue;
    const std::string rel = fs::relative(e.path(), root).generic_string();
    const std::string stem = e.path().stem().string();
    if (catalogs.count(rel) || stem.rfind("gemm_cutlass_", 0) == 0) continue;
    if (const std::string why = probe_ns_problem(probe_ns_text_of(e.path()), stem); !why.empty())
      found.push_back(rel + ": " + why);
  }
  return found;
}

}  // namespace

TEST(ProbeNamespace, TheCatalogsAreReadFromTheBuildFile) {
  const auto catalogs = probe_ns_catalogs();
  EXPECT_EQ(catalogs.size(), 4u);
  EXPECT_TRUE(catalogs.count("src/probes/pipes/interference.cu"));
}

TEST(ProbeNamespace, AnAnonymousOrMisnamedNamespaceIsFound) {
  EXPECT_EQ(probe_ns_problem("namespace gd {\nnamespace probe_x {\n}\n}\n", "x"), "");
  EXPECT_EQ(probe_ns_problem("namespace gd {\nnamespace {\n}\n}\n", "x"), "has an anonymous namespace");
  EXPECT_EQ(probe_ns_problem("namespace gd {\nnamespace probe_y {\n}\n}\n", "x"), "has no namespace probe_x");
}

TEST(ProbeNamespace, EveryProbeFileThatSharesAUnitHasItsOwn) {
  const auto bad = probe_ns_offenders();
  std::ostringstream list;
  for (const auto& b : bad) list << "\n  " << b;
  EXPECT_TRUE(bad.empty()) << "keep a probe file's helpers in namespace probe_<file> (unity units):" << list.str();
}
