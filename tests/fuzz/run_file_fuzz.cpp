// libFuzzer target: the run-file reader (JSON run files and JSON Lines journals) on arbitrary
// text. Anything malformed must end in gd::UserError with a message, never in a crash.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/run_file.hpp"
#include "core/run_journal.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    // As read_run_file parses (a number too large for a double throws out_of_range, not parse_error).
    const nlohmann::json j = nlohmann::json::parse(text);
    const gd::RunDocument doc = gd::run_from_json(j, "fuzz.json");
    (void)gd::to_json(doc).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (const gd::UserError&) {
  } catch (const nlohmann::json::exception&) {
  }
  try {
    if (gd::looks_like_journal(text)) {
      const gd::JournalRead r = gd::read_journal_text(text, "fuzz.jsonl");
      (void)gd::to_json(r.doc).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
  } catch (const gd::UserError&) {
  }
  return 0;
}
