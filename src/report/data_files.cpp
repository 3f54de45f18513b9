#include "report/data_files.hpp"

#include <filesystem>
#include <set>

namespace gd {

std::vector<std::string> data_files(const std::string& sub, const std::function<bool(const std::string&)>& wanted) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  for (const fs::path& d : {exe.parent_path() / "data" / sub, exe.parent_path().parent_path() / "data" / sub}) {
    std::set<std::string> found;
    for (const auto& e : fs::directory_iterator(d, ec))
      if (e.is_regular_file(ec) && wanted(e.path().filename().string())) found.insert(e.path().string());
    if (!found.empty()) return {found.begin(), found.end()};
  }
  return {};
}

}  // namespace gd
