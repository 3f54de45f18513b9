#include "analysis/vpipe.hpp"

#include <cstdio>
#include <stdexcept>

namespace gd {

std::string vpipe_backend_text(const std::vector<VpipeBesideInt>& pairs) {
  if (pairs.empty()) return "";
  std::string detail;
  bool all_confirmed = true, all_shared = true;
  for (const VpipeBesideInt& p : pairs) {
    if (p.kind != "confirmed" && p.kind != "shared" && p.kind != "undecided")
      throw std::invalid_argument("vpipe_backend_text: unknown verdict '" + p.kind + "'");
    if (p.kind == "undecided") return "";
    all_confirmed &= p.kind == "confirmed";
    all_shared &= p.kind == "shared";
    char gain[32];
    std::snprintf(gain, sizeof gain, "%.2f", p.gain);
    detail += (detail.empty() ? "" : "; ") + p.opcode + " beside IADD3: " +
              (p.kind == "confirmed" ? "co-issues" : "shares a pipe") + " (gain " + gain + ")";
  }
  const char* verdict = all_confirmed ? "yes" : all_shared ? "no" : "no single V-pipe: its instructions split";
  return std::string(verdict) + ": " + detail;
}

}  // namespace gd
