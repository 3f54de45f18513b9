// The HTML report: the Markdown report with figures, drawn by the Python package in python/
// (pandas + matplotlib) that this runs as a child process. One self-contained file.
#pragma once
#include <string>

#include "core/json.hpp"

namespace gd {

struct PythonRuntime {
  std::string python;       // interpreter
  std::string package_dir;  // the folder holding python/gpudissect
};

// GPUDISSECT_PYTHON_DIR (absolute), else python/ beside or above the binary's folder (nothing the
// build folder's path compiled in: an installed binary would look there, where others may write);
// GPUDISSECT_PYTHON (absolute), else the project's venv (.venv, made by scripts/setup.sh) beside
// that folder, else python3 in PATH's absolute folders. Throws Error when no package is found,
// UserError when a setting is a relative path.
PythonRuntime find_python_runtime();

// Runs `python -m gpudissect html` on a run (its to_json form, as the reader normalized it: a
// journal or a file with a byte-order mark reads as any run; null: none, the page is the Markdown
// alone) with `context` (the Markdown report, the probes' views, the coverage counts) and returns the
// page. Throws Error naming what to install when Python, pandas or matplotlib is missing, and
// when the drawing fails.
std::string render_html(const nlohmann::json& run, const nlohmann::json& context);

}  // namespace gd
