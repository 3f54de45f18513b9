// ELF readers: a generic bounds-checked ELF64 reader (used for our own executable too) and the
// Cubin view on top of it: target architecture, kernels, their code and their .nv.info attributes.
// All parsing happens in the constructors; a malformed input throws gd::Error there. ELF numbers
// (header layout, section and symbol types, EM_CUDA) come from <elf.h>, included only by the
// .cpp files so its macros stay out of every includer.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sass/bytes.hpp"

namespace gd::sass {

// A SASS target such as sm_90a: SM number and whether it is the arch-specific ('a') variant.
struct Arch {
  int sm = 0;
  bool specific = false;  // the 'a' suffix: arch-specific instructions allowed, no forward compat

  std::string name() const;  // "sm_90a"
  // Accepts "sm_90a", "90a", "SM90a", "compute_90a"; throws gd::UserError otherwise.
  static Arch parse(std::string_view text);
  friend bool operator==(const Arch&, const Arch&) = default;
};

struct ElfSection {
  std::string name;
  std::uint32_t type = 0;
  std::uint64_t flags = 0;
  std::uint64_t offset = 0;  // in the file
  std::uint64_t size = 0;
  std::uint32_t link = 0;
  std::uint32_t info = 0;
  std::uint64_t entsize = 0;
  bool has_file_data() const;  // false for SHT_NOBITS, which occupies no file bytes
};

struct ElfSymbol {
  std::string name;
  std::uint64_t value = 0;
  std::uint64_t size = 0;
  std::uint8_t info = 0;
  std::uint8_t other = 0;
  std::uint16_t section = 0;
  std::uint32_t index = 0;  // position in .symtab (what .nv.info refers to)
  int type() const;  // STT_FUNC, STT_OBJECT, ... (ELF64_ST_TYPE of info)
};

// True when the bytes start with the ELF magic number.
bool has_elf_magic(Bytes b);

// Little-endian ELF64, any machine. Sections and the static symbol table are parsed eagerly.
class ElfFile {
 public:
  explicit ElfFile(std::vector<std::uint8_t> bytes);

  Bytes bytes() const { return bytes_; }
  std::uint16_t machine() const { return machine_; }
  std::uint8_t os_abi() const { return os_abi_; }
  std::uint8_t abi_version() const { return abi_version_; }
  std::uint32_t flags() const { return flags_; }
  const std::vector<ElfSection>& sections() const { return sections_; }
  const std::vector<ElfSymbol>& symbols() const { return symbols_; }
  const ElfSection* find_section(std::string_view name) const;
  Bytes section_data(const ElfSection& s) const;  // empty for NOBITS

 protected:
  std::vector<std::uint8_t> bytes_;  // Cubin edits instruction words in place; nothing moves

 private:
  std::uint16_t machine_ = 0;
  std::uint8_t os_abi_ = 0, abi_version_ = 0;
  std::uint32_t flags_ = 0;
  std::vector<ElfSection> sections_;
  std::vector<ElfSymbol> symbols_;

  void parse_header();
  void parse_sections(std::uint64_t shoff, std::uint16_t shnum, std::uint16_t shentsize,
                      std::uint16_t shstrndx);
  void parse_symbols();
};

// One .nv.info / .nv.compat record: format (1 none, 2 byte, 3 half, 4 sized) and attribute id.
struct NvAttribute {
  std::uint8_t format = 0;
  std::uint8_t id = 0;
  std::uint64_t value_offset = 0;  // file offset of the value (for in-place edits)
  std::vector<std::uint8_t> value;
  std::uint32_t u32(std::size_t index) const;  // index-th 32-bit word of a sized value
  std::uint32_t scalar() const;                // a byte or half value
};

// The .nv.info attributes ptxas writes that say something about a kernel's code.
namespace nvinfo {
inline constexpr std::uint8_t kParamCbank = 0x0a, kFrameSize = 0x11, kMinStackSize = 0x12,
                              kKparamInfo = 0x17, kCbankParamSize = 0x19, kMaxRegCount = 0x1b,
                              kExitInstrOffsets = 0x1c, kRegCount = 0x2f, kCudaApiVersion = 0x37;
}  // namespace nvinfo
// .nv.compat attributes (how the driver may treat the code).
namespace nvcompat {
inline constexpr std::uint8_t kOpportunisticFinalization = 0x06, kAcceleratorTarget = 0x09;
}  // namespace nvcompat

struct KernelParam {
  int ordinal = 0;
  std::uint32_t offset = 0;  // within the parameter constant bank
  std::uint32_t size = 0;
};

struct KernelInfo {
  int registers = -1;      // -1: not recorded
  int max_registers = -1;
  long frame_size = -1, min_stack_size = -1;
  std::vector<std::uint32_t> exit_offsets;  // byte offsets of EXIT instructions in .text
  std::vector<KernelParam> params;          // by ordinal
  std::uint32_t param_bank_offset = 0, param_bank_size = 0;
  std::vector<NvAttribute> attributes;      // all records of .nv.info.<kernel>, raw
};

struct Instruction128 {
  std::uint64_t lo = 0, hi = 0;  // hi carries the control bits on Volta and later
  friend bool operator==(const Instruction128&, const Instruction128&) = default;
};

struct Kernel {
  std::string name;       // as in the symbol table (mangled)
  std::string demangled;  // name when it is not mangled
  std::uint32_t symbol_index = 0;
  std::size_t text_section = 0;  // index into sections()
  std::uint64_t text_offset = 0; // file offset of the code
  std::uint64_t text_size = 0;
  KernelInfo info;
  std::size_t instruction_count() const { return text_size / 16; }
};

class Cubin : public ElfFile {
 public:
  explicit Cubin(std::vector<std::uint8_t> bytes);
  static Cubin from_file(const std::string& path);

  Arch arch() const { return arch_; }
  int virtual_sm() const { return virtual_sm_; }  // the PTX target it was compiled from; 0 unknown
  const std::vector<Kernel>& kernels() const { return kernels_; }
  // By mangled or demangled name.
  const Kernel* find_kernel(std::string_view name) const;
  const std::vector<NvAttribute>& compat_attributes() const { return compat_; }
  // Blackwell cubins also carry a second copy of the code (.nv.capmerc.*) the driver may
  // re-finalize from, which would silently undo an edit of .text.
  bool has_mercury_sections() const;

  Bytes text(const Kernel& k) const;
  Instruction128 instruction(const Kernel& k, std::size_t i) const;
  // In-place edits: offsets and sizes never change, so relocations and .nv.info stay valid.
  void set_instruction(const Kernel& k, std::size_t i, Instruction128 word);
  void set_compat_byte(std::uint8_t id, std::uint8_t value);  // throws when the record is absent

 private:
  Arch arch_;
  int virtual_sm_ = 0;
  std::vector<Kernel> kernels_;
  std::vector<NvAttribute> compat_;

  void parse_arch();
  void parse_kernels();
};

// Parses a run of .nv.info-style records; throws gd::Error on a record running past the end.
std::vector<NvAttribute> parse_nv_attributes(Bytes section, std::uint64_t file_offset,
                                             std::string_view what);
KernelInfo kernel_info_from(const std::vector<NvAttribute>& per_kernel);
std::string demangle(const std::string& mangled);
std::vector<std::uint8_t> read_file_bytes(const std::string& path);  // throws gd::UserError

}  // namespace gd::sass
