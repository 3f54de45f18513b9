#include "sass/isa.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "core/spawn.hpp"
#include "core/output_file.hpp"
#include "core/parallel.hpp"
#include "sass/fatbin.hpp"

namespace gd::sass {

namespace fs = std::filesystem;

namespace {

bool bit(const Instruction128& w, int i) { return ((i < 64 ? w.lo >> i : w.hi >> (i - 64)) & 1) != 0; }

bool is_control_bit(int i) { return i >= 105 && i <= 125; }

std::string hex128(const Instruction128& w) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "0x%016llx%016llx", static_cast<unsigned long long>(w.hi),
                static_cast<unsigned long long>(w.lo));
  return buf;
}

std::string percent(std::size_t part, std::size_t whole) {
  if (whole == 0) return "-";
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100.0 * double(part) / double(whole));
  return buf;
}

void add_to_variant(EncodingVariant& v, const Instruction128& raw) {
  Instruction128 w = raw;
  w.hi &= ~ControlWord::kMask;
  if (v.count == 0) {
    v.fixed_value = w;
    v.fixed_mask = {~std::uint64_t(0), ~ControlWord::kMask};
  } else {
    // A bit stays fixed only while every instance agrees with the first.
    v.fixed_mask.lo &= ~(w.lo ^ v.fixed_value.lo);
    v.fixed_mask.hi &= ~(w.hi ^ v.fixed_value.hi);
  }
  v.fixed_value.lo &= v.fixed_mask.lo;
  v.fixed_value.hi &= v.fixed_mask.hi;
  ++v.count;
}

void add_to_control(ControlStats& c, const ControlWord& w) {
  ++c.count;
  ++c.stalls[w.stall];
  c.write_barrier += w.write_barrier != ControlWord::kNoBarrier;
  c.read_barrier += w.read_barrier != ControlWord::kNoBarrier;
  c.waits += w.wait_mask != 0;
  c.yields += w.yield;
  c.reuse += w.reuse != 0;
}

nlohmann::json control_json(const ControlStats& c) {
  nlohmann::json stalls = nlohmann::json::object();
  for (const auto& [s, n] : c.stalls) stalls[std::to_string(s)] = n;
  return {{"count", c.count},       {"typical_stall", c.typical_stall()}, {"stall_histogram", stalls},
          {"write_barrier", c.write_barrier}, {"read_barrier", c.read_barrier}, {"wait", c.waits},
          {"yield", c.yields},      {"reuse", c.reuse}};
}

// $GPUDISSECT_NVCC (an absolute path), else PATH's absolute folders and the toolkit's: never the
// current folder, where an unpacked results folder could hold a planted `nvcc`.
std::optional<std::string> find_nvcc() {
  if (const char* p = std::getenv("GPUDISSECT_NVCC"); p && *p) return require_absolute_tool(p, "GPUDISSECT_NVCC");
  return find_tool_on_path("nvcc");
}

fs::path default_corpus_dir() {
  const fs::path exe_dir = fs::path(own_executable_path()).parent_path();
  for (const fs::path& up : {fs::path(".."), fs::path("../..")}) {
    const fs::path p = exe_dir / up / "src/sass/corpus";
    std::error_code ec;
    if (fs::is_directory(p, ec)) return fs::weakly_canonical(p);
  }
  return {};
}

std::string gencode(const Arch& a) {
  const std::string n = std::to_string(a.sm) + (a.specific ? "a" : "");
  return "arch=compute_" + n + ",code=sm_" + n;
}

// Compiles each corpus file for the arch, one nvcc per core at a time (nvcc spends about half a
// second per file, most of the command's time); returns the cubins that built, in file order.
std::vector<Cubin> compile_corpus(const fs::path& dir, const Arch& arch, bool explicit_dir, std::ostream& log) {
  std::vector<Cubin> out;
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".cu") files.push_back(e.path());
  if (ec) throw UserError("cannot read the corpus folder " + dir.string() + ": " + ec.message());
  if (files.empty()) throw UserError("the corpus folder " + dir.string() + " holds no .cu files");
  std::sort(files.begin(), files.end());
  const auto nvcc = find_nvcc();
  if (!nvcc) {
    if (explicit_dir) throw Error("--corpus needs nvcc to compile " + dir.string() + ", and nvcc is not found");
    log << "gpudissect: note: nvcc not found; the PTX corpus is skipped\n";
    return out;
  }
  std::vector<std::optional<TempFile>> cubins(files.size());
  std::vector<Captured> results(files.size());
  parallel_for(files.size(), [&](std::size_t i) {
    cubins[i].emplace(".cubin");
    results[i] = run_capture({*nvcc, "-cubin", "-O3", "-gencode", gencode(arch), "-o", cubins[i]->path(),
                              files[i].string()});
  });
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (results[i].status != 0) {
      log << "gpudissect: note: corpus file " << files[i].filename().string() << " does not build for "
          << arch.name() << ": " << results[i].output.substr(0, 300) << "\n";
      continue;
    }
    out.push_back(Cubin::from_file(cubins[i]->path()));
  }
  return out;
}

}  // namespace

