// The project's data folders as a binary finds them: data/<sub> beside the binary's folder or the
// folder above it (the repository root for a build in build/). Nothing is compiled in: a binary
// copied elsewhere finds none, and the commands that use these say so or take a path.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace gd {

// The regular files of the first data/<sub> folder that holds any `wanted` accepts (by file
// name), sorted; empty when none does.
std::vector<std::string> data_files(const std::string& sub, const std::function<bool(const std::string&)>& wanted);

}  // namespace gd
