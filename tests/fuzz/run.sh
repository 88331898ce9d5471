#!/bin/sh
# Runs texla's libFuzzer harnesses one after the other (make fuzz):
#   sh tests/fuzz/run.sh BUILD SECONDS NAME...
# Each starts from the seeds in tests/fuzz/corpus/NAME and its own growing corpus in
# BUILD/fuzz/corpus/NAME (kept between runs), with the dictionary tests/fuzz/NAME.dict, on one
# core (-jobs=1 is the default: other work shares the machine). Crashes, leaks, timeouts and
# failed checks are written to BUILD/fuzz/artifacts/ and end the run of that harness (inputs
# slower than 10 s are kept there too, as slow-unit-*, and only counted); the last line per
# harness gives executions, time and findings. Exit status 1 when any harness found something. Leaks inside the GL driver (Mesa) are not texla's: tests/lsan.supp.
B=${1:?build folder}; T=${2:-60}; shift 2
here=$(cd "$(dirname "$0")" && pwd)
export LSAN_OPTIONS="suppressions=$here/../lsan.supp:print_suppressions=0"
# big allocations fail (malloc returns NULL) instead of ending the run: the code must report
# them; 1 GiB is more than any input here needs
export ASAN_OPTIONS="allocator_may_return_null=1:max_allocation_size_mb=1024:detect_leaks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
status=0
for name in "$@"; do
    bin="$B/bin/fuzz-$name"
    corpus="$B/fuzz/corpus/$name"
    art="$B/fuzz/artifacts/$name-"
    mkdir -p "$corpus" "$B/fuzz/artifacts"
    dict=""; [ -f "$here/$name.dict" ] && dict="-dict=$here/$name.dict"
    case $name in
        mm)     opts="-max_len=4096 -timeout=10" ;;
        png)    opts="-max_len=65536 -timeout=10" ;;
        tune)   opts="-max_len=8192 -timeout=10" ;;
        script) opts="-max_len=2048 -timeout=30" ;;
        *)      opts="" ;;
    esac
    log="$B/fuzz/$name.log"
    echo "== fuzz-$name for ${T}s (log $log)"
    # crash-, leak-, timeout-, oom-: findings; slow-unit- (an input over 10 s) only a note
    found() { ls "$B/fuzz/artifacts" | grep -Ec "^$name-(crash|leak|timeout|oom)-" || true; }
    before=$(found)
    "$bin" $opts $dict -max_total_time="$T" -rss_limit_mb=2560 -malloc_limit_mb=2560 \
        -print_final_stats=1 -artifact_prefix="$art" "$corpus" "$here/corpus/$name" >"$log" 2>&1
    rc=$?
    after=$(found)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    secs=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    units=$(ls "$corpus" | wc -l)
    slow=$(grep -c "^Slowest unit" "$log" || true)
    echo "fuzz-$name: ${runs:-?} executions (${secs:-?}/s), corpus $units inputs, findings $((after - before)), slow inputs $slow, exit $rc"
    if [ "$rc" -ne 0 ] || [ "$after" -ne "$before" ]; then
        status=1
        grep -E "ERROR|SUMMARY|texla fuzz:|runtime error" "$log" | head -n 20
    fi
done
exit $status
