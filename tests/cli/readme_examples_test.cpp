// End to end: the command examples of README.md and docs/*.md, run as written against the
// committed dataset. An example that fails, or names a command that is gone, misleads every new
// user, and nothing else would notice. Each code block holding a command is marked on the line
// above it:
//   <!-- example: exit N -->    every line is run (sh, from a scratch folder that sees the
//                               repository's data/, src/, scripts/) and must exit N
//   <!-- example: gpu -->       needs a GPU: reported as skipped
//   <!-- example: skip WHY -->  not run here, for the reason given
//   <!-- synopsis -->           command syntax, not commands
// A block with a command line and no marker fails the test, so no example goes unchecked.
// docs/probes.md is generated from the binary's probe list; a test checks it has not drifted.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sass/disasm.hpp"
#include "support/sample_run.hpp"
#include "support/shell.hpp"
#include "support/text.hpp"

namespace gd {
namespace {

namespace fs = std::filesystem;

struct CodeBlock {
  int line = 0;        // README line of its first line of code
  std::string marker;  // the <!-- ... --> text above it, trimmed; empty when none
  std::vector<std::string> code;
};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// Fenced (```) and indented (4 spaces after a blank line) blocks, each with the marker comment
// on the nearest non-blank line above it.
std::vector<CodeBlock> code_blocks(const std::string& markdown) {
  std::vector<std::string> lines;
  std::stringstream ss(markdown);
  for (std::string l; std::getline(ss, l);) lines.push_back(l);
  std::vector<CodeBlock> blocks;
  const auto marker_above = [&](std::size_t i) {
    while (i > 0 && trim(lines[i - 1]).empty()) --i;
    if (i == 0) return std::string();
    static const std::regex comment(R"(^\s*<!--\s*(.*?)\s*-->\s*$)");
    std::smatch m;
    return std::regex_match(lines[i - 1], m, comment) ? m[1].str() : std::string();
  };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("```", 0) == 0) {
      CodeBlock b{int(i + 2), marker_above(i), {}};
      for (++i; i < lines.size() && lines[i].rfind("```", 0) != 0; ++i) b.code.push_back(lines[i]);
      blocks.push_back(b);
    } else if (lines[i].rfind("    ", 0) == 0 && (i == 0 || trim(lines[i - 1]).empty())) {
      CodeBlock b{int(i + 1), marker_above(i), {}};
      for (; i < lines.size() && (lines[i].rfind("    ", 0) == 0 || trim(lines[i]).empty()); ++i)
        if (!trim(lines[i]).empty()) b.code.push_back(lines[i].substr(4));
      blocks.push_back(b);
      --i;  // the line that ended the block may start the next one
    }
  }
  return blocks;
}

bool is_command(const std::string& line) {
  static const std::regex command(R"(^\s*(gpudissect\s|scripts/\S+))");
  return std::regex_search(line, command);
}

// A folder to run examples from: what they write (h200.md, measured.db, isa-sm_90a/) lands here,
// not in the checkout, and `gpudissect` on PATH is the binary under test.
class ExampleSandbox {
 public:
  ExampleSandbox() {
    fs::create_directories(dir_.path() / "bin");
    fs::create_symlink(GPUDISSECT_BINARY, dir_.path() / "bin" / "gpudissect");
    for (const char* sub : {"data", "docs", "schemas", "scripts", "src"})
      fs::create_directory_symlink(fs::path(GPUDISSECT_SOURCE_DIR) / sub, dir_.path() / sub);
  }
  CommandResult run(const std::string& line) const {
    const std::string dir = dir_.path().string();
    return run_command("cd " + shell_quote(dir) + " && PATH=" + shell_quote(dir + "/bin") +
                             ":\"$PATH\" sh -c " + shell_quote(line) + " 2>&1");
  }

 private:
  test_support::TempDir dir_;
};

// README.md, then docs/*.md by name, each as (path relative to the checkout, text).
std::vector<std::pair<std::string, std::string>> documents() {
  const fs::path root(GPUDISSECT_SOURCE_DIR);
  std::vector<std::pair<std::string, std::string>> docs{{"README.md", read_text(root / "README.md")}};
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(root / "docs"))
    if (e.path().extension() == ".md") names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  for (const auto& n : names) docs.emplace_back("docs/" + n, read_text(root / "docs" / n));
  return docs;
}

