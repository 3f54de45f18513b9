// Cubin and fatbin readers on real nvcc output, and the ELF reader against truncated and
// corrupted input (it must throw gd::Error with a message, never read past the end).
#include <gtest/gtest.h>

#include <random>

#include "sass/elf.hpp"
#include "sass/fatbin.hpp"
#include "sass_test_util.hpp"

namespace gd::sass {
namespace {

using testing::compile_cubin;
using testing::compile_cubin_bytes;
using testing::kChainSource;
using testing::target_archs;

TEST(Arch, ParsesTheSpellingsToolsUse) {
  EXPECT_EQ(Arch::parse("sm_90a"), (Arch{90, true}));
  EXPECT_EQ(Arch::parse("SM100a"), (Arch{100, true}));
  EXPECT_EQ(Arch::parse("compute_80"), (Arch{80, false}));
  EXPECT_EQ(Arch::parse("120a").name(), "sm_120a");
  EXPECT_THROW(Arch::parse("hopper"), UserError);
  EXPECT_THROW(Arch::parse("sm_"), UserError);
  EXPECT_THROW(Arch::parse("sm_9000"), UserError);
}

class CubinPerArch : public ::testing::TestWithParam<std::string> {};

TEST_P(CubinPerArch, ArchKernelsAndAttributes) {
  const Cubin c = compile_cubin(kChainSource, GetParam());
  EXPECT_EQ(c.arch().name(), GetParam());
  EXPECT_EQ(c.virtual_sm(), c.arch().sm);
  const Kernel* chain = c.find_kernel("ffma_chain");
  ASSERT_NE(chain, nullptr);
  EXPECT_EQ(chain->text_size % 16, 0u);
  EXPECT_GT(chain->instruction_count(), 32u);
  EXPECT_GT(chain->info.registers, 0);
  ASSERT_EQ(chain->info.params.size(), 4u);
  EXPECT_EQ(chain->info.params[0].size, 8u);  // float*
  EXPECT_EQ(chain->info.params[2].size, 4u);  // float
  EXPECT_EQ(chain->info.params[3].offset, 20u);
  EXPECT_EQ(chain->info.param_bank_size, 24u);
  ASSERT_FALSE(chain->info.exit_offsets.empty());
  for (auto off : chain->info.exit_offsets) EXPECT_LT(off, chain->text_size);
  EXPECT_EQ(c.text(*chain).size(), chain->text_size);

  const Kernel* t = c.find_kernel("void templated<int>(int*, int)");
  ASSERT_NE(t, nullptr) << "demangled lookup";
  EXPECT_EQ(t->name, "_Z9templatedIiEvPT_i");
}

TEST_P(CubinPerArch, ExitOffsetsPointAtExitInstructions) {
  GD_REQUIRE_DISASSEMBLER();
  const Cubin c = compile_cubin(kChainSource, GetParam());
  const Disassembly d = disassemble(c);
  // A cubin with no kernel or kernels with no exit offsets would pass the loop below vacuously.
  ASSERT_FALSE(c.kernels().empty());
  std::size_t checked = 0;
  for (const auto& k : c.kernels()) {
    EXPECT_FALSE(k.info.exit_offsets.empty()) << k.name;
    checked += k.info.exit_offsets.size();
  }
  ASSERT_GT(checked, 0u);
  for (const auto& k : c.kernels())
    for (auto off : k.info.exit_offsets) {
      const auto& insts = d.kernels.at(k.name);
      const auto it = std::find_if(insts.begin(), insts.end(), [&](const SassInstruction& i) { return i.address == off; });
      ASSERT_NE(it, insts.end());
      EXPECT_EQ(it->base_opcode(), "EXIT") << k.name << " @" << off;
    }
}

INSTANTIATE_TEST_SUITE_P(Targets, CubinPerArch, ::testing::ValuesIn(target_archs()),
                         [](const auto& info) { return info.param; });

TEST(Cubin, BlackwellCarriesMercurySectionsHopperDoesNot) {
  EXPECT_FALSE(compile_cubin(kChainSource, "sm_90a").has_mercury_sections());
  EXPECT_TRUE(compile_cubin(kChainSource, "sm_100a").has_mercury_sections());
}

TEST(Cubin, RejectsNonCudaElf) {
  // Our own test executable is an x86-64 ELF: readable as ELF, not as a cubin.
  EXPECT_NO_THROW(ElfFile(read_file_bytes(own_executable_path())));
  try {
    Cubin c(read_file_bytes(own_executable_path()));
    FAIL() << "accepted a host executable";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("EM_CUDA"), std::string::npos) << e.what();
  }
}

TEST(Cubin, InstructionIndexPastTheEndThrows) {
  const Cubin c = compile_cubin(kChainSource, "sm_90a");
  const Kernel& k = *c.find_kernel("ffma_chain");
  EXPECT_NO_THROW(c.instruction(k, k.instruction_count() - 1));
  EXPECT_THROW(c.instruction(k, k.instruction_count()), Error);
}

// Every truncation and a few thousand random corruptions: the reader either parses or throws
// gd::Error with a message. A read past the end would crash or be caught by the sanitizers.
TEST(CubinFuzz, TruncatedInputGivesClearErrors) {
  const auto bytes = compile_cubin_bytes(kChainSource, "sm_100a");
  int rejected = 0;
  for (std::size_t n = 0; n < bytes.size(); n += (n < 256 ? 1 : 7)) {
    std::vector<std::uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<long>(n));
    try {
      Cubin c(std::move(cut));
      for (const auto& k : c.kernels()) (void)c.text(k);
    } catch (const Error& e) {
      ++rejected;
      EXPECT_GT(std::string(e.what()).size(), 10u);
    }
  }
  EXPECT_GT(rejected, 0);
}

