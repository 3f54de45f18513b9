#include "sass/verify.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <sstream>

#include "core/match.hpp"
#include "core/parallel.hpp"

namespace gd::sass {

namespace {

int count_matching(const std::vector<const SassInstruction*>& insts, const std::string& pattern) {
  return static_cast<int>(std::count_if(insts.begin(), insts.end(), [&](const SassInstruction* i) {
    return opcode_matches(pattern, i->opcode);
  }));
}

// "FFMA x128, IADD3 x2, ..." for the most frequent opcodes of a region: what was found instead.
std::string histogram(const std::vector<const SassInstruction*>& insts, std::size_t limit = 6) {
  std::map<std::string, int> counts;
  for (const auto* i : insts) ++counts[i->opcode];
  std::vector<std::pair<std::string, int>> v(counts.begin(), counts.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < limit; ++i)
    s += (i ? ", " : "") + v[i].first + " x" + std::to_string(v[i].second);
  if (v.size() > limit) s += ", ...";
  return s.empty() ? "nothing" : s;
}

std::string bound_text(const OpcodeExpectation& e) {
  if (e.max < 0) return ">= " + std::to_string(e.min);
  if (e.min == e.max) return "== " + std::to_string(e.min);
  return "in [" + std::to_string(e.min) + ", " + std::to_string(e.max) + "]";
}

std::string region_name(SassRegion r) { return r == SassRegion::Clocked ? "clocked region" : "kernel"; }

// Why one kernel fails an expectation, or empty when it meets it.
std::string kernel_failure(const KernelCode& k, const SassExpectation& e) {
  std::string why;
  const auto region = region_of(k, e.region, &why);
  if (!why.empty()) return why;
  for (const auto& req : e.require) {
    const int n = count_matching(region, req.opcode);
    if (n < req.min || (req.max >= 0 && n > req.max))
      return req.opcode + " x" + std::to_string(n) + " in the " + region_name(e.region) + " (need " +
             bound_text(req) + "); found " + histogram(region);
  }
  for (const auto& f : e.forbid)
    if (const int n = count_matching(region, f); n > 0)
      return "forbidden " + f + " x" + std::to_string(n) + " in the " + region_name(e.region);
  return "";
}

std::string kernel_summary(const KernelCode& k, const SassExpectation& e) {
  const auto region = region_of(k, e.region, nullptr);
  std::string s;
  for (const auto& req : e.require)
    s += (s.empty() ? "" : ", ") + req.opcode + " x" + std::to_string(count_matching(region, req.opcode));
  return s.empty() ? "no forbidden opcodes" : s;
}

}  // namespace

SassCheck no_kernel_check() {
  return {SassStatus::NotApplicable, "no SM kernel runs by design: nothing of ours to check"};
}

bool opcode_matches(const std::string& pattern, const std::string& opcode) {
  // Modifiers are compared as whole tokens, in order, and the instruction may carry more than
  // the pattern names (a cache hint such as .EF does not change what "STG.E.128" means).
  const auto split = [](const std::string& s) {
    std::vector<std::string> parts;
    std::stringstream ss(s);
    for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
    return parts;
  };
  const auto want = split(pattern), have = split(opcode);
  if (want.empty() || have.empty() || want[0] != have[0]) return false;
  std::size_t h = 1;
  for (std::size_t w = 1; w < want.size(); ++w, ++h) {
    while (h < have.size() && have[h] != want[w]) ++h;
    if (h == have.size()) return false;
  }
  return true;
}

std::vector<const SassInstruction*> region_of(const KernelCode& k, SassRegion region, std::string* why) {
  std::vector<const SassInstruction*> out;
  if (region == SassRegion::Whole) {
    for (const auto& i : k.instructions) out.push_back(&i);
    return out;
  }
  std::vector<std::size_t> clocks;
  for (std::size_t i = 0; i < k.instructions.size(); ++i)
    if (k.instructions[i].reads_clock()) clocks.push_back(i);
  if (clocks.size() < 2) {
    if (why)
      *why = "kernel " + k.demangled + " has " + std::to_string(clocks.size()) +
             " clock read(s): no clocked region to check";
    return out;
  }
  for (std::size_t i = clocks.front() + 1; i < clocks.back(); ++i) out.push_back(&k.instructions[i]);
  return out;
}

// ----------------------------------------------------------------------------------- CodeBase

CodeBase::CodeBase(Arch arch, const std::vector<const Cubin*>& cubins,
                   const std::optional<std::vector<std::string>>& kernel_globs)
    : arch_(arch) {
  const auto wanted_kernel = [&](const Kernel& k) {
    return !kernel_globs || std::any_of(kernel_globs->begin(), kernel_globs->end(), [&](const std::string& g) {
             return glob_match(g, k.demangled) || glob_match(g, k.name);
           });
  };
  const auto named = [&](const Cubin* c) {
    return std::any_of(c->kernels().begin(), c->kernels().end(), wanted_kernel);
  };
  std::vector<const Cubin*> needed;
  std::copy_if(cubins.begin(), cubins.end(), std::back_inserter(needed), named);
  auto disassembled = kernel_globs ? disassemble_all(needed, wanted_kernel) : disassemble_all(needed);
  for (std::size_t i = 0; i < needed.size(); ++i) {
    Disassembly& d = disassembled[i];
    if (!d.has_text) {
      has_text_ = false;
      note_ = d.note;
    }
    for (const auto& k : needed[i]->kernels())
      kernels_.push_back({k.name, k.demangled, std::move(d.kernels[k.name])});
  }
  for (const Cubin* c : cubins)
    if (!named(c))
      for (const auto& k : c->kernels()) kernels_.push_back({k.name, k.demangled, raw_instructions(*c, k)});
}

std::vector<const KernelCode*> CodeBase::match(const std::string& glob) const {
  std::vector<const KernelCode*> out;
  for (const auto& k : kernels_)
    if (glob_match(glob, k.demangled) || glob_match(glob, k.name)) out.push_back(&k);
  return out;
}

SassCheck check_expectations(const std::vector<SassExpectation>& expectations, const CodeBase& code) {
  const std::string arch = code.arch().name();
  if (expectations.empty()) return {SassStatus::Unverified, "the probe declares no SASS expectations"};
  if (code.empty()) return {SassStatus::Unverified, "no " + arch + " code in the binary"};
  if (!code.has_text()) return {SassStatus::Unverified, code.note()};
  std::vector<std::string> found;
  for (const auto& e : expectations) {
    const auto kernels = code.match(e.kernel);
    if (kernels.empty())
      return {SassStatus::Mismatch, arch + ": no kernel matches '" + e.kernel + "'"};
    for (const KernelCode* k : kernels)
      if (std::string why = kernel_failure(*k, e); !why.empty())
        return {SassStatus::Mismatch, arch + ": " + k->demangled + ": " + why};
    found.push_back(e.kernel + ": " + kernel_summary(*kernels.front(), e) +
                    (kernels.size() > 1 ? " (" + std::to_string(kernels.size()) + " kernels)" : ""));
  }
  std::string detail = arch + ": ";
  for (std::size_t i = 0; i < found.size(); ++i) detail += (i ? "; " : "") + found[i];
  return {SassStatus::Verified, detail};
}

SassCheck check_point(const ProbeSpec& probe, const CodeBase& code, const std::vector<std::string>& kernels,
                      const SassCheck* whole_check) {
  const std::string arch = code.arch().name();
  if (kernels.empty()) {
    if (probe.runs_no_sm_kernel) return no_kernel_check();
    return {SassStatus::Unverified, "the point recorded no kernel launch: nothing ties its numbers to checked code"};
  }
  const SassCheck whole = whole_check ? *whole_check : check_expectations(probe.sass, code);
  if (whole.status != SassStatus::Verified && !probe.sass.empty()) return whole;
  if (!code.has_text()) return {SassStatus::Unverified, code.note()};
  std::vector<std::string> found;
  for (const std::string& name : kernels) {
    const auto it = std::find_if(code.kernels().begin(), code.kernels().end(),
                                 [&](const KernelCode& k) { return k.name == name; });
    if (it == code.kernels().end())
      return {SassStatus::Unverified, arch + ": launched kernel " + name + " is not in this arch's code"};
    std::vector<const SassExpectation*> covering;
    for (const auto& e : probe.sass)
      if (glob_match(e.kernel, it->demangled) || glob_match(e.kernel, it->name)) covering.push_back(&e);
    if (covering.empty())
      return {SassStatus::Unverified, arch + ": launched kernel " + it->demangled + " has no SASS expectation"};
    for (const SassExpectation* e : covering)
      if (std::string why = kernel_failure(*it, *e); !why.empty())
        return {SassStatus::Mismatch, arch + ": " + it->demangled + ": " + why};
    found.push_back(it->demangled + ": " + kernel_summary(*it, *covering.front()));
  }
  std::string detail = arch + ", " + std::to_string(kernels.size()) + " kernel(s) launched and checked: ";
  for (std::size_t i = 0; i < found.size(); ++i) detail += (i ? "; " : "") + found[i];
  return {SassStatus::Verified, detail};
}

// ----------------------------------------------------------------------------------- Verifier

Verifier::Verifier(std::string path)
    : embedded_(embedded_cubins(path.empty() ? own_executable_path() : path)) {}

std::vector<Arch> Verifier::archs() const { return embedded_.archs(); }

const CodeBase& Verifier::code_for(const Arch& arch) {
  for (const auto& [a, code] : cache_)
    if (a == arch) return *code;
  std::vector<const Cubin*> cubins;
  for (const auto& c : embedded_.cubins)
    if (c.arch() == arch) cubins.push_back(&c);
  cache_.emplace_back(arch, std::make_unique<CodeBase>(arch, cubins));
  return *cache_.back().second;
}

std::string outside_cc_range(const Requirements& needs, const Arch& arch) {
  const bool below = needs.min_cc > 0 && arch.sm < needs.min_cc;
  const bool above = needs.max_cc > 0 && arch.sm > needs.max_cc;
  if (!below && !above) return {};
  return "gated off " + arch.name() + ": the probe needs compute capability " +
         (needs.min_cc > 0 ? std::to_string(needs.min_cc) : std::string("any")) + " to " +
         (needs.max_cc > 0 ? std::to_string(needs.max_cc) : std::string("any"));
}

SassCheck Verifier::verify(const ProbeSpec& probe, const Arch& arch) {
  if (probe.runs_no_sm_kernel && probe.sass.empty()) return no_kernel_check();
  if (std::string why = outside_cc_range(probe.needs, arch); !why.empty()) return {SassStatus::NotApplicable, why};
  const auto available = archs();
  if (std::find(available.begin(), available.end(), arch) == available.end()) {
    std::string have;
    for (const auto& a : available) have += (have.empty() ? "" : ", ") + a.name();
    std::string why = "the binary carries no " + arch.name() + " code (it has: " + (have.empty() ? "none" : have) + ")";
    for (const auto& p : embedded_.problems) why += "; " + p;
    return {SassStatus::Unverified, why};
  }
  return check_expectations(probe.sass, code_for(arch));
}

SassCheck Verifier::verify_point(const ProbeSpec& probe, const Arch& arch, const std::vector<std::string>& kernels) {
  if (kernels.empty() && probe.runs_no_sm_kernel) return check_point(probe, code_for(arch), kernels);
  // The probe's whole check (also: does the binary carry this arch at all) matches its globs
  // against every kernel of the binary, milliseconds a point: once per probe and arch is enough.
  auto cached = whole_checks_.find({&probe, arch.name()});
  if (cached == whole_checks_.end()) cached = whole_checks_.emplace(std::make_pair(&probe, arch.name()), verify(probe, arch)).first;
  const SassCheck& whole = cached->second;
  if (whole.status == SassStatus::Mismatch || whole.status == SassStatus::NotApplicable || code_for(arch).empty())
    return whole;
  return check_point(probe, code_for(arch), kernels, probe.sass.empty() ? nullptr : &whole);
}

void Verifier::prepare(const std::vector<const ProbeSpec*>& probes, const Arch& arch) {
  (void)code_for(arch);  // built here, before the threads read it
  std::vector<SassCheck> checks(probes.size());
  parallel_for(probes.size(), [&](std::size_t i) { checks[i] = verify(*probes[i], arch); });
  for (std::size_t i = 0; i < probes.size(); ++i) whole_checks_.emplace(std::make_pair(probes[i], arch.name()), checks[i]);
}

std::vector<std::vector<SassCheck>> Verifier::verify_all(const std::vector<const ProbeSpec*>& probes,
                                                         const std::vector<Arch>& archs) {
  std::vector<std::string> globs;
  for (const ProbeSpec* p : probes)
    for (const auto& e : p->sass) globs.push_back(e.kernel);
  std::vector<std::vector<SassCheck>> checks(archs.size());
  parallel_for(archs.size(), [&](std::size_t a) {
    std::vector<const Cubin*> cubins;
    for (const auto& c : embedded_.cubins)
      if (c.arch() == archs[a]) cubins.push_back(&c);
    if (cubins.empty()) {  // the same answer verify() gives for an arch the binary lacks
      for (const ProbeSpec* p : probes) checks[a].push_back(verify(*p, archs[a]));
      return;
    }
    const CodeBase code(archs[a], cubins, globs);
    for (const ProbeSpec* p : probes) {
      if (p->runs_no_sm_kernel && p->sass.empty()) checks[a].push_back(no_kernel_check());
      else if (std::string why = outside_cc_range(p->needs, archs[a]); !why.empty())
        checks[a].push_back({SassStatus::NotApplicable, why});
      else checks[a].push_back(check_expectations(p->sass, code));
    }
  });
  return checks;
}

std::optional<Arch> Verifier::arch_for(const DeviceInfo& device) const {
  if (!device.arch_code_loaded.empty()) return Arch::parse(device.arch_code_loaded);
  const auto available = archs();
  for (bool specific : {true, false}) {
    const Arch a{device.cc(), specific};
    if (std::find(available.begin(), available.end(), a) != available.end()) return a;
  }
  return std::nullopt;
}

SassCheck verify_probe(const ProbeSpec& probe, const Arch& arch, const std::string& executable_path) {
  return Verifier(executable_path).verify(probe, arch);
}

SassVerifier make_verifier(std::vector<const ProbeSpec*> probes) {
  // Reading and disassembling the binary is deferred to the first probe and then shared; so is
  // checking every planned probe's expectations, on all cores.
  auto verifier = std::make_shared<std::unique_ptr<Verifier>>();
  return [verifier, probes](const ProbeSpec& probe, const DeviceInfo& device, const std::vector<std::string>& kernels) -> SassCheck {
    const bool first = !*verifier;
    if (first) *verifier = std::make_unique<Verifier>();
    const auto arch = (*verifier)->arch_for(device);
    if (!arch)
      return {SassStatus::Unverified, "the binary has no SASS for " + device.sm_name() +
                                          " (the driver JIT-compiles PTX, which is not checked)"};
    if (first) (*verifier)->prepare(probes, *arch);
    return (*verifier)->verify_point(probe, *arch, kernels);
  };
}

}  // namespace gd::sass
