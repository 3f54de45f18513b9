#!/usr/bin/env bash
# scripts/sanitize.sh on the CPU: a stand-in compute-sanitizer and gpudissect. Every probe
# group (by default the ids' first two parts: the two alpha.x probes share one process) must run
# once per tool, --jobs must run them at once, and one error anywhere must fail it.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# sanitize.sh's default output folder is under TMPDIR: inside ours, so a run without --out leaves nothing.
export TMPDIR=$tmp
mkdir -p "$tmp/bin"
# The stand-in sanitizer runs the command after its options; "errors" in the category name makes
# it report one error; each run sleeps 1 s and, with FAKE_TIMES set, logs when it started and ended.
cat >"$tmp/bin/compute-sanitizer" <<'SAN'
#!/usr/bin/env bash
# Like compute-sanitizer: --xml --save FILE (%p: the pid) gets one document of <record>s,
# --error-exitcode N is the exit code when it found an error.
tool= save= code=0
while [[ $1 == --* ]]; do
  case $1 in
    --xml) shift; continue ;;
    --tool) tool=$2 ;;
    --save) save=${2//%p/$$} ;;
    --error-exitcode) code=$2 ;;
    --kernel-name-exclude) echo "$tool $2" >>"$FAKE_LOG.exclude" ;;
  esac
  shift 2
done
cat_name=$(printf '%s\n' "$@" | grep -A1 -- '--filter' | tail -1)
echo "$cat_name" >>"$FAKE_LOG"
[[ -n ${FAKE_TIMES:-} ]] && echo "start $(date +%s%N)" >>"$FAKE_TIMES"
# One second where the test times overlaps (FAKE_TIMES), a tenth elsewhere: the sleeps held one of
# ctest's two slots idle for most of a minute.
if [[ -n ${FAKE_TIMES:-} ]]; then sleep 1; else sleep 0.1; fi
[[ -n ${FAKE_TIMES:-} ]] && echo "end $(date +%s%N)" >>"$FAKE_TIMES"
"$@"
records=
[[ $cat_name == *errors* ]] && records='<record><kind>Precise</kind><level>Error</level><what><text>Invalid __global__ write</text></what></record>'
# "relacq" in the name: racecheck reports a flag passed by our release/acquire helpers; "mixed":
# the same report with one plain shared-memory access in it.
if [[ $tool == racecheck && ( $cat_name == *relacq* || $cat_name == *mixed* ) ]]; then
  other='gd::ptx::ld_acquire_cluster_u32'
  [[ $cat_name == *mixed* ]] && other='gd::fill_slots'
  records="<record><kind>Analysis</kind><level>Error</level><what><text>Race condition</text>
<source><direction>Write</direction><where><func>gd::ptx::st_release_cluster_u32</func><pc>0x990</pc></where></source>
<destination><direction>Read</direction><where><func>$other</func><pc>0x880</pc></where><count>56</count></destination>
</what></record>"
fi
# "nodoc": the process is killed before it writes its document; "liar": an error code, no record.
[[ $cat_name == *nodoc* ]] && exit 137
[[ -n $save ]] && printf '<?xml version="1.0" encoding="utf-8"?>\n<ComputeSanitizerOutput>%s</ComputeSanitizerOutput>\n' "$records" >"$save"
[[ $cat_name == *liar* ]] && exit "$code"
[[ -n $records ]] && exit "$code"
exit 0
SAN
cat >"$tmp/bin/gd" <<'GD'
#!/usr/bin/env bash
case $1 in
  list) printf '%s\n' alpha.x.one alpha.x.two beta.y gamma.z ${FAKE_EXTRA:-} ;;
  run) [[ -n ${FAKE_MODES:-} ]] && echo "$3" >>"$FAKE_MODES"  # run --quick MODE ...
       echo "2 ok, 0 skipped, 0 failed" ;;
