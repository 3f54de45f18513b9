// SASS text through NVIDIA's disassemblers (not ours to ship: found on the machine), parsed into
// instructions and joined with the raw words and decoded control words read from the cubin.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sass/control.hpp"
#include "sass/elf.hpp"

namespace gd::sass {

struct SassInstruction {
  std::uint64_t address = 0;   // byte offset in the kernel's .text
  std::string predicate;       // "@P0", "@!PT" or empty
  std::string opcode;          // with modifiers: "IMAD.WIDE.U32"
  std::vector<std::string> operands;
  std::string text;            // the instruction as the disassembler printed it, without ';'
  Instruction128 raw;
  ControlWord control;

  std::string base_opcode() const;               // "IMAD"
  std::vector<std::string> modifiers() const;    // {"WIDE", "U32"}
  // True for a read of the SM cycle counter (clock/clock64: CS2R, S2R, S2UR, CS2UR of SR_CLOCK*).
  bool reads_clock() const;
};

// Splits one disassembly statement ("@!P0 BRA `(.L_x_0)") into predicate, opcode and operands.
// Returns nullopt for text that is not an instruction.
std::optional<SassInstruction> parse_statement(const std::string& statement);

// One listing line "  /*0040*/  IMAD R1, R2, R3, R4 ;  /* 0x... */": its address and the
// statement without ';' and the trailing comment; nullopt for any other line. Hand-written: the
// regular expression it replaced cost more CPU than nvdisasm itself at every run's start.
std::optional<std::pair<std::uint64_t, std::string>> split_instruction_line(std::string_view line);

// Parses disassembler output (nvdisasm on a cubin, or cuobjdump -sass) into kernels by name.
// Instructions carry address and text; raw words are joined by the caller from the cubin.
std::map<std::string, std::vector<SassInstruction>> parse_disassembly(const std::string& output);

struct DisassemblerTools {
  std::optional<std::string> nvdisasm;
  std::optional<std::string> cuobjdump;
  bool any() const { return nvdisasm || cuobjdump; }
  std::string missing_reason() const;  // what to install, for messages
};
// Looks in $GPUDISSECT_NVDISASM / $GPUDISSECT_CUOBJDUMP, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin
// and the nvidia-cuda-nvdisasm / nvidia-cuda-cuobjdump Python wheels. Cached after the first call.
const DisassemblerTools& disassembler_tools();

// Every kernel of a cubin, its instructions joined with raw words and control words. Without a
// disassembler the instructions carry raw words and control words only (empty opcode).
struct Disassembly {
  std::map<std::string, std::vector<SassInstruction>> kernels;  // by mangled name
  bool has_text = false;    // a disassembler ran
  std::string note;         // why there is no text, when there is none
};
Disassembly disassemble(const Cubin& cubin);
// The same for many cubins, one result per cubin in order. Cubins of one arch go to nvdisasm's
// raw-binary mode concatenated, in chunks of about `chunk_bytes` of code (0: sized so every core
// gets about two, at least 256 KiB each, since a call costs half a second to start), the chunks
// on all cores; branch targets are then rebased to each kernel, as its addresses are.
// Other cases (mixed archs, only cuobjdump) run one call per cubin, on all cores.
// `wanted`, when given, limits the disassembler to those kernels (the others get their raw words
// only): a cubin with hundreds of catalog kernels costs nothing for the one a filter selects.
std::vector<Disassembly> disassemble_all(const std::vector<const Cubin*>& cubins,
                                         const std::function<bool(const Kernel&)>& wanted = {},
                                         std::uint64_t chunk_bytes = 0);
// A line on stderr as the parts of a long disassembly finish ("disassembling sm_90a: 12 of 40
// parts (0 from the cache), 9 s"), for the commands a user waits on (verify, sass, isa). nvdisasm's
// text is cached on disk by the code's bytes (GPUDISSECT_CACHE_DIR, default ~/.cache/gpudissect;
// "off" turns it off), so the second command over the same binary is fast.
void set_disassembly_progress(bool on);
// Raw words and control words only, for one kernel.
std::vector<SassInstruction> raw_instructions(const Cubin& cubin, const Kernel& kernel);

// A file in the temporary directory, removed when this goes out of scope, or by the handler of an
// interrupting signal (core/temp_paths.hpp) when the command is stopped first.
class TempFile {
 public:
  explicit TempFile(const std::string& suffix);
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }
  void write(const void* data, std::size_t size) const;

 private:
  std::string path_;
  int cleanup_slot_ = -1;
};

}  // namespace gd::sass