int ControlStats::typical_stall() const {
  int best = 0;
  std::size_t n = 0;
  for (const auto& [s, c] : stalls)
    if (c > n) best = s, n = c;
  return best;
}

std::string operand_kind(const std::string& op) {
  std::string o = op;
  while (!o.empty() && (o[0] == '-' || o[0] == '!' || o[0] == '|' || o[0] == '~')) o.erase(0, 1);
  if (o.empty()) return "?";
  if (o.rfind("desc[", 0) == 0) return "desc";
  if (o.rfind("c[", 0) == 0 || o.rfind("cx[", 0) == 0) return "c";
  if (o[0] == '[') return "mem";
  if (o.rfind("SR_", 0) == 0) return "SR";
  if (o.rfind("UR", 0) == 0) return "UR";
  if (o.rfind("UP", 0) == 0) return "UP";
  if (o[0] == 'R' && (o.size() == 1 || std::isdigit(static_cast<unsigned char>(o[1])) || o.rfind("RZ", 0) == 0)) return "R";
  if (o[0] == 'P' && (o.size() > 1 && (std::isdigit(static_cast<unsigned char>(o[1])) || o[1] == 'T'))) return "P";
  if (o[0] == 'B' && o.size() > 1 && std::isdigit(static_cast<unsigned char>(o[1]))) return "B";
  if (o[0] == '`' || o.rfind("0x", 0) == 0 || std::isdigit(static_cast<unsigned char>(o[0])) || o[0] == '+' ||
      o.find("INF") != std::string::npos || o.find("NAN") != std::string::npos)
    return "imm";
  return o;  // a keyword operand (e.g. a LUT name or a mode) is part of the form
}

std::vector<BitField> varying_fields(const Instruction128& mask) {
  std::vector<BitField> out;
  for (int i = 0; i < 128;) {
    if (!bit(mask, i) || is_control_bit(i)) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 128 && bit(mask, j) && !is_control_bit(j)) ++j;
    out.push_back({i, j - i});
    i = j;
  }
  return out;
}

namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

std::string drop_reuse(std::string t) {
  for (std::size_t p; (p = t.find(".reuse")) != std::string::npos;) t.erase(p, 6);
  return t;
}

// Text whose identical copies may still differ in bits: a branch, call, return or collective
// target (a label, or the kernel-relative address nvdisasm's raw mode prints, while the bits hold
// an offset from the instruction), or a float, NaN or INF immediate (printed rounded or without
// its payload).
bool text_hides_operand_bits(const SassInstruction& inst) {
  static const std::set<std::string> targets = {"BRA", "BRX", "BRXU", "BSSY", "CALL", "JMP", "JMX", "JMXU",
                                                "SSY", "PBK", "PCNT", "CAL", "JCAL", "RET", "WARPSYNC"};
  if (targets.count(inst.base_opcode())) return true;
  for (const auto& o : inst.operands) {
    if (o.find('`') != std::string::npos || o.find("NAN") != std::string::npos || o.find("INF") != std::string::npos)
      return true;
    std::string v = o;
    while (!v.empty() && (v[0] == '-' || v[0] == '|' || v[0] == '+')) v.erase(0, 1);
    if (!v.empty() && std::isdigit(static_cast<unsigned char>(v[0])) && v.rfind("0x", 0) != 0 &&
        v.find_first_of(".e") != std::string::npos)
      return true;
  }
  return false;
}

}  // namespace

