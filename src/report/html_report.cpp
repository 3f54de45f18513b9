#include "report/html_report.hpp"

#include <spawn.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/error.hpp"
#include "core/missing_tool.hpp"
#include "core/temp_paths.hpp"

extern char** environ;

namespace gd {
namespace fs = std::filesystem;

namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

bool has_package(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "gpudissect" / "__init__.py", ec);
}

// Runs argv, stdout and stderr going to `log`; returns the exit status (-1 when it could not start).
int run_child(const std::vector<std::string>& argv, const fs::path& log) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
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
    std::string tmpl = (fs::temp_directory_path() / "gpudissect-html-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw Error("cannot create a temporary folder for the HTML report");
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

}  // namespace

PythonRuntime find_python_runtime() {
  PythonRuntime rt;
  std::vector<fs::path> candidates;
  if (const char* d = std::getenv("GPUDISSECT_PYTHON_DIR"); d && *d) candidates.push_back(d);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    candidates.push_back(exe.parent_path() / "python");
    candidates.push_back(exe.parent_path().parent_path() / "python");
  }
#ifdef GPUDISSECT_SOURCE_PYTHON_DIR
  candidates.push_back(GPUDISSECT_SOURCE_PYTHON_DIR);
#endif
  for (const auto& c : candidates)
    if (has_package(c)) {
      rt.package_dir = fs::absolute(c).lexically_normal().string();
      break;
    }
  if (rt.package_dir.empty())
    throw Error("the HTML report needs the Python package python/gpudissect of the gpudissect sources, and none "
                "was found beside the binary; set GPUDISSECT_PYTHON_DIR to the sources' python/ folder");
  const fs::path venv = fs::path(rt.package_dir).parent_path() / ".venv" / "bin" / "python3";
  rt.python = env_or("GPUDISSECT_PYTHON", fs::exists(venv, ec) ? venv.string() : "python3");
  return rt;
}

std::string render_html(const std::string& run_path, const nlohmann::json& context) {
  const PythonRuntime rt = find_python_runtime();
  TempDir tmp({"python.log", "context.json", "report.html"});
  const fs::path log = tmp.path / "python.log";
  const std::string install =
      "install them with scripts/setup.sh (a venv in .venv beside python/), or `pip install pandas matplotlib`, "
      "or point GPUDISSECT_PYTHON at a Python 3 that has them";
  // The child never looks in the current folder: `-c` puts it first on sys.path, where a user's
  // types.py or inspect.py would shadow the standard library (and read as "lacks pandas").
  const int probe = run_child({rt.python, "-c", "import sys; sys.path.pop(0); import pandas, matplotlib"}, log);
  if (probe == -1 || probe == 127)
    throw MissingTool("the HTML report draws its figures with Python 3, pandas and matplotlib, and '" + rt.python +
                      "' cannot be run: " + install);
  if (probe != 0)
    throw MissingTool("the HTML report draws its figures with pandas and matplotlib, which '" + rt.python +
                      "' lacks (" + last_line(read_all(log)) + "): " + install);
  const fs::path ctx = tmp.path / "context.json", out = tmp.path / "report.html";
  std::ofstream(ctx) << context.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  // The package's folder takes the place of the current one at the head of sys.path: ahead of
  // anything installed under the same name, and nothing of the user's folder is imported.
  std::vector<std::string> argv = {rt.python, "-c",
                                   "import sys; sys.path[0] = sys.argv.pop(1); from gpudissect.__main__ import main; "
                                   "sys.exit(main())",
                                   rt.package_dir, "html", "--context", ctx.string(), "--out", out.string()};
  if (!run_path.empty()) argv.insert(argv.end(), {"--run", fs::absolute(run_path).string()});
  const int rc = run_child(argv, log);
  if (rc != 0) throw Error("drawing the HTML report failed (" + rt.python + " -m gpudissect html, exit " +
                           std::to_string(rc) + "):\n" + read_all(log));
  return read_all(out);
}

}  // namespace gd
