// The run journal: a run's results appended as JSON Lines while it runs, each line fsync'd, so a
// run killed at any moment (SIGKILL, power cut after fsync) keeps every record it finished.
//
//   line 1     {"gpudissect_journal": 1, "header": <the run document without records>}
//   then       {"record": <record>}                      one per finished record
//   last       {"finish": {"finished_at": ..., "complete": ..., ...}}   absent if killed
//
// The JSON run file is assembled from it at the end of a run, or later by `gpudissect recover`;
// `report`, `compare` and `import` read a journal wherever they read a run file.
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/json.hpp"

#include "core/executor.hpp"
#include "core/run_file.hpp"

namespace gd {

inline constexpr int kJournalVersion = 1;

// Appends to PATH (created; an existing file is an error: a journal is never overwritten).
// Throws UserError when the file cannot be created, OutputError (naming the file and how many
// records it already holds) when a line cannot be written in full: a full disk or an I/O error
// stops the run, and what was written before stays readable.
class RunJournal : public RecordSink {
 public:
  RunJournal(std::string path, RunDocument header);
  ~RunJournal() override;
  RunJournal(const RunJournal&) = delete;
  RunJournal& operator=(const RunJournal&) = delete;

  void on_record(const Record& r) override;
  // Appends the finish line, with the fields `finish_extra` returns then (e.g. the GPU state
  // after the run), which also go into the document.
  void on_finish(bool complete) override;
  void set_finish_extra(std::function<nlohmann::json()> f) { finish_extra_ = std::move(f); }
  const RunDocument& document() const { return doc_; }
  const std::string& path() const { return path_; }

 private:
  void append(const nlohmann::json& line);
  std::function<nlohmann::json()> finish_extra_;
  std::string path_;
  RunDocument doc_;
  int fd_ = -1;
  bool finished_ = false;
};

// Reads a journal. A last line cut short (the run was killed while writing it) is dropped;
// `dropped_tail` tells. Any other bad line is a UserError naming the file and line.
struct JournalRead {
  RunDocument doc;
  bool finished = false;    // the finish line is present
  bool dropped_tail = false;
  // Lines after the header that could not be read, left out: line number (from 1) and why. The
  // run is then not complete.
  std::vector<std::pair<std::size_t, std::string>> bad_lines;
};
JournalRead read_journal_text(const std::string& text, const std::string& source_name);
JournalRead read_journal(const std::string& path);
// True when the text starts like a journal (its first line is a journal header).
bool looks_like_journal(const std::string& text);

}  // namespace gd