TEST(ReadmeExamples, EveryCommandBlockIsMarked) {
  int marked = 0;
  for (const auto& [name, text] : documents())
    for (const auto& b : code_blocks(text)) {
      const bool has_command = std::any_of(b.code.begin(), b.code.end(), is_command);
      if (!has_command) continue;
      static const std::regex known(R"(^(example: (exit \d+|gpu|skip .+)|synopsis)$)");
      EXPECT_TRUE(std::regex_match(b.marker, known))
          << name << ":" << b.line << ": a command block needs <!-- example: exit N -->, <!-- example: gpu -->, "
          << "<!-- example: skip WHY --> or <!-- synopsis --> on the line above it (found '" << b.marker << "')";
      ++marked;
    }
  EXPECT_GE(marked, 10) << "the parser found too few command blocks; did the documents' format change?";
}

TEST(ReadmeExamples, OfflineExamplesExitAsDocumented) {
  const ExampleSandbox sandbox;
  const bool disassembler = sass::disassembler_tools().any();
  static const std::regex needs_disassembler(R"(^\s*gpudissect\s+(verify|sass|isa)\b)");
  int ran = 0;
  std::map<std::string, int> offline_in;  // runnable examples per document, run or not
  for (const auto& [name, text] : documents()) {
    for (const auto& b : code_blocks(text)) {
      std::smatch m;
      static const std::regex exit_marker(R"(^example: exit (\d+)$)");
      const bool runnable = std::regex_match(b.marker, m, exit_marker);
      for (const auto& line : b.code) {
        const std::string cmd = trim(line);
        if (cmd.empty() || cmd[0] == '#') continue;
        if (!runnable) {
          if (b.marker.rfind("example:", 0) == 0)
            std::cout << "[ EXAMPLE  ] skipped (" << (b.marker == "example: gpu" ? "needs a GPU" : b.marker.substr(14))
                      << "): " << name << ": " << cmd << "\n";
          continue;
        }
        ++offline_in[name];
        if (!disassembler && std::regex_search(cmd, needs_disassembler)) {
          std::cout << "[ EXAMPLE  ] skipped (" << sass::disassembler_tools().missing_reason() << "): " << name << ": "
                    << cmd << "\n";
          continue;
        }
        const auto r = sandbox.run(cmd);
        EXPECT_EQ(r.status, std::stoi(m[1])) << name << ":" << b.line << ": " << cmd << "\n" << r.output.substr(0, 3000);
        ++ran;
      }
    }
  }
  EXPECT_GE(ran, 10) << "too few examples ran; did the markers change?";
  // The examples that moved out of the README are checked too (a reader meets them there first).
  for (const char* doc : {"README.md", "docs/method.md", "docs/development.md"})
    EXPECT_GE(offline_in[doc], 1) << "no offline example found in " << doc;
}

// docs/probes.md is what scripts/probes_doc.py makes from this binary's `list -v --json`: a probe
// added, renamed or re-declared without regenerating it fails here, with the command that fixes it.
TEST(ReadmeExamples, ProbeCatalogMatchesTheBinary) {
  const std::string root = GPUDISSECT_SOURCE_DIR;
  const auto r = run_command("python3 " + shell_quote(root + "/scripts/probes_doc.py") + " --exe " +
                                   shell_quote(GPUDISSECT_BINARY) + " --check " +
                                   shell_quote(root + "/docs/probes.md") + " 2>&1");
  EXPECT_EQ(r.status, 0) << r.output;
}

// The checks above stand on the parser; a README snippet shows what it must see.
TEST(ReadmeExamples, ParserFindsMarkersAndBothBlockKinds) {
  const auto blocks = code_blocks(
      "Text\n\n<!-- example: exit 2 -->\n```sh\ngpudissect lsit\n```\n\n"
      "<!-- synopsis -->\n\n    gpudissect info [--json]\n    more\n\nEnd\n\n```cpp\nint x;\n```\n");
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[0].marker, "example: exit 2");
  EXPECT_EQ(blocks[0].code, std::vector<std::string>{"gpudissect lsit"});
  EXPECT_EQ(blocks[1].marker, "synopsis");
  EXPECT_EQ(blocks[1].code, (std::vector<std::string>{"gpudissect info [--json]", "more"}));
  EXPECT_EQ(blocks[2].marker, "");
  EXPECT_FALSE(is_command(blocks[2].code[0]));
  EXPECT_TRUE(is_command("scripts/run_suite.sh --quick"));
  EXPECT_FALSE(is_command("scripts/        setup, build, test"));
}

