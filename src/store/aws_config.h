/* aws_config.h - the credentials, region and endpoint an S3 request
 * goes with, found as awscli and boto3 find them (aws_config.c). */
#ifndef BALE_AWS_CONFIG_H
#define BALE_AWS_CONFIG_H

#include "bale.h"

#define AWS_TEXT_MAX 1024

struct bale_aws {
	char profile[128];
	char key_id[128];	/* "": none found, requests go unsigned */
	char secret[128];
	char token[AWS_TEXT_MAX];	/* session token, or "" */
	char region[64];
	char endpoint[AWS_TEXT_MAX];	/* scheme://host[:port], no '/' at
					 * the end; "" for AWS itself */
	char ca_bundle[AWS_TEXT_MAX];	/* "" for the system's CAs */
	int path_style;		/* bucket in the path, not the host name */
	char source[64];	/* where the credentials came from */
};

/** Resolve from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 *  AWS_SESSION_TOKEN, AWS_PROFILE, AWS_REGION, AWS_DEFAULT_REGION,
 *  AWS_ENDPOINT_URL[_S3], AWS_CA_BUNDLE, AWS_SHARED_CREDENTIALS_FILE,
 *  AWS_CONFIG_FILE), then the profile's sections of ~/.aws/credentials
 *  and ~/.aws/config. @return BALE_OK, or BALE_EINVAL with @err set (a
 *  named profile that is nowhere, a key id without its secret) */
int bale_aws_resolve(struct bale_aws *a, struct bale_errbuf *err);

/** The value of @key in section @section of INI text @text (awscli's
 *  files: "[name]", "key = value", a nested block after "key =" of
 *  indented lines, read as "key.sub"), into @out (@cap bytes).
 *  @return 1 when found */
int bale_aws_ini_get(const char *text, const char *section,
    const char *key, char *out, size_t cap);

#endif
