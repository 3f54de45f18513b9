// Whether the seeds' V-pipe (the pipe their SM_120 study gives FMNMX, VIADD.16x2, VIADD.U8x4 and
// VIMNMX) is a backend of its own beside the INT pipe: each V-pipe instruction paired with IADD3,
// as pipes.coissue.memory_vpipe measures it.
#pragma once
#include <string>
#include <vector>

namespace gd {

struct VpipeBesideInt {
  std::string opcode;  // the V-pipe instruction, e.g. "VIADD.16x2"
  std::string kind;    // "confirmed" (co-issue), "shared" or "undecided", as coissue_pairs names them
  double gain = 0;     // the pair's summed rate ratio (2: full overlap, 1: taking turns)
};

// "yes: ..." when every instruction co-issues with IADD3, "no: ..." when every one shares its
// pipe, "no single V-pipe: its instructions split: ..." when they disagree, each with its pair;
// "" when any pair is undecided or none is given (the answer is then not measured). Throws
// std::invalid_argument on a kind it does not know.
std::string vpipe_backend_text(const std::vector<VpipeBesideInt>& pairs);

}  // namespace gd
