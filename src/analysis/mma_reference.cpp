#include "analysis/mma_reference.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace gd {
namespace {

// Binary floating-point formats as [sign][exponent][mantissa], optionally shifted up inside a
// wider word (tf32 lives in the top 19 bits of an f32).
enum class Special {
  ieee,         // all-ones exponent: infinity (mantissa 0) or NaN
  nan_only_max, // e4m3: only S.1111.111 is NaN, no infinity
  none,         // FP6/FP4: every encoding is finite
};
struct FloatFormat {
  int exp_bits, man_bits, bias;
  bool has_sign;
  Special special;
  int shift;  // bits below the format inside its storage word (ignored on decode, zero on encode)
};

std::optional<FloatFormat> float_format(MmaType t) {
  switch (t) {
    case MmaType::f16: return FloatFormat{5, 10, 15, true, Special::ieee, 0};
    case MmaType::bf16: return FloatFormat{8, 7, 127, true, Special::ieee, 0};
    case MmaType::tf32: return FloatFormat{8, 10, 127, true, Special::ieee, 13};
    case MmaType::f32: return FloatFormat{8, 23, 127, true, Special::ieee, 0};
    case MmaType::e4m3: return FloatFormat{4, 3, 7, true, Special::nan_only_max, 0};
    case MmaType::e5m2: return FloatFormat{5, 2, 15, true, Special::ieee, 0};
    case MmaType::e3m2: return FloatFormat{3, 2, 3, true, Special::none, 0};
    case MmaType::e2m3: return FloatFormat{2, 3, 1, true, Special::none, 0};
    case MmaType::e2m1: return FloatFormat{2, 1, 1, true, Special::none, 0};
    case MmaType::ue4m3: return FloatFormat{4, 3, 7, false, Special::nan_only_max, 0};
    default: return std::nullopt;
  }
}

double decode_float(const FloatFormat& f, uint64_t bits) {
  bits >>= f.shift;
  const uint64_t man = bits & ((uint64_t{1} << f.man_bits) - 1);
  const uint64_t exp = (bits >> f.man_bits) & ((uint64_t{1} << f.exp_bits) - 1);
  const bool neg = f.has_sign && ((bits >> (f.man_bits + f.exp_bits)) & 1);
  const uint64_t exp_max = (uint64_t{1} << f.exp_bits) - 1, man_max = (uint64_t{1} << f.man_bits) - 1;
  double v;
  if (f.special == Special::ieee && exp == exp_max)
    v = man == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  else if (f.special == Special::nan_only_max && exp == exp_max && man == man_max)
    v = std::numeric_limits<double>::quiet_NaN();
  else if (exp == 0)
    v = std::ldexp(double(man), 1 - f.bias - f.man_bits);
  else
    v = std::ldexp(double(man | (uint64_t{1} << f.man_bits)), int(exp) - f.bias - f.man_bits);
  return neg ? -v : v;
}

uint64_t encode_float(const FloatFormat& f, double v) {
  const uint64_t sign_bit = f.has_sign ? uint64_t{1} << (f.exp_bits + f.man_bits) : 0;
  const uint64_t exp_max = (uint64_t{1} << f.exp_bits) - 1, man_max = (uint64_t{1} << f.man_bits) - 1;
  const uint64_t one = uint64_t{1} << f.man_bits;
  if (std::isnan(v)) {
    if (f.special == Special::none) throw std::invalid_argument("encode_element: NaN has no encoding in this format");
    return (sign_bit | (exp_max << f.man_bits) | man_max) << f.shift;
  }
  uint64_t sign = 0;
  if (std::signbit(v)) {
    if (!f.has_sign) v = 0;  // unsigned formats: negatives clamp to zero
    else sign = sign_bit;
    v = std::fabs(v);
  }
  // Largest finite encoding.
  const uint64_t max_exp = f.special == Special::ieee ? exp_max - 1 : exp_max;
  const uint64_t max_man = f.special == Special::nan_only_max ? man_max - 1 : man_max;
  uint64_t out;
  if (v == 0) {
    out = 0;
  } else if (std::isinf(v)) {
    out = f.special == Special::ieee ? exp_max << f.man_bits : (max_exp << f.man_bits) | max_man;
  } else {
    int e2 = 0;
    std::frexp(v, &e2);  // v = fr * 2^e2, fr in [0.5, 1)
    int ex = std::max(e2 - 1, 1 - f.bias);
    double n = std::nearbyint(std::ldexp(v, f.man_bits - ex));  // ties to even (default mode)
    if (n >= double(2 * one)) {
      n /= 2;
      ++ex;
    }
    if (n < double(one)) {
      out = uint64_t(n);  // subnormal (or rounded to zero)
    } else {
      const long long field = ex + f.bias;
      const uint64_t man = uint64_t(n) - one;
      if (field > (long long)max_exp || (field == (long long)max_exp && man > max_man))
        out = f.special == Special::ieee ? exp_max << f.man_bits : (max_exp << f.man_bits) | max_man;
      else
        out = (uint64_t(field) << f.man_bits) | man;
    }
  }
  return (sign | out) << f.shift;
}

struct IntRange {
  long long lo, hi;
  int bits;
};
std::optional<IntRange> int_range(MmaType t) {
  switch (t) {
    case MmaType::s8: return IntRange{-128, 127, 8};
    case MmaType::u8: return IntRange{0, 255, 8};
    case MmaType::s4: return IntRange{-8, 7, 4};
    case MmaType::u4: return IntRange{0, 15, 4};
    case MmaType::s32: return IntRange{std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(), 32};
    case MmaType::b1: return IntRange{0, 1, 1};
    default: return std::nullopt;
  }
}

constexpr std::array<std::pair<MmaType, std::string_view>, 18> kNames{{
    {MmaType::f16, "f16"},   {MmaType::bf16, "bf16"},   {MmaType::tf32, "tf32"}, {MmaType::f32, "f32"},
    {MmaType::f64, "f64"},   {MmaType::e4m3, "e4m3"},   {MmaType::e5m2, "e5m2"}, {MmaType::e3m2, "e3m2"},
    {MmaType::e2m3, "e2m3"}, {MmaType::e2m1, "e2m1"},   {MmaType::ue8m0, "ue8m0"}, {MmaType::ue4m3, "ue4m3"},
    {MmaType::s8, "s8"},     {MmaType::u8, "u8"},       {MmaType::s4, "s4"},     {MmaType::u4, "u4"},
    {MmaType::s32, "s32"},   {MmaType::b1, "b1"},
}};

std::string fmt(const char* f, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, a);
  return buf;
}

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("mma_reference: " + what);
}

