#include "sass/patch_experiment.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "core/error.hpp"
#include "sass/isa_validate.hpp"

namespace gd::sass {

std::optional<std::string> patching_disabled() {
  const char* off = std::getenv("GPUDISSECT_NO_PATCH");
  if (off && *off && std::string(off) != "0") return "cubin patching is turned off (GPUDISSECT_NO_PATCH)";
  return std::nullopt;
}

Arch device_code_arch(const DeviceInfo& d, const EmbeddedCubins& ours) {
  if (!d.arch_code_loaded.empty()) return Arch::parse(d.arch_code_loaded);
  for (bool specific : {true, false})
    for (const auto& a : ours.archs())
      if (a.sm == d.cc() && a.specific == specific) return a;
  throw SkipProbe("the binary has no SASS for " + d.sm_name() + " to patch");
}

const Kernel& LocatedKernel::kernel() const { return *cubin.find_kernel(name); }

LocatedKernel locate_kernel(const Cubin& cubin, const std::string& part) {
  for (const auto& k : cubin.kernels())
    if (k.demangled.find(part) != std::string::npos) return {cubin, k.name};
  throw Error("the " + cubin.arch().name() + " code of this binary has no kernel named like '" + part + "'");
}

LocatedKernel locate_own_kernel(const DeviceInfo& device, const std::string& part) {
  const EmbeddedCubins& ours = own_cubins();
  const Arch arch = device_code_arch(device, ours);
  for (const auto& c : ours.cubins) {
    if (!(c.arch() == arch)) continue;
    for (const auto& k : c.kernels())
      if (k.demangled.find(part) != std::string::npos) return {c, k.name};
  }
  throw Error("the " + arch.name() + " code of this binary has no kernel named like '" + part + "'");
}

Instruction128 RegisterFields::with_sources(Instruction128 w, int ra, int rb, int rc) {
  for (int r : {ra, rb, rc})
    if (r < 0 || r > 255) throw Error("register R" + std::to_string(r) + " is outside R0..RZ");
  w.lo = (w.lo & ~(0xffull << 24) & ~(0xffull << 32)) | std::uint64_t(ra) << 24 | std::uint64_t(rb) << 32;
  w.hi = (w.hi & ~kHiMask) | std::uint64_t(rc);
  return w;
}

std::vector<InstructionRun> periodic_runs(const Cubin& cubin, const Kernel& k, std::size_t period,
                                          std::size_t min_count, bool ignore_registers) {
  if (period == 0) throw Error("periodic_runs: period 0");
  std::vector<Instruction128> w(k.instruction_count());
  for (std::size_t i = 0; i < w.size(); ++i) {
    w[i] = cubin.instruction(k, i);
    w[i].hi &= ~ControlWord::kMask;
    if (ignore_registers) w[i].lo &= ~RegisterFields::kLoMask, w[i].hi &= ~RegisterFields::kHiMask;
  }
  std::vector<InstructionRun> runs;
  std::size_t i = period;
  while (i < w.size()) {
    if (!(w[i] == w[i - period])) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < w.size() && w[end] == w[end - period]) ++end;
    const InstructionRun r{i - period, end - (i - period)};
    if (r.count >= min_count) runs.push_back(r);
    i = end + 1;
  }
  return runs;
}

std::optional<std::size_t> self_branch_index(const LocatedKernel& k) {
  // BRA with a relative offset of -1 instruction (0xfffffffc in bits 32..63, counted in 4-byte
  // units after the 16-byte instruction) and opcode 0x947 with the always-true predicate.
  constexpr std::uint64_t kSelfBranchLo = 0xfffffffc00fc7947ull;
  for (std::size_t i = k.size(); i-- > 0;)
    if (k.word(i).lo == kSelfBranchLo) return i;
  return std::nullopt;
}

ControlPatch::Edit& ControlPatch::edit(std::size_t i) {
  if (i >= k_.size())
    throw Error("patch: instruction " + std::to_string(i) + " is past the end of " + k_.name + " (" +
                std::to_string(k_.size()) + " instructions)");
  auto it = std::lower_bound(edits_.begin(), edits_.end(), i, [](const Edit& e, std::size_t x) { return e.index < x; });
  if (it == edits_.end() || it->index != i) it = edits_.insert(it, Edit{i, k_.word(i)});
  return *it;
}

const ControlPatch::Edit* ControlPatch::find(std::size_t i) const {
  auto it = std::lower_bound(edits_.begin(), edits_.end(), i, [](const Edit& e, std::size_t x) { return e.index < x; });
  return it != edits_.end() && it->index == i ? &*it : nullptr;
}

ControlWord ControlPatch::control(std::size_t i) const {
  const Edit* e = find(i);
  return ControlWord::decode(e ? e->word.hi : k_.word(i).hi);
}

void ControlPatch::set_control(std::size_t i, const ControlWord& w) {
  Edit& e = edit(i);
  e.word.hi = w.encode(e.word.hi);
}

// A whole word that keeps the opcode field must keep the form too (the enumerated tables judge):
// a register rewrite that slips into a modifier bit would time another instruction.
void ControlPatch::set_word(std::size_t i, const Instruction128& w) {
  check_patched_word(k_.cubin.arch(), k_.word(i), w);
  edit(i).word = w;
}

void ControlPatch::rename_barrier(int from, int to) {
  if (from < 0 || from > 5 || to < 0 || to > 7)
    throw Error("rename_barrier: barrier " + std::to_string(from) + " -> " + std::to_string(to) + " is out of range");
  for (std::size_t i = 0; i < k_.size(); ++i) {
    ControlWord w = control(i);
    const ControlWord before = w;
    if (w.write_barrier == from) w.write_barrier = to;
    if (w.read_barrier == from) w.read_barrier = to;
    if (w.wait_mask >> from & 1) {
      w.wait_mask &= std::uint8_t(~(1u << from));
      if (to < 6) w.wait_mask |= std::uint8_t(1u << to);
    }
    if (!(w == before)) set_control(i, w);
  }
}

Cubin ControlPatch::apply() const {
  std::vector<InstructionEdit> edits;
  for (const auto& e : edits_) edits.push_back({k_.name, e.index, e.word, std::nullopt});
  return apply_patch(k_.cubin, edits);
}

std::string hex64(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

nlohmann::json ControlPatch::describe() const {
  nlohmann::json runs = nlohmann::json::array();
  for (std::size_t i = 0; i < edits_.size();) {
    const Instruction128 old0 = k_.word(edits_[i].index);
    std::size_t j = i + 1;
    while (j < edits_.size() && edits_[j].index == edits_[j - 1].index + 1 && k_.word(edits_[j].index) == old0 &&
           edits_[j].word == edits_[i].word)
      ++j;
    const Instruction128 neu = edits_[i].word;
    nlohmann::json r = {{"first", edits_[i].index},
                        {"count", j - i},
                        {"old", ControlWord::decode(old0.hi).to_string()},
                        {"new", ControlWord::decode(neu.hi).to_string()},
                        {"old_hi", hex64(old0.hi)},
                        {"new_hi", hex64(neu.hi)}};
    if (!(neu.lo == old0.lo)) r["old_lo"] = hex64(old0.lo), r["new_lo"] = hex64(neu.lo);
    runs.push_back(std::move(r));
    i = j;
  }
  return runs;
}

}  // namespace gd::sass
