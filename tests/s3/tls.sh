#!/bin/bash
# https: an S3 endpoint behind TLS with a CA of its own (a self-signed
# certificate for 127.0.0.1, tests/s3/tls_proxy.py in front of the
# gateway): trusted through AWS_CA_BUNDLE, or ca_bundle in
# ~/.aws/config, the output reads as on disk; not trusted, it fails at
# once, saying what to set; a public object by its https:// URL, with
# AWS_CA_BUNDLE alone.
. "$TESTS/cli/lib.sh"
. "$TESTS/s3/lib.sh"
require_backend wds
s3_output 20 2
s3 sync --no-preserve --acl-public "$T/out/" "s3://$BUCKET/pub/" >/dev/null
"$BALE" ls "$T/out/data-shards.json" > "$T/ls.local"

openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
    -addext subjectAltName=IP:127.0.0.1 -keyout "$T/key.pem" \
    -out "$T/cert.pem" 2>/dev/null || fail "openssl could not make a certificate"
"$PY" "$TESTS/s3/tls_proxy.py" "${S3_HOST##*:}" "$T/cert.pem" "$T/key.pem" \
    > "$T/port" &
tls=$!
trap 'kill $tls 2>/dev/null; s3 rb --recursive --force "s3://$BUCKET" \
    >/dev/null 2>&1; rm -rf "$T"' EXIT
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
export AWS_ENDPOINT_URL="https://127.0.0.1:$(cat "$T/port")"

# trusted through AWS_CA_BUNDLE: as on disk
run env AWS_CA_BUNDLE="$T/cert.pem" "$BALE" ls "$url"
expect_status 0
cmp -s "$T/ls.local" "$T/stdout" || fail "ls over https differs"
run env AWS_CA_BUNDLE="$T/cert.pem" "$BALE" verify "$url"
expect_status 0

# not trusted: refused at once, saying what to set
start=$(date +%s)
run "$BALE" verify "$url"
[ "$status" -ne 0 ] || fail "an untrusted certificate was accepted"
expect_stderr "AWS_CA_BUNDLE"
expect_stderr "in 1 try"
[ $(($(date +%s) - start)) -lt 5 ] || fail "an untrusted peer was retried"

# trusted through ~/.aws/config
mkdir -p "$HOME/.aws"
printf '[default]\nca_bundle = %s\n' "$T/cert.pem" > "$HOME/.aws/config"
run "$BALE" verify "$url"
expect_status 0
rm "$HOME/.aws/config"

# a public output by its https:// URL, no credentials, the CA from
# AWS_CA_BUNDLE
run env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY AWS_CA_BUNDLE="$T/cert.pem" \
    "$BALE" ls "$AWS_ENDPOINT_URL/$BUCKET/pub/data-shards.json"
expect_status 0
cmp -s "$T/ls.local" "$T/stdout" || fail "ls of the https:// URL differs"
echo ok
