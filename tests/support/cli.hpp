// Runs the file commands (report, compare, import, recover, merge) in process, as main would
// after parsing, and reads files back: for the CLI tests.
#pragma once
#include <CLI/CLI.hpp>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "support/text.hpp"

namespace gd::test_support {

inline int run_cli(std::vector<std::string> args) {
  CLI::App app{"test"};
  app.require_subcommand(1);
  std::function<int()> action;
  cli::add_report_commands(app, action);
  cli::add_fleet_commands(app, action);
  args.insert(args.begin(), "gpudissect");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  app.parse(static_cast<int>(argv.size()), argv.data());
  return action();
}

}  // namespace gd::test_support
