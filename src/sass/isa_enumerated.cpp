#include "sass/isa_enumerated.hpp"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <mutex>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/run_file.hpp"
#include "sass/fatbin.hpp"

namespace gd::sass {

namespace fs = std::filesystem;

namespace {

// Up to 32 hex digits, no "0x" (the tables' compact form), or with it (their seeds).
Instruction128 parse_hex128(std::string s, const std::string& source) {
  if (s.rfind("0x", 0) == 0) s.erase(0, 2);
  if (s.empty() || s.size() > 32 || s.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    throw UserError(source + ": '" + s + "' is not a 128-bit hex word");
  const std::size_t split = s.size() > 16 ? s.size() - 16 : 0;
  Instruction128 w;
  w.lo = std::stoull(s.substr(split), nullptr, 16);
  if (split > 0) w.hi = std::stoull(s.substr(0, split), nullptr, 16);
  return w;
}

// The bits a class fixes in every word: opcode, modifier, operand-kind and reserved bits.
Instruction128 encoding_mask(const std::string& bits) {
  Instruction128 m;
  for (std::size_t i = 0; i < bits.size() && i < 128; ++i) {
    const int bit = 127 - int(i);
    if (std::string("omkr").find(bits[i]) == std::string::npos) continue;
    (bit < 64 ? m.lo : m.hi) |= std::uint64_t(1) << (bit % 64);
  }
  return m;
}

EnumeratedClass class_from_json(const nlohmann::json& c) {
  EnumeratedClass out;
  out.opcode = c.at("opcode").get<std::string>();
  out.opcode_field = unsigned(std::stoul(c.at("opcode_field").get<std::string>(), nullptr, 16));
  out.bits = c.at("bits").get<std::string>();
  out.exhaustive = c.value("forms_exhaustive", false);
  if (c.contains("example") && c["example"].is_string()) out.example = c["example"].get<std::string>();
  return out;
}

EnumeratedCounts counts_from_json(const nlohmann::json& c) {
  EnumeratedCounts out;
  out.opcodes = c.at("opcodes").get<std::size_t>();
  out.encoding_classes = c.at("encoding_classes").get<std::size_t>();
  out.forms = c.at("forms").get<std::size_t>();
  out.encoding_variants = c.at("encoding_variants").get<std::size_t>();
  out.class_signatures = c.value("class_signatures", std::size_t(0));
  out.valid_words = c.value("valid_words", std::size_t(0));
  return out;
}

}  // namespace

bool EnumeratedVariant::matches(const Instruction128& w) const {
  return ((w.lo ^ fixed_value.lo) & fixed_mask.lo) == 0 && ((w.hi ^ fixed_value.hi) & fixed_mask.hi) == 0;
}

EnumeratedIsa EnumeratedIsa::parse(const std::string& text, const std::string& source) {
  EnumeratedIsa isa;
  try {
    const auto j = nlohmann::json::parse(text);
    isa.arch_ = j.at("arch").get<std::string>();
    isa.nvdisasm_ = j.value("nvdisasm", "");
    isa.command_ = j.value("command", "");
    isa.seconds_ = j.value("seconds", 0.0);
    isa.counts_ = counts_from_json(j.at("counts"));
    isa.opcodes_ = j.at("opcodes").get<std::vector<std::string>>();
    isa.compiled_opcodes_ = j.value("compiled_opcodes", std::vector<std::string>{});
    for (const auto& c : j.at("classes")) isa.classes_.push_back(class_from_json(c));
    const auto sigs = j.at("signatures").get<std::vector<std::string>>();
    for (const auto& [form, rows] : j.at("forms").items()) {
      auto& variants = isa.forms_[form];
      for (const auto& r : rows) {
        // [signature index, class index, instances, fixed value, differ, example word]
        EnumeratedVariant v;
        v.form = form;
        v.signature = sigs.at(r.at(0).get<std::size_t>());
        v.class_index = r.at(1).get<int>();
        v.count = r.at(2).get<std::size_t>();
        v.fixed_value = parse_hex128(r.at(3).get<std::string>(), source);
        const Instruction128 differ = parse_hex128(r.at(4).get<std::string>(), source);
        const Instruction128 base = v.class_index >= 0 && std::size_t(v.class_index) < isa.classes_.size()
                                        ? encoding_mask(isa.classes_[std::size_t(v.class_index)].bits)
                                        : Instruction128{0xfff, 0};
        v.fixed_mask = {base.lo & ~differ.lo, base.hi & ~differ.hi};
        v.example = parse_hex128(r.at(5).get<std::string>(), source);
        variants.push_back(std::move(v));
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw UserError(source + ": not an enumerated ISA table (" + e.what() + ")");
  } catch (const std::out_of_range& e) {
    throw UserError(source + ": an index or number out of range in the ISA table (" + e.what() + ")");
  } catch (const std::invalid_argument& e) {
    throw UserError(source + ": a malformed number in the ISA table (" + e.what() + ")");
  }
  isa.index();
  return isa;
}

EnumeratedIsa EnumeratedIsa::load(const std::string& path) { return parse(read_run_text(path), path); }

void EnumeratedIsa::index() {
  by_opcode_field_.clear();
  loose_.clear();
  for (const auto& [_, variants] : forms_)
    for (const auto& v : variants)
      if ((v.fixed_mask.lo & 0xfff) == 0xfff) by_opcode_field_.emplace(unsigned(v.fixed_value.lo & 0xfff), &v);
      else loose_.push_back(&v);
}

bool EnumeratedIsa::has_opcode(const std::string& opcode) const {
  return std::binary_search(opcodes_.begin(), opcodes_.end(), opcode);
}

std::vector<const EnumeratedVariant*> EnumeratedIsa::matching(const Instruction128& w) const {
  std::vector<const EnumeratedVariant*> out;
  const auto [first, last] = by_opcode_field_.equal_range(unsigned(w.lo & 0xfff));
  for (auto it = first; it != last; ++it)
    if (it->second->matches(w)) out.push_back(it->second);
  for (const auto* v : loose_)
    if (v->matches(w)) out.push_back(v);
  return out;
}

std::string enumerated_isa_path(const Arch& arch) {
  const fs::path exe_dir = fs::path(own_executable_path()).parent_path();
  for (const fs::path& up : {fs::path("."), fs::path("..")})
    for (const char* ext : {".json.gz", ".json"}) {
      const fs::path p = exe_dir / up / "data/isa" / (arch.name() + ext);
      std::error_code ec;
      if (fs::is_regular_file(p, ec)) return fs::weakly_canonical(p).string();
    }
  return "";
}

const EnumeratedIsa* enumerated_isa(const Arch& arch) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<EnumeratedIsa>> loaded;
  const std::lock_guard lock(mu);
  auto [it, fresh] = loaded.try_emplace(arch.name());
  if (fresh) {
    const std::string path = enumerated_isa_path(arch);
    if (!path.empty()) it->second = std::make_unique<EnumeratedIsa>(EnumeratedIsa::load(path));
  }
  return it->second.get();
}

}  // namespace gd::sass
