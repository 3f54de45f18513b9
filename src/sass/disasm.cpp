#include "sass/disasm.hpp"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <regex>
#include <sstream>
#include <thread>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/spawn.hpp"
#include "core/temp_paths.hpp"

namespace gd::sass {

namespace fs = std::filesystem;

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// Operands are comma-separated, but commas inside [...], {...} and (...) belong to one operand.
std::vector<std::string> split_operands(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    if (c == '[' || c == '{' || c == '(') ++depth;
    if (c == ']' || c == '}' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!trim(cur).empty()) out.push_back(trim(cur));
  return out;
}

std::optional<std::string> executable_in(const fs::path& dir, const std::string& name) {
  std::error_code ec;
  const fs::path p = dir / name;
  if (fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0) return p.string();
  return std::nullopt;
}

// The PyPI wheels install under <site-packages>/nvidia/cu<major>/bin; ask Python where that is.
// Python runs isolated (-I): no current folder on sys.path, no PYTHON* variables, so an
// `nvidia/` package in the folder the command runs in is not what answers.
std::vector<fs::path> python_wheel_dirs() {
  std::vector<fs::path> dirs;
  const auto python = find_tool_on_path("python3");
  if (!python) return dirs;
  const Captured r = run_capture({*python, "-I", "-c", "import nvidia,os;print(os.path.dirname(nvidia.__path__[0]))"},
                                 /*with_stderr=*/false);
  const std::string site = trim(r.output);
  if (r.status != 0 || site.empty() || site.front() != '/') return dirs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(site) / "nvidia", ec))
    if (e.path().filename().string().rfind("cu", 0) == 0) dirs.push_back(e.path() / "bin");
  std::sort(dirs.rbegin(), dirs.rend());  // newest toolkit first
  return dirs;
}

// What each tool's --version starts with. A program is taken as the disassembler only when it
// says it is NVIDIA's: a stand-in that prints nothing of the kind would have verify report
// success over listings it made up.
const char* version_banner(const std::string& name) {
  return name == "nvdisasm" ? "nvdisasm: NVIDIA (R) CUDA disassembler" : "cuobjdump: NVIDIA (R) ";
}

// Why a candidate was passed over, for missing_reason().
std::string& rejected_tools() {
  static std::string notes;
  return notes;
}

bool is_nvidia_tool(const std::string& path, const std::string& name) {
  Captured r;
  try {
    r = run_capture({path, "--version"});
  } catch (const Error&) {  // not executable: passed over like any other non-tool
  }
  if (r.status == 0 && r.output.rfind(version_banner(name), 0) == 0) return true;
  rejected_tools() += "; passed over " + path + ": its --version does not begin '" + version_banner(name) + "'";
  return false;
}

// $override_env (an absolute path), else PATH's absolute folders and the toolkit's, else the
// wheels' folders; each candidate must say it is NVIDIA's tool.
std::optional<std::string> find_tool(const std::string& name, const char* override_env,
                                     const std::vector<fs::path>& wheel_dirs) {
  if (const char* p = std::getenv(override_env); p && *p) {
    if (*p != '/') {
      rejected_tools() += std::string("; ") + override_env + "='" + p + "' is not an absolute path";
      return std::nullopt;
    }
    if (is_nvidia_tool(p, name)) return std::string(p);
    return std::nullopt;
  }
  std::vector<fs::path> dirs;
  for (const auto& d : tool_search_dirs()) dirs.emplace_back(d);
  dirs.insert(dirs.end(), wheel_dirs.begin(), wheel_dirs.end());
  for (const auto& d : dirs)
    if (auto p = executable_in(d, name); p && is_nvidia_tool(*p, name)) return p;
  return std::nullopt;
}

// Lines that start a kernel's code in nvdisasm (".section .text.NAME,...") and cuobjdump
// ("Function : NAME") output.
const std::regex& section_line() {
  static const std::regex re(R"(^\s*\.section\s+\.text\.([^,\s]+))");
  return re;
}
const std::regex& function_line() {
  static const std::regex re(R"(^\s*Function\s*:\s*(\S+))");
  return re;
}

void join_raw(const Cubin& cubin, const Kernel& k, std::vector<SassInstruction>& insts) {
  for (auto& i : insts) {
    const std::size_t index = i.address / 16;
    if (i.address % 16 != 0 || index >= k.instruction_count()) continue;
    i.raw = cubin.instruction(k, index);
    i.control = ControlWord::decode(i.raw.hi);
  }
}

}  // namespace

