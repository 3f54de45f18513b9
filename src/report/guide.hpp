// A guide for kernel authors derived from the chip at hand: the seven principles the SM_120 paper
// ends with (its section 12.2), each restated as a rule over named metrics of a run, with the
// measured numbers and the records they come from. A principle whose inputs the run lacks is
// listed as not measured, naming what it needs, so the guide changes when the chip changes.
#pragma once
#include <string>
#include <vector>

#include "core/probe.hpp"
#include "core/run_file.hpp"

namespace gd {

struct GuideInput {
  std::string name;    // what the rule reads, e.g. "FFMA latency"
  std::string source;  // "latency.alu.ffma latency/cycles" or "study item memory.dram.latency"
  bool found = false;
  std::string value;   // measured, with its unit
  std::string link;    // the record's anchor in the report
};

struct GuidePrinciple {
  int number = 0;
  std::string title;         // the paper's principle, in short
  std::string paper;         // what the paper found on SM_120
  bool measured = false;     // every input it needs was found
  std::string statement;     // the rule stated with this chip's numbers (empty when not measured)
  std::vector<GuideInput> inputs;
};

std::vector<GuidePrinciple> derive_guide(const RunDocument& run, const std::vector<const ProbeSpec*>& probes);
std::string guide_markdown(const std::vector<GuidePrinciple>& guide, const std::string& chip);

}  // namespace gd