std::string addressing_form(const SassInstruction& inst) {
  std::string in;
  for (const auto& o : inst.operands) in += (in.empty() ? "" : ", ") + o;
  in = drop_reuse(in);
  std::string out = inst.opcode + (in.empty() ? "" : " ");
  // A register or a number starts where no identifier character precedes it ("R2.64": the
  // register is abstracted, its ".64" kept).
  const auto digits_end = [&](std::size_t j) {
    while (j < in.size() && std::isdigit(static_cast<unsigned char>(in[j]))) ++j;
    return j;
  };
  for (std::size_t i = 0; i < in.size();) {
    const bool start = i == 0 || !ident_char(in[i - 1]);
    std::size_t end = i;
    std::string as;
    if (start)
      for (const std::string reg : {"UR", "UP", "R", "P", "B"}) {
        const std::size_t k = in.compare(i, reg.size(), reg) == 0 ? digits_end(i + reg.size()) : i;
        if (k > i + reg.size() && (k == in.size() || !std::isalnum(static_cast<unsigned char>(in[k])))) {
          end = k, as = reg;
          break;
        }
      }
    if (start && as.empty() && std::isdigit(static_cast<unsigned char>(in[i]))) {
      end = i + (in.compare(i, 2, "0x") == 0 ? 2 : 0);
      while (end < in.size() && (std::isxdigit(static_cast<unsigned char>(in[end])) || in[end] == '.')) ++end;
      as = "imm";
    }
    if (as.empty()) {
      out += in[i++];
    } else {
      out += as;
      i = end;
    }
  }
  return out;
}

void IsaTable::add_kernel(const std::vector<SassInstruction>& insts) {
  for (std::size_t i = 0; i < insts.size(); ++i) {
    add(insts[i]);
    if (i > 0 && insts[i].address > insts[i - 1].address) ++steps_[insts[i].address - insts[i - 1].address];
  }
}

int IsaTable::instruction_bits() const {
  std::uint64_t best = 0;
  std::size_t n = 0;
  for (const auto& [step, c] : steps_)
    if (c > n) best = step, n = c;
  return int(best * 8);
}

std::vector<std::size_t> IsaTable::hidden_bit_groups() const {
  std::vector<std::size_t> n(128, 0);
  for (const auto& [_, s] : same_text_)
    for (int i = 0; i < 128; ++i) n[std::size_t(i)] += bit(s.differ, i);
  return n;
}

Instruction128 IsaTable::hidden_bits(double min_share) const {
  const std::vector<std::size_t> n = hidden_bit_groups();
  const std::size_t most = *std::max_element(n.begin(), n.end());
  Instruction128 m{0, 0};
  for (int i = 0; i < 128; ++i)
    if (n[std::size_t(i)] > 0 && double(n[std::size_t(i)]) >= min_share * double(most))
      (i < 64 ? m.lo : m.hi) |= std::uint64_t(1) << (i % 64);
  return m;
}

std::size_t IsaTable::forms_with_control() const {
  return std::size_t(std::count_if(forms_.begin(), forms_.end(), [](const auto& f) { return f.second.control.count > 0; }));
}

AddressingForm IsaTable::addressing(const std::string& base_opcode) const {
  AddressingForm a;
  const auto it = addressing_.find(base_opcode);
  if (it == addressing_.end()) return a;
  a.distinct = it->second.size();
  for (const auto& [form, n] : it->second) {
    a.total += n;
    if (n > a.count) a.form = form, a.count = n;
  }
  return a;
}

std::vector<std::string> IsaTable::write_barrier_opcodes(double share) const {
  std::map<std::string, std::pair<std::size_t, std::size_t>> ops;  // opcode -> with a write barrier, instances
  for (const auto& [_, f] : forms_) {
    ops[f.opcode].first += f.control.write_barrier;
    ops[f.opcode].second += f.control.count;
  }
  std::vector<std::string> out;
  for (const auto& [op, n] : ops)
    if (n.second > 0 && double(n.first) >= share * double(n.second)) out.push_back(op);
  return out;
}

void IsaTable::add(const SassInstruction& inst) {
  if (inst.opcode.empty()) return;
  if (!text_hides_operand_bits(inst)) {
    auto [it, fresh] = same_text_.try_emplace(drop_reuse(inst.text), SameText{inst.raw, {0, 0}});
    if (!fresh) it->second.differ.lo |= inst.raw.lo ^ it->second.first.lo, it->second.differ.hi |= inst.raw.hi ^ it->second.first.hi;
  }
  for (const auto& o : inst.operands) {
    const std::string k = operand_kind(o);
    if (k == "desc" || k == "mem" || k == "c") {
      ++addressing_[inst.base_opcode()][addressing_form(inst)];
      break;
    }
  }
  ++instructions_;
  InstructionForm& f = forms_[inst.opcode];
  if (f.count++ == 0) {
    f.form = inst.opcode;
    f.opcode = inst.base_opcode();
    f.example = inst.text;
  }
  std::string sig;
  for (const auto& o : inst.operands) sig += (sig.empty() ? "" : ", ") + operand_kind(o);
  add_to_variant(f.variants[sig], inst.raw);
  f.variants[sig].signature = sig;
  add_to_control(f.control, inst.control);
}

