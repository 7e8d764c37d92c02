# Sourced by the scripts/device-*.sh runs: where the carried binaries are, where logs go, and the
# scenario folder of the working tree (kda-bench runs from .carry/bin, away from ./scenarios).
export LD_LIBRARY_PATH="$PWD/.carry/bin:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export KDA_SCENARIOS=$PWD/scenarios
out=${OUT:-/tmp/out}
bin=.carry/bin
mkdir -p "$out"

# pack_logs CALL: everything under $out so far into $out/0-CALL-logs.tgz, after each step of a device
# call, so that a call cut by its time limit still returns what ran; the first time also the card
# (nvidia-smi's line, printed and kept in $out/card.txt). The leading 0 sorts the archive first:
# only 8 files come back from $OUT, the first 8 by name (session 39's call C lost its archive
# behind eight others).
pack_logs() {
  [ -f "$out/card.txt" ] || nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/card.txt"
  tar -C "$out" -czf "/tmp/$1-logs.tgz" --exclude='*.tgz' . && cp "/tmp/$1-logs.tgz" "$out/0-$1-logs.tgz"
}

# gpu_tests [NAME [LIBRARY]]: both GPU test binaries (against LIBRARY, default the carried
# libkda.so), logs in $out/gpu_{fwd,bwd}_tests[-NAME].log; prints each exit code, the pass/fail
# counts and the failing cases.
gpu_tests() {
  local name=${1:+-$1} lib=${2:-$bin/libkda.so} t log
  for t in fwd bwd; do
    log="$out/gpu_${t}_tests$name.log"
    KDA_LIBRARY=$lib timeout 120 $bin/gpu_${t}_tests > "$log" 2>&1
    echo "gpu_${t}_tests${name} exit $?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]' "$log" | tr '\n' ' ')"
    grep -E "^\[  FAILED  \] [a-z]" "$log" | sed 's/,.*//' | sort -u | head -8
  done
}

# gpu_timing_tests [LIBRARY]: the timing GPU tests (graph replay, interleaved sets, clocks) against
# LIBRARY (default $LIB, else the carried libkda.so); $out/gpu_timing_tests.log; prints the exit
# code and the pass/fail counts.
gpu_timing_tests() {
  local lib=${1:-${LIB:-$bin/libkda.so}} log="$out/gpu_timing_tests.log"
  KDA_LIBRARY=$lib timeout 120 $bin/gpu_timing_tests > "$log" 2>&1
  echo "gpu_timing_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]' "$log" | tr '\n' ' ')"
}

# ncu_kernel NAME REGEX ROW OP: Nsight Compute (full set, source counters, clocks as found) on the
# second launch of the kernels matching REGEX in one `kda-bench --rows ROW --ops OP` call (the
# carried library, or $LIB if set); leaves
# $out/ncu-NAME-details.csv and the per-instruction $out/ncu-NAME-sass.csv.gz and prints the
# headline metrics.
ncu_kernel() {
  local name=$1 regex=$2 row=$3 op=$4
  timeout 120 ncu --clock-control none --kernel-name "regex:$regex" --launch-skip 1 --launch-count 1 --set full \
    --import-source yes -o "$out/ncu-$name" $bin/kda-bench --log-level warn --library "${LIB:-$bin/libkda.so}" --rows "$row" --ops "$op" \
    --samples 1 --calls 1 --warmup 1 --out "$out/ncu-$name-run.json" > "$out/ncu-$name.log" 2>&1
  echo "ncu $name exit $?"
  ncu -i "$out/ncu-$name.ncu-rep" --page details --csv > "$out/ncu-$name-details.csv" 2>&1
  ncu -i "$out/ncu-$name.ncu-rep" --page source --csv --print-source sass > "$out/ncu-$name-sass.csv" 2>&1
  gzip -9f "$out/ncu-$name-sass.csv" && rm -f "$out/ncu-$name.ncu-rep"
  grep -E '"(Duration|Warp Cycles Per Issued Instruction|Issue Slots Busy|Achieved Occupancy|DRAM Throughput|Compute \(SM\) Throughput)"' \
    "$out/ncu-$name-details.csv" | cut -d, -f13- | head
}

# same_bits NAME VTILE ROWS [BEFORE]: `kda-bench --same-bits` of the carried library ($LIB if set) against BEFORE
# (default $HEAD, the script's library of the commit before the change) on ROWS, fwd and bwd, both
# decays, every head, the V tile forced (empty: the rows' own); $out/sb-NAME.{log,json}; prints the
# counts of identical and DIFFERENT tensors.
same_bits() {
  local name=$1 vt=$2 rows=$3 before=${4:-$HEAD}
  KDA_STATE_VTILE=$vt timeout 150 $bin/kda-bench --log-level warn --library "${LIB:-$bin/libkda.so}" --before "$before" --same-bits --no-timing \
    --ops fwd,bwd --decay normal,fast --check-heads 0 --rows "$rows" --out "$out/sb-$name.json" > "$out/sb-$name.log" 2>&1
  echo "same-bits $name exit $?: $(grep -c DIFFERENT "$out/sb-$name.log") DIFFERENT, $(grep -c identical "$out/sb-$name.log") identical"
}