esac
GD
chmod +x "$tmp/bin/"*
export PATH=$tmp/bin:$PATH FAKE_LOG=$tmp/ran.txt
fail() { echo "FAIL: $*"; exit 1; }
# ran_at_once N FILE: the first N of the stand-in's one-second runs (FAKE_TIMES) all started
# before any of them ended, as a pool of N at once does and one that serialises cannot, however
# loaded the machine (wall times were: a CI machine beside a parallel build took 3.4 s for 1).
ran_at_once() {
  local nth first_end
  nth=$(awk '$1 == "start" {print $2}' "$2" | sort -n | sed -n "$1p")
  first_end=$(awk '$1 == "end" {print $2}' "$2" | sort -n | head -1)
  [[ -n $nth && -n $first_end ]] && ((nth < first_end))
}

FAKE_TIMES=$tmp/times3.txt "$root/scripts/sanitize.sh" --exe "$tmp/bin/gd" --tools memcheck,synccheck --jobs 3 \
  --out "$tmp/out" >"$tmp/clean.txt" 2>&1
rc=$?
cat "$tmp/clean.txt"
((rc == 0)) || fail "a clean run exited $rc"
(($(sort "$FAKE_LOG" | uniq -c | awk '$1 == 2' | wc -l) == 3)) || fail "each of 3 groups (alpha.x, beta.y, gamma.z) must run once per tool: $(sort "$FAKE_LOG" | tr '\n' ' ')"
ran_at_once 3 "$tmp/times3.txt" || fail "--jobs 3 did not run three processes at once: $(tr '\n' ' ' <"$tmp/times3.txt")"
ran_at_once 4 "$tmp/times3.txt" && fail "--jobs 3 ran a fourth process beside three"
grep -q '^memcheck:  0 error(s) in 3 process(es)' "$tmp/clean.txt" || fail "no memcheck total line"

: >"$FAKE_LOG"
FAKE_EXTRA=errors.q "$root/scripts/sanitize.sh" --exe "$tmp/bin/gd" --tools racecheck --jobs 2 --out "$tmp/out2" >"$tmp/bad.txt" 2>&1
rc=$?
cat "$tmp/bad.txt"
((rc == 1)) || fail "one error must fail the run (exit 1), got $rc"
grep -q '^racecheck: 1 error(s) in 4 process(es)' "$tmp/bad.txt" || fail "the error is not in the total"

# --group-depth 1: one process per category (alpha, beta, gamma).
: >"$FAKE_LOG"
"$root/scripts/sanitize.sh" --exe "$tmp/bin/gd" --tools memcheck --group-depth 1 --out "$tmp/out4" >/dev/null 2>&1
[[ $(sort "$FAKE_LOG" | tr '\n' ' ') == "alpha beta gamma " ]] || fail "--group-depth 1 must run one process per category: $(tr '\n' ' ' <"$FAKE_LOG")"
# --groups: exactly the named groups, one process each.
: >"$FAKE_LOG"
"$root/scripts/sanitize.sh" --exe "$tmp/bin/gd" --tools memcheck --groups beta.y,alpha.x.two --out "$tmp/out8" >/dev/null 2>&1
[[ $(sort "$FAKE_LOG" | tr '\n' ' ') == "alpha.x.two beta.y " ]] || fail "--groups must run exactly the named groups: $(tr '\n' ' ' <"$FAKE_LOG")"
"$root/scripts/sanitize.sh" --exe "$tmp/bin/gd" --groups 'a b' >/dev/null 2>&1
(($? == 2)) || fail "a malformed --groups must be refused with exit 2"
"$root/scripts/sanitize.sh" --exe "$tmp/bin/gd" --group-depth 0 >/dev/null 2>&1
(($? == 2)) || fail "--group-depth 0 must be refused with exit 2"