// The studies the suite reproduces are named as what they are (the SM_120 microarchitecture
// paper, the SM_100 study, the SM100a ISA reference) wherever a user reads: README, docs, every
// command's help, and what coverage, guide, report and the cross-generation compare print. The
// only "seed" allowed is the numerical one (MUFU.RCP's reciprocal seed in a probe's description).
std::string studies_unnamed(std::string text) {
  for (const char* allowed : {"reciprocal seed", "MUFU.RCP seed"})
    for (std::size_t at; (at = text.find(allowed)) != std::string::npos;) text.erase(at, std::string(allowed).size());
  // "seed" or "seeds" as a word (what \bseeds?\b matches, case-insensitive), found by hand: a
  // std::regex over the reports these commands print took about 20 s of CI's test time.
  const auto word = [&](std::size_t i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    return std::isalnum(c) || c == '_';
  };
  std::string lower(text.size(), ' ');
  std::transform(text.begin(), text.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  for (std::size_t at = lower.find("seed"); at != std::string::npos; at = lower.find("seed", at + 1)) {
    std::size_t end = at + 4;
    if (end < text.size() && lower[end] == 's') ++end;
    if ((at > 0 && word(at - 1)) || (end < text.size() && word(end))) continue;
    const std::size_t newline = text.rfind('\n', at), begin = newline == std::string::npos ? 0 : newline + 1;
    const std::size_t to = text.find('\n', at);
    return text.substr(begin, to == std::string::npos ? std::string::npos : to - begin);
  }
  return "";
}

// The scan the next test stands on: the word in any case, singular or plural, on the line it is
// found; the numerical seed and words that merely contain it pass.
TEST(ReadmeExamples, TheSeedScanFindsTheWordAndItsLine) {
  EXPECT_EQ(studies_unnamed("first\nas the Seeds report\nlast"), "as the Seeds report");
  EXPECT_EQ(studies_unnamed("seed"), "seed");
  EXPECT_EQ(studies_unnamed("x\n(SEED)"), "(SEED)");
  EXPECT_EQ(studies_unnamed("seedling seed_items reseed\nMUFU.RCP seed"), "");
}

TEST(ReadmeExamples, TheReferenceStudiesAreNamedNotSeeds) {
  for (const auto& [name, text] : documents()) EXPECT_EQ(studies_unnamed(text), "") << name;
  const ExampleSandbox sandbox;
  const auto top = sandbox.run("gpudissect --help");
  ASSERT_EQ(top.status, 0) << top.output;
  EXPECT_EQ(studies_unnamed(top.output), "") << "gpudissect --help";
  // Every subcommand the top-level help lists, from its "Subcommands:" section.
  std::vector<std::string> commands;
  const auto list_at = top.output.find("Subcommands:");
  ASSERT_NE(list_at, std::string::npos) << top.output;
  std::stringstream ss(top.output.substr(list_at));
  static const std::regex entry(R"(^  ([a-z][a-z-]*)\s)");
  for (std::string l; std::getline(ss, l);) {
    std::smatch m;
    if (std::regex_search(l, m, entry)) commands.push_back(m[1]);
  }
  ASSERT_GE(commands.size(), 10u) << top.output;
  for (const auto& c : commands) {
    const auto r = sandbox.run("gpudissect " + c + " --help");
    EXPECT_EQ(studies_unnamed(r.output), "") << "gpudissect " << c << " --help";
  }
  const std::string run = "data/measured/nvidia-h200-2026-11-29.json";
  for (const std::string& cmd : std::vector<std::string>{"coverage", "coverage " + run, "guide " + run, "report " + run + " --out -",
                                                         "compare " + run + " data/reference/sm_120-paper-rtx-pro-5000.json"}) {
    const auto r = sandbox.run("gpudissect " + cmd);
    EXPECT_EQ(studies_unnamed(r.output), "") << "gpudissect " << cmd;
  }
}

}  // namespace
}  // namespace gd
