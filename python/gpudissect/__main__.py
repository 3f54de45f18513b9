"""python -m gpudissect html [--run RUN.json] [--context CONTEXT.json] --out REPORT.html
python -m gpudissect reference --csv data/coverage/seed-items.csv --out data/reference [--studies DIR]

What `gpudissect report --format html` calls; the context (the Markdown report, each probe's
declared views, the coverage counts) comes from the binary. Without one, the page holds the
figures the records suggest."""
from __future__ import annotations

import argparse
import json
import sys

from .frames import read_run, run_frame


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gpudissect")
    sub = ap.add_subparsers(dest="command", required=True)
    h = sub.add_parser("html", help="the HTML report of a run")
    h.add_argument("--run")
    h.add_argument("--context")
    h.add_argument("--out", required=True)
    r = sub.add_parser("reference", help="build data/reference/ from the reference studies' items")
    r.add_argument("--csv", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--studies", metavar="DIR", help="the studies' text files: check every figure against them")
    r.add_argument("--seeds", dest="studies", help=argparse.SUPPRESS)  # its former name
    args = ap.parse_args(argv)
    if args.command == "reference":
        from .reference import write_all
        problems = write_all(args.csv, args.out, args.studies)
        for p in problems:
            print("check:", p, file=sys.stderr)
        return 1 if problems else 0
    from .html import build_html  # imports matplotlib: only for the command that draws
    context = {}
    if args.context:
        with open(args.context, encoding="utf-8") as f:
            context = json.load(f)
    try:
        doc = read_run(args.run) if args.run else None
        page = build_html(run_frame(doc) if doc else None, context, doc["records"] if doc else None)
    except ValueError as e:
        print(f"gpudissect (python): error: {e}", file=sys.stderr)
        return 2
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
