#!/bin/bash
# gateway.sh - a real S3 server for the tests: a Ceph cluster of one
# machine (a monitor, an OSD keeping objects in memory, a RADOS Gateway
# on 127.0.0.1), from Debian's ceph-mon, ceph-osd, ceph-common and
# radosgw. It checks SigV4 signatures and serves ranged GETs, listings
# and multipart uploads as Ceph does in production.
#
#   gateway.sh up DIR [PORT]   start it (about 15 s); prints the
#                              environment that reaches it
#   gateway.sh down DIR        stop what was started in DIR
#   gateway.sh stop-rgw DIR    stop the gateway alone (the cluster stays)
#   gateway.sh start-rgw DIR   start it again
#
# scripts/test starts one for the whole suite and exports BALE_TEST_S3
# (tests/s3/lib.sh reads it). Keys: AKTEST / SKTEST, region us-east-1.
set -eu
cmd=${1:-}
dir=${2:-}
port=${3:-7480}
[ -n "$cmd" ] && [ -n "$dir" ] || { sed -n '2,16p' "$0" >&2; exit 2; }
dir=$(realpath -m "$dir")

# stop the daemons whose pid files @1 names, waiting for each to go
stop_pids() {
    local f pid
    for f in "$@"; do
        [ -f "$f" ] || continue
        pid=$(cat "$f")
        kill "$pid" 2>/dev/null || continue
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    done
}

rgw_start() {
    radosgw -c "$dir/ceph.conf" -n client.rgw --keyring "$dir/rgw.keyring"
    for _ in $(seq 200); do
        curl -s -o /dev/null "http://127.0.0.1:$(cat "$dir/port")/" && return 0
        sleep 0.1
    done
    echo "gateway.sh: the gateway did not answer (see $dir/log)" >&2
    return 1
}

# the cluster's configuration: one of everything, nothing replicated,
# objects in memory; the gateway answers without Nagle's delay (beast's
# default waits for an ACK between headers and body: 40 ms a request)
write_conf() {
    cat > "$dir/ceph.conf" <<CONF
[global]
fsid = $1
mon host = 127.0.0.1:$((port + 1000))
mon initial members = a
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
keyring = $dir/admin.keyring
log file = $dir/log/\$name.log
admin socket = $dir/run/\$name.asok
run dir = $dir/run
pid file = $dir/run/\$name.pid
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
mon warn on pool no redundancy = false
osd objectstore = memstore
memstore device bytes = ${MEMSTORE_BYTES:-3221225472}
osd data = $dir/osd
mon data = $dir/mon
osd crush chooseleaf type = 0
ms bind ipv6 = false
public addr = 127.0.0.1
[client.rgw]
rgw frontends = beast endpoint=127.0.0.1:$port tcp_nodelay=1
rgw data = $dir/rgw
rgw dns name = localhost
# what deleted and overwritten objects held goes within seconds, not
# hours: the store is memory (a benchmark rewrites gigabytes)
rgw gc obj min wait = 0
rgw gc processor period = 5
CONF
}

up() {
    local conf=(-c "$dir/ceph.conf") id fsid
    fsid=$(uuidgen)
    rm -rf "$dir"
    mkdir -p "$dir/mon" "$dir/osd" "$dir/rgw" "$dir/log" "$dir/run"
    echo "$port" > "$dir/port"
    write_conf "$fsid"
    ceph-authtool --create-keyring "$dir/admin.keyring" --gen-key -n mon. \
        --cap mon 'allow *' >/dev/null
    ceph-authtool "$dir/admin.keyring" --gen-key -n client.admin \
        --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' >/dev/null
    monmaptool --create --add a "127.0.0.1:$((port + 1000))" --fsid "$fsid" \
        "$dir/monmap" >/dev/null
    ceph-mon "${conf[@]}" --mkfs -i a --monmap "$dir/monmap" \
        --keyring "$dir/admin.keyring"
    ceph-mon "${conf[@]}" -i a
    id=$(ceph "${conf[@]}" osd create)
    ceph "${conf[@]}" auth get-or-create "osd.$id" mon 'allow profile osd' \
        osd 'allow *' mgr 'allow profile osd' -o "$dir/osd/keyring"
    ceph-osd "${conf[@]}" -i "$id" --mkfs --osd-data "$dir/osd" \
        --keyring "$dir/osd/keyring" 2>/dev/null
    ceph-osd "${conf[@]}" -i "$id" --osd-data "$dir/osd" \
        --keyring "$dir/osd/keyring" 2>/dev/null
    ceph "${conf[@]}" osd crush add "osd.$id" 1.0 host=localhost \
        root=default >/dev/null 2>&1 || true
    ceph "${conf[@]}" auth get-or-create client.rgw mon 'allow rw' \
        osd 'allow rwx' -o "$dir/rgw.keyring"
    rgw_start
    radosgw-admin "${conf[@]}" user create --uid=test --display-name=test \
        --access-key=AKTEST --secret=SKTEST >/dev/null
    echo "http://127.0.0.1:$port"
}

case $cmd in
up) stop_pids "$dir"/run/*.pid 2>/dev/null; up ;;
down) stop_pids "$dir"/run/*.pid ;;
stop-rgw) stop_pids "$dir"/run/client.rgw.pid ;;
start-rgw) rgw_start ;;
*) echo "usage: gateway.sh up|down|stop-rgw|start-rgw DIR [PORT]" >&2; exit 2 ;;
esac
