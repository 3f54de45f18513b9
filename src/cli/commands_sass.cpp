// `sass`, `verify` and `isa`: the commands that look at the machine code itself.
#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include <fstream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/executor.hpp"
#include "core/output_file.hpp"
#include "core/match.hpp"
#include "core/parallel.hpp"
#include "core/registry.hpp"
#include "sass/disasm.hpp"
#include "sass/fatbin.hpp"
#include "sass/isa.hpp"
#include "sass/isa_compare.hpp"
#include "sass/isa_enumerated.hpp"
#include "sass/patch.hpp"
#include "sass/verify.hpp"

namespace gd::cli {
namespace {

using sass::Arch;
using sass::Cubin;

constexpr int kExitMismatch = 1;

std::string hex64(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string address_text(std::uint64_t a) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "/*%04llx*/", static_cast<unsigned long long>(a));
  return buf;
}

// The cubins a command looks at: one file, or those embedded in an executable (ours by default).
struct CubinSource {
  std::string cubin_file;
  std::string executable;
  std::string arch;  // empty: all

  std::vector<Cubin> load() const {
    std::vector<Cubin> out;
    if (!cubin_file.empty()) {
      out.push_back(Cubin::from_file(cubin_file));
    } else {
      auto embedded = sass::embedded_cubins(executable.empty() ? sass::own_executable_path() : executable);
      for (const auto& p : embedded.problems) std::cerr << "gpudissect: note: " << p << "\n";
      out = std::move(embedded.cubins);
    }
    if (arch.empty()) return out;
    const Arch want = Arch::parse(arch);
    std::vector<Cubin> kept;
    std::string have;
    for (auto& c : out) {
      if (have.find(c.arch().name()) == std::string::npos) have += (have.empty() ? "" : ", ") + c.arch().name();
      if (c.arch() == want) kept.push_back(std::move(c));
    }
    if (kept.empty()) throw UserError("no " + want.name() + " code here (present: " + (have.empty() ? "none" : have) + ")");
    return kept;
  }
};

void add_source_options(CLI::App* cmd, CubinSource& src) {
  cmd->add_option("--arch", src.arch, "Architecture, e.g. sm_90a (default: every one present)");
  auto* cubin = cmd->add_option("--cubin", src.cubin_file, "Read this cubin instead of our own binary");
  cmd->add_option("--exe", src.executable, "Read the cubins embedded in this executable")->excludes(cubin);
}

// The notation of the control words in the listing, printed above it (README explains it too).
constexpr const char* kControlWordLegend =
    "// Each line: address, control word, instruction, raw 128-bit encoding. Addresses and branch\n"
    "// targets are byte offsets in the kernel. The control word (instruction bits 105..125) reads\n"
    "//   B0-----:R-:W2:Y:S04:Ua\n"
    "//   B0-----  wait mask: the scoreboard barriers (0-5) to wait on before issuing; - not waited on\n"
    "//   R- W2    read / write barrier this instruction sets (0-5), released once its sources are read /\n"
    "//            its result is written; - none\n"
    "//   Y        yield: the warp scheduler may switch to another warp after it; - it keeps this warp\n"
    "//   S04      stall: cycles before this warp's next instruction may issue (0-15)\n"
    "//   Ua       operand reuse cache set for source slots a-d; absent when none\n\n";

void print_kernel_header(const Cubin& c, const sass::Kernel& k, std::ostream& os) {
  os << "// " << c.arch().name() << "  " << k.demangled;
  if (k.demangled != k.name) os << "  [" << k.name << "]";
  os << "\n//   " << k.instruction_count() << " instructions, registers " << k.info.registers << ", params "
     << k.info.params.size() << " (" << k.info.param_bank_size << " bytes)";
  if (!k.info.exit_offsets.empty()) {
    os << ", EXIT at";
    for (auto e : k.info.exit_offsets) os << " 0x" << std::hex << e << std::dec;
  }
  os << "\n";
}

void print_instruction(const sass::SassInstruction& i, std::ostream& os) {
  std::string text = i.text.empty() ? "?" : i.text + " ;";
  if (i.reads_clock()) text += "   // clock";
  os << "  " << address_text(i.address) << "  " << std::left << std::setw(26) << i.control.to_string() << " "
     << std::setw(52) << text << " /* " << hex64(i.raw.lo) << " " << hex64(i.raw.hi) << " */\n";
}

int do_sass(const CubinSource& src, const std::string& glob) {
  sass::set_disassembly_progress(true);
  const auto cubins = src.load();
  const auto wanted = [&](const sass::Kernel& k) {
    return glob.empty() || glob_match(glob, k.demangled) || glob_match(glob, k.name);
  };
  // Cubins with a wanted kernel, grouped by arch: one disassembler call per arch, archs in parallel.
  std::vector<std::vector<const Cubin*>> groups;
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const auto& c : cubins) {
    // Each kernel once, though every arch's cubin carries it: suggestions must not repeat a name.
    for (const auto& k : c.kernels())
      if (seen.insert(k.demangled).second) names.push_back(k.demangled);
    if (std::none_of(c.kernels().begin(), c.kernels().end(), wanted)) continue;
    auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.front()->arch() == c.arch(); });
    if (g == groups.end()) groups.push_back({&c});
    else g->push_back(&c);
  }
  if (groups.empty()) {
    std::string hint;
    for (const auto& n : closest(glob, names)) hint += "\n  " + n;
    throw UserError("no kernel matches '" + glob + "'" + (hint.empty() ? "" : "; closest:" + hint));
  }
  std::vector<std::vector<sass::Disassembly>> done(groups.size());
  parallel_for(groups.size(), [&](std::size_t g) { done[g] = sass::disassemble_all(groups[g]); });
  if (!done.front().front().has_text)
    std::cerr << "gpudissect: note: " << done.front().front().note << "; showing control words and raw bits only\n";
  std::cout << kControlWordLegend;
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (std::size_t i = 0; i < groups[g].size(); ++i) {
      const Cubin& c = *groups[g][i];
      const sass::Disassembly& d = done[g][i];
      for (const auto& k : c.kernels()) {
        if (!wanted(k)) continue;
        print_kernel_header(c, k, std::cout);
        for (const auto& inst : d.kernels.at(k.name)) print_instruction(inst, std::cout);
        std::cout << "\n";
      }
    }
  return 0;
}