std::size_t IsaTable::opcode_count() const {
  std::set<std::string> ops;
  for (const auto& [_, f] : forms_) ops.insert(f.opcode);
  return ops.size();
}

std::size_t IsaTable::variant_count() const {
  std::size_t n = 0;
  for (const auto& [_, f] : forms_) n += f.variants.size();
  return n;
}

nlohmann::json IsaTable::addressing_json() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [op, _] : addressing_) {
    const AddressingForm a = addressing(op);
    out[op] = {{"form", a.form}, {"count", a.count}, {"total", a.total}, {"distinct", a.distinct}};
  }
  return out;
}

nlohmann::json IsaTable::to_json(const std::string& arch) const {
  nlohmann::json forms = nlohmann::json::array();
  for (const auto& [name, f] : forms_) {
    nlohmann::json variants = nlohmann::json::array();
    for (const auto& [sig, v] : f.variants) {
      Instruction128 varying{~v.fixed_mask.lo, ~v.fixed_mask.hi & ~ControlWord::kMask};
      nlohmann::json fields = nlohmann::json::array();
      for (const auto& b : varying_fields(varying)) fields.push_back({{"shift", b.shift}, {"width", b.width}});
      variants.push_back({{"operands", sig}, {"count", v.count}, {"fixed_mask", hex128(v.fixed_mask)},
                          {"fixed_value", hex128(v.fixed_value)}, {"varying_fields", fields}});
    }
    forms.push_back({{"form", name}, {"opcode", f.opcode}, {"count", f.count}, {"example", f.example},
                     {"control", control_json(f.control)}, {"variants", variants}});
  }
  return {{"arch", arch},
          {"instructions", instructions_},
          {"opcodes", opcode_count()},
          {"forms", forms_.size()},
          {"encoding_variants", variant_count()},
          {"instruction_bits", instruction_bits()},
          {"hidden_bits", hex128(hidden_bits())},
          {"hidden_bit_groups", hidden_bit_groups()},
          {"forms_with_control", forms_with_control()},
          {"write_barrier_opcodes_95", write_barrier_opcodes(0.95)},
          {"addressing", addressing_json()},
          {"control_bits", "instruction bits 105..125: stall 105-108, yield 109 (inverted), write barrier "
                           "110-112, read barrier 113-115, wait mask 116-121, reuse 122-125"},
          {"form_table", forms}};
}

void IsaTable::write_markdown(std::ostream& os, const std::string& arch, const std::string& corpus_note) const {
  os << "# " << arch << " instruction set, as compiled\n\n"
     << "Built by `gpudissect isa` from " << corpus_note << ". " << instructions_ << " instructions: "
     << opcode_count() << " opcodes, " << forms_.size() << " forms, " << variant_count()
     << " encoding variants (a form with one operand-kind signature).\n\n"
     << "Control word: bits 105-108 stall, 109 yield (stored inverted), 110-112 write barrier, "
        "113-115 read barrier, 116-121 wait mask, 122-125 operand reuse.\n\n"
     << "## Opcodes\n\n| opcode | forms | instances |\n|---|---:|---:|\n";
  std::map<std::string, std::pair<std::size_t, std::size_t>> ops;
  for (const auto& [_, f] : forms_) {
    ops[f.opcode].first += 1;
    ops[f.opcode].second += f.count;
  }
  for (const auto& [op, n] : ops) os << "| " << op << " | " << n.first << " | " << n.second << " |\n";
  os << "\n## Forms\n\n| form | instances | variants | typical stall | write bar | read bar | waits | yield "
        "| reuse | example |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const auto& [name, f] : forms_) {
    const auto& c = f.control;
    os << "| " << name << " | " << f.count << " | " << f.variants.size() << " | " << c.typical_stall() << " | "
       << percent(c.write_barrier, c.count) << " | " << percent(c.read_barrier, c.count) << " | "
       << percent(c.waits, c.count) << " | " << percent(c.yields, c.count) << " | " << percent(c.reuse, c.count)
       << " | `" << f.example << "` |\n";
  }
  os << "\n## Encoding variants\n\nFixed bits exclude the control word; varying fields are [shift +width] "
        "runs of bits that differ between instances.\n\n| form | operands | instances | fixed mask | fixed value "
        "| varying fields |\n|---|---|---:|---|---|---|\n";
  for (const auto& [name, f] : forms_)
    for (const auto& [sig, v] : f.variants) {
      std::string fields;
      Instruction128 varying{~v.fixed_mask.lo, ~v.fixed_mask.hi & ~ControlWord::kMask};
      for (const auto& b : varying_fields(varying)) {
        // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string chains.
        if (!fields.empty()) fields += ' ';
        fields.append("[").append(std::to_string(b.shift)).append(" +").append(std::to_string(b.width)).append("]");
      }
      os << "| " << name << " | " << sig << " | " << v.count << " | `" << hex128(v.fixed_mask) << "` | `"
         << hex128(v.fixed_value) << "` | " << fields << " |\n";
    }
}

