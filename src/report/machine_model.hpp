// A run as one JSON document a program reads (`gpudissect export --format model`,
// schemas/model.schema.json, gpudissect.load_model in Python): per instruction its latency and
// issue interval, per memory level its latency (and the footprints that reached it) and
// bandwidth, the compute and tensor ceilings a roofline is drawn from, launch costs, the clock the
// kernels saw, and every headline with the record that won. Nothing in it is not from the run:
// a value the run lacks is left out, never filled in.
#pragma once
#include "core/json.hpp"

#include "core/run_file.hpp"

namespace gd {

inline constexpr int kMachineModelVersion = 1;

nlohmann::json machine_model(const RunDocument& run);

}  // namespace gd