void add_sass(CLI::App& app, std::function<int()>& action) {
  auto* cmd = app.add_subcommand("sass", "Annotated SASS listing (control words decoded) of our kernels or a cubin");
  auto src = std::make_shared<CubinSource>();
  auto glob = std::make_shared<std::string>();
  add_source_options(cmd, *src);
  cmd->add_option("--kernel", *glob, "Glob over the demangled kernel name");
  cmd->callback([&action, src, glob] { action = [src, glob] { return do_sass(*src, *glob); }; });
}

// --------------------------------------------------------------------------------- verify

struct VerifyArgs {
  std::vector<std::string> archs;  // empty: every one the binary carries
  Selection sel;
  std::string exe;
  bool json = false;
};

// The archs to check: those asked for, each of which the binary must carry (an arch it lacks
// would verify nothing and look like success), or all it carries.
std::vector<Arch> verify_archs(const std::vector<std::string>& asked, const std::vector<Arch>& present,
                               const std::string& binary) {
  if (present.empty()) throw UserError(binary + " carries no SASS to verify against");
  if (asked.empty()) return present;
  std::vector<Arch> out;
  for (const auto& text : asked) {
    const Arch a = Arch::parse(text);
    if (std::find(present.begin(), present.end(), a) == present.end())
      throw UserError(sass::missing_arch_message(binary, a, present));
    if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  }
  return out;
}

