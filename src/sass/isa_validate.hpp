// Whether an instruction word decodes to the form it is meant to have, judged by the enumerated
// tables (src/sass/isa_enumerated.hpp) without running a disassembler: the patcher checks each
// whole word it writes this way, so a bit slip that turns IMAD into IMAD.HI is caught before launch.
#pragma once
#include <string>
#include <vector>

#include "sass/isa_enumerated.hpp"

namespace gd::sass {

struct WordCheck {
  enum class Verdict {
    Matches,    // the word has the fixed bits of a variant of the expected form
    OtherForm,  // it has only other forms' fixed bits: it decodes to one of those
    Unknown,    // no variant of the table matches it (an encoding the enumeration did not reach)
    NoTable,    // no enumerated table for the arch
  };
  Verdict verdict = Verdict::NoTable;
  std::vector<std::string> forms;  // the forms whose fixed bits the word has
  std::string message;
  bool ok() const { return verdict == Verdict::Matches; }
};

WordCheck validate_word(const EnumeratedIsa& isa, const Instruction128& word, const std::string& expected_form);
// The same with the arch's committed table (enumerated_isa); NoTable when there is none.
WordCheck validate_word(const Arch& arch, const Instruction128& word, const std::string& expected_form);

// For the patcher: `new_word` replaces `old_word`. When it keeps the opcode field (bits 0..11),
// the intended form is the old word's: throws gd::Error when the table says the new word decodes
// to another form. Words the table cannot place, and arches without a table, pass unchecked.
void check_patched_word(const Arch& arch, const Instruction128& old_word, const Instruction128& new_word);
void check_patched_word(const EnumeratedIsa& isa, const Instruction128& old_word, const Instruction128& new_word);

}  // namespace gd::sass
