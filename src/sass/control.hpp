// The scheduling control word of a Volta-and-later SASS instruction. It lives in the top bits of
// the high 64-bit word (instruction bits 105..125):
//   105-108 stall   109 yield (stored inverted)   110-112 write barrier   113-115 read barrier
//   116-121 wait mask (one bit per barrier)   122-125 operand reuse (slots a, b, c, d)
// Barrier index 7 means "none". tests/sass/control_test.cpp pins this on real ptxas output.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace gd::sass {

struct ControlWord {
  static constexpr int kNoBarrier = 7;
  static constexpr int kShift = 41;  // bit 105 of the instruction is bit 41 of the high word
  static constexpr std::uint64_t kMask = ((std::uint64_t(1) << 21) - 1) << kShift;  // 105..125

  int stall = 0;                 // cycles before the next instruction may issue, 0..15
  bool yield = false;            // scheduler may switch warps after this one
  int write_barrier = kNoBarrier;  // barrier set when the result is written, 0..5, 7 none
  int read_barrier = kNoBarrier;   // barrier set when the sources have been read
  std::uint8_t wait_mask = 0;    // barriers to wait on before issuing, bit i = barrier i
  std::uint8_t reuse = 0;        // operand reuse cache flags, bit 0 = first source

  // Reads the fields from an instruction's high 64-bit word.
  static ControlWord decode(std::uint64_t hi);
  // Returns `hi` with the control bits replaced by these fields (the other bits are kept).
  // Throws gd::Error when a field is out of range.
  std::uint64_t encode(std::uint64_t hi) const;
  // Conventional text: wait mask, read, write, yield, stall, e.g. "B0-----:R-:W2:Y:S04",
  // with the reuse flags appended as ":U<a..d>" when any is set.
  std::string to_string() const;
  // Parses the form to_string writes; nullopt when the text is not a control word.
  static std::optional<ControlWord> parse(const std::string& text);

  friend bool operator==(const ControlWord&, const ControlWord&) = default;
};

// The word ptxas writes on padding NOPs: no barriers, no wait, yield, stall 0.
ControlWord idle_control_word();

}  // namespace gd::sass
