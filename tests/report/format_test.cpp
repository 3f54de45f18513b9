#include "report/csv.hpp"
#include "report/format.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <sstream>

#include "support/sample_run.hpp"

namespace gd {
namespace {

TEST(FmtNum, FourSignificantDigitsFixedNotation) {
  EXPECT_EQ(fmt_num(4.02123), "4.021");
  EXPECT_EQ(fmt_num(123.456), "123.5");
  EXPECT_EQ(fmt_num(0.5), "0.5");
  EXPECT_EQ(fmt_num(4.0), "4");
  EXPECT_EQ(fmt_num(-2.5), "-2.5");
  EXPECT_EQ(fmt_num(0.0012346), "0.001235");
}

TEST(FmtNum, LargeOrdinaryValuesAreNotScientific) {
  EXPECT_EQ(fmt_num(1e6), "1000000");
  EXPECT_EQ(fmt_num(1234567.8), "1234568");
  EXPECT_EQ(fmt_num(99999.6), "100000");
  EXPECT_EQ(fmt_num(9.99996), "10");
}

TEST(FmtNum, ExtremesAndSpecialValues) {
  EXPECT_EQ(fmt_num(0.00012346), "1.235e-04");
  EXPECT_EQ(fmt_num(2.5e15), "2.5e+15");
  EXPECT_EQ(fmt_num(0.0), "0");
  EXPECT_EQ(fmt_num(-0.0), "0");
  EXPECT_EQ(fmt_num(std::numeric_limits<double>::quiet_NaN()), "n/a");
  EXPECT_EQ(fmt_num(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(fmt_num(3.14159, 2), "3.1");
  EXPECT_EQ(fmt_num(-0.00001), "-1e-05");
}

TEST(FormatBytes, BinaryUnits) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(62914560), "60 MiB");
  EXPECT_EQ(format_bytes(150754820096.0), "140.4 GiB");
}

TEST(FormatMetric, SpreadOnlyWhenThereIsOne) {
  using test_support::metric;
  EXPECT_EQ(format_metric(metric("l", "cycles", 4.021, 3.99, 4.1, 20), true), "4.021 cycles (3.99–4.1, n=20)");
  EXPECT_EQ(format_metric(metric("l", "cycles", 4.021, 3.99, 4.1, 20), false), "4.021 (3.99–4.1, n=20)");
  EXPECT_EQ(format_metric(metric("l", "cycles", 4, 4, 4, 1), true), "4 cycles");
  EXPECT_EQ(format_metric(metric("l", "cycles", 4, 4, 4, 3), true), "4 cycles (n=3)");
  Metric empty;
  empty.unit = "ns";
  EXPECT_EQ(format_metric(empty, true), "n/a");
}

TEST(Pad, CountsCodePointsNotBytes) {
  EXPECT_EQ(display_width("4–5 °C"), 6u);
  EXPECT_EQ(pad("ab", 4), "ab  ");
  EXPECT_EQ(pad("a–b", 4), "a–b ");
  EXPECT_EQ(pad("toolong", 3), "toolong");
}

TEST(MarkdownEscape, PipesAndLineBreaks) {
  EXPECT_EQ(markdown_escape("a|b\nc\r"), "a\\|b c ");
  EXPECT_EQ(markdown_escape("plain"), "plain");
}

// Run-file strings are data: no raw HTML, no link target, no forged line (issue 36 item 2).
TEST(Format, MarkdownEscapeKeepsDataFromBecomingMarkup) {
  EXPECT_EQ(markdown_escape("<script>alert(1)</script>"), "\\<script>alert(1)\\</script>");
  EXPECT_EQ(markdown_escape("<img src=x onerror=y>"), "\\<img src=x onerror=y>");
  EXPECT_EQ(markdown_escape("<!-- c -->"), "\\<!-- c -->");
  EXPECT_EQ(markdown_escape("[x](javascript:alert(1))"), "[x\\](javascript:alert(1))");
  EXPECT_EQ(markdown_escape("a\u2028| b | c\u2029d\u0085e"), "a \\| b \\| c d e");
  EXPECT_EQ(markdown_escape("< 5 % and x<3"), "< 5 % and x<3") << "a '<' that opens no tag stays as written";
}

// An ESC sequence in a device name cleared and retitled the terminal of whoever ran `cat` on the
// report or `import` (the hostile corpus): control characters become U+FFFD, text stays.
TEST(Format, ControlCharactersNeverReachAReader) {
  EXPECT_EQ(printable(std::string("a\0b\x07" "c\x1b[2J\x7f", 10) + "\tz"),
            "a\uFFFDb\uFFFD" "c\uFFFD[2J\uFFFD\tz");
  EXPECT_EQ(printable("\xC2\x9B" "31m"), "\uFFFD" "31m") << "C1 CSI";
  EXPECT_EQ(printable("line\nbreak \u00e9 \u2028"), "line\nbreak \u00e9 \u2028") << "breaks are the caller's; text stays";
  EXPECT_EQ(markdown_escape(std::string("x\x1b]0;pwned\x07y")), "x\uFFFD]0;pwned\uFFFDy");
  EXPECT_EQ(csv_field(std::string("\x1b[2J=1")), "\uFFFD[2J=1");
}

TEST(MarkdownTable, AlignedColumnsAndSeparators) {
  MarkdownTable t;
  t.column("name").column("value", MarkdownTable::Align::Right);
  t.row({"a", "1"}).row({"longer–name", "12345"}).row({"only"});
  const std::string out = t.render();
  EXPECT_EQ(out,
            "| name        | value |\n"
            "| ----------- | ----: |\n"
            "| a           |     1 |\n"
            "| longer–name | 12345 |\n"
            "| only        |       |\n");
  EXPECT_FALSE(t.empty());
  EXPECT_TRUE(MarkdownTable().empty());
}

// One pathological cell (a 64 KiB param string from a run file) must not widen every row of its
// column to it: the report grew to 385 MB from one 1 MiB string.
TEST(MarkdownTable, AHugeCellIsNotPaddedTo) {
  MarkdownTable t;
  t.column("name").column("value", MarkdownTable::Align::Right);
  t.row({std::string(65536, 'x'), "1"});
  for (int i = 0; i < 1000; ++i) t.row({"r" + std::to_string(i), std::to_string(i)});
  const std::string out = t.render();
  EXPECT_LT(out.size(), 65536u + 1000u * 160u) << "rows were padded to the huge cell";
  EXPECT_NE(out.find("| r1 " + std::string(117, ' ') + " |"), std::string::npos) << "columns still align up to the cap";
}

}  // namespace
}  // namespace gd
