// Probes that misbehave on purpose, for the isolation tests: they trap, fault, hang or exit at
// their second point. They exist only in the test binaries (gpudissect_tests and its child
// helper), never in gpudissect's catalog.
#pragma once
#include <signal.h>
#include <unistd.h>

#include <cstdlib>

#include "core/registry.hpp"

namespace gd::test_support {

inline ProbeSpec misbehaving_probe(const std::string& id, void (*at_second_point)()) {
  ProbeSpec s;
  s.id = id;
  s.description = "test probe that misbehaves at x = 2";
  s.metrics = {{"value/x", "units", "the x parameter"}};
  s.axes = {Axis::list("x", {1, 2, 3})};
  s.time_cap_s = 5;
  s.run = [at_second_point](ProbeContext& ctx) {
    if (ctx.int_param("x") == 2 && at_second_point) at_second_point();
    ctx.set_observed_sm_clock_mhz(1000);
    ctx.metric("value/x", double(ctx.int_param("x")));
  };
  return s;
}

inline Registry isolation_registry() {
  Registry r;
  r.add(misbehaving_probe("t.ok", nullptr));
  r.add(misbehaving_probe("t.trap", [] { std::abort(); }));
  r.add(misbehaving_probe("t.segv", [] { ::raise(SIGSEGV); }));
  r.add(misbehaving_probe("t.hang", [] {
    for (;;) ::pause();
  }));
  r.add(misbehaving_probe("t.exit", [] { std::_Exit(7); }));
  ProbeSpec risky = misbehaving_probe("t.risky", [] { std::abort(); });
  risky.risky = true;
  r.add(risky);
  r.add(misbehaving_probe("t.after", nullptr));
  // Asks for five samples: a child run under --single-sample must take one.
  ProbeSpec sampled = misbehaving_probe("t.sampled", nullptr);
  sampled.run = [](ProbeContext& ctx) {
    RepeatPolicy policy;
    policy.min_samples = 5;
    ctx.metric("value/x", ctx.measure([] { return 1.0; }, policy).summary);
    ctx.set_observed_sm_clock_mhz(1000);
  };
  r.add(sampled);
  // A size of 1000, 3 under --functional, and a measurement asking for five samples.
  ProbeSpec sized = misbehaving_probe("t.sized", nullptr);
  sized.metrics.push_back({"value/samples", "units", "a measurement asking for five samples"});
  sized.run = [](ProbeContext& ctx) {
    RepeatPolicy policy;
    policy.min_samples = 5;
    ctx.metric("value/x", double(ctx.sized<long long>(1000, 3)));
    ctx.metric("value/samples", ctx.measure([] { return 1.0; }, policy).summary);
    ctx.set_observed_sm_clock_mhz(1000);
  };
  r.add(sized);
  return r;
}

}  // namespace gd::test_support
