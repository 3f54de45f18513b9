// The ISA tables of the code this run runs: this binary's own cubins for the device's arch,
// disassembled (nvdisasm, found on the machine) into opcodes, forms, encoding variants, the
// addressing forms of the loads, the bits no disassembly shows (the scheduling control word) and
// the opcodes ptxas guards with a write barrier. No kernel runs: the numbers describe our
// compiled code, recorded with the run (data/coverage/reported-values.csv lists them as such).
#include <optional>
#include <string>
#include <vector>

#include "analysis/control_fields.hpp"
#include "core/error.hpp"
#include "core/registry.hpp"
#include "sass/disasm.hpp"
#include "sass/fatbin.hpp"
#include "sass/isa.hpp"
#include "sass/patch_experiment.hpp"
#include "sass/verify.hpp"

namespace gd {
namespace probe_tables {

// Share of a base opcode's instances that must set a write barrier for it to count as one that
// needs a barrier (a few instances whose result nothing reads may go without).
constexpr double kWriteBarrierShare = 0.95;

std::string addressing_text(const sass::IsaTable& t, const std::string& opcode) {
  const sass::AddressingForm a = t.addressing(opcode);
  if (a.total == 0) return "";
  return a.form + " (" + std::to_string(a.count) + " of " + std::to_string(a.total) + " " + opcode + " instances; " +
         std::to_string(a.distinct) + " addressing forms in all)";
}

void run_isa_tables(ProbeContext& ctx) {
  ctx.no_sm_clock("no kernel runs: the tables are read from this binary's own cubins");
  if (!sass::disassembler_tools().any()) ctx.skip(sass::disassembler_tools().missing_reason());
  sass::IsaTable table;
  std::size_t cubin_count = 0;
  const std::string& loaded = ctx.device().arch_code_loaded;
  const sass::OwnCode shared = loaded.empty() ? sass::OwnCode{} : sass::own_code_base(sass::Arch::parse(loaded));
  std::optional<sass::Arch> arch;
  if (shared.code) {
    // The run's SASS check has read and disassembled these same cubins (every kernel of every
    // cubin of the arch): its code base, not a second pass over the binary (2.3 s on the H200).
    arch = shared.code->arch();
    cubin_count = shared.cubins;
    for (const auto& k : shared.code->kernels()) table.add_kernel(k.instructions);
    ctx.extra()["source"] = "the run's SASS check's disassembly";
  } else {
    const sass::EmbeddedCubins ours = sass::embedded_cubins(sass::own_executable_path());
    arch = sass::device_code_arch(ctx.device(), ours);
    std::vector<const sass::Cubin*> cubins;
    for (const auto& c : ours.cubins)
      if (c.arch() == *arch && !c.kernels().empty()) cubins.push_back(&c);  // as the run's SASS check takes them
    if (cubins.empty()) ctx.skip("the binary carries no " + arch->name() + " cubin");
    cubin_count = cubins.size();
    // One disassembler call per chunk, on all cores (listings from the disk cache when there).
    for (const auto& d : sass::disassemble_all(cubins)) {
      if (!d.has_text) throw Error("no disassembly of " + arch->name() + ": " + d.note);
      for (const auto& [_, insts] : d.kernels) table.add_kernel(insts);
    }
    ctx.extra()["source"] = "this probe's own disassembly of the binary";
  }
  if (table.instructions() == 0) throw Error("the " + arch->name() + " cubins disassembled to no instruction");

  const sass::Instruction128 hidden = table.hidden_bits();
  std::string barrier_ops;
  for (const auto& op : table.write_barrier_opcodes(kWriteBarrierShare)) barrier_ops += (barrier_ops.empty() ? "" : ", ") + op;
  ctx.extra()["arch"] = arch->name();
  ctx.extra()["cubins"] = cubin_count;
  ctx.extra()["control_word_position"] =
      instruction_bits_text(hidden.lo, hidden.hi) + ": the bits that differ between copies of identical disassembly";
  ctx.extra()["write_barrier_opcodes"] =
      barrier_ops + " (base opcodes ptxas gave a write barrier on at least 95 % of their instances here)";
  for (const auto& [key, opcode] : {std::pair{"addressing_global", "LDG"}, std::pair{"addressing_shared", "LDS"},
                                    std::pair{"addressing_constant", "LDC"}})
    if (const std::string a = addressing_text(table, opcode); !a.empty()) ctx.extra()[key] = a;

  ctx.metric("isa/instructions", double(table.instructions()));
  ctx.metric("isa/instruction_bits", double(table.instruction_bits()));
  ctx.metric("isa/opcodes", double(table.opcode_count()));
  ctx.metric("isa/forms", double(table.forms().size()));
  ctx.metric("isa/encoding_variants", double(table.variant_count()));
  ctx.metric("isa/forms_with_control", double(table.forms_with_control()));
  ctx.metric("control/hidden_bits", double(__builtin_popcountll(hidden.lo) + __builtin_popcountll(hidden.hi)));
}

ProbeSpec isa_tables_spec() {
  ProbeSpec s;
  s.id = "isa.tables";
  s.description = "ISA tables of this binary's own code for the device's arch (disassembled; no kernel runs)";
  s.needs.min_cc = 70;  // the control word read here is Volta's and later
  s.runs_no_sm_kernel = true;
  s.metrics = {{"isa/instructions", "count", "instructions disassembled"},
               {"isa/instruction_bits", "bits", "most frequent address step between consecutive instructions"},
               {"isa/opcodes", "count", "distinct base opcodes"},
               {"isa/forms", "count", "distinct forms (opcode with its modifiers)"},
               {"isa/encoding_variants", "count", "distinct forms with one operand-kind signature"},
               {"isa/forms_with_control", "count", "forms whose instances carry decoded scheduling control words"},
               {"control/hidden_bits", "bits", "bits that differ between copies of identical disassembly"}};
  s.run = run_isa_tables;
  s.time_cap_s = 60;
  s.quick_time_cap_s = 60;
  s.quick_leaves_out = "it describes this binary's code, not the GPU, and is CPU work over about a million "
                       "instructions (1.7-2.7 s of the quick runs of 2026-12-04); `gpudissect isa` prints the same tables";
  s.covers = {{"isa.instruction.width", "isa/instruction_bits", {}},
              {"isa.opcodes", "isa/opcodes", {}},
              {"isa.instruction_forms", "isa/forms", {}},
              {"isa.encoding_variants", "isa/encoding_variants", {}},
              {"isa.forms_with_scheduling", "isa/forms_with_control", {}},
              {"isa.addressing.global", "extra.addressing_global", {}},
              {"isa.addressing.shared", "extra.addressing_shared", {}},
              {"isa.addressing.constant", "extra.addressing_constant", {}},
              {"control.word.width", "control/hidden_bits", {}},
              {"control.word.position", "extra.control_word_position", {}},
              {"control.scoreboard.long_latency_ops", "extra.write_barrier_opcodes", {}}};
  return s;
}

GD_REGISTER_PROBE(isa_tables_spec());

}  // namespace probe_tables
}  // namespace gd
