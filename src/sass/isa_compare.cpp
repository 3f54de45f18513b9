#include "sass/isa_compare.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace gd::sass {

namespace {

std::string base_of(const std::string& form) { return form.substr(0, form.find('.')); }

// Signature -> fixed mask and value of a form's variants, for comparing one form across tables.
std::map<std::string, std::pair<Instruction128, Instruction128>> encodings(const std::vector<EnumeratedVariant>& vs) {
  std::map<std::string, std::pair<Instruction128, Instruction128>> out;
  for (const auto& v : vs) out.emplace(v.signature, std::make_pair(v.fixed_mask, v.fixed_value));
  return out;
}

// Whether two variants of one form fix different values on the bits both fix.
bool encoded_differently(const std::pair<Instruction128, Instruction128>& a,
                         const std::pair<Instruction128, Instruction128>& b) {
  const Instruction128 both{a.first.lo & b.first.lo, a.first.hi & b.first.hi};
  return ((a.second.lo ^ b.second.lo) & both.lo) != 0 || ((a.second.hi ^ b.second.hi) & both.hi) != 0;
}

void compare_kept_form(const std::vector<EnumeratedVariant>& a, const std::vector<EnumeratedVariant>& b,
                       GenerationDiff& d) {
  const auto ea = encodings(a), eb = encodings(b);
  bool same_sigs = ea.size() == eb.size();
  bool moved = false;
  for (const auto& [sig, enc] : ea) {
    const auto it = eb.find(sig);
    if (it == eb.end()) same_sigs = false;
    else moved = moved || encoded_differently(enc, it->second);
  }
  if (!same_sigs) ++d.forms_resigned;
  else if (moved) ++d.forms_reencoded;
}

// Whether `isa` holds every form of `opcode` it accepts: each of its classes was enumerated
// exhaustively (an opcode it lacks altogether is absent for certain: the opcode field was scanned).
bool forms_complete(const EnumeratedIsa& isa, const std::string& opcode) {
  for (const auto& c : isa.classes())
    if (c.opcode == opcode && !c.exhaustive) return false;
  return true;
}

std::string list(const std::vector<std::string>& names, std::size_t most = 400) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < most; ++i) out += (out.empty() ? "" : ", ") + names[i];
  if (names.size() > most) out += ", ... (" + std::to_string(names.size() - most) + " more)";
  return out.empty() ? "none" : out;
}

std::map<std::string, std::size_t> forms_per_opcode(const EnumeratedIsa& isa) {
  std::map<std::string, std::size_t> n;
  for (const auto& [form, _] : isa.forms()) ++n[base_of(form)];
  return n;
}

void write_counts(std::ostream& os, const std::vector<const EnumeratedIsa*>& tables) {
  os << "| arch | opcodes | encoding classes | forms | encoding variants | class signatures | accepted words "
        "| enumeration time (2 cores) | nvdisasm |\n|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const auto* t : tables) {
    const auto& c = t->counts();
    os << "| " << t->arch() << " | " << c.opcodes << " | " << c.encoding_classes << " | " << c.forms << " | "
       << c.encoding_variants << " | " << c.class_signatures << " | " << c.valid_words << " | " << t->seconds()
       << " s | " << t->nvdisasm() << " |\n";
  }
  os << "\nAn encoding class is an opcode with one value of the opcode field (bits 0..11, which also select "
        "the operand types: register, immediate, constant, uniform); a form is the opcode with its modifiers "
        "as printed (`IMAD.WIDE.U32`); an encoding variant is a form with one operand-kind signature; a class "
        "signature is a class with one operand-kind signature, modifiers set aside.\n";
}

void write_diff(std::ostream& os, const GenerationDiff& d) {
  os << "\n## " << d.from << " → " << d.to << "\n\n| | opcodes | forms |\n|---|---:|---:|\n"
     << "| new in " << d.to << " | " << d.opcodes_new.size() << " | " << d.forms_new << " |\n"
     << "| removed | " << d.opcodes_removed.size() << " | " << d.forms_removed << " |\n"
     << "| kept | " << d.opcodes_kept << " | " << d.forms_kept << " |\n"
     << "| kept, operand kinds changed | | " << d.forms_resigned << " |\n"
     << "| kept, encoding changed | | " << d.forms_reencoded << " |\n"
     << "| in one table only, the other sampled that opcode's modifiers | | " << d.forms_unsampled << " |\n\n"
     << "New opcodes: " << list(d.opcodes_new) << ".\n\nRemoved opcodes: " << list(d.opcodes_removed) << ".\n\n";
  if (d.opcode_changes.empty()) return;
  os << "Opcodes in both whose forms changed:\n\n| opcode | forms in " << d.from << " | forms in " << d.to
     << " | new | removed |\n|---|---:|---:|---:|---:|\n";
  for (const auto& c : d.opcode_changes)
    os << "| " << c.opcode << " | " << c.forms_from << " | " << c.forms_to << " | " << c.forms_new << " | "
       << c.forms_removed << " |\n";
}