int do_verify(const VerifyArgs& args) {
  const auto probes = select_probes(Registry::global(), args.sel);  // the same filters as list and run
  sass::Verifier verifier(args.exe);
  const std::string binary = args.exe.empty() ? "this gpudissect binary" : "'" + args.exe + "'";
  const std::vector<Arch> archs = verify_archs(args.archs, verifier.archs(), binary);
  // The disassembly is most of verify's time (a minute for four targets on two cores, the first
  // time; the listings are cached): say what is going on, on stderr.
  std::string arch_list;
  for (const auto& a : archs) arch_list += (arch_list.empty() ? "" : ", ") + a.name();
  std::cerr << "gpudissect: verifying " << probes.size() << " probe(s) on " << arch_list << "\n";
  sass::set_disassembly_progress(true);
  const auto checks = verifier.verify_all(probes, archs);
  // A kernel one arch's device pass of its unit lacks: the runtime may not register it, which a
  // SASS check cannot see (the kernel is in the sm_90a cubin) and only a launch on the GPU shows.
  const std::vector<std::string> missing =
      sass::kernels_missing_from_a_pass(sass::fatbin_entries_of(args.exe.empty() ? sass::own_executable_path() : args.exe));
  // By status name, the three every summary shows first: a status added later is counted too.
  std::map<std::string, int> counts = {{"verified", 0}, {"mismatch", 0}, {"unverified", 0}};
  for (const auto& per_arch : checks)
    for (const SassCheck& c : per_arch) ++counts[to_string(c.status)];
  const int verified = counts["verified"];
  const int mismatch = counts["mismatch"];
  if (args.json) {
    nlohmann::json results = nlohmann::json::array();
    for (std::size_t a = 0; a < archs.size(); ++a)
      for (std::size_t p = 0; p < probes.size(); ++p)
        results.push_back({{"probe", probes[p]->id}, {"arch", archs[a].name()},
                           {"sass", to_string(checks[a][p].status)}, {"detail", checks[a][p].detail}});
    nlohmann::json archs_json = nlohmann::json::array();
    for (const auto& a : archs) archs_json.push_back(a.name());
    nlohmann::json doc = json_envelope("verify");
    doc["archs"] = archs_json;
    doc["results"] = results;
    doc["summary"] = counts;
    doc["kernels_missing_from_a_pass"] = missing;
    std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::size_t width = 8;
    for (const auto* p : probes) width = std::max(width, p->id.size());
    std::cout << std::left << std::setw(int(width)) << "probe" << "  " << std::setw(8) << "arch" << "  "
              << std::setw(14) << "sass" << "  detail\n";
    for (std::size_t a = 0; a < archs.size(); ++a)
      for (std::size_t p = 0; p < probes.size(); ++p)
        std::cout << std::setw(int(width)) << probes[p]->id << "  " << std::setw(8) << archs[a].name() << "  "
                  << std::setw(14) << to_string(checks[a][p].status) << "  " << checks[a][p].detail << "\n";
    std::cout << "\n" << verified << " verified, " << mismatch << " mismatch, " << counts["unverified"] << " unverified";
    for (const auto& [status, n] : counts)
      if (status != "verified" && status != "mismatch" && status != "unverified") std::cout << ", " << n << " " << status;
    std::cout << "\n";
    if (!missing.empty()) {
      std::cout << "\n" << missing.size() << " kernel(s) missing from a device pass of their unit (the CUDA runtime may "
                << "not register them: every kernel must be compiled for every arch, with a stub body where an arch "
                << "lacks its instructions):\n";
      for (const auto& m : missing) std::cout << "  " << m << "\n";
    }
  }
  if (!missing.empty()) std::cerr << "gpudissect: error: " << missing.size() << " kernel(s) missing from a device pass\n";
  if (mismatch > 0 || !missing.empty()) return kExitMismatch;
  const int applicable = int(archs.size() * probes.size()) - counts["not_applicable"];
  if (verified == 0 && applicable > 0) {
    // Nothing checked is not a pass (no disassembler, or probes that declare no SASS); probes
    // that run no SM kernel by design have nothing to check and do not count against it.
    std::cerr << "gpudissect: error: nothing was verified; see the detail column\n";
    return kExitMismatch;
  }
  return 0;
}

void add_verify(CLI::App& app, std::function<int()>& action) {
  auto* cmd = app.add_subcommand("verify", "Check every probe's declared SASS against the compiled code (offline)");
  auto args = std::make_shared<VerifyArgs>();
  cmd->add_option("--arch", args->archs, "Architecture, e.g. sm_90a (repeatable; default: every one in the binary)");
  add_selection_options(cmd, args->sel);
  cmd->add_option("--exe", args->exe, "Verify the code embedded in this executable instead of ours");
  cmd->add_flag("--json", args->json, "Print the results as JSON (docs/json-output.md)");
  cmd->callback([&action, args] { action = [args] { return do_verify(*args); }; });
}

// ------------------------------------------------------------------------------------ isa

// The forms of the corpus tables `isa` just wrote (its JSON's form_table).
std::vector<std::string> compiled_forms(const std::string& json_path) {
  std::ifstream in(json_path);
  const auto j = nlohmann::json::parse(in, nullptr, false);
  std::vector<std::string> out;
  if (j.is_object() && j.contains("form_table"))
    for (const auto& f : j["form_table"]) out.push_back(f.value("form", ""));
  return out;
}

// The enumerated table beside the corpus tables: isa-<arch>-enumerated.md and a summary line.
void write_enumerated_beside(const sass::IsaSummary& s, const std::string& out_dir) {
  const std::string path = sass::enumerated_isa_path(sass::Arch::parse(s.arch));
  if (path.empty()) {
    std::cerr << "gpudissect: note: no enumerated table data/isa/" << s.arch
              << ".json.gz beside this binary (scripts/isa_enumerate.py writes it); corpus tables only\n";
    return;
  }
  const auto isa = sass::EnumeratedIsa::load(path);
  const auto compiled = compiled_forms(s.json_path);
  const auto cov = sass::compiled_coverage(isa, compiled);
  std::ostringstream md;
  sass::write_enumerated_markdown(md, isa, compiled);
  const std::string md_path = out_dir + "/isa-" + s.arch + "-enumerated.md";
  write_file_atomic(md_path, md.str());
  const auto& c = isa.counts();
  std::cout << s.arch << " enumerated: " << c.opcodes << " opcodes, " << c.encoding_classes << " encoding classes, "
            << c.forms << " forms, " << c.encoding_variants << " encoding variants (" << path << ")\n"
            << "seen in compiled code: " << cov.compiled << " forms, " << cov.enumerated << " of them enumerated\n"
            << "wrote " << md_path << "\n";
}

