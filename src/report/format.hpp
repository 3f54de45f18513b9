// Text formatting shared by the report printers: numbers a reader can take in at a glance,
// metric values with their spread, and Markdown tables that line up in raw text too.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/record.hpp"

namespace gd {

// `significant` digits in fixed notation for ordinary magnitudes (1234567 stays 1234567,
// never 1.235e+06), trailing zeros dropped; scientific only below 1e-3 or from 1e15 on.
// NaN prints as "n/a".
std::string fmt_num(double v, int significant = 4);
// Binary units: "60 MiB", "141 GiB".
std::string format_bytes(double bytes);
// The median with its spread: "4.021 cycles (3.99–4.1, n=20)"; a single value has no spread.
std::string format_metric(const Metric& m, bool with_unit);
// Display columns of UTF-8 text (code points), for padding.
std::size_t display_width(std::string_view s);
// `s` filled with spaces to `width` display columns; longer text is kept whole, never cut.
std::string pad(std::string_view s, std::size_t width);

// Text from a run file with control characters made harmless: C0 controls but tab and line breaks,
// DEL and C1 controls become U+FFFD (an ESC sequence in a report or on standard output would drive
// the reader's terminal: clear it, retitle it). Line breaks are kept for the caller.
std::string printable(std::string_view s);
// Data placed in Markdown (a table cell, a heading): control characters as printable() makes them,
// pipes escaped, line breaks flattened (U+2028,
// U+2029 and U+0085 too), and what would open raw HTML or turn text into a link target escaped, so
// run-file content never becomes markup.
std::string markdown_escape(std::string_view s);

class MarkdownTable {
 public:
  enum class Align { Left, Right };
  MarkdownTable& column(std::string header, Align align = Align::Left);
  // Cells are Markdown: pass data through markdown_escape. Missing cells are left empty.
  MarkdownTable& row(std::vector<std::string> cells);
  bool empty() const { return rows_.empty(); }
  std::string render() const;

 private:
  std::vector<std::string> headers_;
  std::vector<Align> aligns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace gd
