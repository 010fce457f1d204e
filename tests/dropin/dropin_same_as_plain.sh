#!/usr/bin/env bash
# dropin_same_as_plain.sh LIMIT PRELOAD PLAIN_MAY_FAIL COMMAND...: runs an MPI
# launch once plainly and once with PRELOAD in LD_PRELOAD, each within LIMIT
# seconds, and passes when both end by themselves and print the same "rank R
# call C class K" lines (the error class of every call on every rank), in
# any order. PLAIN_MAY_FAIL names the MPI whose plain run may not end by
# itself (Open MPI 4.1 hangs on a truncation on one rank of three, and
# crashes on NULL receive buffers); there is nothing to compare then: it
# says so, and the test is skipped. "no": a plain run that fails fails the
# test.
limit=$1 preload=$2 plain_may_fail=$3
shift 3
plain=$(mktemp) preloaded=$(mktemp)
trap 'rm -f "$plain" "$preloaded"' EXIT
run() {  # run OUTPUT [LD_PRELOAD value]
  local out=$1 what=${2:+preloaded}
  what=${what:-plain}
  shift
  env ${1:+LD_PRELOAD=$1} timeout -k 5 "$limit" "${command[@]}" >"$out.all" 2>&1
  local rc=$?
  cat "$out.all"
  # -o: the launcher may join two ranks' lines into one
  grep -oE 'rank [0-9]+ call [0-9]+ class [0-9]+' "$out.all" | sort >"$out"
  rm -f "$out.all"
  local failure=""
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then failure="HANG after ${limit}s"
  elif [ "$rc" -ne 0 ]; then failure="exit code $rc"; fi
  [ -z "$failure" ] && return
  if [ "$what" = plain ] && [ "$plain_may_fail" != no ]; then
    echo "dropin_same_as_plain: plain $plain_may_fail does not end by itself here ($failure): nothing to compare"
    exit 0
  fi
  if [ "$what" = plain ]; then
    echo "dropin_same_as_plain: plain MPI failed ($failure)"
    exit 1
  fi
  echo "dropin_same_as_plain: $failure"
  exit 1
}
command=("$@")
run "$plain" ""
run "$preloaded" "$preload"
[ -s "$plain" ] || { echo "dropin_same_as_plain: the plain run printed no call"; exit 1; }
if ! diff "$plain" "$preloaded"; then echo "dropin_same_as_plain: DIFFERENT error classes"; exit 1; fi
echo "dropin_same_as_plain: same as plain MPI ($(wc -l <"$plain") calls)"