std::string dims(const MatrixDesc& d) { return std::to_string(d.rows) + "x" + std::to_string(d.cols); }

}  // namespace

std::string_view mma_type_name(MmaType t) {
  for (const auto& [type, name] : kNames)
    if (type == t) return name;
  return "?";
}

std::optional<MmaType> parse_mma_type(std::string_view name) {
  for (const auto& [type, n] : kNames)
    if (n == name) return type;
  return std::nullopt;
}

int mma_type_bits(MmaType t) {
  if (t == MmaType::f64) return 64;
  if (t == MmaType::ue8m0) return 8;
  if (const auto f = float_format(t)) return f->exp_bits + f->man_bits + (f->has_sign ? 1 : 0);
  return int_range(t)->bits;
}

int mma_type_storage_bits(MmaType t) {
  if (t == MmaType::tf32) return 32;
  if (t == MmaType::ue4m3) return 8;
  return mma_type_bits(t);
}

bool mma_type_is_integer(MmaType t) { return int_range(t).has_value(); }
bool mma_type_is_float(MmaType t) { return !mma_type_is_integer(t); }

double decode_element(MmaType t, uint64_t bits) {
  if (t == MmaType::f64) return std::bit_cast<double>(bits);
  if (t == MmaType::ue8m0) {
    bits &= 0xff;
    return bits == 0xff ? std::numeric_limits<double>::quiet_NaN() : std::ldexp(1.0, int(bits) - 127);
  }
  if (const auto f = float_format(t)) {
    const int width = f->exp_bits + f->man_bits + (f->has_sign ? 1 : 0) + f->shift;
    return decode_float(*f, width >= 64 ? bits : bits & ((uint64_t{1} << width) - 1));
  }
  const IntRange r = *int_range(t);
  const uint64_t mask = r.bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << r.bits) - 1;
  bits &= mask;
  if (r.lo < 0 && (bits >> (r.bits - 1)) & 1) return double((long long)bits - (1LL << r.bits));
  return double(bits);
}