// ----------------------------------------------------------------------------- instructions

std::optional<std::pair<std::uint64_t, std::string>> split_instruction_line(std::string_view line) {
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  std::size_t i = 0;
  while (i < line.size() && space(line[i])) ++i;
  if (line.compare(i, 2, "/*") != 0) return std::nullopt;
  i += 2;
  const std::size_t digits = i;
  std::uint64_t address = 0;
  for (; i < line.size() && std::isxdigit(static_cast<unsigned char>(line[i])); ++i)
    address = address * 16 + std::uint64_t(std::isdigit(static_cast<unsigned char>(line[i]))
                                               ? line[i] - '0'
                                               : std::tolower(static_cast<unsigned char>(line[i])) - 'a' + 10);
  if (i == digits || line.compare(i, 2, "*/") != 0) return std::nullopt;
  std::string_view rest = line.substr(i + 2);
  const auto trim_right = [&](std::string_view v) {
    while (!v.empty() && space(v.back())) v.remove_suffix(1);
    return v;
  };
  rest = trim_right(rest);
  // A trailing comment (the encoding, /* 0x... */) runs from the first "/*" to the end.
  if (const std::size_t c = rest.find("/*"); c != std::string_view::npos && rest.size() - c >= 4 &&
                                             rest.substr(rest.size() - 2) == "*/")
    rest = trim_right(rest.substr(0, c));
  if (!rest.empty() && rest.back() == ';') rest = trim_right(rest.substr(0, rest.size() - 1));
  std::size_t b = 0;
  while (b < rest.size() && space(rest[b])) ++b;
  return std::make_pair(address, std::string(rest.substr(b)));
}

std::string SassInstruction::base_opcode() const { return opcode.substr(0, opcode.find('.')); }

std::vector<std::string> SassInstruction::modifiers() const {
  std::vector<std::string> out;
  std::stringstream ss(opcode);
  std::string part;
  std::getline(ss, part, '.');
  while (std::getline(ss, part, '.')) out.push_back(part);
  return out;
}

bool SassInstruction::reads_clock() const {
  const std::string b = base_opcode();
  if (b != "CS2R" && b != "S2R" && b != "S2UR" && b != "CS2UR") return false;
  for (const auto& o : operands)
    if (o.rfind("SR_CLOCK", 0) == 0) return true;
  return false;
}

std::optional<SassInstruction> parse_statement(const std::string& statement) {
  std::string s = trim(statement);
  while (!s.empty() && (s.back() == ';' || s.back() == ' ')) s.pop_back();
  if (s.empty()) return std::nullopt;
  SassInstruction inst;
  inst.text = s;
  std::size_t pos = 0;
  if (s[0] == '@') {
    pos = s.find_first_of(" \t");
    if (pos == std::string::npos) return std::nullopt;
    inst.predicate = s.substr(0, pos);
    pos = s.find_first_not_of(" \t", pos);
  }
  const std::size_t end = s.find_first_of(" \t", pos);
  inst.opcode = s.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
  if (inst.opcode.empty() || !std::isupper(static_cast<unsigned char>(inst.opcode[0]))) return std::nullopt;
  if (end != std::string::npos) inst.operands = split_operands(s.substr(end));
  return inst;
}

std::map<std::string, std::vector<SassInstruction>> parse_disassembly(const std::string& output) {
  std::map<std::string, std::vector<SassInstruction>> kernels;
  std::vector<SassInstruction>* current = nullptr;
  std::stringstream ss(output);
  std::smatch m;
  for (std::string line; std::getline(ss, line);) {
    // The regexes cost more than the disassembler: only lines that can name a kernel meet them.
    const bool may_name = line.find(".section") != std::string::npos || line.find("Function") != std::string::npos;
    if (may_name && (std::regex_search(line, m, section_line()) || std::regex_search(line, m, function_line()))) {
      current = &kernels[m[1]];
      continue;
    }
    if (!current) continue;
    const auto split = split_instruction_line(line);
    if (!split) continue;
    auto inst = parse_statement(split->second);
    if (!inst) continue;
    inst->address = split->first;
    current->push_back(std::move(*inst));
  }
  return kernels;
}

// ------------------------------------------------------------------------------------- tools

