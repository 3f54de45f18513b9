#include "sass/isa_validate.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

#include "core/error.hpp"

namespace gd::sass {

namespace {

std::string hex(const Instruction128& w) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "0x%016llx%016llx", static_cast<unsigned long long>(w.hi),
                static_cast<unsigned long long>(w.lo));
  return buf;
}

std::vector<std::string> forms_of(const EnumeratedIsa& isa, const Instruction128& w) {
  std::set<std::string> forms;
  for (const auto* v : isa.matching(w)) forms.insert(v->form);
  return {forms.begin(), forms.end()};
}

std::string joined(const std::vector<std::string>& forms) {
  std::string out;
  for (const auto& f : forms) out += (out.empty() ? "" : " or ") + f;
  return out;
}

}  // namespace

WordCheck validate_word(const EnumeratedIsa& isa, const Instruction128& word, const std::string& expected_form) {
  WordCheck c;
  c.forms = forms_of(isa, word);
  const std::string what = "word " + hex(word) + " (" + isa.arch() + ")";
  if (std::find(c.forms.begin(), c.forms.end(), expected_form) != c.forms.end()) {
    c.verdict = WordCheck::Verdict::Matches;
    c.message = what + " is " + expected_form;
  } else if (!c.forms.empty()) {
    c.verdict = WordCheck::Verdict::OtherForm;
    c.message = what + " decodes to " + joined(c.forms) + ", not the intended " + expected_form;
  } else {
    c.verdict = WordCheck::Verdict::Unknown;
    c.message = what + " matches no enumerated encoding (intended " + expected_form + ")";
  }
  return c;
}

WordCheck validate_word(const Arch& arch, const Instruction128& word, const std::string& expected_form) {
  if (const EnumeratedIsa* isa = enumerated_isa(arch)) return validate_word(*isa, word, expected_form);
  WordCheck c;
  c.message = "no enumerated ISA table for " + arch.name() + " (data/isa/" + arch.name() + ".json.gz)";
  return c;
}

void check_patched_word(const Arch& arch, const Instruction128& old_word, const Instruction128& new_word) {
  if (const EnumeratedIsa* isa = enumerated_isa(arch)) check_patched_word(*isa, old_word, new_word);
}

void check_patched_word(const EnumeratedIsa& isa, const Instruction128& old_word, const Instruction128& new_word) {
  if ((old_word.lo & 0xfff) != (new_word.lo & 0xfff)) return;  // another instruction on purpose
  const std::vector<std::string> intended = forms_of(isa, old_word);
  if (intended.empty()) return;  // the table cannot place the original: nothing to hold the new word to
  const std::vector<std::string> now = forms_of(isa, new_word);
  if (now.empty()) return;
  for (const auto& f : intended)
    if (std::find(now.begin(), now.end(), f) != now.end()) return;
  throw Error("patched " + hex(new_word) + " (" + isa.arch() + ") decodes to " + joined(now) + ", not " +
              joined(intended) + " as the word it replaces " + hex(old_word));
}

}  // namespace gd::sass
