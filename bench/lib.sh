# lib.sh - helpers of the bench scripts; sourced, never run.

# secs CMD...: run CMD after a sync, print its wall time in seconds
secs() {
    local t0 t1
    sync
    t0=$(date +%s.%N)
    "$@"
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc
}