uint64_t encode_element(MmaType t, double value) {
  if (t == MmaType::f64) return std::bit_cast<uint64_t>(value);
  if (t == MmaType::ue8m0) {
    if (std::isnan(value)) return 0xff;
    if (value <= 0) return 0;  // the smallest scale, 2^-127
    int e2 = 0;
    const double fr = std::frexp(value, &e2);  // value = fr * 2^e2
    // nearest power of two in the log domain: round up when fr > sqrt(0.5)
    int e = fr > std::sqrt(0.5) ? e2 : e2 - 1;
    return uint64_t(std::clamp(e + 127, 0, 254));
  }
  if (const auto f = float_format(t)) return encode_float(*f, value);
  const IntRange r = *int_range(t);
  if (std::isnan(value)) throw std::invalid_argument("encode_element: NaN into integer type " + std::string(mma_type_name(t)));
  if (t == MmaType::b1) return value != 0 ? 1 : 0;
  const double v = std::clamp(std::nearbyint(value), double(r.lo), double(r.hi));
  const uint64_t mask = (uint64_t{1} << r.bits) - 1;
  return uint64_t((long long)v) & mask;
}

uint64_t random_element(MmaType t, std::mt19937_64& rng) {
  switch (t) {
    case MmaType::e3m2: case MmaType::e2m3: case MmaType::e2m1: {
      // Few values: every encoding is finite, so draw the bits.
      return rng() & ((uint64_t{1} << mma_type_bits(t)) - 1);
    }
    case MmaType::ue8m0: return uint64_t(125 + rng() % 5);  // 2^-2 .. 2^2
    case MmaType::ue4m3: return encode_element(t, std::uniform_real_distribution<double>(0.5, 2.0)(rng));
    default: break;
  }
  if (const auto r = int_range(t)) {
    const uint64_t mask = r->bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << r->bits) - 1;
    return rng() & mask;
  }
  return encode_element(t, std::uniform_real_distribution<double>(-1.0, 1.0)(rng));
}

MatrixDesc row_major(MmaType t, int rows, int cols) { return MatrixDesc{t, rows, cols, cols, 1, 0, 0}; }
MatrixDesc col_major(MmaType t, int rows, int cols) { return MatrixDesc{t, rows, cols, 1, rows, 0, 0}; }
int container_bits(const MatrixDesc& d) { return d.container_bits > 0 ? d.container_bits : mma_type_storage_bits(d.type); }

std::size_t storage_bytes(const MatrixDesc& d) {
  if (d.rows <= 0 || d.cols <= 0) return 0;
  const std::ptrdiff_t last = std::ptrdiff_t(d.rows - 1) * d.row_stride + std::ptrdiff_t(d.cols - 1) * d.col_stride;
  if (last < 0) throw std::invalid_argument("storage_bytes: negative strides are not supported");
  return std::size_t(((last + 1) * container_bits(d) + 7) / 8);
}

namespace {
std::size_t bit_position(const MatrixDesc& d, int r, int c) {
  if (r < 0 || r >= d.rows || c < 0 || c >= d.cols)
    throw std::invalid_argument("element (" + std::to_string(r) + ", " + std::to_string(c) + ") outside a " + dims(d) + " matrix");
  const int cb = container_bits(d);
  if (d.bit_offset < 0 || d.bit_offset + mma_type_storage_bits(d.type) > cb || cb > 64)
    throw std::invalid_argument(std::string(mma_type_name(d.type)) + " does not fit a " + std::to_string(cb) +
                                "-bit container at bit " + std::to_string(d.bit_offset));
  const std::ptrdiff_t idx = std::ptrdiff_t(r) * d.row_stride + std::ptrdiff_t(c) * d.col_stride;
  if (idx < 0) throw std::invalid_argument("negative element index");
  return std::size_t(idx) * cb + d.bit_offset;
}
}  // namespace

uint64_t get_bits(const MatrixDesc& d, const void* data, int r, int c) {
  const std::size_t pos = bit_position(d, r, c);
  const int w = mma_type_storage_bits(d.type);
  const auto* p = static_cast<const uint8_t*>(data);
  uint64_t out = 0;
  for (int i = 0; i < w; ++i) {
    const std::size_t b = pos + i;
    out |= uint64_t((p[b / 8] >> (b % 8)) & 1) << i;
  }
  return out;
}

