// Bounds-checked little-endian reads over untrusted bytes (cubins, fatbins, executables).
// Every offset comes from the file itself, so every read is checked before it happens.
#pragma once
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace gd::sass {

using Bytes = std::span<const std::uint8_t>;

// True when [offset, offset + size) lies inside a buffer of `total` bytes, without overflow.
inline bool in_bounds(std::uint64_t total, std::uint64_t offset, std::uint64_t size) {
  return offset <= total && size <= total - offset;
}

[[noreturn]] inline void throw_truncated(std::string_view what, std::uint64_t offset,
                                         std::uint64_t size, std::uint64_t total) {
  throw Error(std::string(what) + ": needs bytes [" + std::to_string(offset) + ", " +
              std::to_string(offset + size) + ") but only " + std::to_string(total) +
              " are present (truncated or corrupt input)");
}

inline Bytes checked_slice(Bytes data, std::uint64_t offset, std::uint64_t size,
                           std::string_view what) {
  if (!in_bounds(data.size(), offset, size)) throw_truncated(what, offset, size, data.size());
  return data.subspan(offset, size);
}

template <typename T>
T read_le(Bytes data, std::uint64_t offset, std::string_view what) {
  static_assert(std::is_integral_v<T>);
  Bytes b = checked_slice(data, offset, sizeof(T), what);
  T v{};
  std::memcpy(&v, b.data(), sizeof(T));  // hosts we support are little-endian, like the formats
  return v;
}

// A NUL-terminated string starting at `offset`; the terminator must lie inside `data`.
inline std::string read_cstring(Bytes data, std::uint64_t offset, std::string_view what) {
  if (offset >= data.size()) throw_truncated(what, offset, 1, data.size());
  const auto* begin = reinterpret_cast<const char*>(data.data()) + offset;
  const void* nul = std::memchr(begin, 0, data.size() - offset);
  if (!nul) throw Error(std::string(what) + ": string at offset " + std::to_string(offset) +
                        " is not terminated inside its table");
  return std::string(begin, static_cast<const char*>(nul));
}

}  // namespace gd::sass
