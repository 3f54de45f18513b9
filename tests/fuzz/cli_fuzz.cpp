// libFuzzer target: the command line. Input lines are arguments; every command's options are
// parsed (CLI11 and our own validators) without running the command, and the value parsers the
// commands call (--axis, --devices) get the arguments too. Bad arguments must end in a parse
// error or gd::UserError, never in a crash.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/sweep.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args{"gpudissect"};
  std::string cur;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      args.push_back(cur);
      cur.clear();
    } else {
      cur += char(data[i]);
    }
  }
  if (!cur.empty()) args.push_back(cur);
  if (args.size() > 64) return 0;
  for (std::size_t i = 1; i < args.size(); ++i) {
    try {
      (void)gd::parse_axis_override(args[i]);
    } catch (const std::invalid_argument&) {
    }
    try {
      (void)gd::cli::parse_device_list(args[i], 8);
    } catch (const gd::UserError&) {
    }
  }
  CLI::App app{"fuzz"};
  app.require_subcommand(1);
  std::function<int()> action;
  gd::cli::add_core_commands(app, action);
  gd::cli::add_report_commands(app, action);
  gd::cli::add_sass_commands(app, action);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  try {
    app.parse(int(argv.size()), argv.data());  // the command itself is not run
  } catch (const CLI::Error&) {
  } catch (const gd::UserError&) {
  }
  return 0;
}
