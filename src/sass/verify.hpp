// Per-probe SASS verification: does the code compiled for an arch contain what the probe says
// its timed region measures (opcode counts), and nothing that hollows the timing out (spills)?
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/executor.hpp"
#include "core/probe.hpp"
#include "core/record.hpp"
#include "sass/disasm.hpp"
#include "sass/fatbin.hpp"

namespace gd::sass {

struct KernelCode {
  std::string name;       // mangled
  std::string demangled;
  std::vector<SassInstruction> instructions;
};

// The disassembled kernels of every cubin for one arch, searchable by glob.
class CodeBase {
 public:
  // With `kernel_globs`, only cubins holding a kernel that one of them matches are disassembled;
  // the other kernels are listed with raw words only, which no expectation looks at.
  CodeBase(Arch arch, const std::vector<const Cubin*>& cubins,
           const std::optional<std::vector<std::string>>& kernel_globs = std::nullopt);
  // Kernels as given, already disassembled: what the tests use to edit a real listing (drop or
  // swap the timed instructions) and see that the expectations catch it.
  static CodeBase of_kernels(Arch arch, std::vector<KernelCode> kernels);
  const Arch& arch() const { return arch_; }
  bool empty() const { return kernels_.empty(); }
  bool has_text() const { return has_text_; }
  const std::string& note() const { return note_; }  // why there is no text
  const std::vector<KernelCode>& kernels() const { return kernels_; }
  // Kernels whose demangled (or mangled) name matches the glob.
  std::vector<const KernelCode*> match(const std::string& glob) const;

 private:
  Arch arch_;
  bool has_text_ = true;
  std::string note_;
  std::vector<KernelCode> kernels_;
};

// The instructions an expectation looks at (SassRegion): all of them; those strictly between the
// first and the last clock read; or those strictly between the two clock reads after the region
// marker. With `callees`, a clocked region is followed by each routine it calls, entry to first
// RET. Empty (with `why` set) when the kernel has no such region.
std::vector<const SassInstruction*> region_of(const KernelCode& k, SassRegion region, std::string* why,
                                              bool callees = false);
// Same base opcode, and the pattern's modifiers appear in order among the instruction's:
// "FFMA" matches FFMA.FTZ; "STG.E.128" matches STG.E.EF.128; "LDG.E" does not match LDG.EL.
bool opcode_matches(const std::string& pattern, const std::string& opcode);

// What a probe that runs no SM kernel by design (ProbeSpec::runs_no_sm_kernel) gets: not_applicable.
SassCheck no_kernel_check();
// Why a probe's compute-capability range (needs.min_cc / max_cc) excludes an arch, or empty when
// it does not. Such a probe never runs on that arch, so its SASS there is not applicable.
std::string outside_cc_range(const Requirements& needs, const Arch& arch);

// Checks expectations against a code base (pure: tested with hand-built code bases).
SassCheck check_expectations(const std::vector<SassExpectation>& expectations, const CodeBase& code);

// One sweep point: the probe's expectations hold (check_expectations), and every kernel the
// point launched (mangled names) is in the code base, is covered by at least one expectation and
// meets each that covers it. A kernel no expectation covers leaves the point unverified; a
// point that launched nothing is unverified, or not_applicable for a probe that runs no SM kernel.
// `whole_check`, when given, is check_expectations(probe.sass, code) computed before (it matches
// every expectation against every kernel: the costly part of a point's check).
SassCheck check_point(const ProbeSpec& probe, const CodeBase& code, const std::vector<std::string>& kernels,
                      const SassCheck* whole_check = nullptr);

// Verifies probes against the cubins embedded in an executable (ours by default), offline.
class Verifier {
 public:
  explicit Verifier(std::string executable_path = {});  // empty: /proc/self/exe
  std::vector<Arch> archs() const;
  SassCheck verify(const ProbeSpec& probe, const Arch& arch);
  SassCheck verify_point(const ProbeSpec& probe, const Arch& arch, const std::vector<std::string>& kernels);
  // Every probe against every arch: checks[a][p]. Disassembles only the cubins the probes'
  // expectations name, each arch on its own core.
  std::vector<std::vector<SassCheck>> verify_all(const std::vector<const ProbeSpec*>& probes,
                                                 const std::vector<Arch>& archs);
  // The arch whose code a device runs: arch_code_loaded when known, else sm_<cc>a if our binary
  // has it, else sm_<cc>. nullopt when the binary carries no SASS for the chip (PTX JIT).
  std::optional<Arch> arch_for(const DeviceInfo& device) const;
  const CodeBase& code_for(const Arch& arch);
  // Checks these probes' expectations on all cores now, so verify_point finds them done.
  void prepare(const std::vector<const ProbeSpec*>& probes, const Arch& arch);

 private:
  EmbeddedCubins embedded_;
  bool own_ = false;  // our own binary: its code bases are published (own_code_base)
  std::vector<std::pair<Arch, std::shared_ptr<const CodeBase>>> cache_;
  std::map<std::pair<const ProbeSpec*, std::string>, SassCheck> whole_checks_;  // verify() per probe and arch
};

// The code base of our own binary for `arch` once a Verifier has disassembled it in this process
// (the run's, prepared at its start), with how many cubins it came from; nullptr before. So a probe
// that reads our own code (isa.tables) need not read and disassemble the binary again.
struct OwnCode {
  std::shared_ptr<const CodeBase> code;
  std::size_t cubins = 0;
};
OwnCode own_code_base(const Arch& arch);

// One probe against one arch of an executable (ours by default); reads the binary each call,
// so loops over many probes should hold a Verifier instead.
SassCheck verify_probe(const ProbeSpec& probe, const Arch& arch, const std::string& executable_path = {});

// For the executor: checks each point against the cubin for the device's arch in our own binary.
// The probes' whole checks are made on all cores at the first point (Verifier::prepare).
SassVerifier make_verifier(std::vector<const ProbeSpec*> probes = {});

// The same, prepared at once on a background thread at low CPU priority for the device the run
// measures: reading and disassembling the binary (2.9 s on the H200 machine) overlaps the first
// probes, whose points wait for their checks (ExecuteOptions::verifier_ready) instead of the
// probes waiting. `ready` says whether `check` answers without waiting.
struct RunVerifier {
  SassVerifier check;
  std::function<bool()> ready;
};
RunVerifier make_run_verifier(std::vector<const ProbeSpec*> probes, const DeviceInfo& device);

}  // namespace gd::sass
