// Comparisons of the enumerated instruction-set tables (issue 29): one generation with the next
// (opcodes and forms new, removed or changed), a table with the SM100a reference in the seeds, and
// a table with the forms our compiled code uses.
#pragma once
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "sass/isa_enumerated.hpp"

namespace gd::sass {

struct GenerationDiff {
  std::string from, to;
  std::vector<std::string> opcodes_new, opcodes_removed;
  std::size_t opcodes_kept = 0;
  std::size_t forms_new = 0, forms_removed = 0, forms_kept = 0;
  // Forms in one table only whose opcode the other enumerated by sampling modifier combinations
  // (not exhaustively): their absence there is not evidence, so they count as neither new nor removed.
  std::size_t forms_unsampled = 0;
  // Kept forms whose operand-kind signatures differ, and those with the same signatures whose
  // fixed bits differ (the same text, encoded elsewhere).
  std::size_t forms_resigned = 0, forms_reencoded = 0;
  struct OpcodeChange {
    std::string opcode;
    std::size_t forms_from = 0, forms_to = 0, forms_new = 0, forms_removed = 0;
  };
  std::vector<OpcodeChange> opcode_changes;  // opcodes in both whose form sets differ
};
GenerationDiff diff_generations(const EnumeratedIsa& from, const EnumeratedIsa& to);

// What the SM100a reference (seeds/003_abb1e8f3e14594f1.txt) states: its three counts and the
// mnemonics its text names. Its instruction table is not in the seed, so the opcode-by-opcode
// comparison is limited to those names.
struct IsaReference {
  std::string name;
  std::size_t opcodes = 0, forms = 0, encoding_variants = 0;
  std::vector<std::string> named;  // "LDG", "LDG.E", ...
};
const IsaReference& sm100a_reference();

// Markdown: each table's counts, a diff between each consecutive pair, and the comparison with
// the reference for the sm_100a table when present.
void write_generations_markdown(std::ostream& os, const std::vector<const EnumeratedIsa*>& tables);

// Markdown for one arch: the enumerated counts, and per opcode its forms enumerated and seen in
// compiled code (`compiled_forms`, from the corpus tables), with the compiled forms the
// enumeration lacks.
void write_enumerated_markdown(std::ostream& os, const EnumeratedIsa& isa, const std::vector<std::string>& compiled_forms);

struct CompiledCoverage {
  std::size_t compiled = 0, enumerated = 0;  // compiled forms, and those the table holds
  std::vector<std::string> missing;          // compiled forms the table lacks
};
CompiledCoverage compiled_coverage(const EnumeratedIsa& isa, const std::vector<std::string>& compiled_forms);

}  // namespace gd::sass