std::string DisassemblerTools::missing_reason() const {
  return "no SASS disassembler found (nvdisasm or cuobjdump: install the CUDA toolkit, or "
         "`pip install nvidia-cuda-nvdisasm nvidia-cuda-cuobjdump`, or set GPUDISSECT_NVDISASM to its absolute path" +
         rejected_tools() + ")";
}

const DisassemblerTools& disassembler_tools() {
  static const DisassemblerTools tools = [] {
    DisassemblerTools t;
    // The wheels' folders only when PATH and the toolkit have no tool: asking Python costs a start.
    const auto on_path = [](const char* name) {
      for (const auto& d : tool_search_dirs())
        if (executable_in(d, name)) return true;
      return false;
    };
    std::vector<fs::path> wheels;
    if ((!on_path("nvdisasm") && !std::getenv("GPUDISSECT_NVDISASM")) ||
        (!on_path("cuobjdump") && !std::getenv("GPUDISSECT_CUOBJDUMP")))
      wheels = python_wheel_dirs();
    t.nvdisasm = find_tool("nvdisasm", "GPUDISSECT_NVDISASM", wheels);
    t.cuobjdump = find_tool("cuobjdump", "GPUDISSECT_CUOBJDUMP", wheels);
    return t;
  }();
  return tools;
}

// --------------------------------------------------------------------------------- running

TempFile::TempFile(const std::string& suffix) {
  const char* dir = std::getenv("TMPDIR");
  std::string templ = std::string(dir && *dir ? dir : "/tmp") + "/gpudissect-XXXXXX" + suffix;
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  const int fd = ::mkstemps(buf.data(), static_cast<int>(suffix.size()));
  if (fd < 0) throw UserError("cannot create a temporary file in " + templ + " (" + std::strerror(errno) + "); check TMPDIR");
  ::close(fd);
  path_ = buf.data();
  cleanup_slot_ = register_temp_path(path_);
}

TempFile::~TempFile() {
  ::unlink(path_.c_str());
  unregister_temp_path(cleanup_slot_);
}

void TempFile::write(const void* data, std::size_t size) const {
  std::ofstream out(path_, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) throw Error("cannot write temporary file " + path_);
}

// ------------------------------------------------------------------------------ disassemble

std::vector<SassInstruction> raw_instructions(const Cubin& cubin, const Kernel& k) {
  std::vector<SassInstruction> out(k.instruction_count());
  for (std::size_t i = 0; i < out.size(); ++i) out[i].address = 16 * i;
  join_raw(cubin, k, out);
  return out;
}

namespace {

// Bytes handed to a disassembler as /dev/fd/N of an anonymous in-memory file: nothing is ever
// written to disk, so an interrupted command (Ctrl-C during verify) leaves no temporary cubins.
// The descriptor is inherited by the tool run_capture starts, which opens it by that name.
class MemoryFile {
 public:
  MemoryFile(const void* data, std::size_t size) {
    fd_ = ::memfd_create("gpudissect-code", 0);  // no MFD_CLOEXEC: the child must inherit it
    if (fd_ < 0) throw Error(std::string("cannot create an in-memory file: ") + std::strerror(errno));
    const auto* p = static_cast<const char*>(data);
    for (std::size_t left = size; left > 0;) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw Error(std::string("cannot fill an in-memory file: ") + std::strerror(errno));
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  }
  ~MemoryFile() { ::close(fd_); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  std::string path() const { return "/dev/fd/" + std::to_string(fd_); }

 private:
  int fd_ = -1;
};

// One cubin through the disassembler's ELF mode (nvdisasm -c, or cuobjdump -sass).
Disassembly disassemble_elf(const Cubin& cubin, const DisassemblerTools& tools) {
  Disassembly d;
  const MemoryFile file(cubin.bytes().data(), cubin.bytes().size());
  const std::vector<std::string> argv = tools.nvdisasm ? std::vector<std::string>{*tools.nvdisasm, "-c", file.path()}
                                                      : std::vector<std::string>{*tools.cuobjdump, "-sass", file.path()};
  const Captured r = run_capture(argv);
  if (r.status != 0)
    throw Error("disassembler failed on an " + cubin.arch().name() + " cubin (" + argv[0] + " " + argv[1] + "): " +
                r.output.substr(0, 400));
  d.kernels = parse_disassembly(r.output);
  d.has_text = true;
  for (const auto& k : cubin.kernels()) {
    auto& insts = d.kernels[k.name];
    if (insts.empty()) insts = raw_instructions(cubin, k);  // a kernel the tool did not print
    else join_raw(cubin, k, insts);
  }
  return d;
}

// Opcodes whose hex operands are code addresses. In raw mode nvdisasm prints them absolute
// within the whole blob (ELF mode prints labels); rebased, they match the listing's addresses.
bool takes_code_address(const std::string& base_opcode) {
  static const char* const kOps[] = {"BRA", "BRX", "BSSY", "CALL", "JMP", "JMX", "RET", "SSY", "PBK", "PCNT"};
  return std::any_of(std::begin(kOps), std::end(kOps), [&](const char* op) { return base_opcode == op; });
}

std::string rebase_code_addresses(const std::string& s, std::uint64_t start, std::uint64_t end) {
  static const std::regex hex(R"(\b0x([0-9a-fA-F]+)\b)");
  std::string out;
  auto last = s.cbegin();
  for (auto it = std::sregex_iterator(s.begin(), s.end(), hex); it != std::sregex_iterator(); ++it) {
    const std::uint64_t v = std::stoull((*it)[1].str(), nullptr, 16);
    if (v < start || v >= end) continue;
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v - start));
    out.append(last, (*it)[0].first).append(buf);
    last = (*it)[0].second;
  }
  return out.append(last, s.cend());
}