void write_reference(std::ostream& os, const EnumeratedIsa& isa) {
  const IsaReference& r = sm100a_reference();
  const auto& c = isa.counts();
  os << "\n## " << isa.arch() << " against the " << r.name << "\n\n"
     << "| | reference | enumerated |\n|---|---:|---:|\n"
     << "| opcodes | " << r.opcodes << " | " << c.opcodes << " |\n"
     << "| instruction forms (ours: encoding classes) | " << r.forms << " | " << c.encoding_classes << " |\n"
     << "| encoding variants (ours: class signatures) | " << r.encoding_variants << " | " << c.class_signatures << " |\n"
     << "| forms with modifiers / their variants | | " << c.forms << " / " << c.encoding_variants << " |\n\n"
     << "The reference found its instructions by replaying a 20-million-instruction corpus: what compilers "
        "emit. Its table of opcodes is not in the copy we hold, so opcodes are compared by the mnemonics its text "
        "names:\n\n| named in the reference | enumerated |\n|---|---|\n";
  for (const auto& n : r.named) {
    const bool found = n.find('.') == std::string::npos ? isa.has_opcode(n) : isa.forms().count(n) > 0;
    os << "| " << n << " | " << (found ? "yes" : "no") << " |\n";
  }
  if (isa.compiled_opcodes().empty()) return;
  std::vector<std::string> never;
  for (const auto& op : isa.opcodes())
    if (!std::binary_search(isa.compiled_opcodes().begin(), isa.compiled_opcodes().end(), op)) never.push_back(op);
  os << "\nWhat a survey of compiled code cannot see: of the " << isa.opcodes().size() << " enumerated opcodes, our "
     << "corpus compiled for " << isa.arch() << " emits " << isa.compiled_opcodes().size() << "; the other "
     << never.size() << " (graphics-pipeline, debug and system instructions among them) are the likeliest to be "
     << "missing from a corpus-replayed reference: " << list(never) << ".\n";
}

}  // namespace

GenerationDiff diff_generations(const EnumeratedIsa& from, const EnumeratedIsa& to) {
  GenerationDiff d;
  d.from = from.arch();
  d.to = to.arch();
  for (const auto& op : to.opcodes())
    if (!from.has_opcode(op)) d.opcodes_new.push_back(op);
  for (const auto& op : from.opcodes())
    if (!to.has_opcode(op)) d.opcodes_removed.push_back(op);
    else ++d.opcodes_kept;
  std::map<std::string, GenerationDiff::OpcodeChange> per_opcode;
  for (const auto& [form, variants] : to.forms()) {
    const auto it = from.forms().find(form);
    if (it == from.forms().end()) {
      if (!forms_complete(from, base_of(form))) {
        ++d.forms_unsampled;
        continue;
      }
      ++d.forms_new;
      ++per_opcode[base_of(form)].forms_new;
      continue;
    }
    ++d.forms_kept;
    compare_kept_form(it->second, variants, d);
  }
  for (const auto& [form, _] : from.forms()) {
    if (to.forms().count(form)) continue;
    if (!forms_complete(to, base_of(form))) ++d.forms_unsampled;
    else ++d.forms_removed, ++per_opcode[base_of(form)].forms_removed;
  }
  const auto nf = forms_per_opcode(from), nt = forms_per_opcode(to);
  for (auto& [op, c] : per_opcode) {
    if (!from.has_opcode(op) || !to.has_opcode(op)) continue;
    c.opcode = op;
    c.forms_from = nf.at(op);
    c.forms_to = nt.at(op);
    d.opcode_changes.push_back(c);
  }
  return d;
}

const IsaReference& sm100a_reference() {
  // seeds/003_abb1e8f3e14594f1.txt: "163 opcodes · 400 instruction forms · 1628 encoding variants",
  // and the mnemonics its sections on divergence, barriers and addressing name.
  static const IsaReference r{"SM100a ISA reference", 163, 400, 1628,
                              {"BSSY", "BSYNC", "LDC", "LDG", "LDG.E", "LDS", "S2R", "STG", "TEX", "WARPSYNC"}};
  return r;
}

void write_generations_markdown(std::ostream& os, const std::vector<const EnumeratedIsa*>& tables) {
  os << "# The SASS instruction set across generations, enumerated from the disassembler\n\n"
     << "Tables: `data/isa/<arch>.json.gz`, written by `scripts/isa_enumerate.py` (each records its command). "
        "This page: `gpudissect isa --generations`.\n\n";
  write_counts(os, tables);
  for (std::size_t i = 1; i < tables.size(); ++i) write_diff(os, diff_generations(*tables[i - 1], *tables[i]));
  for (const auto* t : tables)
    if (t->arch() == "sm_100a") write_reference(os, *t);
}

CompiledCoverage compiled_coverage(const EnumeratedIsa& isa, const std::vector<std::string>& compiled_forms) {
  CompiledCoverage c;
  for (const auto& f : compiled_forms) {
    ++c.compiled;
    if (isa.forms().count(f)) ++c.enumerated;
    else c.missing.push_back(f);
  }
  return c;
}

void write_enumerated_markdown(std::ostream& os, const EnumeratedIsa& isa, const std::vector<std::string>& compiled_forms) {
  const std::set<std::string> compiled(compiled_forms.begin(), compiled_forms.end());
  const CompiledCoverage cov = compiled_coverage(isa, compiled_forms);
  os << "# " << isa.arch() << " instruction set, enumerated\n\nFrom `data/isa/" << isa.arch()
     << ".json.gz`, regenerated by `" << isa.command() << "` (" << isa.nvdisasm() << ").\n\n";
  write_counts(os, {&isa});
  os << "\nSeen in compiled code (the corpus tables beside this file): " << cov.compiled << " forms, "
     << cov.enumerated << " of them enumerated. Compiled forms the enumeration lacks: " << list(cov.missing)
     << ".\n\n| opcode | forms enumerated | forms seen in compiled code |\n|---|---:|---:|\n";
  std::map<std::string, std::size_t> seen;
  for (const auto& f : compiled) ++seen[base_of(f)];
  for (const auto& [op, n] : forms_per_opcode(isa)) os << "| " << op << " | " << n << " | " << seen[op] << " |\n";
}

}  // namespace gd::sass
