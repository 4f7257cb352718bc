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

# rclone and a clock, for the object storage benches: rclone's remote
# "s3:" is the endpoint and keys of AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID
# and AWS_SECRET_ACCESS_KEY
s3_bench_setup() {
    export RCLONE_CONFIG_S3_TYPE=s3 RCLONE_CONFIG_S3_PROVIDER=Ceph \
        RCLONE_CONFIG_S3_ENDPOINT=$AWS_ENDPOINT_URL \
        RCLONE_CONFIG_S3_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID \
        RCLONE_CONFIG_S3_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY
}
# rclone 1.60 fails with LoadCustomCABundleError when AWS_CA_BUNDLE is set
rc() { env -u AWS_CA_BUNDLE rclone "$@"; }
now() { date +%s.%N; }
elapsed() { printf '%.3f' "$(echo "$1 - $2" | bc)"; }	# valid JSON
since() { elapsed "$(now)" "$1"; }