struct Placed {
  std::size_t cubin;
  const Kernel* kernel;
  std::uint64_t start, end;  // byte range in its chunk's blob
};

// A run of kernels disassembled by one nvdisasm -b call.
struct Chunk {
  std::vector<std::uint8_t> blob;
  std::vector<Placed> placed;
  std::vector<std::vector<SassInstruction>> code;  // per placed kernel, nvdisasm's text
};

// Cuts the wanted kernels into chunks of about equal size, one or more per core: a single call
// over the whole binary (12 MB of code, 750k instructions) takes nvdisasm and our parser about
// 15 s on one core, which every run pays before its first record.
std::uint64_t automatic_chunk_bytes(const std::vector<const Cubin*>& cubins, const std::function<bool(const Kernel&)>& wanted) {
  std::uint64_t total = 0;
  for (const Cubin* c : cubins)
    for (const auto& k : c->kernels())
      if (!wanted || wanted(k)) total += 16 * k.instruction_count();
  constexpr std::uint64_t min_chunk = 256 * 1024;  // below this a process start costs more than it saves
  const std::uint64_t cores = std::max(1u, std::thread::hardware_concurrency());
  return std::max(min_chunk, (total + 2 * cores - 1) / (2 * cores));
}

std::vector<Chunk> chunk_kernels(const std::vector<const Cubin*>& cubins, const std::function<bool(const Kernel&)>& wanted,
                                 std::uint64_t target, std::vector<Placed>& raw_only) {
  std::vector<Chunk> chunks(1);
  for (std::size_t c = 0; c < cubins.size(); ++c)
    for (const auto& k : cubins[c]->kernels()) {
      if (wanted && !wanted(k)) {
        raw_only.push_back({c, &k, 0, 0});
        continue;
      }
      if (!chunks.back().blob.empty() && chunks.back().blob.size() + 16 * k.instruction_count() > target)
        chunks.emplace_back();
      Chunk& chunk = chunks.back();
      const std::uint64_t start = chunk.blob.size();
      for (std::size_t i = 0; i < k.instruction_count(); ++i) {
        const Instruction128 w = cubins[c]->instruction(k, i);
        for (const std::uint64_t half : {w.lo, w.hi})
          for (int b = 0; b < 8; ++b) chunk.blob.push_back(static_cast<std::uint8_t>(half >> (8 * b)));
      }
      chunk.placed.push_back({c, &k, start, chunk.blob.size()});
    }
  return chunks;
}

// nvdisasm's text for a chunk, kept on disk by what determines it: a second verify, sass or isa
// over the same binary reads it instead of starting nvdisasm (verify of all four targets took
// 68 s on two cores, every time). The key hashes the code bytes, the arch flag and the tool (path,
// size, time), so a rebuilt binary or another nvdisasm misses. GPUDISSECT_CACHE_DIR names the
// folder (default $XDG_CACHE_HOME/gpudissect or ~/.cache/gpudissect); "off" turns the cache off.
std::optional<fs::path> disasm_cache_dir() {
  const char* set = std::getenv("GPUDISSECT_CACHE_DIR");
  if (set && std::string(set) == "off") return std::nullopt;
  fs::path base;
  if (set && *set) base = set;
  else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) base = fs::path(x) / "gpudissect";
  else if (const char* h = std::getenv("HOME"); h && *h) base = fs::path(h) / ".cache" / "gpudissect";
  else return std::nullopt;
  return base / "disasm";
}