// `isa --generations`: the enumerated tables of every arch that has one, compared in order.
int print_generations() {
  std::vector<sass::EnumeratedIsa> tables;
  for (const char* a : {"sm_90a", "sm_100a", "sm_120a"}) {
    const std::string path = sass::enumerated_isa_path(sass::Arch::parse(a));
    if (!path.empty()) tables.push_back(sass::EnumeratedIsa::load(path));
  }
  if (tables.empty())
    throw UserError("isa --generations: no enumerated tables (data/isa/<arch>.json.gz) beside this binary");
  std::vector<const sass::EnumeratedIsa*> ptrs;
  for (const auto& t : tables) ptrs.push_back(&t);
  sass::write_generations_markdown(std::cout, ptrs);
  return 0;
}

void add_isa(CLI::App& app, std::function<int()>& action) {
  auto* cmd = app.add_subcommand("isa", "Build ISA reference tables (opcodes, forms, encodings, control words)");
  auto opts = std::make_shared<sass::IsaOptions>();
  auto generations = std::make_shared<bool>(false);
  cmd->add_option("--arch", opts->arch_text, "Architecture, e.g. sm_90a");
  cmd->add_flag("--generations", *generations,
                "Compare the enumerated tables of sm_90a, sm_100a and sm_120a and the SM100a reference (Markdown)");
  cmd->add_option("--out", opts->out_dir, "Output directory (default: isa-<arch>)");
  cmd->add_option("--exe", opts->executable, "Take the kernels of this executable instead of ours");
  auto* corpus =
      cmd->add_option("--corpus", opts->corpus_dir, "Directory of .cu corpus files (default: src/sass/corpus)");
  cmd->add_flag("--no-corpus", opts->skip_corpus, "Use only the binary's kernels, not the PTX corpus")->excludes(corpus);
  cmd->callback([&action, opts, generations] {
    action = [opts, generations] {
      if (*generations) return print_generations();
      if (opts->arch_text.empty()) throw UserError("isa needs --arch (e.g. sm_100a) or --generations");
      if (opts->out_dir == "-") throw UserError("isa writes its files into the folder --out names; '-' is not a folder");
      sass::set_disassembly_progress(true);
      const sass::IsaSummary s = sass::build_isa_tables(*opts, std::cerr);
      std::cout << s.arch << ": " << s.instructions << " instructions, " << s.opcodes << " opcodes, " << s.forms
                << " forms, " << s.encoding_variants << " encoding variants\n"
                << "wrote " << s.markdown_path << "\n      " << s.json_path << "\n";
      write_enumerated_beside(s, opts->out_dir.empty() ? "isa-" + s.arch : opts->out_dir);
      return 0;
    };
  });
}

// --------------------------------------------------------------------------- __patch-child

// Internal: runs batches of patched launches for sass::launch_batch_in_child, in a process of its
// own so that a kernel that traps, hangs or corrupts memory takes only this process down. Outcomes
// go to fd 3, one JSON line each, where the parent's watchdog reads them. One batch file, or with
// --serve one batch path per line on stdin (sass::patch_child_serve).
void add_patch_child(CLI::App& app, std::function<int()>& action) {
  auto* cmd = app.add_subcommand("__patch-child", "internal: launch patched cubins (used by patch probes)");
  cmd->group("");  // hidden from --help
  auto batch = std::make_shared<std::string>();
  auto serve = std::make_shared<bool>(false);
  cmd->add_option("batch", *batch);
  cmd->add_flag("--serve", *serve, "read batch paths from stdin, one per line");
  cmd->callback([&action, batch, serve] {
    action = [batch, serve] {
      if (*serve == !batch->empty()) throw UserError("__patch-child takes a batch file or --serve");
      return *serve ? sass::patch_child_serve(0, 3) : sass::patch_child_main(*batch, 3);
    };
  });
}

}  // namespace

void add_sass_commands(CLI::App& app, std::function<int()>& action) {
  add_sass(app, action);
  add_verify(app, action);
  add_isa(app, action);
  add_patch_child(app, action);
}

}  // namespace gd::cli
