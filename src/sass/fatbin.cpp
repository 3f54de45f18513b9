#include "sass/fatbin.hpp"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <map>
#include <set>

namespace gd::sass {

namespace {

constexpr std::uint64_t kContainerHeader = 16, kMinEntryHeader = 64;
constexpr std::uint16_t kKindPtx = 1, kKindCubin = 2;
// Entry flag bits that announce a compressed payload (LZ4 in older toolkits, zstd since 12.x).
constexpr std::uint64_t kFlagCompressedLz4 = 0x2000, kFlagCompressedZstd = 0x8000;

std::string at(std::uint64_t offset) { return " at offset " + std::to_string(offset) + " of .nv_fatbin"; }

FatbinEntry parse_entry(Bytes section, std::uint64_t p, std::uint64_t container) {
  FatbinEntry e;
  e.container_offset = container;
  const auto kind = read_le<std::uint16_t>(section, p, "fatbin entry");
  const auto header_size = read_le<std::uint32_t>(section, p + 4, "fatbin entry");
  const auto payload_size = read_le<std::uint64_t>(section, p + 8, "fatbin entry");
  if (header_size < kMinEntryHeader) throw Error("corrupt fatbin: entry header of " + std::to_string(header_size) + " bytes" + at(p));
  e.kind = kind == kKindPtx ? FatbinEntry::Kind::Ptx : kind == kKindCubin ? FatbinEntry::Kind::Cubin : FatbinEntry::Kind::Other;
  e.sm = static_cast<int>(read_le<std::uint32_t>(section, p + 28, "fatbin entry"));
  e.flags = read_le<std::uint64_t>(section, p + 40, "fatbin entry");
  e.compressed = (e.flags & (kFlagCompressedLz4 | kFlagCompressedZstd)) != 0;
  Bytes payload = checked_slice(section, p + header_size, payload_size, "fatbin entry payload");
  e.payload.assign(payload.begin(), payload.end());
  return e;
}

}  // namespace

std::vector<FatbinEntry> parse_fatbin(Bytes section) {
  std::vector<FatbinEntry> out;
  std::uint64_t c = 0;
  while (c + kContainerHeader <= section.size()) {
    const auto magic = read_le<std::uint32_t>(section, c, "fatbin header");
    if (magic != kFatbinMagic) {
      // Containers are 8-byte aligned; zero padding may separate them.
      if (magic == 0) { c += 8; continue; }
      throw Error("corrupt fatbin: bad magic" + at(c));
    }
    const auto header_size = read_le<std::uint16_t>(section, c + 6, "fatbin header");
    const auto body_size = read_le<std::uint64_t>(section, c + 8, "fatbin header");
    if (header_size < kContainerHeader) throw Error("corrupt fatbin: container header size" + at(c));
    const std::uint64_t body = c + header_size;
    checked_slice(section, body, body_size, "fatbin container");
    for (std::uint64_t p = body; p < body + body_size;) {
      FatbinEntry e = parse_entry(section.subspan(0, body + body_size), p, c);
      p += read_le<std::uint32_t>(section, p + 4, "fatbin entry") + e.payload.size();
      out.push_back(std::move(e));
    }
    c = body + body_size;
    c = (c + 7) & ~std::uint64_t(7);
  }
  return out;
}

// The path is the user's (--exe) or ours: a file that is not an executable with readable CUDA
// code is bad input either way, not a broken environment.
std::vector<FatbinEntry> fatbin_entries_of(const std::string& path) {
  try {
    ElfFile exe(read_file_bytes(path));
    const ElfSection* s = exe.find_section(".nv_fatbin");
    if (!s) return {};
    return parse_fatbin(exe.section_data(*s));
  } catch (const UserError&) {
    throw;
  } catch (const Error& e) {
    throw UserError("'" + path + "': " + e.what());
  }
}

std::vector<Arch> EmbeddedCubins::archs() const {
  std::vector<Arch> a;
  for (const auto& c : cubins)
    if (std::find(a.begin(), a.end(), c.arch()) == a.end()) a.push_back(c.arch());
  std::sort(a.begin(), a.end(), [](const Arch& x, const Arch& y) {
    return x.sm != y.sm ? x.sm < y.sm : x.specific < y.specific;
  });
  return a;
}

EmbeddedCubins embedded_cubins(const std::string& path) {
  EmbeddedCubins out;
  for (auto& e : fatbin_entries_of(path)) {
    if (e.kind != FatbinEntry::Kind::Cubin) continue;
    const std::string label = "sm_" + std::to_string(e.sm) + " cubin in container at " + std::to_string(e.container_offset);
    if (e.compressed || !has_elf_magic(e.payload)) {
      out.problems.push_back(label + " is compressed (build with nvcc --no-compress to inspect it)");
      continue;
    }
    try {
      out.cubins.emplace_back(std::move(e.payload));
    } catch (const Error& err) {
      out.problems.push_back(label + ": " + err.what());
    }
  }
  return out;
}

std::vector<std::string> kernels_missing_from_a_pass(const std::vector<FatbinEntry>& entries) {
  // The readable cubins of each container (one per translation unit), in section order.
  std::map<std::uint64_t, std::vector<Cubin>> units;
  for (const auto& e : entries) {
    if (e.kind != FatbinEntry::Kind::Cubin || e.compressed || !has_elf_magic(e.payload)) continue;
    try {
      units[e.container_offset].emplace_back(std::vector<std::uint8_t>(e.payload));
    } catch (const Error&) {
      // unreadable: embedded_cubins names it
    }
  }
  std::vector<std::string> out;
  for (const auto& [offset, cubins] : units) {
    std::set<std::string> all;
    for (const Cubin& c : cubins)
      for (const auto& k : c.kernels()) all.insert(k.name);
    for (const std::string& name : all) {
      std::string have, lack;
      for (const Cubin& c : cubins) {
        std::string& list = c.find_kernel(name) ? have : lack;
        list += (list.empty() ? "" : ", ") + c.arch().name();
      }
      if (!lack.empty())
        out.push_back(name + " (unit at fatbin offset " + std::to_string(offset) + "): in the " + have + " cubin, not in " + lack);
    }
  }
  return out;
}

std::string own_executable_path() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw Error("cannot locate our own executable through /proc/self/exe");
  return std::string(buf, static_cast<std::size_t>(n));
}

const EmbeddedCubins& own_cubins() {
  static const EmbeddedCubins ours = embedded_cubins(own_executable_path());
  return ours;
}

}  // namespace gd::sass
