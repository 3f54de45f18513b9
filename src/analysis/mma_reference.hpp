// CPU reference for tensor-core probes: element codecs (bits <-> double) for every MMA operand
// type, D = A*B + C over an M x N x K tile, and a tile check that names the first bad element.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gd {

// Element types of MMA operands and accumulators. Scale types (ue8m0, ue4m3) are the block-scale
// factors of the MX / NVFP4 kinds.
enum class MmaType {
  f16, bf16, tf32, f32, f64,
  e4m3, e5m2,          // FP8
  e3m2, e2m3, e2m1,    // FP6, FP4
  ue8m0, ue4m3,        // block-scale factors
  s8, u8, s4, u4, s32,
  b1,
};

std::string_view mma_type_name(MmaType t);                // "f16", "e4m3", ... (the PTX spelling)
std::optional<MmaType> parse_mma_type(std::string_view name);
int mma_type_bits(MmaType t);                              // natural width: 16, 19 for tf32 (stored in 32), 4, 1, ...
int mma_type_storage_bits(MmaType t);                      // packed width in memory: tf32 -> 32, e3m2 -> 6 ...
bool mma_type_is_integer(MmaType t);                       // s8/u8/s4/u4/s32/b1
bool mma_type_is_float(MmaType t);

// Decoding is exact (every value of these formats is a double). NaN and infinities decode as such.
double decode_element(MmaType t, uint64_t bits);
// Round-to-nearest-even encoding. Overflow: formats with infinity give it; the others (e4m3,
// FP6, FP4, scale types) saturate to their largest finite value. Integers round to nearest and
// clamp to their range; b1 is (value != 0). Throws std::invalid_argument for NaN into an integer.
uint64_t encode_element(MmaType t, double value);

// A random finite element: floats uniform in [-1, 1) rounded to the format (scale types: a small
// power of two around 1), integers uniform over their whole range, b1 a fair bit.
uint64_t random_element(MmaType t, std::mt19937_64& rng);

// Where the elements of a matrix live in a byte buffer: element (r, c) is the index
// r * row_stride + c * col_stride, each index one container of container_bits bits packed from
// the least significant bit of byte 0 upward (so two e2m1 per byte, the lower nibble first), and
// the value sits at bit_offset inside its container (FP6/FP4 in 8-bit containers of mma kind::f8f6f4).
struct MatrixDesc {
  MmaType type = MmaType::f32;
  int rows = 0, cols = 0;
  std::ptrdiff_t row_stride = 0, col_stride = 0;  // in elements (containers)
  int container_bits = 0;                         // 0: mma_type_storage_bits(type)
  int bit_offset = 0;
};
MatrixDesc row_major(MmaType t, int rows, int cols);
MatrixDesc col_major(MmaType t, int rows, int cols);
int container_bits(const MatrixDesc& d);
std::size_t storage_bytes(const MatrixDesc& d);  // bytes from index 0 to the last element's end

// Throw std::invalid_argument when (r, c) is outside the matrix or the container cannot hold the type.
uint64_t get_bits(const MatrixDesc& d, const void* data, int r, int c);
void set_bits(const MatrixDesc& d, void* data, int r, int c, uint64_t bits);
double get_value(const MatrixDesc& d, const void* data, int r, int c);

// A matrix with its own storage, filled with random elements (seeded, reproducible).
struct HostMatrix {
  MatrixDesc desc;
  std::vector<uint8_t> bytes;
  uint64_t bits(int r, int c) const { return get_bits(desc, bytes.data(), r, c); }
  double value(int r, int c) const { return get_value(desc, bytes.data(), r, c); }
  void set(int r, int c, uint64_t b) { set_bits(desc, bytes.data(), r, c, b); }
};
HostMatrix make_matrix(const MatrixDesc& d);  // zero-filled
HostMatrix random_matrix(const MatrixDesc& d, uint64_t seed);

enum class BinaryOp { none, xor_popc, and_popc };

// D (m x n) = A (m x k) * B (k x n) + C (m x n). C absent (c_data null) means zero.
// b1 operands need a BinaryOp: d = c + sum_k popc(a[i][k] op b[k][j]). Block scaling (scale_block
// > 0): A's row i, K-block kb is multiplied by scale_a(i, kb) and B's column j, K-block kb by
// scale_b(kb, j) with scale_a m x k/scale_block and scale_b k/scale_block x n.
struct MmaProblem {
  int m = 0, n = 0, k = 0;
  MatrixDesc a;
  const void* a_data = nullptr;
  MatrixDesc b;
  const void* b_data = nullptr;
  MatrixDesc c;
  const void* c_data = nullptr;
  BinaryOp binary_op = BinaryOp::none;
  int scale_block = 0;
  MatrixDesc scale_a;
  const void* scale_a_data = nullptr;
  MatrixDesc scale_b;
  const void* scale_b_data = nullptr;
};

// value: exact D in double (for integers and small K, exact); magnitude: sum of |terms| per element
// (|c| + sum |a*b|), the scale rounding errors of a real accumulator are relative to.
struct ReferenceTile {
  int rows = 0, cols = 0;
  std::vector<double> value, magnitude;  // row-major
  double at(int r, int c) const { return value[std::size_t(r) * cols + c]; }
};
// Throws std::invalid_argument on mismatched shapes, missing data, mixed integer/float operands,
// b1 without a BinaryOp (or a BinaryOp on other types), or a scale layout that does not fit.
ReferenceTile mma_reference(const MmaProblem& p);

// |got - expected| <= abs + rel * magnitude passes; NaN never does.
struct Tolerance {
  double rel = 0, abs = 0;
};
// A tolerance for accumulator type `acc` after K products of `ab` operands: exact for integer
// accumulators; for floats a few units of the accumulator's (or, for f32 accumulation of narrow
// inputs on tensor cores, a reduced ~13-bit) precision, relative to the magnitude.
Tolerance default_tolerance(MmaType ab, MmaType acc, int k);

struct TileCheck {
  bool ok = true;
  int bad = 0;                    // elements outside the tolerance
  int row = -1, col = -1;         // the first bad one (row-major order)
  double expected = 0, got = 0, bound = 0;
  std::string message;            // "" when ok, else "D[r][c] = got, expected e (|diff| > bound); n of N bad"
};
TileCheck check_tile(const ReferenceTile& ref, std::span<const double> got_row_major, Tolerance tol);
TileCheck check_tile(const ReferenceTile& ref, const MatrixDesc& d, const void* d_data, Tolerance tol);

}  // namespace gd