void set_bits(const MatrixDesc& d, void* data, int r, int c, uint64_t bits) {
  const std::size_t pos = bit_position(d, r, c);
  const int w = mma_type_storage_bits(d.type);
  auto* p = static_cast<uint8_t*>(data);
  for (int i = 0; i < w; ++i) {
    const std::size_t b = pos + i;
    const uint8_t m = uint8_t(1u << (b % 8));
    p[b / 8] = uint8_t(((bits >> i) & 1) ? (p[b / 8] | m) : (p[b / 8] & ~m));
  }
}

double get_value(const MatrixDesc& d, const void* data, int r, int c) { return decode_element(d.type, get_bits(d, data, r, c)); }

HostMatrix make_matrix(const MatrixDesc& d) { return HostMatrix{d, std::vector<uint8_t>(storage_bytes(d), 0)}; }

HostMatrix random_matrix(const MatrixDesc& d, uint64_t seed) {
  HostMatrix m = make_matrix(d);
  std::mt19937_64 rng(seed);
  for (int r = 0; r < d.rows; ++r)
    for (int c = 0; c < d.cols; ++c) m.set(r, c, random_element(d.type, rng));
  return m;
}

ReferenceTile mma_reference(const MmaProblem& p) {
  require(p.m > 0 && p.n > 0 && p.k > 0, "M, N and K must be positive");
  require(p.a_data && p.b_data, "A and B need data");
  require(p.a.rows == p.m && p.a.cols == p.k, "A is " + dims(p.a) + ", expected M x K = " + std::to_string(p.m) + "x" + std::to_string(p.k));
  require(p.b.rows == p.k && p.b.cols == p.n, "B is " + dims(p.b) + ", expected K x N = " + std::to_string(p.k) + "x" + std::to_string(p.n));
  if (p.c_data) require(p.c.rows == p.m && p.c.cols == p.n, "C is " + dims(p.c) + ", expected M x N");
  const bool int_ab = mma_type_is_integer(p.a.type);
  require(int_ab == mma_type_is_integer(p.b.type), "A and B mix integer and floating-point types");
  const bool binary = p.a.type == MmaType::b1 || p.b.type == MmaType::b1;
  require(!binary || (p.a.type == MmaType::b1 && p.b.type == MmaType::b1), "b1 needs both operands b1");
  require(binary == (p.binary_op != BinaryOp::none), binary ? "b1 operands need a BinaryOp (xor_popc or and_popc)"
                                                            : "a BinaryOp applies to b1 operands only");
  const bool scaled = p.scale_block > 0;
  int kb = 0;
  if (scaled) {
    require(p.k % p.scale_block == 0, "K must be a multiple of the scale block");
    kb = p.k / p.scale_block;
    require(p.scale_a_data && p.scale_b_data, "block scaling needs scale_a and scale_b data");
    require(p.scale_a.rows == p.m && p.scale_a.cols == kb, "scale_a is " + dims(p.scale_a) + ", expected M x K/block");
    require(p.scale_b.rows == kb && p.scale_b.cols == p.n, "scale_b is " + dims(p.scale_b) + ", expected K/block x N");
  }
  ReferenceTile out{p.m, p.n, std::vector<double>(std::size_t(p.m) * p.n), std::vector<double>(std::size_t(p.m) * p.n)};
  // Decode once.
  std::vector<double> a(std::size_t(p.m) * p.k), b(std::size_t(p.k) * p.n);
  for (int i = 0; i < p.m; ++i)
    for (int kk = 0; kk < p.k; ++kk) {
      double v = get_value(p.a, p.a_data, i, kk);
      if (scaled) v *= get_value(p.scale_a, p.scale_a_data, i, kk / p.scale_block);
      a[std::size_t(i) * p.k + kk] = v;
    }
  for (int kk = 0; kk < p.k; ++kk)
    for (int j = 0; j < p.n; ++j) {
      double v = get_value(p.b, p.b_data, kk, j);
      if (scaled) v *= get_value(p.scale_b, p.scale_b_data, kk / p.scale_block, j);
      b[std::size_t(kk) * p.n + j] = v;
    }
  for (int i = 0; i < p.m; ++i)
    for (int j = 0; j < p.n; ++j) {
      const double c = p.c_data ? get_value(p.c, p.c_data, i, j) : 0.0;
      double sum = 0, mag = std::fabs(c);
      if (int_ab) {
        long long acc = 0;
        for (int kk = 0; kk < p.k; ++kk) {
          const auto x = (long long)a[std::size_t(i) * p.k + kk], y = (long long)b[std::size_t(kk) * p.n + j];
          const long long term = p.binary_op == BinaryOp::xor_popc ? (x ^ y) : p.binary_op == BinaryOp::and_popc ? (x & y) : x * y;
          acc += term;
          mag += std::fabs(double(term));
        }
        sum = double(acc);
      } else {
        for (int kk = 0; kk < p.k; ++kk) {
          const double term = a[std::size_t(i) * p.k + kk] * b[std::size_t(kk) * p.n + j];
          sum += term;
          mag += std::fabs(term);
        }
      }
      // Integer MMA accumulates in s32 and, without .satfinite, wraps modulo 2^32 as the
      // hardware does: a random C near INT32_MAX plus the products must come out negative.
      out.value[std::size_t(i) * p.n + j] =
          int_ab ? double(std::int32_t(std::uint32_t((long long)sum + (long long)c))) : sum + c;
      out.magnitude[std::size_t(i) * p.n + j] = mag;
    }
  return out;
}

