#include "core/run_journal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/error.hpp"

namespace gd {

using nlohmann::json;

namespace {

// Probe strings (driver messages) are not guaranteed UTF-8: replace rather than lose a record.
std::string line_of(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n"; }

}  // namespace

RunJournal::RunJournal(std::string path, RunDocument header) : path_(std::move(path)), doc_(std::move(header)) {
  doc_.records.clear();
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0666);
  if (fd_ < 0) throw UserError("cannot create run journal " + path_ + ": " + std::strerror(errno));
  json head = to_json(doc_);
  head.erase("records");
  append({{"gpudissect_journal", kJournalVersion}, {"header", head}});
}

RunJournal::~RunJournal() {
  if (fd_ >= 0) ::close(fd_);
}

void RunJournal::append(const json& line) {
  if (fd_ < 0) throw OutputError("run journal " + path_ + " is closed after an earlier write error");
  const std::string text = line_of(line);
  const off_t before = ::lseek(fd_, 0, SEEK_END);
  const char* p = text.data();
  std::size_t left = text.size();
  int err = 0;
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : EIO;
      break;
    }
    p += n;
    left -= std::size_t(n);
  }
  // The record counts as written once it is on the disk, not in the page cache.
  if (err == 0 && ::fsync(fd_) != 0 && errno != EINVAL) err = errno;
  if (err == 0) return;
  // A half-written line would read as a cut-off tail: take it back so the file ends cleanly.
  if (before >= 0) (void)::ftruncate(fd_, before);
  ::close(fd_);
  fd_ = -1;
  throw OutputError("cannot append to run journal " + path_ + ": " + std::strerror(err) + "; the run stops. The " +
                    std::to_string(doc_.records.size()) + " record(s) written before are kept there (`gpudissect recover " +
                    path_ + "` assembles the run file)");
}

void RunJournal::on_record(const Record& r) {
  append({{"record", to_json(r)}});
  doc_.records.push_back(r);
}

void RunJournal::on_finish(bool complete) {
  if (finished_) return;
  const json extra = finish_extra_ ? finish_extra_() : json::object();
  doc_.finished_at = utc_now_iso8601();
  doc_.complete = complete;
  json f = {{"finished_at", doc_.finished_at}, {"complete", complete}};
  if (extra.is_object()) {
    for (const auto& [k, v] : extra.items()) f[k] = v;
    if (extra.contains("gpu_state")) doc_.gpu_state = extra["gpu_state"];
    if (extra.contains("timing")) doc_.timing = extra["timing"];
  }
  append({{"finish", f}});
  finished_ = true;
}

bool looks_like_journal(const std::string& text) {
  const auto eol = text.find('\n');
  const std::string first = text.substr(0, eol);
  if (first.find("\"gpudissect_journal\"") == std::string::npos) return false;
  const json j = json::parse(first, nullptr, false);
  return j.is_object() && j.contains("gpudissect_journal");
}

// One line after the header: a record, or the finish line. Throws std::exception saying what is
// wrong with it.
static void read_journal_line(const std::string& text, const std::string& source_name, JournalRead& out) {
  const json line = parse_run_json(text, source_name, false);
  if (line.is_discarded() || !line.is_object()) throw std::invalid_argument("not a JSON object");
  if (out.finished) throw std::invalid_argument("a line after the finish line");
  if (const auto r = line.find("record"); r != line.end()) {
    out.doc.records.push_back(record_from_json(*r));
  } else if (const auto f = line.find("finish"); f != line.end() && f->is_object()) {
    out.finished = true;
    if (const auto t = f->find("finished_at"); t != f->end() && t->is_string()) out.doc.finished_at = t->get<std::string>();
    if (const auto c = f->find("complete"); c != f->end() && c->is_boolean()) out.doc.complete = c->get<bool>();
    if (const auto g = f->find("gpu_state"); g != f->end()) out.doc.gpu_state = *g;
    if (const auto t = f->find("timing"); t != f->end() && t->is_object()) out.doc.timing = *t;
  } else {
    throw std::invalid_argument("neither a record nor the finish line");
  }
}

JournalRead read_journal_text(const std::string& text, const std::string& source_name) {
  JournalRead out;
  std::vector<std::string> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto eol = text.find('\n', pos);
    if (eol == std::string::npos) {
      lines.push_back(text.substr(pos));
      out.dropped_tail = true;  // no newline: the writer was stopped inside this line
      break;
    }
    lines.push_back(text.substr(pos, eol - pos));
    pos = eol + 1;
  }
  if (out.dropped_tail) lines.pop_back();
  if (lines.empty()) throw UserError(source_name + ": an empty run journal (the run was stopped before its header was written)");
  const auto at = [&](std::size_t i) { return source_name + ": line " + std::to_string(i + 1) + ": "; };

  const json head = parse_run_json(lines[0], source_name, false);
  if (head.is_discarded() || !head.is_object() || !head.contains("gpudissect_journal"))
    throw UserError(at(0) + "not a gpudissect run journal (its first line must be the journal header)");
  if (!head["gpudissect_journal"].is_number_integer() || head["gpudissect_journal"].get<std::int64_t>() != kJournalVersion)
    throw UserError(at(0) + "journal version " + head["gpudissect_journal"].dump() + " is not supported (this gpudissect reads version " +
                    std::to_string(kJournalVersion) + ")");
  if (!head.contains("header") || !head["header"].is_object()) throw UserError(at(0) + "the journal header has no \"header\" object");
  json doc = head["header"];
  doc["records"] = json::array();
  out.doc = run_from_json(doc, source_name);

  // A line that cannot be read is left out and counted, not the whole journal: the records
  // around it were measured and are still good (recover says which lines it left out).
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    try {
      read_journal_line(lines[i], source_name, out);
    } catch (const std::exception& e) {
      out.bad_lines.push_back({i + 1, e.what()});
    }
  }
  if (!out.bad_lines.empty()) out.doc.complete = false;
  check_run_limits(out.doc.records, source_name);
  if (!out.finished) out.doc.complete = false;
  return out;
}

JournalRead read_journal(const std::string& path) { return read_journal_text(read_run_text(path), path); }

}  // namespace gd
