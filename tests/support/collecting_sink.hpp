// A record sink that keeps what the executor emits, for the tests that run probes.
#pragma once
#include <vector>

#include "core/executor.hpp"

namespace gd::test_support {

struct CollectingSink : RecordSink {
  std::vector<Record> records;
  bool finished = false, complete = false;
  void on_record(const Record& r) override { records.push_back(r); }
  void on_finish(bool c) override { finished = true, complete = c; }
};

}  // namespace gd::test_support
