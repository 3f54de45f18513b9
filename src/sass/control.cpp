#include "sass/control.hpp"

#include <cstdio>
#include <regex>

#include "core/error.hpp"

namespace gd::sass {

namespace {

// Field positions relative to ControlWord::kShift.
constexpr int kStallBit = 0, kYieldBit = 4, kWriteBit = 5, kReadBit = 8, kWaitBit = 11, kReuseBit = 17;

std::uint64_t field(std::uint64_t bits, int at, int width) { return (bits >> at) & ((1u << width) - 1); }

void check_range(const char* name, int value, int lo, int hi) {
  if (value < lo || value > hi)
    throw Error(std::string("control word: ") + name + " " + std::to_string(value) + " is outside [" +
                std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

std::string barrier_text(int b) { return b == ControlWord::kNoBarrier ? "-" : std::to_string(b); }

}  // namespace

ControlWord ControlWord::decode(std::uint64_t hi) {
  const std::uint64_t c = hi >> kShift;
  ControlWord w;
  w.stall = static_cast<int>(field(c, kStallBit, 4));
  w.yield = field(c, kYieldBit, 1) == 0;  // inverted in the encoding
  w.write_barrier = static_cast<int>(field(c, kWriteBit, 3));
  w.read_barrier = static_cast<int>(field(c, kReadBit, 3));
  w.wait_mask = static_cast<std::uint8_t>(field(c, kWaitBit, 6));
  w.reuse = static_cast<std::uint8_t>(field(c, kReuseBit, 4));
  return w;
}

std::uint64_t ControlWord::encode(std::uint64_t hi) const {
  check_range("stall", stall, 0, 15);
  check_range("write barrier", write_barrier, 0, 7);
  check_range("read barrier", read_barrier, 0, 7);
  check_range("wait mask", wait_mask, 0, 63);
  check_range("reuse", reuse, 0, 15);
  const std::uint64_t c = std::uint64_t(stall) << kStallBit | std::uint64_t(yield ? 0 : 1) << kYieldBit |
                          std::uint64_t(write_barrier) << kWriteBit | std::uint64_t(read_barrier) << kReadBit |
                          std::uint64_t(wait_mask) << kWaitBit | std::uint64_t(reuse) << kReuseBit;
  return (hi & ~kMask) | (c << kShift);
}

std::string ControlWord::to_string() const {
  std::string wait = "B";
  for (int i = 0; i < 6; ++i) wait += (wait_mask >> i & 1) ? char('0' + i) : '-';
  char stall_text[8];
  std::snprintf(stall_text, sizeof stall_text, "S%02d", stall);
  std::string s = wait + ":R" + barrier_text(read_barrier) + ":W" + barrier_text(write_barrier) + ":" +
                  (yield ? "Y" : "-") + ":" + stall_text;
  if (reuse) {
    s += ":U";
    for (int i = 0; i < 4; ++i)
      if (reuse >> i & 1) s += char('a' + i);
  }
  return s;
}

std::optional<ControlWord> ControlWord::parse(const std::string& text) {
  static const std::regex re(R"(B([0-5-]{6}):R([0-5-]):W([0-5-]):([Y-]):S(\d\d)(?::U([a-d]+))?)");
  std::smatch m;
  if (!std::regex_match(text, m, re)) return std::nullopt;
  ControlWord w;
  for (int i = 0; i < 6; ++i) {
    const char c = m[1].str()[i];
    if (c == '-') continue;
    if (c != char('0' + i)) return std::nullopt;  // barrier i sits in column i
    w.wait_mask |= std::uint8_t(1u << i);
  }
  auto barrier = [](const std::string& s) { return s == "-" ? kNoBarrier : s[0] - '0'; };
  w.read_barrier = barrier(m[2]);
  w.write_barrier = barrier(m[3]);
  w.yield = m[4] == "Y";
  w.stall = std::stoi(m[5]);
  if (w.stall > 15) return std::nullopt;
  for (char c : m[6].str()) w.reuse |= std::uint8_t(1u << (c - 'a'));
  return w;
}

ControlWord idle_control_word() {
  ControlWord w;
  w.yield = true;
  return w;
}

}  // namespace gd::sass
