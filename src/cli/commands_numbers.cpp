// Numbers on the command line, for every command: a value that is not a number says so, a range
// is said in plain figures (CLI11's own NonNegativeNumber printed the largest double in 309
// digits), and a threshold is a percentage or a fraction, never a bare number that could be either.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"

namespace gd::cli {
namespace {

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::optional<long long> parse_whole(const std::string& text) {
  const std::string s = trimmed(text);
  if (s.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end != s.c_str() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> parse_real(const std::string& text) {
  const std::string s = trimmed(text);
  if (s.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string figure(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

std::string in_quotes(const std::string& s) { return "'" + s + "'"; }

}  // namespace

CLI::Validator whole_number(long long lo, long long hi) {
  const std::string range = "from " + std::to_string(lo) + " to " + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& s) -> std::string {
        const auto v = parse_whole(s);
        if (!v) return in_quotes(s) + (parse_real(s) ? " is not a whole number" : " is not a number");
        if (*v < lo || *v > hi) return s + " is out of range (" + range + ")";
        return "";
      },
      range);
}

CLI::Validator real_number(double lo, double hi) {
  const std::string range = "from " + figure(lo) + " to " + figure(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& s) -> std::string {
        const auto v = parse_real(s);
        if (!v) return in_quotes(s) + " is not a number";
        if (*v < lo || *v > hi) return s + " is out of range (" + range + ")";
        return "";
      },
      range);
}

std::string fraction_from_threshold(const std::string& text, double max_fraction) {
  const std::string s = trimmed(text);
  const std::string range = "0% to " + figure(max_fraction * 100) + "%";
  double fraction = 0;
  if (!s.empty() && s.back() == '%') {
    const auto v = parse_real(s.substr(0, s.size() - 1));
    if (!v) throw std::invalid_argument(in_quotes(text) + " is not a percentage (write 4% or 0.04)");
    fraction = *v / 100;
  } else {
    const auto v = parse_real(s);
    if (!v) throw std::invalid_argument(in_quotes(text) + " is not a number (write a percentage such as 4% or a fraction such as 0.04)");
    // 4 could mean 4 % or 400 %: refuse to guess.
    if (*v >= 1)
      throw std::invalid_argument(in_quotes(text) + " is ambiguous: write " + s + "% for a percentage, or a fraction below 1 (" +
                                  figure(*v / 100) + " is " + s + "%)");
    fraction = *v;
  }
  if (fraction < 0 || fraction > max_fraction) throw std::invalid_argument(in_quotes(text) + " is out of range (" + range + ")");
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", fraction);
  return buf;
}

CLI::Validator threshold_value(double max_fraction) {
  return CLI::Validator(
      [max_fraction](std::string& s) -> std::string {
        try {
          s = fraction_from_threshold(s, max_fraction);
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
        return "";
      },
      "PERCENT% or FRACTION");
}

}  // namespace gd::cli
