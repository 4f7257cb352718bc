#!/bin/bash
# A network filesystem on one machine: sshd on 127.0.0.1 and sshfs, with
# keys made on the spot (openssh-server and sshfs from Debian).
#
#   bench/sshfs_loopback.sh up DIR MNT    serve DIR, mount it at MNT
#   bench/sshfs_loopback.sh down MNT      unmount, stop that sshd
#
# State (keys, sshd config and pid) lives in MNT.state/. The mount has
# sshfs's defaults plus SSHFS_OPTIONS (e.g. auto_cache) when set.
set -eu
cmd=$1
case $cmd in
up)
    dir=$(realpath "$2") mnt=$3
    state=$(realpath -m "$mnt.state")
    port=${SSHFS_PORT:-2222}
    mkdir -p "$mnt" "$state"
    chmod 700 "$state"
    ssh-keygen -q -t ed25519 -N '' -f "$state/host" <<<y >/dev/null
    ssh-keygen -q -t ed25519 -N '' -f "$state/user" <<<y >/dev/null
    cp "$state/user.pub" "$state/authorized_keys"
    cat >"$state/sshd_config" <<EOF
ListenAddress 127.0.0.1
Port $port
HostKey $state/host
AuthorizedKeysFile $state/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
StrictModes no
PidFile $state/sshd.pid
Subsystem sftp internal-sftp
EOF
    mkdir -p /run/sshd
    /usr/sbin/sshd -f "$state/sshd_config"
    for _ in $(seq 50); do [ -s "$state/sshd.pid" ] && break; sleep 0.1; done
    sshfs -p "$port" -o IdentityFile="$state/user" \
        -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
        -o LogLevel=ERROR ${SSHFS_OPTIONS:+-o "$SSHFS_OPTIONS"} \
        "$(id -un)@127.0.0.1:$dir" "$mnt"
    ;;
down)
    mnt=$2
    state=$(realpath -m "$mnt.state")
    fusermount -u "$mnt" 2>/dev/null || true
    [ -s "$state/sshd.pid" ] && kill "$(cat "$state/sshd.pid")" 2>/dev/null || true
    rm -rf "$state"
    ;;
*)
    echo "usage: $0 up DIR MNT | down MNT" >&2
    exit 2
    ;;
esac
