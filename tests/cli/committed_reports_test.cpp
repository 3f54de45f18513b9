// End to end: the reports committed beside their runs in data/measured/ are what `report` makes
// of those runs with the committed code. The committed -suite.md differed from a regenerated one
// (its columns in another order), so a reader could not tell which code wrote it.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sass/disasm.hpp"
#include "support/shell.hpp"
#include "support/text.hpp"

namespace gd {
namespace {

namespace fs = std::filesystem;

// The built binary with `args`: its standard output alone.
CommandResult gpudissect_stdout(const std::string& args) {
  return run_command(std::string(GPUDISSECT_BINARY) + " " + args + " 2>/dev/null");
}

// The run file a committed report was made from: the same stem, as written or compressed.
std::string run_beside(const fs::path& md) {
  for (const char* ext : {".json", ".json.zst", ".json.gz", ".jsonl"}) {
    fs::path run = md;
    run.replace_extension(ext);
    if (fs::exists(run)) return run.string();
  }
  return "";
}

std::string first_difference(const std::string& want, const std::string& got) {
  std::istringstream a(want), b(got);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool ma = static_cast<bool>(std::getline(a, la)), mb = static_cast<bool>(std::getline(b, lb));
    if (!ma && !mb) return "";
    if (!ma || !mb || la != lb)
      return "line " + std::to_string(line) + ":\n  committed:   " + (ma ? la : "(end)") + "\n  regenerated: " + (mb ? lb : "(end)");
  }
}

TEST(CommittedReports, EqualWhatReportMakesOfTheirRuns) {
  int compared = 0;
  for (const auto& e : fs::directory_iterator(fs::path(GPUDISSECT_SOURCE_DIR) / "data" / "measured")) {
    if (e.path().extension() != ".md") continue;
    const std::string committed = read_text(e.path());
    if (committed.rfind("# gpudissect report", 0) != 0) continue;  // fleet reports and notes
    const std::string run = run_beside(e.path());
    if (run.empty()) continue;
    const auto r = gpudissect_stdout("report " + shell_quote(run) + " --out -");
    ASSERT_EQ(r.status, 0) << run;
    EXPECT_EQ(first_difference(committed, r.output), "")
        << e.path().filename().string() << " is not what `report` makes of its run; regenerate it:\n  build/gpudissect report "
        << run << " --out " << e.path().string();
    ++compared;
  }
  EXPECT_GE(compared, 1) << "no committed report beside its run in data/measured";
}

// A run file keeps params as a JSON object, which reads back sorted by name: a report made from
// the file ordered its parameter columns alphabetically, the run's own report by the probe's
// axes. Both now follow the axes.
TEST(CommittedReports, ParameterColumnsFollowTheProbesAxes) {
  const auto listed = gpudissect_stdout("list --json");
  ASSERT_EQ(listed.status, 0);
  std::map<std::string, std::vector<std::string>> axes;
  const nlohmann::json list = nlohmann::json::parse(listed.output);
  for (const auto& p : list["probes"])
    for (const auto& a : p["axes"]) axes[p["id"].get<std::string>()].push_back(a["name"].get<std::string>());
  const auto r = gpudissect_stdout("report " + std::string(GPUDISSECT_SOURCE_DIR) + "/data/measured/nvidia-h200-2026-11-29.json --out -");
  ASSERT_EQ(r.status, 0);
  std::istringstream in(r.output);
  std::string line, probe;
  int checked = 0;
  while (std::getline(in, line)) {
    if (line.rfind("### ", 0) == 0) {
      probe = line.substr(4);
      continue;
    }
    if (probe.empty() || line.rfind("| ", 0) != 0) continue;
    const auto it = axes.find(probe);
    if (it != axes.end() && it->second.size() >= 2) {
      std::vector<std::string> header;
      std::istringstream cells(line);
      for (std::string c; std::getline(cells, c, '|');) {
        const auto b = c.find_first_not_of(' '), e = c.find_last_not_of(' ');
        if (b != std::string::npos) header.push_back(c.substr(b, e - b + 1));
      }
      std::vector<std::string> shown, declared;
      for (const auto& h : header)
        if (std::find(it->second.begin(), it->second.end(), h) != it->second.end()) shown.push_back(h);
      for (const auto& a : it->second)
        if (std::find(shown.begin(), shown.end(), a) != shown.end()) declared.push_back(a);
      EXPECT_EQ(shown, declared) << probe << ": " << line;
      checked += shown.size() >= 2;
    }
    probe.clear();  // the first table after the heading is the probe's
  }
  EXPECT_GE(checked, 1) << "no table with two axes was checked";
}

}  // namespace
}  // namespace gd