# racecheck and synccheck leave cuBLAS's kernels out (by default nvjet; flags set the substring
# and the tools); memcheck checks every kernel.
rm -f "$FAKE_LOG.exclude"
"$root/scripts/sanitize.sh" --exe "$tmp/bin/gd" --out "$tmp/out5" >/dev/null 2>&1
grep -q '^racecheck kns=nvjet$' "$FAKE_LOG.exclude" || fail "racecheck did not exclude nvjet kernels"
grep -q '^synccheck kns=nvjet$' "$FAKE_LOG.exclude" || fail "synccheck did not exclude nvjet kernels"
grep -q '^memcheck' "$FAKE_LOG.exclude" && fail "memcheck must check every kernel"
rm -f "$FAKE_LOG.exclude"
"$root/scripts/sanitize.sh" --exe "$tmp/bin/gd" --tools racecheck,synccheck --exclude-kernels '' --out "$tmp/out3" >/dev/null 2>&1
[[ ! -e $FAKE_LOG.exclude ]] || fail "--exclude-kernels '' must check every kernel"
"$root/scripts/sanitize.sh" --exe "$tmp/bin/gd" --tools racecheck,synccheck --exclude-from racecheck --out "$tmp/out6" >/dev/null 2>&1
[[ $(sort -u "$FAKE_LOG.exclude" | tr '\n' ' ') == "racecheck kns=nvjet " ]] ||
  fail "--exclude-from racecheck must exclude from racecheck only: $(tr '\n' ' ' <"$FAKE_LOG.exclude")"
"$root/scripts/sanitize.sh" --exe "$tmp/bin/gd" --exclude-kernels 'a b' >/dev/null 2>&1
(($? == 2)) || fail "a malformed --exclude-kernels must be refused with exit 2"
"$root/scripts/sanitize.sh" --exe "$tmp/bin/gd" --exclude-from memchek >/dev/null 2>&1
(($? == 2)) || fail "an unknown tool in --exclude-from must be refused with exit 2"
"$root/scripts/sanitize.sh" --exe "$tmp/bin/gd" --tools memcheck,bogus >/dev/null 2>&1
(($? == 2)) || fail "an unknown tool in --tools must be refused with exit 2"

# --racecheck-skip: racecheck runs a group without the probes it names (the rest by id) and
# skips a group it names whole; other tools run everything.
: >"$FAKE_LOG"
"$root/scripts/sanitize.sh" --exe "$tmp/bin/gd" --tools racecheck,memcheck --racecheck-skip alpha.x.two,gamma \
  --out "$tmp/out9" >"$tmp/skip.txt" 2>&1
rc=$?
((rc == 0)) || fail "a run with skipped probes exited $rc: $(cat "$tmp/skip.txt")"
[[ $(sort "$FAKE_LOG" | tr '\n' ' ') == "alpha.x alpha.x.one beta.y beta.y gamma.z " ]] ||
  fail "racecheck must run alpha.x.one and beta.y only, memcheck every group: $(sort "$FAKE_LOG" | tr '\n' ' ')"
grep -q '^racecheck: 0 error(s) in 2 process(es); .*; skipped: gamma.z' "$tmp/skip.txt" || fail "the racecheck line must name the skipped group: $(cat "$tmp/skip.txt")"
grep -q 'not run under racecheck: alpha.x.two' "$tmp/skip.txt" || fail "the group line must name the skipped probe"
"$root/scripts/sanitize.sh" --exe "$tmp/bin/gd" --racecheck-skip 'a b' >/dev/null 2>&1
(($? == 2)) || fail "a malformed --racecheck-skip must be refused with exit 2"

# A racecheck report between our release/acquire helpers only is set aside and counted apart;
# one with any other access stays an error.
FAKE_EXTRA="relacq.a mixed.b" "$root/scripts/sanitize.sh" --exe "$tmp/bin/gd" --tools racecheck --groups relacq.a \
  --out "$tmp/out10" >"$tmp/ra.txt" 2>&1
rc=$?
((rc == 0)) || fail "a release/acquire report must not fail the run (exit $rc): $(cat "$tmp/ra.txt")"
grep -q '^racecheck: 0 error(s) in 1 process(es); .*; 1 release/acquire report(s) set aside' "$tmp/ra.txt" ||
  fail "the set-aside report must be counted on the tool line: $(cat "$tmp/ra.txt")"
