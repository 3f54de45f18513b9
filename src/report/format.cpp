#include "report/format.hpp"

#include <cctype>

#include <algorithm>
#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gd {

static void drop_trailing_zeros(std::string& digits) {
  if (digits.find('.') == std::string::npos) return;
  digits.erase(digits.find_last_not_of('0') + 1);
  if (digits.back() == '.') digits.pop_back();
}

static std::string scientific(double v, int significant) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", significant - 1, v);
  std::string s = buf;
  const auto e = s.find('e');
  std::string mantissa = s.substr(0, e);
  drop_trailing_zeros(mantissa);
  return mantissa + s.substr(e);
}

std::string fmt_num(double v, int significant) {
  if (std::isnan(v)) return "n/a";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  if (magnitude < -3 || magnitude >= 15) return scientific(v, significant);
  const int decimals = std::max(0, significant - 1 - magnitude);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  drop_trailing_zeros(s);
  return s == "-0" ? "0" : s;
}

std::string format_bytes(double bytes) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (std::fabs(bytes) >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return fmt_num(bytes) + " " + units[u];
}

std::string format_metric(const Metric& m, bool with_unit) {
  const Summary& s = m.stats;
  std::string out = fmt_num(s.median);
  if (with_unit && !m.unit.empty() && !std::isnan(s.median)) out += " " + m.unit;
  if (s.n <= 1) return out;
  const bool spread = !std::isnan(s.min) && !std::isnan(s.max) && s.min != s.max;
  out += " (";
  if (spread) out += fmt_num(s.min) + "–" + fmt_num(s.max) + ", ";
  return out + "n=" + std::to_string(s.n) + ")";
}

std::size_t display_width(std::string_view s) {
  // UTF-8 continuation bytes (10xxxxxx) do not start a new character.
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string pad(std::string_view s, std::size_t width) {
  std::string out(s);
  const std::size_t w = display_width(s);
  if (w < width) out.append(width - w, ' ');
  return out;
}

static std::string pad_left(std::string_view s, std::size_t width) {
  const std::size_t w = display_width(s);
  return std::string(w < width ? width - w : 0, ' ') + std::string(s);
}

std::string printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    const bool c1 = c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(s[i + 1]) <= 0x9F && static_cast<unsigned char>(s[i + 1]) != 0x85;
    if ((c < 0x20 && c != '\n' && c != '\r' && c != '\t') || c == 0x7F) out += "\xEF\xBF\xBD";  // U+FFFD
    else if (c1) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else out += static_cast<char>(c);
  }
  return out;
}

std::string markdown_escape(std::string_view raw) {
  const std::string text = printable(raw);
  const std::string_view s = text;
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const char next = i + 1 < s.size() ? s[i + 1] : '\0';
    // U+2028, U+2029 (E2 80 A8/A9) and U+0085 (C2 85) end a line for some renderers too.
    const bool unicode_break = (c == '\xE2' && next == '\x80' && i + 2 < s.size() && (s[i + 2] == '\xA8' || s[i + 2] == '\xA9')) ||
                               (c == '\xC2' && next == '\x85');
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else if (unicode_break) {
      out += ' ';
      i += c == '\xE2' ? 2 : 1;
    }
    // What would open raw HTML (<script, </a, <!--, <?) or close a link's text into a target
    // ("](javascript:...)") is backslash-escaped: shown as written, never markup.
    else if (c == '<' && (std::isalpha(static_cast<unsigned char>(next)) || next == '/' || next == '!' || next == '?')) out += "\\<";
    else if (c == ']' && next == '(') out += "\\]";
    else out += c;
  }
  return out;
}

MarkdownTable& MarkdownTable::column(std::string header, Align align) {
  headers_.push_back(std::move(header));
  aligns_.push_back(align);
  return *this;
}

MarkdownTable& MarkdownTable::row(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
  return *this;
}

std::string MarkdownTable::render() const {
  // Markdown needs at least three dashes per separator cell. Columns are padded to their widest
  // cell up to kMaxPaddedWidth; a longer cell sticks out rather than widen every row to it (one
  // 1 MiB string in a run file made a 385 MB report, issue 36 item 4).
  constexpr std::size_t kMaxPaddedWidth = 120;
  std::vector<std::size_t> width(headers_.size(), 3);
  for (std::size_t c = 0; c < headers_.size(); ++c) {
    width[c] = std::max(width[c], std::min(kMaxPaddedWidth, display_width(headers_[c])));
    for (const auto& r : rows_) width[c] = std::max(width[c], std::min(kMaxPaddedWidth, display_width(r[c])));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = "|";
    for (std::size_t c = 0; c < cells.size(); ++c) {
      out += ' ';
      out += aligns_[c] == Align::Right ? pad_left(cells[c], width[c]) : pad(cells[c], width[c]);
      out += " |";
    }
    return out + "\n";
  };
  std::string out = line(headers_) + "|";
  for (std::size_t c = 0; c < headers_.size(); ++c) {
    const bool right = aligns_[c] == Align::Right;
    out += ' ';
    out.append(right ? width[c] - 1 : width[c], '-');
    out += right ? ": |" : " |";
  }
  out += "\n";
  for (const auto& r : rows_) out += line(r);
  return out;
}

}  // namespace gd