Tolerance default_tolerance(MmaType ab, MmaType acc, int k) {
  if (mma_type_is_integer(acc)) return {0, 0};
  const double kk = std::max(k, 1);
  switch (acc) {
    case MmaType::f64: return {(kk + 4) * std::ldexp(1.0, -52), 0};
    case MmaType::f16: return {(kk + 4) * std::ldexp(1.0, -11), 0};
    case MmaType::bf16: return {(kk + 4) * std::ldexp(1.0, -8), 0};
    default: break;
  }
  // f32 accumulation: tensor cores align and truncate the products of narrow inputs into a
  // fixed-point sum narrower than f32 (FP8 on Hopper keeps about 13 fraction bits), so the bound
  // is 2^-10 of the magnitude for 8-bit and narrower inputs, 2^-14 for 16/19-bit ones.
  const double narrow = mma_type_bits(ab) <= 8 ? std::ldexp(1.0, -10) : std::ldexp(1.0, -14);
  return {std::max(narrow, (kk + 4) * std::ldexp(1.0, -24)), 0};
}

TileCheck check_tile(const ReferenceTile& ref, std::span<const double> got, Tolerance tol) {
  if (got.size() != std::size_t(ref.rows) * ref.cols)
    throw std::invalid_argument("check_tile: got " + std::to_string(got.size()) + " values for a " +
                                std::to_string(ref.rows) + "x" + std::to_string(ref.cols) + " tile");
  if (!(tol.rel >= 0) || !(tol.abs >= 0)) throw std::invalid_argument("check_tile: negative or NaN tolerance");
  TileCheck out;
  for (int r = 0; r < ref.rows; ++r)
    for (int c = 0; c < ref.cols; ++c) {
      const std::size_t i = std::size_t(r) * ref.cols + c;
      const double e = ref.value[i], g = got[i];
      const double bound = tol.abs + tol.rel * ref.magnitude[i];
      const bool good = (std::isnan(e) && std::isnan(g)) || (!std::isnan(g) && (g == e || std::fabs(g - e) <= bound));
      if (good) continue;
      if (out.bad++ == 0) {
        out.ok = false;
        out.row = r;
        out.col = c;
        out.expected = e;
        out.got = g;
        out.bound = bound;
      }
    }
  if (!out.ok)
    out.message = "D[" + std::to_string(out.row) + "][" + std::to_string(out.col) + "] = " + fmt("%.9g", out.got) +
                  ", expected " + fmt("%.9g", out.expected) + " (|diff| " + fmt("%.3g", std::fabs(out.got - out.expected)) +
                  " > " + fmt("%.3g", out.bound) + "); " + std::to_string(out.bad) + " of " +
                  std::to_string(ref.rows * ref.cols) + " elements bad";
  return out;
}

TileCheck check_tile(const ReferenceTile& ref, const MatrixDesc& d, const void* d_data, Tolerance tol) {
  if (d.rows != ref.rows || d.cols != ref.cols)
    throw std::invalid_argument("check_tile: D is " + dims(d) + ", the reference " + std::to_string(ref.rows) + "x" + std::to_string(ref.cols));
  std::vector<double> got(std::size_t(d.rows) * d.cols);
  for (int r = 0; r < d.rows; ++r)
    for (int c = 0; c < d.cols; ++c) got[std::size_t(r) * d.cols + c] = get_value(d, d_data, r, c);
  return check_tile(ref, got, tol);
}

}  // namespace gd
