// Each family's declared SASS expectations (as `list --json` gives them) against its own compiled
// kernels in the gpudissect binary, then against the same listings edited the way a wrong kernel
// would differ: timed instructions dropped, swapped for another opcode, or doubled, the row's own
// code gutted while a reference beside it stays, a wgmma chain without its waits, a CALL step
// whose routine is gone. The real listing must verify and every edit must be a mismatch; an edit
// that still verifies is an expectation that passes vacuously.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>

#include <nlohmann/json.hpp>

#include "sass/fatbin.hpp"
#include "sass/verify.hpp"
#include "sass_test_util.hpp"
#include "support/shell.hpp"

namespace gd::sass {
namespace {

struct Declared {
  Requirements needs;
  std::vector<SassExpectation> sass;
};

SassRegion region_from(const std::string& key) {
  for (SassRegion r : {SassRegion::Clocked, SassRegion::Whole, SassRegion::Marked})
    if (key == region_key(r)) return r;
  throw std::runtime_error("unknown region " + key);
}

// The probe's expectations as the binary declares them: what `verify` checks.
Declared read_declared(const std::string& id) {
  const CommandResult r = run_command(std::string(GPUDISSECT_BINARY) + " list --json --filter '" + id + "' 2>/dev/null");
  if (r.status != 0) throw std::runtime_error("list --filter " + id + " failed: " + r.output);
  // A named document: a range-for over .at() of the temporary parse() would read freed memory.
  const nlohmann::json listed = nlohmann::json::parse(r.output);
  for (const auto& p : listed.at("probes")) {
    if (p.at("id").get<std::string>() != id) continue;
    Declared d;
    d.needs.min_cc = p.at("requires").at("min_cc").get<int>();
    d.needs.max_cc = p.at("requires").at("max_cc").get<int>();
    for (const auto& e : p.at("sass")) {
      SassExpectation x;
      x.kernel = e.at("kernel").get<std::string>();
      x.region = region_from(e.at("region").get<std::string>());
      x.callees = e.at("callees").get<bool>();
      x.forbid = e.at("forbid").get<std::vector<std::string>>();
      for (const auto& q : e.at("require")) {
        OpcodeExpectation o;
        o.opcode = q.at("opcode").get<std::string>();
        o.min = q.at("min").get<int>();
        o.max = q.at("max").is_null() ? -1 : q.at("max").get<int>();
        o.per = q.at("per").is_null() ? std::string() : q.at("per").get<std::string>();
        x.require.push_back(o);
      }
      d.sass.push_back(x);
    }
    return d;
  }
  throw std::runtime_error("no probe " + id);
}
const Declared& declared(const std::string& id) {
  static std::map<std::string, Declared> cache;
  auto it = cache.find(id);
  if (it == cache.end()) it = cache.emplace(id, read_declared(id)).first;
  return it->second;
}

// The binary's kernels for one arch that `globs` name, disassembled once per arch and glob set.
const CodeBase& code_for(const std::string& arch, const std::vector<std::string>& globs) {
  static std::mutex lock;
  static const EmbeddedCubins embedded = embedded_cubins(GPUDISSECT_BINARY);
  static std::map<std::string, std::unique_ptr<CodeBase>> cache;
  std::string key = arch;
  for (const auto& g : globs) key += "\n" + g;
  std::lock_guard<std::mutex> hold(lock);
  auto& slot = cache[key];
  if (!slot) {
    const Arch a = Arch::parse(arch);
    std::vector<const Cubin*> cubins;
    for (const auto& c : embedded.cubins)
      if (c.arch() == a) cubins.push_back(&c);
    slot = std::make_unique<CodeBase>(a, cubins, globs);
  }
  return *slot;
}

// --- edits of one kernel's listing -----------------------------------------------------------

// The indices of the code an expectation is about, found here by the kernel's own landmarks
// (clock reads, the region marker, CALL targets) rather than through region_of.
std::vector<std::size_t> timed_code(const KernelCode& k, const SassExpectation& e) {
  const auto& in = k.instructions;
  std::vector<std::size_t> clocks, out;
  for (std::size_t i = 0; i < in.size(); ++i)
    if (in[i].reads_clock()) clocks.push_back(i);
  std::size_t from = 0, to = in.size();
  if (e.region == SassRegion::Marked) {
    std::size_t marker = 0;
    while (marker < in.size() && in[marker].base_opcode() != "PMTRIG") ++marker;
    const auto open = std::upper_bound(clocks.begin(), clocks.end(), marker);
    if (open == clocks.end() || open + 1 == clocks.end()) return {};
    from = *open + 1;
    to = *(open + 1);
  } else if (e.region == SassRegion::Clocked) {
    if (clocks.size() < 2) return {};
    from = clocks.front() + 1;
    to = clocks.back();
  }
  for (std::size_t i = from; i < to; ++i) out.push_back(i);
  if (!e.callees || e.region == SassRegion::Whole) return out;
  for (std::size_t i = from; i < to; ++i) {
    if (in[i].base_opcode() != "CALL") continue;
    for (const auto& o : in[i].operands) {
      if (o.rfind("0x", 0) != 0) continue;
      const std::uint64_t entry = std::stoull(o.substr(2), nullptr, 16);
      for (std::size_t j = 0; j < in.size(); ++j)
        if (in[j].address == entry)
          for (; j < in.size(); ++j) {
            out.push_back(j);
            if (in[j].base_opcode() == "RET") break;
          }
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

enum class Edit { Drop, Swap, Double };
const char* edit_name(Edit e) { return e == Edit::Drop ? "dropped" : e == Edit::Swap ? "swapped for NOP" : "doubled"; }

// The kernel with every instruction of `span` matching `opcode` dropped, turned into a NOP, or
// issued twice (a chain of twice the length).
KernelCode edited(const KernelCode& k, const std::vector<std::size_t>& span, const std::string& opcode, Edit edit) {
  KernelCode out{k.name, k.demangled, {}};
  std::size_t s = 0;
  for (std::size_t i = 0; i < k.instructions.size(); ++i) {
    const bool in_span = s < span.size() && span[s] == i;
    if (in_span) ++s;
    SassInstruction inst = k.instructions[i];
    if (in_span && opcode_matches(opcode, inst.opcode)) {
      if (edit == Edit::Drop) continue;
      if (edit == Edit::Swap) inst.opcode = "NOP";
      if (edit == Edit::Double) out.instructions.push_back(inst);
    }
    out.instructions.push_back(inst);
  }
  return out;
}

SassCheck check_one(const SassExpectation& e, const Arch& arch, KernelCode k) {
  return check_expectations({e}, CodeBase::of_kernels(arch, {std::move(k)}));
}

// --- the families ---------------------------------------------------------------------------

// A representative probe per family, and the edits every one of its required opcodes must fail.
class Mutations : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {
 protected:
  void SetUp() override { GD_REQUIRE_DISASSEMBLER(); }
};

TEST_P(Mutations, RealListingVerifiesAndEveryEditIsAMismatch) {
  const auto& [id, arch_name] = GetParam();
  const Declared& d = declared(id);
  const Arch arch = Arch::parse(arch_name);
  if (!outside_cc_range(d.needs, arch).empty()) GTEST_SKIP() << id << " does not run on " << arch_name;
  std::vector<std::string> globs;
  for (const auto& e : d.sass) globs.push_back(e.kernel);
  const CodeBase& code = code_for(arch_name, globs);
  const SassCheck real = check_expectations(d.sass, code);
  ASSERT_EQ(real.status, SassStatus::Verified) << real.detail;

  // Known loose bounds: the edit survives today, and the test says so when it no longer does
  // (then the entry goes). idiv_u64 declares up to one MUFU.RCP a step for an inline 32-bit path
  // its compiled kernels do not have (only the routine's one, on every target): doubling that
  // one stays under the bound. Tightening it (per step 0) is open: issue 25's closing note.
  const std::vector<std::pair<std::string, std::string>> kLoose = {{"MUFU.RCP", "doubled"}};
  const bool loose_row = id.size() >= 9 && id.compare(id.size() - 9, 9, ".idiv_u64") == 0;
  std::vector<std::string> loose_survived;
  std::vector<std::string> survived;
  int edits = 0;
  for (const auto& e : d.sass)
    for (const KernelCode* k : code.match(e.kernel)) {
      const auto span = timed_code(*k, e);
      for (const auto& req : e.require) {
        if (req.min <= 0) continue;
        for (Edit edit : {Edit::Drop, Edit::Swap, Edit::Double}) {
          if (edit == Edit::Double && req.max < 0) continue;  // an unbounded count cannot see it
          ++edits;
          const SassCheck c = check_one(e, arch, edited(*k, span, req.opcode, edit));
          const bool known = loose_row && std::find(kLoose.begin(), kLoose.end(),
                                                    std::pair<std::string, std::string>{req.opcode, edit_name(edit)}) != kLoose.end();
          if (known) {
            if (c.status != SassStatus::Mismatch) loose_survived.push_back(k->demangled);
            continue;
          }
          if (c.status != SassStatus::Mismatch)
            survived.push_back(k->demangled + ": " + req.opcode + " " + edit_name(edit) + " still " + to_string(c.status));
        }
      }
    }
  EXPECT_GT(edits, 0) << "no required opcode to edit";
  EXPECT_TRUE(survived.empty()) << survived.size() << " of " << edits << " edits verified, e.g. " << survived.front();
  if (loose_row) EXPECT_FALSE(loose_survived.empty()) << "idiv_u64's MUFU.RCP bound caught the doubling: drop kLoose";
}

// An opcode of a timed region with no upper bound is one a chain twice as long still passes:
// each has a bound, absolute or relative to another opcode (a loop ptxas unrolls: so many MMAs
// per WARPGROUP.ARRIVE bounds both against each other).
TEST_P(Mutations, TimedOpcodesAreBoundedAbove) {
  const std::string& id = std::get<0>(GetParam());
  for (const auto& e : declared(id).sass) {
    if (e.region == SassRegion::Whole) continue;
    for (const auto& req : e.require) {
      const bool bounded = std::any_of(e.require.begin(), e.require.end(), [&](const OpcodeExpectation& o) {
        return o.max >= 0 && (o.opcode == req.opcode || o.per == req.opcode);
      });
      EXPECT_TRUE(bounded) << id << " " << e.kernel << ": " << req.opcode << " has no upper bound";
    }
  }
}

const std::vector<std::string> kFamilies = {
    "latency.alu.ffma",          "latency.alu.idiv_u64",     "compute.alu.ffma", "compute.alu.mufu_ex2",
    "pipes.interference.ffma",   "pipes.interference.dfma",  "tensor.wgmma.latency", "tensor.wgmma.throughput",
    "tensor.mma_sync.f16_f32.m16n8k16", "memory.bandwidth.dram",
    "async.cp_async.cg16",        "async.latency.copy"};

INSTANTIATE_TEST_SUITE_P(Families, Mutations,
                         ::testing::Combine(::testing::ValuesIn(kFamilies), ::testing::ValuesIn(testing::target_archs())),
                         [](const auto& info) {
                           std::string n = std::get<0>(info.param) + "_" + std::get<1>(info.param);
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

// --- edits that need to know the family ------------------------------------------------------

// The pair kernel of a row holds the row's loop and the nine references' loops. Gutting the
// row's own loop, with the FFMA reference's loop beside it intact, must fail: it did not when
// the expectation counted the whole clocked span, where the reference stood in for the row.
TEST(PairKernel, RowCodeGuttedBesideItsReferenceIsAMismatch) {
  GD_REQUIRE_DISASSEMBLER();
  for (const std::string& arch_name : testing::target_archs()) {
    const Declared& d = declared("pipes.interference.ffma");
    const SassExpectation& pair = d.sass.at(0);
    ASSERT_NE(pair.kernel.find("alu_pair_kernel"), std::string::npos) << pair.kernel;
    const CodeBase& code = code_for(arch_name, {pair.kernel});
    const auto kernels = code.match(pair.kernel);
    ASSERT_EQ(kernels.size(), 1u) << arch_name;
    const KernelCode& k = *kernels[0];
    // The row's loop: from the marker to the second clock read after it.
    std::size_t marker = 0;
    while (marker < k.instructions.size() && k.instructions[marker].base_opcode() != "PMTRIG") ++marker;
    ASSERT_LT(marker, k.instructions.size()) << arch_name << ": the pair kernel has no region marker";
    std::vector<std::size_t> row_loop;
    for (std::size_t i = marker, clocks = 0; i < k.instructions.size() && clocks < 2; ++i) {
      clocks += k.instructions[i].reads_clock();
      row_loop.push_back(i);
    }
    const KernelCode gutted = edited(k, row_loop, "FFMA", Edit::Drop);
    int ffma_left = 0;
    for (const auto& i : gutted.instructions) ffma_left += opcode_matches("FFMA", i.opcode);
    ASSERT_GE(ffma_left, 64) << arch_name << ": the FFMA reference's loop should remain";
    const SassCheck c = check_one(pair, Arch::parse(arch_name), gutted);
    EXPECT_EQ(c.status, SassStatus::Mismatch) << arch_name << ": " << c.detail;
  }
}

// A wgmma latency chain waits for each wgmma before the next (wait_group 0). Dropping those
// waits, keeping the one after the loop, turns it into an issue-rate loop: a mismatch.
TEST(WgmmaLatency, ChainWithoutItsWaitsIsAMismatch) {
  GD_REQUIRE_DISASSEMBLER();
  const Declared& d = declared("tensor.wgmma.latency");
  const Arch arch = Arch::parse("sm_90a");
  for (const auto& e : d.sass) {
    const CodeBase& code = code_for("sm_90a", {e.kernel});
    const auto kernels = code.match(e.kernel);
    ASSERT_FALSE(kernels.empty()) << e.kernel;
    for (const KernelCode* k : kernels) {
      auto span = timed_code(*k, e);
      std::size_t last_wait = 0;
      for (std::size_t i : span)
        if (opcode_matches("WARPGROUP.DEPBAR", k->instructions[i].opcode)) last_wait = i;
      span.erase(std::remove(span.begin(), span.end(), last_wait), span.end());
      const SassCheck c = check_one(e, arch, edited(*k, span, "WARPGROUP.DEPBAR", Edit::Drop));
      EXPECT_EQ(c.status, SassStatus::Mismatch) << k->demangled << ": " << c.detail;
    }
  }
}

// idiv_u64's step is a CALL: the division routine it calls must be what the row says, not only
// the CALL. The listing with the routine's body turned into NOPs is a mismatch.
TEST(CallStep, RoutineGuttedIsAMismatch) {
  GD_REQUIRE_DISASSEMBLER();
  const Declared& d = declared("latency.alu.idiv_u64");
  for (const std::string& arch_name : testing::target_archs())
    for (const auto& e : d.sass) {
      ASSERT_TRUE(e.callees) << e.kernel << ": the routine is not checked";
      const CodeBase& code = code_for(arch_name, {e.kernel});
      for (const KernelCode* k : code.match(e.kernel)) {
        SassExpectation clocked_only = e;
        clocked_only.callees = false;
        const auto loop = timed_code(*k, clocked_only), all = timed_code(*k, e);
        std::vector<std::size_t> routine;
        std::set_difference(all.begin(), all.end(), loop.begin(), loop.end(), std::back_inserter(routine));
        ASSERT_GT(routine.size(), 10u) << arch_name << " " << k->demangled << ": no routine found";
        KernelCode gutted = *k;
        for (std::size_t i : routine)
          if (gutted.instructions[i].base_opcode() != "RET") gutted.instructions[i].opcode = "NOP";
        const SassCheck c = check_one(e, Arch::parse(arch_name), gutted);
        EXPECT_EQ(c.status, SassStatus::Mismatch) << arch_name << " " << k->demangled << ": " << c.detail;
      }
    }
}

}  // namespace
}  // namespace gd::sass
