#include "sass/verify.hpp"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <iterator>
#include <map>
#include <mutex>
#include <sstream>
#include <utility>

#include "core/match.hpp"
#include "core/parallel.hpp"

namespace gd::sass {

namespace {

// An instruction predicated on !PT never runs: ptxas pads with them (@!PT LDS RZ, [RZ] before
// an LDGSTS), and they must not make up a count of what a region executes.
bool never_runs(const SassInstruction& i) { return i.predicate == "@!PT"; }

int count_matching(const std::vector<const SassInstruction*>& insts, const std::string& pattern) {
  return static_cast<int>(std::count_if(insts.begin(), insts.end(), [&](const SassInstruction* i) {
    return !never_runs(*i) && opcode_matches(pattern, i->opcode);
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
  const std::string per = e.per.empty() ? "" : " per " + e.per;
  if (e.max < 0) return ">= " + std::to_string(e.min) + per;
  if (e.min == e.max) return "== " + std::to_string(e.min) + per;
  return "in [" + std::to_string(e.min) + ", " + std::to_string(e.max) + "]" + per;
}

// Whether `n` occurrences meet the requirement, given `n_per` of its `per` opcode (unused when
// the requirement is absolute).
bool within(const OpcodeExpectation& e, int n, int n_per) {
  const long scale = e.per.empty() ? 1 : n_per;
  return n >= e.min * scale && (e.max < 0 || n <= e.max * scale);
}

std::string region_name(const SassExpectation& e) {
  const std::string callees = e.callees ? " and its callees" : "";
  switch (e.region) {
    case SassRegion::Whole: return "kernel";
    case SassRegion::Marked: return "marked clocked region" + callees;
    default: return "clocked region" + callees;
  }
}

// ptx::region_marker's SASS: a performance-monitor trigger, which nothing else in our kernels
// emits and ptxas neither drops nor moves across the clock reads beside it.
bool is_region_marker(const SassInstruction& i) { return i.base_opcode() == "PMTRIG"; }

std::vector<std::size_t> clock_reads(const KernelCode& k) {
  std::vector<std::size_t> clocks;
  for (std::size_t i = 0; i < k.instructions.size(); ++i)
    if (k.instructions[i].reads_clock()) clocks.push_back(i);
  return clocks;
}

// The code address a CALL names (raw-mode listings print it in hex, rebased to the kernel), or
// nullopt when it names a label instead (ELF-mode listings).
std::optional<std::uint64_t> call_target(const SassInstruction& i) {
  if (i.base_opcode() != "CALL") return std::nullopt;
  for (const auto& o : i.operands)
    if (o.rfind("0x", 0) == 0) return std::stoull(o.substr(2), nullptr, 16);
  return std::nullopt;
}

// Why one kernel fails an expectation, or empty when it meets it.
std::string kernel_failure(const KernelCode& k, const SassExpectation& e) {
  std::string why;
  const auto region = region_of(k, e.region, &why, e.callees);
  if (!why.empty()) return why;
  for (const auto& req : e.require) {
    const int n = count_matching(region, req.opcode);
    const int n_per = req.per.empty() ? 0 : count_matching(region, req.per);
    if (!within(req, n, n_per))
      return req.opcode + " x" + std::to_string(n) + (req.per.empty() ? "" : " for " + req.per + " x" + std::to_string(n_per)) +
             " in the " + region_name(e) + " (need " + bound_text(req) + "); found " + histogram(region);
  }
  for (const auto& f : e.forbid)
    if (const int n = count_matching(region, f); n > 0)
      return "forbidden " + f + " x" + std::to_string(n) + " in the " + region_name(e);
  return "";
}

std::string kernel_summary(const KernelCode& k, const SassExpectation& e) {
  const auto region = region_of(k, e.region, nullptr, e.callees);
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

std::vector<const SassInstruction*> region_of(const KernelCode& k, SassRegion region, std::string* why, bool callees) {
  std::vector<const SassInstruction*> out;
  const auto fail = [&](const std::string& reason) {
    if (why) *why = "kernel " + k.demangled + " " + reason;
    return std::vector<const SassInstruction*>{};
  };
  if (region == SassRegion::Whole) {
    for (const auto& i : k.instructions) out.push_back(&i);
    return out;
  }
  const std::vector<std::size_t> clocks = clock_reads(k);
  std::size_t first = 0, last = 0;  // the clock reads that bound the region
  if (region == SassRegion::Marked) {
    const auto marker = std::find_if(k.instructions.begin(), k.instructions.end(), is_region_marker);
    if (marker == k.instructions.end()) return fail("has no region marker (PMTRIG): no marked region to check");
    const auto open = std::upper_bound(clocks.begin(), clocks.end(), std::size_t(marker - k.instructions.begin()));
    if (open == clocks.end() || open + 1 == clocks.end())
      return fail("has no two clock reads after its region marker: no marked region to check");
    first = *open;
    last = *(open + 1);
  } else {
    if (clocks.size() < 2)
      return fail("has " + std::to_string(clocks.size()) + " clock read(s): no clocked region to check");
    first = clocks.front();
    last = clocks.back();
  }
  for (std::size_t i = first + 1; i < last; ++i) out.push_back(&k.instructions[i]);
  if (!callees) return out;
  // Each routine the region calls, once, from its entry to its first return: the code a CALL
  // step runs, which lies after the kernel's EXIT and so outside the clock reads.
  std::vector<std::uint64_t> entries;
  for (std::size_t i = first + 1; i < last; ++i) {
    if (k.instructions[i].base_opcode() != "CALL") continue;
    const auto target = call_target(k.instructions[i]);
    if (!target) return fail("calls " + k.instructions[i].text + ", whose address the listing does not give");
    if (std::find(entries.begin(), entries.end(), *target) == entries.end()) entries.push_back(*target);
  }
  // A CALL.NOINC into the kernel's own tail is ptxas's loop exit (sm_80: `@P2 CALL.REL.NOINC`
  // to the code after the loop), not a routine: a walk that meets EXIT before RET adds nothing.
  for (const std::uint64_t entry : entries) {
    auto at = std::find_if(k.instructions.begin(), k.instructions.end(),
                           [&](const SassInstruction& i) { return i.address == entry; });
    if (at == k.instructions.end()) return fail("calls address " + std::to_string(entry) + ", outside its code");
    std::vector<const SassInstruction*> routine;
    bool returns = false;
    for (; at != k.instructions.end(); ++at) {
      if (at->base_opcode() == "EXIT") break;
      routine.push_back(&*at);
      if (at->base_opcode() == "RET") {
        returns = true;
        break;
      }
    }
    if (returns) out.insert(out.end(), routine.begin(), routine.end());
  }
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

CodeBase CodeBase::of_kernels(Arch arch, std::vector<KernelCode> kernels) {
  CodeBase code(arch, {});
  code.kernels_ = std::move(kernels);
  return code;
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

namespace {

struct PublishedCode {
  std::mutex mutex;
  std::vector<std::pair<Arch, OwnCode>> codes;
};

PublishedCode& published_code() {
  static PublishedCode p;
  return p;
}

}  // namespace

OwnCode own_code_base(const Arch& arch) {
  PublishedCode& p = published_code();
  const std::lock_guard<std::mutex> lock(p.mutex);
  for (const auto& [a, c] : p.codes)
    if (a == arch) return c;
  return {};
}

Verifier::Verifier(std::string path)
    : embedded_(embedded_cubins(path.empty() ? own_executable_path() : path)), own_(path.empty()) {}

std::vector<Arch> Verifier::archs() const { return embedded_.archs(); }

const CodeBase& Verifier::code_for(const Arch& arch) {
  for (const auto& [a, code] : cache_)
    if (a == arch) return *code;
  std::vector<const Cubin*> cubins;
  for (const auto& c : embedded_.cubins)
    if (c.arch() == arch) cubins.push_back(&c);
  auto code = std::make_shared<const CodeBase>(arch, cubins);
  cache_.emplace_back(arch, code);
  if (own_ && code->has_text()) {
    PublishedCode& p = published_code();
    const std::lock_guard<std::mutex> lock(p.mutex);
    const auto with_kernels = std::count_if(cubins.begin(), cubins.end(), [](const Cubin* c) { return !c->kernels().empty(); });
    const auto same = std::find_if(p.codes.begin(), p.codes.end(), [&](const auto& e) { return e.first == arch; });
    if (same != p.codes.end()) p.codes.erase(same);  // the newest verifier's
    p.codes.emplace_back(arch, OwnCode{code, std::size_t(with_kernels)});
  }
  return *code;
}

std::string outside_cc_range(const Requirements& needs, const Arch& arch) {
  const bool below = needs.min_cc > 0 && arch.sm < needs.min_cc;
  const bool above = needs.max_cc > 0 && arch.sm > needs.max_cc;
  if (!below && !above) return {};
  // "9.0 or newer", "9.0 only", "up to 8.9", "8.0 to 8.9": "needs compute capability 90 to any" read oddly.
  const auto cc = [](int v) { return std::to_string(v / 10) + "." + std::to_string(v % 10); };
  const std::string range = needs.min_cc > 0 && needs.min_cc == needs.max_cc ? cc(needs.min_cc) + " only"
                            : needs.min_cc > 0 && needs.max_cc > 0          ? cc(needs.min_cc) + " to " + cc(needs.max_cc)
                            : needs.min_cc > 0                              ? cc(needs.min_cc) + " or newer"
                                                                            : "up to " + cc(needs.max_cc);
  return "gated off " + arch.name() + ": the probe needs compute capability " + range;
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

namespace {

// The verifier a run shares between its points, and the background preparation that builds it.
struct SharedVerifier {
  std::unique_ptr<Verifier> verifier;
  std::future<std::unique_ptr<Verifier>> prefetch;
};

std::unique_ptr<Verifier> prepared_verifier(const std::vector<const ProbeSpec*>& probes, const DeviceInfo& device) {
  auto v = std::make_unique<Verifier>();
  if (const auto arch = v->arch_for(device)) v->prepare(probes, *arch);
  return v;
}

// The calling thread, and the threads and programs (nvdisasm) it starts, yield the CPU to the
// run's own thread: on Linux a thread's nice value is its own and is inherited by what it creates.
void lower_this_threads_priority() { (void)::setpriority(PRIO_PROCESS, pid_t(::syscall(SYS_gettid)), 10); }

SassVerifier shared_verifier(std::shared_ptr<SharedVerifier> shared, std::vector<const ProbeSpec*> probes) {
  return [shared, probes](const ProbeSpec& probe, const DeviceInfo& device, const std::vector<std::string>& kernels) -> SassCheck {
    // A prefetch that failed fails this point's check with its reason; the next point builds anew.
    if (shared->prefetch.valid()) shared->verifier = std::exchange(shared->prefetch, {}).get();
    if (!shared->verifier) shared->verifier = prepared_verifier(probes, device);
    const auto arch = shared->verifier->arch_for(device);
    if (!arch)
      return {SassStatus::Unverified, "the binary has no SASS for " + device.sm_name() +
                                          " (the driver JIT-compiles PTX, which is not checked)"};
    return shared->verifier->verify_point(probe, *arch, kernels);
  };
}

}  // namespace

SassVerifier make_verifier(std::vector<const ProbeSpec*> probes) {
  return shared_verifier(std::make_shared<SharedVerifier>(), std::move(probes));
}

RunVerifier make_run_verifier(std::vector<const ProbeSpec*> probes, const DeviceInfo& device) {
  auto shared = std::make_shared<SharedVerifier>();
  shared->prefetch = std::async(std::launch::async, [probes, device] {
    lower_this_threads_priority();
    return prepared_verifier(probes, device);
  });
  const auto ready = [shared] {
    return !shared->prefetch.valid() || shared->prefetch.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  };
  return {shared_verifier(shared, std::move(probes)), ready};
}

}  // namespace gd::sass
