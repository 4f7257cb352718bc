#!/bin/bash
# What a user sees when S3 says no: credentials refused (the endpoint,
# bucket and key id named, never the secret, and at once: no retrying),
# a missing bucket, object or prefix, an unsigned request to a private
# bucket; and the credentials found as awscli finds them: a profile in
# ~/.aws/credentials, an endpoint in ~/.aws/config, a profile that is
# nowhere.
. "$TESTS/cli/lib.sh"
. "$TESTS/s3/lib.sh"
require_backend wds
s3_output 20 2

# a wrong secret: refused at once, the key id named, the secret not
start=$(date +%s)
run env AWS_SECRET_ACCESS_KEY=NotTheSecret42 "$BALE" verify "$url"
[ "$status" -ne 0 ] || fail "a wrong secret was accepted"
expect_stderr "refused key id AKTEST"
expect_stderr "SignatureDoesNotMatch"
expect_stderr "$S3_HOST"
expect_stderr "$BUCKET"
expect_no_stderr "NotTheSecret42"
[ $(($(date +%s) - start)) -lt 5 ] || fail "an auth failure was retried"
run env AWS_ACCESS_KEY_ID=AKNOBODY "$BALE" info "$url"
[ "$status" -ne 0 ] || fail "an unknown key id was accepted"
expect_stderr "refused key id AKNOBODY"
expect_stderr "InvalidAccessKeyId"

# missing things say which
run "$BALE" info "s3://no-such-bucket-$$/out/data-shards.json"
[ "$status" -ne 0 ] || fail "a missing bucket read"
expect_stderr "no such bucket"
run "$BALE" info "s3://$BUCKET/nothing-here/"
[ "$status" -ne 0 ] || fail "a missing prefix read"
expect_stderr "no such object or prefix"
s3 del "s3://$BUCKET/out/data-000000.idx" >/dev/null
s3 del "s3://$BUCKET/out/data-000000.bidx" >/dev/null
run "$BALE" verify "$url"
[ "$status" -ne 0 ] || fail "a shard without its index verified"
expect_stderr "data-000000.idx"
expect_stderr "no such object"
upload "$T/out" "s3://$BUCKET/out"
run "$BALE" info "s3://xy/out/"
[ "$status" -ne 0 ] || fail "a bucket name of two characters"
expect_stderr "3 to 63 characters"

# no credentials at all: an unsigned request, refused, said so
run env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY "$BALE" info "$url"
[ "$status" -ne 0 ] || fail "a private bucket read without credentials"
expect_stderr "no AWS credentials were found"

# awscli's files: a profile's keys, its endpoint in the config file
mkdir -p "$HOME/.aws"
printf '[default]\naws_access_key_id = WRONG\naws_secret_access_key = W\n[lab]\naws_access_key_id = AKTEST\naws_secret_access_key = SKTEST\n' \
    > "$HOME/.aws/credentials"
printf '[profile lab]\nregion = us-east-1\nendpoint_url = %s\n' \
    "$BALE_TEST_S3" > "$HOME/.aws/config"
run env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_ENDPOINT_URL \
    AWS_PROFILE=lab "$BALE" verify "$url"
expect_status 0
run env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY "$BALE" info "$url"
[ "$status" -ne 0 ] || fail "the default profile's wrong key was accepted"
expect_stderr "refused key id WRONG (from profile 'default')"
run env AWS_PROFILE=nowhere "$BALE" info "$url"
[ "$status" -ne 0 ] || fail "a profile that is nowhere"
expect_stderr "AWS profile 'nowhere'"
echo ok