FAKE_EXTRA="relacq.a mixed.b" "$root/scripts/sanitize.sh" --exe "$tmp/bin/gd" --tools racecheck --groups mixed.b \
  --out "$tmp/out11" >"$tmp/mixed.txt" 2>&1
(($? == 1)) || fail "a report with a plain access must stay an error: $(cat "$tmp/mixed.txt")"
grep -q '^racecheck: 1 error(s)' "$tmp/mixed.txt" || fail "the mixed report is not counted: $(cat "$tmp/mixed.txt")"

# The exit code and the records decide together: an error code without a record is an error
# (they disagree), and a process that wrote no document is named, not counted as clean.
FAKE_EXTRA="liar.a nodoc.b" "$root/scripts/sanitize.sh" --exe "$tmp/bin/gd" --tools memcheck --groups liar.a \
  --out "$tmp/out14" >"$tmp/liar.txt" 2>&1
(($? == 1)) || fail "an error exit code without a record must fail: $(cat "$tmp/liar.txt")"
grep -q 'they disagree' "$tmp/out14/memcheck-liar.a.log" || fail "the disagreement is not said"
FAKE_EXTRA="liar.a nodoc.b" "$root/scripts/sanitize.sh" --exe "$tmp/bin/gd" --tools memcheck --groups nodoc.b \
  --out "$tmp/out15" >"$tmp/nodoc.txt" 2>&1
(($? == 1)) || fail "a group without its XML document must fail: $(cat "$tmp/nodoc.txt")"
grep -q 'wrote no XML record document for: nodoc.b' "$tmp/nodoc.txt" || fail "the group without a document is not named"

# racecheck runs its probes at --functional sizes, the other tools at --single-sample's;
# --functional-tools names the tools ('' none).
FAKE_MODES=$tmp/modes.txt "$root/scripts/sanitize.sh" --exe "$tmp/bin/gd" --tools memcheck,racecheck --groups beta.y \
  --out "$tmp/out12" >"$tmp/modes-run.txt" 2>&1
[[ $(sort "$tmp/modes.txt" | tr '\n' ' ') == "--functional --single-sample " ]] ||
  fail "racecheck must run --functional and memcheck --single-sample: $(tr '\n' ' ' <"$tmp/modes.txt")"
grep -q 'racecheck beta.y .* s functional;' "$tmp/modes-run.txt" || fail "the group line must say the mode: $(cat "$tmp/modes-run.txt")"
rm -f "$tmp/modes.txt"
FAKE_MODES=$tmp/modes.txt "$root/scripts/sanitize.sh" --exe "$tmp/bin/gd" --tools racecheck --groups beta.y \
  --functional-tools '' --out "$tmp/out13" >/dev/null 2>&1
[[ $(cat "$tmp/modes.txt") == --single-sample ]] || fail "--functional-tools '' must run racecheck --single-sample"
"$root/scripts/sanitize.sh" --exe "$tmp/bin/gd" --functional-tools racechek >/dev/null 2>&1
(($? == 2)) || fail "an unknown tool in --functional-tools must be refused with exit 2"

# One pool over tools and groups: 3 tools x 3 groups at --jobs 9 all run at once, not one tool
# after another.
FAKE_TIMES=$tmp/times9.txt "$root/scripts/sanitize.sh" --exe "$tmp/bin/gd" --tools memcheck,synccheck,racecheck --jobs 9 \
  --out "$tmp/out7" >/dev/null 2>&1
ran_at_once 9 "$tmp/times9.txt" || fail "--jobs 9 did not run 3 tools x 3 groups at once: the tools did not share the pool"

"$root/scripts/sanitize.sh" --exe "$tmp/bin/gd" --jobs 0 >/dev/null 2>&1
(($? == 2)) || fail "--jobs 0 must be refused with exit 2"
echo "sanitize.sh: all checks passed"
