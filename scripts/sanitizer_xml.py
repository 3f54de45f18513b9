#!/usr/bin/env python3
"""The counts scripts/sanitize.sh reports, from compute-sanitizer's XML records (--xml --save, one
document per process): errors, processes, and racecheck reports set aside because every access in
them is one of our release/acquire helpers (racecheck models barriers, not the memory model; see
scripts/sanitize.sh). Prints "ERRORS PROCESSES SET_ASIDE UNREADABLE" on one line.

    scripts/sanitizer_xml.py [--set-aside-below N] FILE.xml...

--set-aside-below N: set nothing aside when a document holds N or more error records (at the
print limit a report that was not written could be a real one). Standard library only."""
import argparse
import re
import sys
import xml.etree.ElementTree as ET

RELEASE_ACQUIRE = re.compile(r"(st_release_|ld_acquire_)[A-Za-z0-9_]*")


def accesses(record):
    """The functions of a racecheck report's accesses (source and destinations)."""
    return [f.text or "" for side in ("source", "destination") for w in record.iter(side)
            for f in w.iter("func")]


def only_release_acquire(record):
    funcs = accesses(record)
    return bool(funcs) and all(RELEASE_ACQUIRE.search(f) for f in funcs)


def count(paths, set_aside_below):
    errors = processes = set_aside = unreadable = 0
    for path in paths:
        try:
            root = ET.parse(path).getroot()
        except (ET.ParseError, OSError):
            unreadable += 1  # a process cut off before it finished its document
            continue
        processes += 1
        # An error is every record but a warning: memcheck's API errors carry no level (on an H200
        # its text summary counted 32 access records and 2 API records as 34 errors).
        records = [r for r in root.iter("record") if (r.findtext("level") or "Error").strip() not in ("Warning", "Info")]
        aside = [r for r in records if only_release_acquire(r)] if len(records) < set_aside_below else []
        errors += len(records) - len(aside)
        set_aside += len(aside)
    return errors, processes, set_aside, unreadable


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set-aside-below", type=int, default=sys.maxsize)
    ap.add_argument("files", nargs="*")
    args = ap.parse_args(argv)
    print(*count(args.files, args.set_aside_below))
    return 0


if __name__ == "__main__":
    sys.exit(main())