# sanitize VTILE [TOOL...]: compute-sanitizer (default memcheck, racecheck, synccheck) on the m2
# backward GPU tests (against $LIB if set, else the carried libkda.so) of the saved and the replay path (every kernel runs), the V tile forced;
# $SANITIZE_CASES (a gtest filter) picks other cases, e.g. those of the forms a change moved;
# $out/TOOL-vtVTILE.log; prints each tool's summary line.
sanitize() {
  local vt=$1 tool
  shift
  for tool in ${@:-memcheck racecheck synccheck}; do
    KDA_LIBRARY=${LIB:-$bin/libkda.so} KDA_STATE_VTILE=$vt timeout 120 compute-sanitizer --tool $tool $bin/gpu_bwd_tests \
      --gtest_filter="${SANITIZE_CASES:-*m2_all_heads/g_off_saved_normal:*m2_all_heads/raw_fused_replay_fast}" \
      > "$out/$tool-vt$vt.log" 2>&1
    echo "$tool vt$vt (m2 bwd, saved and replay) exit $?: $(tail -1 "$out/$tool-vt$vt.log")"
  done
}

# ab NAME LIB BEFORE LIMIT ROWS OPS [OPTION...]: `kda-bench --before BEFORE --library LIB --stages`
# (interleaved A/B, stage times too) on ROWS and OPS within LIMIT seconds, with any further
# kda-bench options (e.g. --samples 25); $out/ab-NAME.{log,json} (and .before.json); prints the
# exit code and the table's rows, but the near-zero stages of a path that skips them, and only
# those matching $AB_SHOW (an extended regex) if set.
ab() {
  local name=$1 lib=$2 before=$3 limit=$4 rows=$5 ops=$6
  shift 6
  timeout "$limit" $bin/kda-bench --log-level warn --library "$lib" --before "$before" --rows "$rows" --ops "$ops" \
    --stages "$@" --out "$out/ab-$name.json" > "$out/ab-$name.log" 2>&1
  echo "A/B $name exit $?"
  grep -E "^\| [0-9A-Za-z]+:" "$out/ab-$name.log" | grep -v "0\.000" | grep -E "${AB_SHOW:-.}"
}

# seed_check NAME SEED: the FP64 check of $LIB on fresh inputs (seed SEED) for every key of R2 and
# m2, fwd and bwd, with a repeat check, no timing; $out/check-NAME-seedSEED.{log,json}; prints the
# counts of failing and non-repeating entries.
seed_check() {
  local name=$1 seed=$2 log="$out/check-$1-seed$2"
  timeout 100 $bin/kda-bench --log-level warn --library "$LIB" --rows 'R2:*:*:*,m2:*:*:*' --ops fwd,bwd \
    --check --seed "$seed" --repeat-check 2 --no-timing --out "$log.json" > "$log.log" 2>&1
  echo "FP64 check $name seed $seed exit $?: $(grep -c FAIL "$log.log") FAIL, $(grep -c DIFFERENT "$log.log") DIFFERENT"
}

# timeline KEY OP...: a timeline build ($TL, default the carried libkda-tl.so: -DKDA_TIMELINE=ON,
# docs/timeline.md) runs row key KEY for each op OP (3 samples of 5 calls); the last call's blocks
# land in $out/tl-KEY-OP-0.csv (':' and '+' as '-'); prints the exit code and the file count.
timeline() {
  local key=$1 op name
  shift
  for op in "$@"; do
    name=$(echo "$key" | tr ':' '-')-${op/+/-}
    KDA_TIMELINE_OUT=$out/tl-$name timeout 40 $bin/kda-bench --log-level warn --library "${TL:-$bin/libkda-tl.so}" \
      --rows "$key" --ops "$op" --samples 3 --calls 5 --out "$out/tl-$name.json" > "$out/tl-$name.log" 2>&1
    echo "timeline $name exit $?: $(ls "$out"/tl-$name-*.csv 2>/dev/null | wc -l) file(s)"
  done
}

# call_begin NAME: a call script's first steps: the xz-packed libraries unpacked into $bin, the
# card's line and a first log archive in $out (pack_logs NAME), and $top set to $out, under which
# the script's steps may point $out at folders of their own.
call_begin() {
  unpack_xz
  pack_logs "$1"
  top=$out
}

# tl_waves [KERNEL...]: for each timeline file in $out (tl-*-0.csv), its per-kernel summary and,
# for each KERNEL, the first waves of its blocks with the marks' spans (timeline_summary.py --waves).
tl_waves() {
  local f k
  for f in "$out"/tl-*-0.csv; do
    echo "== $(basename "$f")"
    python3 scripts/timeline_summary.py "$f" | sed -n 2,9p
    for k in "$@"; do python3 scripts/timeline_summary.py "$f" --waves "$k" | tail -n +3 | head -8; done
  done
}

# check_build NAME [VT...]: the checks of a kernel change before it is timed, for $LIB against
# $HEAD: same_bits on every key of m2, R2 and ragged (the rows' own V tile, then ragged with each
# V tile VT forced), and both GPU test binaries.
check_build() {
  local name=$1 vt
  shift
  same_bits own "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*'
  for vt in "$@"; do same_bits "vt$vt" "$vt" 'ragged:*:*:*'; done
  gpu_tests "$name" "$LIB"
}

# unpack_xz: the carried libraries packed with xz to stay under the carry limit (.carry/xz/NAME.xz)
# into $bin/NAME (python3's lzma: the device image need not have xz).
unpack_xz() {
  local f
  for f in .carry/xz/*.xz; do
    [ -e "$f" ] || continue # none carried
    python3 -c "import lzma, sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())" "$f" > "$bin/$(basename "$f" .xz)"
  done
}
