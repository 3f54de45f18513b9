#include "sass/elf.hpp"

#include <cxxabi.h>
#include <elf.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>

namespace gd::sass {

namespace {

// Sizes and field offsets come from <elf.h>'s ELF64 structs, read field by field so that a
// misaligned or truncated table is caught by the bounds checks rather than a cast.
constexpr std::uint64_t kElfHeaderSize = sizeof(Elf64_Ehdr), kSectionHeaderSize = sizeof(Elf64_Shdr),
                        kSymbolSize = sizeof(Elf64_Sym);
// Upper bounds that no real file reaches; they stop a corrupt count from driving huge loops.
constexpr std::uint32_t kMaxSections = 1u << 20;

std::string section_label(const ElfSection& s) { return "section '" + s.name + "'"; }

}  // namespace

// ---------------------------------------------------------------------------------------- Arch

std::string Arch::name() const { return "sm_" + std::to_string(sm) + (specific ? "a" : ""); }

Arch Arch::parse(std::string_view text) {
  std::string t(text);
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  for (std::string_view prefix : {"compute_", "sm_", "sm"})
    if (t.rfind(prefix, 0) == 0) {
      t.erase(0, prefix.size());
      break;
    }
  Arch a;
  if (!t.empty() && t.back() == 'a') {
    a.specific = true;
    t.pop_back();
  }
  const bool digits = !t.empty() && t.size() <= 3 &&
                      std::all_of(t.begin(), t.end(), [](unsigned char c) { return std::isdigit(c); });
  if (!digits) throw UserError("'" + std::string(text) + "' is not a GPU architecture (expected e.g. sm_90a)");
  a.sm = std::stoi(t);
  return a;
}

// ------------------------------------------------------------------------------------- ElfFile

bool has_elf_magic(Bytes b) { return b.size() >= SELFMAG && std::memcmp(b.data(), ELFMAG, SELFMAG) == 0; }

bool ElfSection::has_file_data() const { return type != SHT_NOBITS; }

int ElfSymbol::type() const { return ELF64_ST_TYPE(info); }

ElfFile::ElfFile(std::vector<std::uint8_t> bytes) : bytes_(std::move(bytes)) {
  parse_header();
  parse_symbols();
}

void ElfFile::parse_header() {
  Bytes b = bytes_;
  if (b.size() < kElfHeaderSize)
    throw Error("not an ELF file: " + std::to_string(b.size()) + " bytes is shorter than an ELF header");
  if (!has_elf_magic(b)) throw Error("not an ELF file: bad magic");
  if (b[EI_CLASS] != ELFCLASS64) throw Error("unsupported ELF: only 64-bit (ELFCLASS64) files are read");
  if (b[EI_DATA] != ELFDATA2LSB) throw Error("unsupported ELF: only little-endian files are read");
  os_abi_ = b[EI_OSABI];
  abi_version_ = b[EI_ABIVERSION];
  machine_ = read_le<std::uint16_t>(b, offsetof(Elf64_Ehdr, e_machine), "ELF header");
  flags_ = read_le<std::uint32_t>(b, offsetof(Elf64_Ehdr, e_flags), "ELF header");
  const auto shoff = read_le<std::uint64_t>(b, offsetof(Elf64_Ehdr, e_shoff), "ELF header");
  const auto shentsize = read_le<std::uint16_t>(b, offsetof(Elf64_Ehdr, e_shentsize), "ELF header");
  const auto shnum = read_le<std::uint16_t>(b, offsetof(Elf64_Ehdr, e_shnum), "ELF header");
  const auto shstrndx = read_le<std::uint16_t>(b, offsetof(Elf64_Ehdr, e_shstrndx), "ELF header");
  parse_sections(shoff, shnum, shentsize, shstrndx);
}

void ElfFile::parse_sections(std::uint64_t shoff, std::uint16_t shnum, std::uint16_t shentsize,
                             std::uint16_t shstrndx) {
  if (shnum == 0) return;  // no section table: nothing to list (the cubin layer will complain)
  if (shentsize < kSectionHeaderSize)
    throw Error("corrupt ELF: section header size " + std::to_string(shentsize) + " < " +
                std::to_string(kSectionHeaderSize));
  if (shnum > kMaxSections) throw Error("corrupt ELF: implausible section count");
  Bytes b = bytes_;
  checked_slice(b, shoff, std::uint64_t(shnum) * shentsize, "ELF section header table");
  std::vector<std::uint32_t> name_offsets;
  for (std::uint16_t i = 0; i < shnum; ++i) {
    const std::uint64_t h = shoff + std::uint64_t(i) * shentsize;
    ElfSection s;
    name_offsets.push_back(read_le<std::uint32_t>(b, h + offsetof(Elf64_Shdr, sh_name), "section header"));
    s.type = read_le<std::uint32_t>(b, h + offsetof(Elf64_Shdr, sh_type), "section header");
    s.flags = read_le<std::uint64_t>(b, h + offsetof(Elf64_Shdr, sh_flags), "section header");
    s.offset = read_le<std::uint64_t>(b, h + offsetof(Elf64_Shdr, sh_offset), "section header");
    s.size = read_le<std::uint64_t>(b, h + offsetof(Elf64_Shdr, sh_size), "section header");
    s.link = read_le<std::uint32_t>(b, h + offsetof(Elf64_Shdr, sh_link), "section header");
    s.info = read_le<std::uint32_t>(b, h + offsetof(Elf64_Shdr, sh_info), "section header");
    s.entsize = read_le<std::uint64_t>(b, h + offsetof(Elf64_Shdr, sh_entsize), "section header");
    if (s.has_file_data() && !in_bounds(b.size(), s.offset, s.size))
      throw Error("corrupt ELF: section " + std::to_string(i) + " [" + std::to_string(s.offset) + ", +" +
                  std::to_string(s.size) + ") runs past the end of the " + std::to_string(b.size()) +
                  "-byte file (truncated?)");
    sections_.push_back(std::move(s));
  }
  if (shstrndx >= shnum) throw Error("corrupt ELF: section name table index out of range");
  Bytes names = section_data(sections_[shstrndx]);
  for (std::size_t i = 0; i < sections_.size(); ++i)
    sections_[i].name = read_cstring(names, name_offsets[i], "section name table");
}

void ElfFile::parse_symbols() {
  const auto symtab = std::find_if(sections_.begin(), sections_.end(),
                                   [](const ElfSection& s) { return s.type == SHT_SYMTAB; });
  if (symtab == sections_.end()) return;
  if (symtab->link >= sections_.size()) throw Error("corrupt ELF: symbol table links no string table");
  Bytes syms = section_data(*symtab);
  Bytes names = section_data(sections_[symtab->link]);
  const std::uint64_t entsize = symtab->entsize ? symtab->entsize : kSymbolSize;
  if (entsize < kSymbolSize)
    throw Error("corrupt ELF: symbol entry size " + std::to_string(entsize) + " < " + std::to_string(kSymbolSize));
  for (std::uint64_t off = 0, index = 0; off + kSymbolSize <= syms.size(); off += entsize, ++index) {
    ElfSymbol s;
    s.name = read_cstring(names, read_le<std::uint32_t>(syms, off + offsetof(Elf64_Sym, st_name), "symbol"),
                          "symbol name table");
    s.info = syms[off + offsetof(Elf64_Sym, st_info)];
    s.other = syms[off + offsetof(Elf64_Sym, st_other)];
    s.section = read_le<std::uint16_t>(syms, off + offsetof(Elf64_Sym, st_shndx), "symbol");
    s.value = read_le<std::uint64_t>(syms, off + offsetof(Elf64_Sym, st_value), "symbol");
    s.size = read_le<std::uint64_t>(syms, off + offsetof(Elf64_Sym, st_size), "symbol");
    s.index = static_cast<std::uint32_t>(index);
    symbols_.push_back(std::move(s));
  }
}

const ElfSection* ElfFile::find_section(std::string_view name) const {
  for (const auto& s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

Bytes ElfFile::section_data(const ElfSection& s) const {
  if (!s.has_file_data()) return {};
  return checked_slice(bytes_, s.offset, s.size, section_label(s));
}

// -------------------------------------------------------------------------------- attributes

std::uint32_t NvAttribute::u32(std::size_t index) const {
  return read_le<std::uint32_t>(value, index * 4, ".nv.info attribute value");
}

std::uint32_t NvAttribute::scalar() const {
  if (value.size() == 1) return value[0];
  return read_le<std::uint16_t>(value, 0, ".nv.info attribute value");
}

std::vector<NvAttribute> parse_nv_attributes(Bytes section, std::uint64_t file_offset,
                                             std::string_view what) {
  constexpr std::uint8_t kNone = 1, kByte = 2, kHalf = 3, kSized = 4;
  std::vector<NvAttribute> out;
  std::uint64_t p = 0;
  while (p < section.size()) {
    NvAttribute a;
    a.format = read_le<std::uint8_t>(section, p, what);
    a.id = read_le<std::uint8_t>(section, p + 1, what);
    std::uint64_t value_at = p + 2, value_size = 0;
    switch (a.format) {
      case kNone: value_size = 0; break;
      case kByte: value_size = 1; break;
      case kHalf: value_size = 2; break;
      case kSized:
        value_size = read_le<std::uint16_t>(section, p + 2, what);
        value_at = p + 4;
        break;
      default:
        throw Error(std::string(what) + ": unknown attribute format " + std::to_string(a.format) +
                    " at offset " + std::to_string(p));
    }
    Bytes v = checked_slice(section, value_at, value_size, what);
    a.value.assign(v.begin(), v.end());
    a.value_offset = file_offset + value_at;
    // Byte, half and none records all occupy one 4-byte slot.
    p = a.format == kSized ? value_at + value_size : p + 4;
    out.push_back(std::move(a));
  }
  return out;
}

KernelInfo kernel_info_from(const std::vector<NvAttribute>& attrs) {
  KernelInfo k;
  k.attributes = attrs;
  for (const auto& a : attrs) {
    switch (a.id) {
      case nvinfo::kMaxRegCount: k.max_registers = static_cast<int>(a.scalar()); break;
      case nvinfo::kExitInstrOffsets:
        for (std::size_t i = 0; i * 4 < a.value.size(); ++i) k.exit_offsets.push_back(a.u32(i));
        break;
      case nvinfo::kKparamInfo: {
        // index u32 | ordinal u16 | offset u16 | flags u32 with the size in bytes in bits 18..31
        KernelParam p;
        p.ordinal = read_le<std::uint16_t>(a.value, 4, "KPARAM_INFO");
        p.offset = read_le<std::uint16_t>(a.value, 6, "KPARAM_INFO");
        p.size = (read_le<std::uint32_t>(a.value, 8, "KPARAM_INFO") >> 18) & 0x3fff;
        k.params.push_back(p);
        break;
      }
      case nvinfo::kParamCbank: {
        const std::uint32_t packed = a.u32(1);  // offset in the low half, size in the high half
        k.param_bank_offset = packed & 0xffff;
        k.param_bank_size = packed >> 16;
        break;
      }
      default: break;
    }
  }
  std::sort(k.params.begin(), k.params.end(),
            [](const KernelParam& a, const KernelParam& b) { return a.ordinal < b.ordinal; });
  return k;
}

std::string demangle(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : mangled;
}

std::vector<std::uint8_t> read_file_bytes(const std::string& path) {
  // A folder opens fine as a stream and then fails to read with an exception of the library's.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw UserError("'" + path + "' is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot open '" + path + "'");
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw UserError("cannot read '" + path + "'");
  return bytes;
}

// --------------------------------------------------------------------------------------- Cubin

Cubin::Cubin(std::vector<std::uint8_t> bytes) : ElfFile(std::move(bytes)) {
  if (machine() != EM_CUDA)
    throw Error("not a cubin: ELF machine is " + std::to_string(machine()) + ", not EM_CUDA (" +
                std::to_string(EM_CUDA) + ")");
  if (sections().empty()) throw Error("corrupt cubin: no section table");
  parse_arch();
  parse_kernels();
}

Cubin Cubin::from_file(const std::string& path) {
  try {
    return Cubin(read_file_bytes(path));
  } catch (const UserError&) {
    throw;
  } catch (const Error& e) {
    throw UserError("'" + path + "': " + e.what());
  }
}

void Cubin::parse_arch() {
  // ELF ABI 7 (CUDA <= 12) keeps the SM in the low byte and 'a' in bit 11; ABI 8 (CUDA 13)
  // moves the SM to bits 8..15 and 'a' to bit 3. ptxas 13.0 leaves the 'a' bit clear and records
  // the variant in .nv.compat instead, so both places are consulted.
  const std::uint32_t f = flags();
  if (abi_version() >= 8) {
    arch_.sm = static_cast<int>((f >> 8) & 0xff);
    arch_.specific = (f & 0x8) != 0;
  } else {
    arch_.sm = static_cast<int>(f & 0xff);
    arch_.specific = (f & 0x800) != 0;
    virtual_sm_ = static_cast<int>((f >> 16) & 0xff);
  }
  if (const ElfSection* s = find_section(".nv.compat")) {
    compat_ = parse_nv_attributes(section_data(*s), s->offset, ".nv.compat");
    for (const auto& a : compat_)
      if (a.id == nvcompat::kAcceleratorTarget && a.scalar() != 0) arch_.specific = true;
  }
  if (const ElfSection* s = find_section(".note.nv.cuinfo")) {
    // An ELF note (header, "NVIDIA Corp\0" padded to 4 bytes), then desc = version u16, virtual SM u16, ...
    Bytes note = section_data(*s);
    const auto namesz = read_le<std::uint32_t>(note, offsetof(Elf64_Nhdr, n_namesz), ".note.nv.cuinfo");
    const std::uint64_t desc = sizeof(Elf64_Nhdr) + ((std::uint64_t(namesz) + 3) & ~std::uint64_t(3));
    if (in_bounds(note.size(), desc, 4)) virtual_sm_ = read_le<std::uint16_t>(note, desc + 2, ".note.nv.cuinfo");
  }
  if (arch_.sm < 20) {
    char hex[16];
    std::snprintf(hex, sizeof hex, "%08x", f);
    throw Error(std::string("corrupt cubin: ELF flags 0x") + hex + " name no known SM");
  }
}

void Cubin::parse_kernels() {
  // Global .nv.info holds per-function records keyed by symbol index (register count, frames).
  std::vector<NvAttribute> global;
  if (const ElfSection* s = find_section(".nv.info"))
    global = parse_nv_attributes(section_data(*s), s->offset, ".nv.info");
  for (std::size_t si = 0; si < sections().size(); ++si) {
    const ElfSection& sec = sections()[si];
    constexpr std::string_view kText = ".text.";
    if (sec.name.rfind(kText, 0) != 0) continue;
    Kernel k;
    k.name = sec.name.substr(kText.size());
    k.demangled = demangle(k.name);
    k.text_section = si;
    k.text_offset = sec.offset;
    k.text_size = sec.size;
    if (sec.size % 16 != 0)
      throw Error("corrupt cubin: " + section_label(sec) + " is " + std::to_string(sec.size) +
                  " bytes, not a whole number of 16-byte instructions");
    for (const auto& sym : symbols())
      if (sym.name == k.name && sym.section == si) k.symbol_index = sym.index;
    if (const ElfSection* info = find_section(".nv.info." + k.name))
      k.info = kernel_info_from(parse_nv_attributes(section_data(*info), info->offset, info->name));
    for (const auto& a : global) {
      if (a.value.size() < 8 || a.u32(0) != k.symbol_index || k.symbol_index == 0) continue;
      const std::uint32_t v = a.u32(1);
      if (a.id == nvinfo::kRegCount) k.info.registers = static_cast<int>(v);
      if (a.id == nvinfo::kFrameSize) k.info.frame_size = v;
      if (a.id == nvinfo::kMinStackSize) k.info.min_stack_size = v;
    }
    kernels_.push_back(std::move(k));
  }
}

const Kernel* Cubin::find_kernel(std::string_view name) const {
  for (const auto& k : kernels_)
    if (k.name == name || k.demangled == name) return &k;
  return nullptr;
}

bool Cubin::has_mercury_sections() const {
  return std::any_of(sections().begin(), sections().end(),
                     [](const ElfSection& s) { return s.name.rfind(".nv.capmerc", 0) == 0; });
}

Bytes Cubin::text(const Kernel& k) const {
  return checked_slice(bytes_, k.text_offset, k.text_size, "kernel '" + k.name + "' code");
}

Instruction128 Cubin::instruction(const Kernel& k, std::size_t i) const {
  if (i >= k.instruction_count())
    throw Error("instruction " + std::to_string(i) + " is past the end of kernel '" + k.name + "' (" +
                std::to_string(k.instruction_count()) + " instructions)");
  Bytes t = text(k);
  return {read_le<std::uint64_t>(t, 16 * i, "instruction"), read_le<std::uint64_t>(t, 16 * i + 8, "instruction")};
}

void Cubin::set_instruction(const Kernel& k, std::size_t i, Instruction128 word) {
  (void)instruction(k, i);  // range check
  std::memcpy(bytes_.data() + k.text_offset + 16 * i, &word.lo, 8);
  std::memcpy(bytes_.data() + k.text_offset + 16 * i + 8, &word.hi, 8);
}

void Cubin::set_compat_byte(std::uint8_t id, std::uint8_t value) {
  for (auto& a : compat_)
    if (a.id == id && !a.value.empty()) {
      a.value[0] = value;
      bytes_.at(a.value_offset) = value;
      return;
    }
  throw Error("cubin has no .nv.compat attribute 0x" + std::to_string(id));
}

}  // namespace gd::sass
