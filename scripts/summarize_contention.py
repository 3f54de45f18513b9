#!/usr/bin/env python3
"""Summarizes scripts/shared_gpu_check.sh's runs: per run, the measured points and how many were
flagged contended; for the run the tenant joined late, where the flags begin and what the
tenancy looks cost."""
import glob
import json
import os
import sys
from datetime import datetime


def load(folder):
    files = sorted(glob.glob(os.path.join(folder, "run-*.json")))
    return json.load(open(files[-1])) if files else None


def measured(run):
    return [r for r in run["records"] if r.get("status") == "ok" and not r.get("derived")]


def contended(r):
    return "contended" in (r.get("extra") or {}).get("flags", [])


def epoch(iso):
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def main() -> int:
    out = sys.argv[1]
    for name in ("busy", "late", "alone"):
        run = load(os.path.join(out, name))
        if run is None:
            print(f"{name:8s} no run file")
            continue
        pts = measured(run)
        flagged = [i for i, r in enumerate(pts) if contended(r)]
        ten = (run.get("gpu_state") or {}).get("tenancy") or {}
        before = ten.get("before") or {}
        share = 100 * len(flagged) / max(1, len(pts))
        print(f"{name:8s} {len(flagged)} of {len(pts)} measured points contended ({share:.1f} %); "
              f"looks {ten.get('looks')}, {1000 * (ten.get('looking_s') or 0):.0f} ms in all; "
              f"wall {run.get('timing', {}).get('wall_s', 0):.1f} s; busy before: {before.get('busy')}")
        if name == "busy" and before.get("evidence"):
            print(f"         evidence before: {'; '.join(before['evidence'])[:300]}")
        if name == "late" and flagged:
            first = flagged[0]
            after = len(pts) - first
            print(f"         first contended point: #{first} ({pts[first]['id']}); before it {first} points, none "
                  f"flagged; from it on {len(flagged)} of {after} flagged ({100 * len(flagged) / after:.1f} %)")
            log = open(os.path.join(out, "summary.txt")).read()
            for line in log.splitlines():
                if line.startswith("late     tenant computing from"):
                    t = float(line.split()[4])
                    # The probes in run order (the records' order), each one's wall time summed.
                    walls, acc, order = run["timing"]["probe_wall_s"], 0.0, []
                    for r in run["records"]:
                        if r["id"] not in order:
                            order.append(r["id"])
                    for probe in order:
                        if probe == pts[first]["id"]:
                            break
                        acc += walls.get(probe, 0.0)
                    print(f"         tenant computing {t - epoch(run['started_at']):.1f} s after the run's start "
                          f"(second resolution); the first flagged probe began {acc:.1f} s in")
    return 0


if __name__ == "__main__":
    sys.exit(main())
