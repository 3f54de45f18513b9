// The SM clock a record was measured at, set against the card's application clock. NVML can
// report the application clock while the SMs run far below it (an H200 under wgmma: NVML 1980 MHz,
// no clock-event reason, clock64 over %globaltimer 1610-1790 MHz), so the check reads the clock the
// kernel saw, never NVML's.
#pragma once
#include <string>
#include <vector>

#include "core/json.hpp"

#include "core/record.hpp"

namespace gd {

struct DeviceInfo;

// A record whose in-run SM clock is more than this fraction under the application clock is flagged.
inline constexpr double kClockBelowApplicationFraction = 0.03;
inline constexpr const char* kClockBelowApplicationFlag = "clock_below_application";
// A point measured while another process had a context on the GPU (core/tenancy.hpp).
inline constexpr const char* kContendedFlag = "contended";

// The application SM clock of a run: the `application_sm_clock_mhz` setting of its gpu_state
// (either the {"before": {"settings": ...}} object a run file holds or the bare settings), else the
// driver's peak SM clock attribute; 0 when neither is known.
double application_sm_clock_mhz(const nlohmann::json& gpu_state, const DeviceInfo& device);
double application_sm_clock_mhz(const nlohmann::json& gpu_state, const nlohmann::json& device);

// The record's verdict flags (extra.flags), in the order they were added.
std::vector<std::string> record_flags(const Record& r);
bool has_flag(const Record& r, const std::string& flag);
void add_flag(Record& r, const std::string& flag);  // once each

// Sets extra.clock_check = {application_mhz, observed_mhz, ratio} and flags the record
// clock_below_application when its in-run clock is more than 3 % under the application clock.
// A record without an in-run clock, or a run without an application clock, is left as it is.
void check_clock(Record& r, double application_mhz);

// What a derived record inherits from the points it came from: every flag, and the union of the
// clock limiters NVML saw (extra.throttle.by).
void inherit_flags(Record& derived, const std::vector<const Record*>& sources);

}  // namespace gd
