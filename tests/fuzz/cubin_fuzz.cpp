// libFuzzer target: the cubin/ELF reader and the fatbin parser on arbitrary bytes. Malformed
// input must end in gd::Error, never in a crash, a hang or an out-of-bounds read (ASan).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/error.hpp"
#include "sass/elf.hpp"
#include "sass/fatbin.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::uint8_t> bytes(data, data + size);
  try {
    const gd::sass::Cubin cubin(bytes);
    for (const auto& k : cubin.kernels()) {
      (void)cubin.text(k);
      for (std::size_t i = 0; i < k.instruction_count() && i < 64; ++i) (void)cubin.instruction(k, i);
      (void)cubin.find_kernel(k.demangled);
    }
    (void)cubin.has_mercury_sections();
  } catch (const gd::Error&) {
  }
  try {
    (void)gd::sass::parse_fatbin(gd::sass::Bytes(data, size));
  } catch (const gd::Error&) {
  }
  return 0;
}