std::uint64_t fnv1a(const std::uint8_t* p, std::size_t n, std::uint64_t h) {
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

std::string disasm_cache_key(const std::vector<std::uint8_t>& blob, const std::string& flag, const std::string& tool) {
  std::error_code ec;
  const auto size = fs::file_size(tool, ec);
  const auto time = fs::last_write_time(tool, ec).time_since_epoch().count();
  const std::string context = flag + '\n' + tool + '\n' + std::to_string(ec ? 0 : size) + '\n' + std::to_string(time);
  std::uint64_t h[2] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull};
  for (auto& x : h) {
    x = fnv1a(blob.data(), blob.size(), x);
    x = fnv1a(reinterpret_cast<const std::uint8_t*>(context.data()), context.size(), x);
  }
  char name[64];
  std::snprintf(name, sizeof name, "%016llx%016llx-%zu.txt", static_cast<unsigned long long>(h[0]),
                static_cast<unsigned long long>(h[1]), blob.size());
  return name;
}

std::optional<std::string> disasm_cache_load(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) return std::nullopt;
  return text;
}

// The cache keeps the newest listings: past 1 GiB the oldest go until 512 MiB are left (a
// rebuilt binary's listings replace the last build's). Once per process.
void prune_disasm_cache(const fs::path& dir) {
  static std::once_flag once;
  std::call_once(once, [&] {
    std::error_code ec;
    std::vector<std::pair<fs::file_time_type, fs::path>> files;
    std::uintmax_t total = 0;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      if (!e.is_regular_file(ec) || e.path().extension() != ".txt") continue;
      total += e.file_size(ec);
      files.push_back({e.last_write_time(ec), e.path()});
    }
    if (total <= (1ull << 30)) return;
    std::sort(files.begin(), files.end());
    for (const auto& [time, path] : files) {
      if (total <= (1ull << 29)) break;
      const auto size = fs::file_size(path, ec);
      if (fs::remove(path, ec)) total -= size;
    }
  });
}

// Best effort: a cache that cannot be written costs the next command its time, nothing else. A
// file appears whole or not at all (temporary name, then rename).
void disasm_cache_store(const fs::path& file, const std::string& text) {
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  if (ec) return;
  const fs::path tmp = file.string() + ".tmp" + std::to_string(::getpid()) + "-" +
                       std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out) {
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, file, ec);
  if (ec) fs::remove(tmp, ec);
  prune_disasm_cache(file.parent_path());
}

// Progress of long disassemblies on stderr, for the commands a user waits on.
std::atomic<bool> g_progress{false};
std::mutex g_progress_mutex;

// One chunk through nvdisasm's raw mode; false when nvdisasm refuses it. `cached` counts the
// chunks read from the cache.
bool disassemble_chunk(Chunk& chunk, const std::string& nvdisasm, const std::string& flag, std::atomic<int>& cached) {
  chunk.code.assign(chunk.placed.size(), {});
  if (chunk.blob.empty()) return true;
  const auto dir = disasm_cache_dir();
  const fs::path cache_file = dir ? *dir / disasm_cache_key(chunk.blob, flag, nvdisasm) : fs::path();
  std::optional<std::string> text = dir ? disasm_cache_load(cache_file) : std::nullopt;
  if (text) {
    ++cached;
  } else {
    const MemoryFile file(chunk.blob.data(), chunk.blob.size());
    Captured r = run_capture({nvdisasm, "-b", flag, file.path()});
    if (r.status != 0) return false;
    if (dir) disasm_cache_store(cache_file, r.output);
    text = std::move(r.output);
  }
  std::stringstream ss(*text);
  std::size_t at = 0;  // output is in address order, so the kernel only moves forward
  for (std::string line; std::getline(ss, line);) {
    const auto split = split_instruction_line(line);
    if (!split) continue;
    auto inst = parse_statement(split->second);
    if (!inst) continue;
    const std::uint64_t address = split->first;
    while (at < chunk.placed.size() && address >= chunk.placed[at].end) ++at;
    if (at == chunk.placed.size() || address < chunk.placed[at].start) continue;
    const Placed& p = chunk.placed[at];
    inst->address = address - p.start;
    if (takes_code_address(inst->base_opcode())) {
      inst->text = rebase_code_addresses(inst->text, p.start, p.end);
      for (auto& o : inst->operands) o = rebase_code_addresses(o, p.start, p.end);
    }
    chunk.code[at].push_back(std::move(*inst));
  }
  return true;
}