std::string arch_suggestion(const Arch& asked, const std::vector<Arch>& present) {
  for (const Arch& a : present)
    if (a.sm == asked.sm && a.specific != asked.specific) return a.name();
  return "";
}

std::string missing_arch_message(const std::string& binary, const Arch& asked, const std::vector<Arch>& present) {
  std::string have;
  for (const auto& a : present)
    if (have.find(a.name()) == std::string::npos) have += (have.empty() ? "" : ", ") + a.name();
  std::string msg = binary + " carries no " + asked.name() + " code (it has: " + (have.empty() ? "none" : have) + ")";
  if (const std::string near = arch_suggestion(asked, present); !near.empty()) msg += "; did you mean " + near + "?";
  return msg;
}

IsaSummary build_isa_tables(const IsaOptions& opts, std::ostream& log) {
  const Arch arch = Arch::parse(opts.arch_text);
  const fs::path out = opts.out_dir.empty() ? fs::path("isa-" + arch.name()) : fs::path(opts.out_dir);
  check_output_dir(out.string());  // before the seconds of compiling and disassembling
  auto embedded = embedded_cubins(opts.executable.empty() ? own_executable_path() : opts.executable);
  std::vector<Cubin> cubins;
  std::vector<Arch> present;
  for (auto& c : embedded.cubins) {
    if (std::find(present.begin(), present.end(), c.arch()) == present.end()) present.push_back(c.arch());
    if (c.arch() == arch) cubins.push_back(std::move(c));
  }
  const std::size_t from_binary = cubins.size();
  // An arch the binary does not carry is one nothing here targets: the corpus would half build
  // (wgmma and friends need the arch-specific targets), one compiler dump per file, and the
  // tables would describe only what happened to compile.
  if (from_binary == 0)
    throw UserError(missing_arch_message(
        opts.executable.empty() ? "this gpudissect binary" : "'" + opts.executable + "'", arch, present));
  std::string corpus_note = std::to_string(from_binary) + " cubin(s) of the gpudissect binary";
  if (!opts.skip_corpus) {
    const fs::path dir = opts.corpus_dir.empty() ? default_corpus_dir() : fs::path(opts.corpus_dir);
    std::error_code ec;
    if (!opts.corpus_dir.empty() && !fs::is_directory(dir, ec))
      throw UserError("--corpus " + opts.corpus_dir + ": no such folder");
    if (dir.empty()) {
      log << "gpudissect: note: no PTX corpus directory found (pass --corpus); using the binary's kernels only\n";
    } else {
      auto corpus = compile_corpus(dir, arch, !opts.corpus_dir.empty(), log);
      corpus_note += " and " + std::to_string(corpus.size()) + " corpus file(s) from " + dir.string();
      for (auto& c : corpus) cubins.push_back(std::move(c));
    }
  }
  if (cubins.empty()) throw UserError("no " + arch.name() + " code to build ISA tables from");
  if (!disassembler_tools().any()) throw Error(disassembler_tools().missing_reason());
  std::vector<const Cubin*> all;
  for (const auto& c : cubins) all.push_back(&c);
  IsaTable table;
  for (const auto& d : disassemble_all(all))  // one disassembler call for all of them
    for (const auto& [_, insts] : d.kernels)
      table.add_kernel(insts);

  IsaSummary s{arch.name(), table.instructions(), table.opcode_count(), table.forms().size(), table.variant_count(),
               (out / ("isa-" + arch.name() + ".md")).string(), (out / ("isa-" + arch.name() + ".json")).string()};
  create_output_dir(out.string());
  std::ostringstream md;
  table.write_markdown(md, arch.name(), corpus_note);
  write_file_atomic(s.markdown_path, md.str());
  write_file_atomic(s.json_path, table.to_json(arch.name()).dump(1) + "\n");
  return s;
}

}  // namespace gd::sass
