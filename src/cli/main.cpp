// gpudissect command line. Each subcommand lives in a commands_*.cpp; this file only parses,
// dispatches and turns exceptions into exit codes (library code never exits).
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "gpudissect_revision.h"
#include "core/error.hpp"
#include "core/gpu_lock.hpp"
#include "core/match.hpp"
#include "core/missing_tool.hpp"
#include "core/registry.hpp"
#include "core/temp_paths.hpp"

namespace {
// Exit codes (README lists them): 0 success, 1 the work ran but found failures, 2 bad input,
// 3 environment (no GPU, no driver), 74 output could not be written (EX_IOERR of sysexits.h),
// 75 the GPU is in use by another process or run (EX_TEMPFAIL), 130 interrupted, 70 a bug in this binary (invalid probe registration only), 69 a program the
// command needs is missing (Python with pandas for the HTML report).
constexpr int kExitUsage = 2;
constexpr int kExitEnvironment = 3;
constexpr int kExitMissingTool = 69;
constexpr int kExitInternal = 70;
constexpr int kExitOutput = 74;
constexpr int kExitGpuBusy = 75;

// What a command printed is part of its result: a full disk or a closed stream must not read as
// success. stdout is flushed here because nothing after main would notice it failing. A command
// that already failed keeps its own exit code; the write failure is still reported.
int finish(int rc) {
  errno = 0;
  const bool cout_ok = static_cast<bool>(std::cout.flush());
  const bool stdio_ok = std::fflush(stdout) == 0 && !std::ferror(stdout);
  if (cout_ok && stdio_ok) return rc;
  std::fprintf(stderr, "gpudissect: error: cannot write standard output%s%s\n", errno ? ": " : "",
               errno ? std::strerror(errno) : "");
  return rc == 0 ? kExitOutput : rc;
}

// CLI11 says "The following argument was not expected: lsit"; name it as a command instead and
// suggest the closest one.
bool reject_unknown_command(CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return false;
  const std::string name = argv[1];
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->get_name() == name) return false;
    if (!sub->get_group().empty()) names.push_back(sub->get_name());  // hidden ones have no group
  }
  const auto near = gd::closest(name, names, 1);
  std::string text = "gpudissect: error: unknown command '" + name + "'";
  if (!near.empty() && gd::edit_distance(name, near[0]) <= 2) text += "; did you mean '" + near[0] + "'?";
  std::string all;
  for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
  std::fprintf(stderr, "%s\n  commands: %s (see gpudissect --help)\n", text.c_str(), all.c_str());
  return true;
}
}  // namespace

int main(int argc, char** argv) {
  const auto& errors = gd::Registry::global().registration_errors();
  if (!errors.empty()) {
    for (const auto& e : errors) std::fprintf(stderr, "gpudissect: invalid probe registration: %s\n", e.c_str());
    return kExitInternal;
  }
  gd::install_temp_cleanup();  // Ctrl-C leaves no temporary cubins or report folders behind
  // A file-size limit (ulimit -f) must read as a failed write (EFBIG, exit 74 with the journal
  // intact), not kill the process with SIGXFSZ mid-record.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{"gpudissect: cycle-level dissection of NVIDIA GPU microarchitecture"};
  app.set_version_flag("--version", std::string(GPUDISSECT_VERSION) + " (" + GPUDISSECT_GIT_REVISION +
                                        ")\nsource sha256 " + GPUDISSECT_SOURCE_HASH);
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 success; 1 the work ran but something failed; 2 bad input; 3 no usable GPU or driver;\n"
      "69 a program the command needs is missing; 74 output could not be written; 75 the GPU is in use\n"
      "(another process or gpudissect run; see run --allow-busy); 130 interrupted.");
  std::function<int()> action;
  gd::cli::add_core_commands(app, action);
  gd::cli::add_report_commands(app, action);
  gd::cli::add_sass_commands(app, action);
  gd::cli::add_fleet_commands(app, action);
  if (reject_unknown_command(app, argc, argv)) return kExitUsage;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // prints help, version or the parse error
    return finish(rc == 0 ? 0 : kExitUsage);
  }
  try {
    return finish(action ? action() : kExitUsage);
  } catch (const gd::UserError& e) {
    std::fprintf(stderr, "gpudissect: error: %s\n", e.what());
    return finish(kExitUsage);
  } catch (const gd::MissingTool& e) {
    std::fprintf(stderr, "gpudissect: error: %s\n", e.what());
    return finish(kExitMissingTool);
  } catch (const gd::GpuBusy& e) {
    std::fprintf(stderr, "gpudissect: error: %s\n", e.what());
    return finish(kExitGpuBusy);
  } catch (const gd::OutputError& e) {
    std::fprintf(stderr, "gpudissect: error: %s\n", e.what());
    return kExitOutput;
  } catch (const gd::Error& e) {
    std::fprintf(stderr, "gpudissect: error: %s\n", e.what());
    return finish(kExitEnvironment);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpudissect: internal error: %s\n", e.what());
    return finish(kExitInternal);
  }
}
