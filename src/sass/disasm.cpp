#include "sass/disasm.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "core/error.hpp"

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

std::vector<fs::path> search_dirs() {
  std::vector<fs::path> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    for (std::string d; std::getline(ss, d, ':');)
      if (!d.empty()) dirs.emplace_back(d);
  }
  if (const char* home = std::getenv("CUDA_HOME")) dirs.emplace_back(fs::path(home) / "bin");
  if (const char* home = std::getenv("CUDA_PATH")) dirs.emplace_back(fs::path(home) / "bin");
  dirs.emplace_back("/usr/local/cuda/bin");
  return dirs;
}

// The PyPI wheels install under <site-packages>/nvidia/cu<major>/bin; ask Python where that is.
std::vector<fs::path> python_wheel_dirs() {
  const CommandResult r = run_command(
      "python3 -c 'import nvidia,os;print(os.path.dirname(nvidia.__path__[0]))' 2>/dev/null");
  std::vector<fs::path> dirs;
  const std::string site = trim(r.output);
  if (r.status != 0 || site.empty()) return dirs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(site) / "nvidia", ec))
    if (e.path().filename().string().rfind("cu", 0) == 0) dirs.push_back(e.path() / "bin");
  std::sort(dirs.rbegin(), dirs.rend());  // newest toolkit first
  return dirs;
}

std::optional<std::string> find_tool(const std::string& name, const char* override_env,
                                     const std::vector<fs::path>& wheel_dirs) {
  if (const char* p = std::getenv(override_env); p && *p) return std::string(p);
  for (const auto& d : search_dirs())
    if (auto p = executable_in(d, name)) return p;
  for (const auto& d : wheel_dirs)
    if (auto p = executable_in(d, name)) return p;
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
const std::regex& instruction_line() {
  static const std::regex re(R"(^\s*/\*([0-9a-fA-F]+)\*/\s*(.*?)\s*;?\s*(/\*.*\*/)?\s*$)");
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
    if (std::regex_search(line, m, section_line()) || std::regex_search(line, m, function_line())) {
      current = &kernels[m[1]];
      continue;
    }
    if (!current || !std::regex_match(line, m, instruction_line())) continue;
    auto inst = parse_statement(m[2]);
    if (!inst) continue;
    inst->address = std::stoull(m[1], nullptr, 16);
    current->push_back(std::move(*inst));
  }
  return kernels;
}

// ------------------------------------------------------------------------------------- tools

std::string DisassemblerTools::missing_reason() const {
  return "no SASS disassembler found (nvdisasm or cuobjdump: install the CUDA toolkit, or "
         "`pip install nvidia-cuda-nvdisasm nvidia-cuda-cuobjdump`, or set GPUDISSECT_NVDISASM)";
}

const DisassemblerTools& disassembler_tools() {
  static const DisassemblerTools tools = [] {
    DisassemblerTools t;
    std::vector<fs::path> wheels;
    t.nvdisasm = find_tool("nvdisasm", "GPUDISSECT_NVDISASM", {});
    t.cuobjdump = find_tool("cuobjdump", "GPUDISSECT_CUOBJDUMP", {});
    if (!t.nvdisasm || !t.cuobjdump) {  // only then pay for starting Python
      wheels = python_wheel_dirs();
      if (!t.nvdisasm) t.nvdisasm = find_tool("nvdisasm", "GPUDISSECT_NVDISASM", wheels);
      if (!t.cuobjdump) t.cuobjdump = find_tool("cuobjdump", "GPUDISSECT_CUOBJDUMP", wheels);
    }
    return t;
  }();
  return tools;
}

// --------------------------------------------------------------------------------- running

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

CommandResult run_command(const std::string& command) {
  CommandResult r;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) throw Error("cannot run: " + command);
  std::array<char, 65536> buf;
  for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0;) r.output.append(buf.data(), n);
  const int status = ::pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TempFile::TempFile(const std::string& suffix) {
  const char* dir = std::getenv("TMPDIR");
  std::string templ = std::string(dir && *dir ? dir : "/tmp") + "/gpudissect-XXXXXX" + suffix;
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  const int fd = ::mkstemps(buf.data(), static_cast<int>(suffix.size()));
  if (fd < 0) throw Error("cannot create a temporary file in " + templ);
  ::close(fd);
  path_ = buf.data();
}

TempFile::~TempFile() { ::unlink(path_.c_str()); }

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

Disassembly disassemble(const Cubin& cubin) {
  Disassembly d;
  const DisassemblerTools& tools = disassembler_tools();
  if (!tools.any()) {
    d.note = tools.missing_reason();
    for (const auto& k : cubin.kernels()) d.kernels[k.name] = raw_instructions(cubin, k);
    return d;
  }
  TempFile file(".cubin");
  file.write(cubin.bytes().data(), cubin.bytes().size());
  const std::string cmd = tools.nvdisasm
      ? shell_quote(*tools.nvdisasm) + " -c " + shell_quote(file.path()) + " 2>&1"
      : shell_quote(*tools.cuobjdump) + " -sass " + shell_quote(file.path()) + " 2>&1";
  const CommandResult r = run_command(cmd);
  if (r.status != 0)
    throw Error("disassembler failed on an " + cubin.arch().name() + " cubin (" + cmd + "): " +
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

}  // namespace gd::sass
