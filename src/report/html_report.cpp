#include "report/html_report.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/error.hpp"
#include "core/missing_tool.hpp"
#include "core/spawn.hpp"
#include "core/temp_paths.hpp"
#include "report/format.hpp"

namespace gd {
namespace fs = std::filesystem;

namespace {

bool has_package(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "gpudissect" / "__init__.py", ec);
}

// Runs argv, stdout and stderr going to `log`; returns the exit status (-1 when it could not start).
int run_child(const std::vector<std::string>& argv, const fs::path& log) {
  try {
    return run_program(argv, log.string());
  } catch (const UserError&) {
    throw;
  } catch (const Error&) {
    return -1;
  }
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

// The last line a failed child printed: a traceback's last line names what went wrong.
std::string last_line(const std::string& text) {
  std::string line, last;
  std::istringstream in(text);
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t") != std::string::npos) last = line;
  return last;
}

// A private folder for the exchange, removed on every path out, Ctrl-C included: the folder and
// the files the exchange puts in it are registered with core/temp_paths.
struct TempDir {
  fs::path path;
  std::vector<int> slots;
  explicit TempDir(const std::vector<std::string>& files) {
    std::error_code ec;
    const fs::path base = fs::temp_directory_path(ec);
    if (ec) throw UserError("the HTML report needs a temporary folder, and TMPDIR names none (" + ec.message() + ")");
    std::string tmpl = (base / "gpudissect-html-XXXXXX").string();
    if (!mkdtemp(tmpl.data()))
      throw UserError("cannot create a temporary folder for the HTML report in " + base.string() + ": " +
                      std::strerror(errno));
    path = tmpl;
    slots.push_back(register_temp_path(path.string()));
    for (const auto& f : files) slots.push_back(register_temp_path((path / f).string()));
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
    for (int s : slots) unregister_temp_path(s);
  }
};

// The run as the figures see it: every key and string made printable(), so no control character
// of a run file reaches a label, an SVG comment or the page.
nlohmann::json printable_strings(const nlohmann::json& j) {
  if (j.is_string()) return printable(j.get_ref<const std::string&>());
  if (j.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& x : j) out.push_back(printable_strings(x));
    return out;
  }
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [k, v] : j.items()) out[printable(k)] = printable_strings(v);
    return out;
  }
  return j;
}

}  // namespace

PythonRuntime find_python_runtime() {
  PythonRuntime rt;
  std::vector<fs::path> candidates;
  if (const char* d = std::getenv("GPUDISSECT_PYTHON_DIR"); d && *d)
    candidates.push_back(require_absolute_tool(d, "GPUDISSECT_PYTHON_DIR"));
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    candidates.push_back(exe.parent_path() / "python");
    candidates.push_back(exe.parent_path().parent_path() / "python");
  }
  for (const auto& c : candidates)
    if (has_package(c)) {
      // Canonical: the build folder's link leads to the sources, whose .venv is beside python/.
      rt.package_dir = fs::weakly_canonical(c, ec).string();
      break;
    }
  if (rt.package_dir.empty())
    throw Error("the HTML report needs the Python package python/gpudissect of the gpudissect sources, and none "
                "was found beside the binary; set GPUDISSECT_PYTHON_DIR to the sources' python/ folder (an absolute "
                "path)");
  const fs::path venv = fs::path(rt.package_dir).parent_path() / ".venv" / "bin" / "python3";
  if (const char* p = std::getenv("GPUDISSECT_PYTHON"); p && *p) rt.python = require_absolute_tool(p, "GPUDISSECT_PYTHON");
  else if (fs::exists(venv, ec)) rt.python = venv.string();
  else rt.python = find_tool_on_path("python3").value_or("python3");
  return rt;
}

std::string render_html(const nlohmann::json& run, const nlohmann::json& context) {
  const PythonRuntime rt = find_python_runtime();
  TempDir tmp({"python.log", "context.json", "run.json", "report.html"});
  const fs::path log = tmp.path / "python.log";
  const std::string install =
      "install them with scripts/setup.sh (a venv in .venv beside python/), or `pip install pandas matplotlib markdown-it-py`, "
      "or point GPUDISSECT_PYTHON at a Python 3 that has them";
  // The child runs isolated (-I): the current folder is not on sys.path (a types.py, json.py or
  // pandas.py there would run, or shadow the standard library and read as "lacks pandas"), and
  // PYTHONPATH, PYTHONSTARTUP and the user's site-packages are ignored.
  const int probe = run_child({rt.python, "-I", "-c", "import pandas, matplotlib, markdown_it"}, log);
  if (probe == -1 || probe == 127)
    throw MissingTool("the HTML report draws its figures with Python 3, pandas, matplotlib and markdown-it-py, and '" + rt.python +
                      "' cannot be run: " + install);
  if (probe != 0)
    throw MissingTool("the HTML report draws its figures with pandas, matplotlib and markdown-it-py, which '" + rt.python +
                      "' lacks (" + last_line(read_all(log)) + "): " + install);
  const fs::path ctx = tmp.path / "context.json", out = tmp.path / "report.html";
  std::ofstream(ctx) << printable_strings(context).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  // The package's folder goes first on sys.path, ahead of anything installed under the same name.
  std::vector<std::string> argv = {rt.python, "-I", "-c",
                                   "import sys; sys.path.insert(0, sys.argv.pop(1)); from gpudissect.__main__ import main; "
                                   "sys.exit(main())",
                                   rt.package_dir, "html", "--context", ctx.string(), "--out", out.string()};
  if (!run.is_null()) {
    const fs::path run_file = tmp.path / "run.json";
    std::ofstream(run_file) << printable_strings(run).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    argv.insert(argv.end(), {"--run", run_file.string()});
  }
  const int rc = run_child(argv, log);
  if (rc != 0) throw Error("drawing the HTML report failed (" + rt.python + " -m gpudissect html, exit " +
                           std::to_string(rc) + "):\n" + read_all(log));
  std::string page = read_all(out);
  // A child that exits 0 without a page (or with a truncated one) must not pass for a report.
  if (page.rfind("<!DOCTYPE html>", 0) != 0 || page.find("</html>") == std::string::npos)
    throw Error("drawing the HTML report failed: " + rt.python + " exited 0 but wrote " +
                (page.empty() ? std::string("no page") : "an incomplete page (" + std::to_string(page.size()) + " bytes)") +
                "\n" + read_all(log));
  return page;
}

}  // namespace gd