TEST(CubinFuzz, CorruptedInputNeverCrashes) {
  const auto bytes = compile_cubin_bytes(kChainSource, "sm_90a");
  std::mt19937 rng(12345);
  int parsed = 0, rejected = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    auto b = bytes;
    const int flips = 1 + int(rng() % 8);
    for (int f = 0; f < flips; ++f) {
      // Bias towards the headers, where offsets and counts live.
      const std::size_t at = (rng() % 2) ? rng() % 64 : rng() % b.size();
      b[at] = static_cast<std::uint8_t>(rng());
    }
    if (rng() % 4 == 0) {  // also corrupt a section header field wholesale
      const std::uint64_t shoff = read_le<std::uint64_t>(bytes, 40, "test");
      const std::size_t at = shoff + 64 * (1 + rng() % 10) + 24 + 8 * (rng() % 2);
      if (at + 8 <= b.size()) {
        const std::uint64_t v = (std::uint64_t(rng()) << 32) | rng();
        std::memcpy(b.data() + at, &v, 8);
      }
    }
    try {
      Cubin c(std::move(b));
      for (const auto& k : c.kernels())
        for (std::size_t i = 0; i < k.instruction_count(); ++i) (void)c.instruction(k, i);
      ++parsed;
    } catch (const Error&) {
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 0);
  EXPECT_GT(parsed, 0);  // most single-byte flips land in code or padding
}

TEST(NvAttributes, RecordRunningPastTheEndIsAnError) {
  const std::vector<std::uint8_t> ok = {0x04, 0x2f, 0x08, 0x00, 1, 0, 0, 0, 14, 0, 0, 0, 0x03, 0x1b, 0xff, 0x00};
  const auto attrs = parse_nv_attributes(ok, 0, "test");
  ASSERT_EQ(attrs.size(), 2u);
  EXPECT_EQ(attrs[0].u32(1), 14u);
  EXPECT_EQ(attrs[1].scalar(), 0xffu);
  std::vector<std::uint8_t> bad = {0x04, 0x2f, 0x40, 0x00, 1, 0, 0, 0};
  EXPECT_THROW(parse_nv_attributes(bad, 0, "test"), Error);
  std::vector<std::uint8_t> unknown = {0x09, 0x2f, 0x00, 0x00};
  EXPECT_THROW(parse_nv_attributes(unknown, 0, "test"), Error);
}

// ---------------------------------------------------------------------------------- fatbin