// Every wanted kernel of cubins of one arch through nvdisasm -b, in chunks on all cores.
// nullopt when that fails (an arch its raw mode does not know): the caller uses ELF mode.
std::optional<std::vector<Disassembly>> disassemble_raw_batch(const std::vector<const Cubin*>& cubins,
                                                              const std::string& nvdisasm,
                                                              const std::function<bool(const Kernel&)>& wanted,
                                                              std::uint64_t chunk_bytes) {
  const Arch arch = cubins.front()->arch();
  const std::string flag = "SM" + std::to_string(arch.sm) + (arch.specific ? "a" : "");
  std::vector<Placed> raw_only;
  if (chunk_bytes == 0) chunk_bytes = automatic_chunk_bytes(cubins, wanted);
  std::vector<Chunk> chunks = chunk_kernels(cubins, wanted, chunk_bytes, raw_only);
  std::vector<char> ok(chunks.size(), 0);
  std::atomic<int> done{0}, cached{0};
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  const auto t0 = std::chrono::steady_clock::now();
  const auto report = [&](bool last) {
    if (!g_progress || chunks.size() < 2) return;
    const std::lock_guard<std::mutex> lock(g_progress_mutex);
    if (!last && !tty) return;  // a log gets the closing line only
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "%sgpudissect: disassembling %s: %d of %zu parts (%d from the cache), %.0f s%s", tty ? "\r" : "",
                 arch.name().c_str(), done.load(), chunks.size(), cached.load(), s, last || !tty ? "\n" : "");
    std::fflush(stderr);
  };
  report(false);
  parallel_for(chunks.size(), [&](std::size_t i) {
    ok[i] = disassemble_chunk(chunks[i], nvdisasm, flag, cached);
    ++done;
    report(false);
  });
  report(true);
  if (std::find(ok.begin(), ok.end(), 0) != ok.end()) return std::nullopt;
  std::vector<Disassembly> out(cubins.size());
  for (auto& d : out) d.has_text = true;
  for (Chunk& chunk : chunks)
    for (std::size_t i = 0; i < chunk.placed.size(); ++i) {
      const Placed& p = chunk.placed[i];
      auto& insts = out[p.cubin].kernels[p.kernel->name];
      insts = std::move(chunk.code[i]);
      if (insts.empty()) insts = raw_instructions(*cubins[p.cubin], *p.kernel);
      else join_raw(*cubins[p.cubin], *p.kernel, insts);
    }
  for (const Placed& p : raw_only) out[p.cubin].kernels[p.kernel->name] = raw_instructions(*cubins[p.cubin], *p.kernel);
  return out;
}

}  // namespace

std::vector<Disassembly> disassemble_all(const std::vector<const Cubin*>& cubins,
                                         const std::function<bool(const Kernel&)>& wanted, std::uint64_t chunk_bytes) {
  std::vector<Disassembly> out(cubins.size());
  if (cubins.empty()) return out;
  const DisassemblerTools& tools = disassembler_tools();
  if (!tools.any()) {
    for (std::size_t c = 0; c < cubins.size(); ++c) {
      out[c].note = tools.missing_reason();
      for (const auto& k : cubins[c]->kernels()) out[c].kernels[k.name] = raw_instructions(*cubins[c], k);
    }
    return out;
  }
  const bool one_arch = std::all_of(cubins.begin(), cubins.end(),
                                    [&](const Cubin* c) { return c->arch() == cubins.front()->arch(); });
  if (tools.nvdisasm && one_arch)
    if (auto batch = disassemble_raw_batch(cubins, *tools.nvdisasm, wanted, chunk_bytes)) return std::move(*batch);
  parallel_for(cubins.size(), [&](std::size_t c) { out[c] = disassemble_elf(*cubins[c], tools); });
  return out;
}

Disassembly disassemble(const Cubin& cubin) { return std::move(disassemble_all({&cubin}).front()); }

void set_disassembly_progress(bool on) { g_progress = on; }

}  // namespace gd::sass
