// gpudissect command line. Each subcommand lives in a commands_*.cpp; this file only parses,
// dispatches and turns exceptions into exit codes (library code never exits).
#include <cstdio>
#include <functional>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "gpudissect_revision.h"
#include "core/error.hpp"
#include "core/registry.hpp"

namespace {
// Exit codes: 0 success, 1 the work ran but found failures, 2 bad input, 3 environment
// (no GPU, no driver), 70 a bug in this binary.
constexpr int kExitUsage = 2;
constexpr int kExitEnvironment = 3;
constexpr int kExitInternal = 70;
}  // namespace

int main(int argc, char** argv) {
  const auto& errors = gd::Registry::global().registration_errors();
  if (!errors.empty()) {
    for (const auto& e : errors) std::fprintf(stderr, "gpudissect: invalid probe registration: %s\n", e.c_str());
    return kExitInternal;
  }
  CLI::App app{"gpudissect: cycle-level dissection of NVIDIA GPU microarchitecture"};
  app.set_version_flag("--version", std::string(GPUDISSECT_VERSION) + " (" + GPUDISSECT_GIT_REVISION +
                                        ")\nsource sha256 " + GPUDISSECT_SOURCE_HASH);
  app.require_subcommand(1);
  std::function<int()> action;
  gd::cli::add_core_commands(app, action);
  gd::cli::add_report_commands(app, action);
  gd::cli::add_sass_commands(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // prints help, version or the parse error
    return rc == 0 ? 0 : kExitUsage;
  }
  try {
    return action ? action() : kExitUsage;
  } catch (const gd::UserError& e) {
    std::fprintf(stderr, "gpudissect: error: %s\n", e.what());
    return kExitUsage;
  } catch (const gd::Error& e) {
    std::fprintf(stderr, "gpudissect: error: %s\n", e.what());
    return kExitEnvironment;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpudissect: internal error: %s\n", e.what());
    return kExitInternal;
  }
}
