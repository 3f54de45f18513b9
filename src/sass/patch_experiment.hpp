// What every control-bit experiment shares: finding one of our kernels in the code the device
// runs, finding the chain to patch in it, editing control fields while remembering what changed
// (each record names the patched instructions with their old and new control words), and the
// switch that turns patching off.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"

#include "core/device.hpp"
#include "sass/control.hpp"
#include "sass/elf.hpp"
#include "sass/fatbin.hpp"
#include "sass/patch.hpp"

namespace gd::sass {

// Why cubin patching is off ($GPUDISSECT_NO_PATCH set and not "0"), or nullopt.
std::optional<std::string> patching_disabled();

// The arch of `ours` the device runs: the one it loaded, else the device's own SM (arch-specific
// first). Throws SkipProbe when the binary has no SASS for it.
Arch device_code_arch(const DeviceInfo& device, const EmbeddedCubins& ours);

// One of our kernels in the code the device runs, with the cubin it lives in.
struct LocatedKernel {
  Cubin cubin;
  std::string name;  // mangled
  const Kernel& kernel() const;
  Instruction128 word(std::size_t i) const { return cubin.instruction(kernel(), i); }
  ControlWord control(std::size_t i) const { return ControlWord::decode(word(i).hi); }
  std::size_t size() const { return kernel().instruction_count(); }
};
// The kernel whose demangled name contains `part` in this binary's cubin for the device.
// Throws SkipProbe when there is no code for the device, Error when the kernel is missing.
LocatedKernel locate_own_kernel(const DeviceInfo& device, const std::string& part);
// The same in a given cubin (offline: tests and the Blackwell encodings).
LocatedKernel locate_kernel(const Cubin& cubin, const std::string& part);

// Maximal runs in which every word equals the one `period` words before it (control bits
// ignored), at least min_count long, in program order: an unrolled chain of one instruction
// (period 1) or of a pair (period 2). A run's first `period` words start it. With
// `ignore_registers` the register fields are ignored too (kRegisterFields): ptxas rotates the
// destination register of a variable-latency chain (LDS R9, [R8]; LDS R9, [R9]; LDS R10, [R9]).
std::vector<InstructionRun> periodic_runs(const Cubin& cubin, const Kernel& kernel, std::size_t period,
                                          std::size_t min_count, bool ignore_registers = false);

// The register fields of the common three- and four-operand forms on Volta and later: Rd in bits
// 16..23, Ra 24..31, Rb 32..39 of the low word, Rc in bits 0..7 of the high word (instruction
// bits 64..71). tests/sass/patch_experiment_test.cu pins them on ptxas output.
struct RegisterFields {
  static int rd(const Instruction128& w) { return int(w.lo >> 16 & 0xff); }
  static int ra(const Instruction128& w) { return int(w.lo >> 24 & 0xff); }
  static int rb(const Instruction128& w) { return int(w.lo >> 32 & 0xff); }
  static int rc(const Instruction128& w) { return int(w.hi & 0xff); }
  static constexpr std::uint64_t kLoMask = 0xffffffull << 16;
  static constexpr std::uint64_t kHiMask = 0xff;
  static constexpr int kRZ = 255;
  // `w` reading ra, rb, rc (destination and everything else kept).
  static Instruction128 with_sources(Instruction128 w, int ra, int rb, int rc);
};

// The lo word of a branch to itself (`BRA` with offset -1 instruction), which ptxas puts after
// each kernel's last EXIT: copied anywhere it loops forever, how the hang experiment hangs.
std::optional<std::size_t> self_branch_index(const LocatedKernel& k);

// Control edits on one kernel that remember the words they replace.
class ControlPatch {
 public:
  explicit ControlPatch(const LocatedKernel& k) : k_(k) {}
  // The instruction's control word as this patch leaves it so far.
  ControlWord control(std::size_t i) const;
  void set_control(std::size_t i, const ControlWord& w);
  void set_word(std::size_t i, const Instruction128& w);
  // Renames barrier `from` to `to` in every instruction (write and read barrier fields, wait-mask
  // bits). `to` 6 or 7 has no wait bit, so waits on `from` are dropped.
  void rename_barrier(int from, int to);
  bool empty() const { return edits_.empty(); }
  std::size_t size() const { return edits_.size(); }
  Cubin apply() const;
  // The edits as runs of consecutive instructions with the same old and new control words:
  // [{first, count, old, new, old_hi, new_hi}] (hi: the high 64-bit word, hex).
  nlohmann::json describe() const;

 private:
  struct Edit {
    std::size_t index;
    Instruction128 word;
  };
  const LocatedKernel& k_;
  std::vector<Edit> edits_;  // sorted by index, one per instruction
  Edit& edit(std::size_t i);
  const Edit* find(std::size_t i) const;
};

std::string hex64(std::uint64_t v);

}  // namespace gd::sass