TEST(Fatbin, FindsEveryArchInAnExecutable) {
  const std::string src = std::string(kChainSource) + "\nint main() { return 0; }\n";
  const std::string exe = testing::nvcc_build(
      src, "--no-compress " + testing::gencode("sm_90a") + " " + testing::gencode("sm_100a") + " " +
               testing::gencode("sm_120a") + " -gencode arch=compute_80,code=compute_80", "");
  const EmbeddedCubins e = embedded_cubins(exe);
  EXPECT_TRUE(e.problems.empty());
  std::vector<std::string> names;
  for (const auto& a : e.archs()) names.push_back(a.name());
  for (const auto& want : target_archs())
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  bool has_chain = false;
  for (const auto& c : e.cubins) has_chain |= c.find_kernel("ffma_chain") != nullptr;
  EXPECT_TRUE(has_chain);
  bool has_ptx = false;
  for (const auto& entry : fatbin_entries_of(exe)) has_ptx |= entry.kind == FatbinEntry::Kind::Ptx;
  EXPECT_TRUE(has_ptx);
}

// A kernel template instantiated only in the sm_90a device pass (the host pass still sees it):
// the sm_80 cubin of the same unit lacks it, which is how a probe's kernel went unregistered
// and failed on the GPU with "invalid resource handle" while every SASS check passed.
TEST(Fatbin, KernelMissingFromOneDevicePassIsNamed) {
  const std::string src = R"(
template <int N> __global__ void only_where_instantiated(int* p) { p[0] = N; }
__global__ void everywhere(int* p) { p[0] = 1; }
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
template __global__ void only_where_instantiated<9>(int*);
#endif
int main() { return 0; }
)";
  const std::string exe = testing::nvcc_build(src, "--no-compress " + testing::gencode("sm_80") + " " + testing::gencode("sm_90a"), ".two");
  const auto missing = kernels_missing_from_a_pass(fatbin_entries_of(exe));
  ASSERT_EQ(missing.size(), 1u) << ::testing::PrintToString(missing);
  EXPECT_NE(missing[0].find("only_where_instantiated"), std::string::npos) << missing[0];
  EXPECT_NE(missing[0].find("in the sm_90a cubin, not in sm_80"), std::string::npos) << missing[0];

  const std::string uniform = std::string(kChainSource) + "\nint main() { return 0; }\n";
  const std::string exe2 = testing::nvcc_build(uniform, "--no-compress " + testing::gencode("sm_80") + " " + testing::gencode("sm_90a"), ".uni");
  EXPECT_TRUE(kernels_missing_from_a_pass(fatbin_entries_of(exe2)).empty());
}

TEST(Fatbin, CompressedEntriesAreReportedNotParsed) {
  const std::string src = std::string(kChainSource) + "\nint main() { return 0; }\n";
  const std::string exe = testing::nvcc_build(src, "--compress-mode=size " + testing::gencode("sm_90a"), ".z");
  const EmbeddedCubins e = embedded_cubins(exe);
  ASSERT_FALSE(e.problems.empty());
  EXPECT_NE(e.problems.front().find("compressed"), std::string::npos) << e.problems.front();
}

TEST(Fatbin, TruncatedContainerIsAnError) {
  const std::string src = std::string(kChainSource) + "\nint main() { return 0; }\n";
  const std::string exe = testing::nvcc_build(src, "--no-compress " + testing::gencode("sm_90a"), ".fat");
  ElfFile elf(read_file_bytes(exe));
  const ElfSection* s = elf.find_section(".nv_fatbin");
  ASSERT_NE(s, nullptr);
  const Bytes all = elf.section_data(*s);
  EXPECT_FALSE(parse_fatbin(all).empty());
  for (std::size_t n : {std::size_t(20), std::size_t(100), all.size() / 2})
    EXPECT_THROW(parse_fatbin(all.subspan(0, n)), Error) << n;
  std::vector<std::uint8_t> garbage(all.begin(), all.end());
  garbage[0] ^= 0xff;
  EXPECT_THROW(parse_fatbin(garbage), Error);
}

}  // namespace
}  // namespace gd::sass
