/* aws_config.c - where S3 requests get their credentials, region and
 * endpoint: the order awscli and boto3 follow, so that a user's setup
 * for them works unchanged. The environment first, then the profile in
 * ~/.aws/credentials, then in ~/.aws/config (where a profile's section
 * is "[profile NAME]", but "[default]"). */
#include "aws_config.h"

#include "bale_backend_util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for the two files: one section of each is read. */
struct aws_files {
	char *credentials;
	char *config;
	char config_section[160];
};

static const char *aws_env(const char *name)
{
	const char *v = getenv(name);

	return v && v[0] ? v : NULL;
}

static void aws_copy(char *to, size_t cap, const char *from)
{
	snprintf(to, cap, "%s", from ? from : "");
}

/* @line, @n bytes, less the blanks at both ends. */
static const char *aws_trim(const char *line, size_t *n)
{
	while (*n && isspace((unsigned char)*line)) {
		line++;
		(*n)--;
	}
	while (*n && isspace((unsigned char)line[*n - 1]))
		(*n)--;
	return line;
}

/* Is the trimmed @line "[@section]"? */
static int aws_ini_is_section(const char *line, size_t n,
    const char *section)
{
	size_t k = strlen(section);

	return n == k + 2 && line[0] == '[' && line[n - 1] == ']' &&
	    memcmp(line + 1, section, k) == 0;
}

/* "key = value" (@line, @n bytes, trimmed): 1 when its key is @key
 * (with @nest + "." before it, inside a nested block), the value in
 * @out. */
static int aws_ini_pair(const char *line, size_t n, const char *nest,
    const char *key, char *out, size_t cap)
{
	const char *eq = memchr(line, '=', n);
	size_t kn, vn, pre = nest[0] ? strlen(nest) : 0;
	const char *k, *v;

	if (!eq)
		return 0;
	kn = (size_t)(eq - line);
	k = aws_trim(line, &kn);
	vn = n - (size_t)(eq + 1 - line);
	v = aws_trim(eq + 1, &vn);
	if (pre && (strncmp(key, nest, pre) != 0 || key[pre] != '.'))
		return 0;
	if (kn != strlen(key + (pre ? pre + 1 : 0)) ||
	    memcmp(k, key + (pre ? pre + 1 : 0), kn) != 0)
		return 0;
	snprintf(out, cap, "%.*s", (int)vn, v);
	return 1;
}

/* A line "key =" with nothing after it opens a nested block: its key
 * in @nest. */
static void aws_ini_nest(const char *line, size_t n, char *nest,
    size_t cap)
{
	const char *eq = memchr(line, '=', n);
	size_t kn = eq ? (size_t)(eq - line) : 0;
	size_t vn = eq ? n - kn - 1 : 0;
	const char *k = aws_trim(line, &kn);

	aws_trim(eq ? eq + 1 : line, &vn);
	if (eq && vn == 0 && kn < cap)
		snprintf(nest, cap, "%.*s", (int)kn, k);
	else
		nest[0] = '\0';
}

int bale_aws_ini_get(const char *text, const char *section,
    const char *key, char *out, size_t cap)
{
	const char *p = text;
	char nest[64] = "";
	int inside = 0;

	while (p && *p) {
		size_t n = strcspn(p, "\r\n");
		int indented = n && (p[0] == ' ' || p[0] == '\t');
		size_t tn = n;
		const char *t = aws_trim(p, &tn);

		if (tn && (t[0] == '#' || t[0] == ';'))
			;	/* a comment */
		else if (tn && t[0] == '[')
			inside = aws_ini_is_section(t, tn, section);
		else if (inside && tn && !indented)
			aws_ini_nest(t, tn, nest, sizeof(nest));
		if (inside && tn && t[0] != '[' && t[0] != '#' &&
		    t[0] != ';' && aws_ini_pair(t, tn, indented ? nest : "",
		    key, out, cap))
			return 1;
		if (!indented && tn && t[0] == '[')
			nest[0] = '\0';
		p += n;
		p += strspn(p, "\r\n");
	}
	return 0;
}

/* @env's path, else ~/.aws/@name, read whole (NULL: none). */
static char *aws_file(const char *env, const char *name)
{
	const char *home = aws_env("HOME");
	const char *path = aws_env(env);
	char *own = NULL;
	char *text;
	size_t n;

	if (!path && home)
		path = own = bale_strfmt("%s/.aws/%s", home, name);
	text = path ? bale_file_read_all(path, &n) : NULL;
	free(own);
	return text;
}

/* @key from the profile's section: the credentials file, then the
 * config file. */
static int aws_profile_get(const struct aws_files *f, const char *profile,
    const char *key, char *out, size_t cap)
{
	if (f->credentials &&
	    bale_aws_ini_get(f->credentials, profile, key, out, cap))
		return 1;
	return f->config &&
	    bale_aws_ini_get(f->config, f->config_section, key, out, cap);
}

/* Does INI @text have a section "[@section]"? */
static int aws_ini_has(const char *text, const char *section)
{
	const char *p = text;

	while (p && *p) {
		size_t n = strcspn(p, "\r\n");
		size_t tn = n;
		const char *t = aws_trim(p, &tn);

		if (aws_ini_is_section(t, tn, section))
			return 1;
		p += n;
		p += strspn(p, "\r\n");
	}
	return 0;
}

static int aws_has_section(const struct aws_files *f, const char *profile)
{
	return (f->credentials && aws_ini_has(f->credentials, profile)) ||
	    (f->config && aws_ini_has(f->config, f->config_section));
}

static void aws_credentials(struct bale_aws *a, const struct aws_files *f)
{
	if (aws_env("AWS_ACCESS_KEY_ID") && aws_env("AWS_SECRET_ACCESS_KEY")) {
		aws_copy(a->key_id, sizeof(a->key_id),
		    aws_env("AWS_ACCESS_KEY_ID"));
		aws_copy(a->secret, sizeof(a->secret),
		    aws_env("AWS_SECRET_ACCESS_KEY"));
		aws_copy(a->token, sizeof(a->token),
		    aws_env("AWS_SESSION_TOKEN"));
		aws_copy(a->source, sizeof(a->source), "the environment");
		return;
	}
	if (aws_profile_get(f, a->profile, "aws_access_key_id", a->key_id,
	    sizeof(a->key_id)) &&
	    aws_profile_get(f, a->profile, "aws_secret_access_key",
	    a->secret, sizeof(a->secret))) {
		aws_profile_get(f, a->profile, "aws_session_token", a->token,
		    sizeof(a->token));
		snprintf(a->source, sizeof(a->source), "profile '%.40s'",
		    a->profile);
		return;
	}
	a->key_id[0] = a->secret[0] = a->token[0] = '\0';
}

static void aws_region_endpoint(struct bale_aws *a,
    const struct aws_files *f)
{
	const char *region = aws_env("AWS_REGION");
	const char *endpoint = aws_env("AWS_ENDPOINT_URL_S3");
	char style[16] = "";
	size_t n;

	if (!region)
		region = aws_env("AWS_DEFAULT_REGION");
	aws_copy(a->region, sizeof(a->region), region);
	if (!region && !aws_profile_get(f, a->profile, "region", a->region,
	    sizeof(a->region)))
		aws_copy(a->region, sizeof(a->region), "us-east-1");
	if (!endpoint)
		endpoint = aws_env("AWS_ENDPOINT_URL");
	aws_copy(a->endpoint, sizeof(a->endpoint), endpoint);
	if (!endpoint && !aws_profile_get(f, a->profile, "s3.endpoint_url",
	    a->endpoint, sizeof(a->endpoint)))
		aws_profile_get(f, a->profile, "endpoint_url", a->endpoint,
		    sizeof(a->endpoint));
	n = strlen(a->endpoint);
	while (n && a->endpoint[n - 1] == '/')
		a->endpoint[--n] = '\0';
	aws_copy(a->ca_bundle, sizeof(a->ca_bundle), aws_env("AWS_CA_BUNDLE"));
	if (!a->ca_bundle[0])
		aws_profile_get(f, a->profile, "ca_bundle", a->ca_bundle,
		    sizeof(a->ca_bundle));
	/* botocore's "auto": a custom endpoint (MinIO, Ceph) is addressed
	 * by path, AWS by host name; the profile's s3.addressing_style
	 * says otherwise */
	a->path_style = a->endpoint[0] != '\0';
	if (aws_profile_get(f, a->profile, "s3.addressing_style", style,
	    sizeof(style)))
		a->path_style = strcmp(style, "virtual") != 0 &&
		    (strcmp(style, "path") == 0 || a->path_style);
}

int bale_aws_resolve(struct bale_aws *a, struct bale_errbuf *err)
{
	struct aws_files f;
	int named = aws_env("AWS_PROFILE") != NULL;
	int rc = BALE_OK;

	memset(a, 0, sizeof(*a));
	aws_copy(a->profile, sizeof(a->profile),
	    named ? aws_env("AWS_PROFILE") : "default");
	f.credentials = aws_file("AWS_SHARED_CREDENTIALS_FILE",
	    "credentials");
	f.config = aws_file("AWS_CONFIG_FILE", "config");
	snprintf(f.config_section, sizeof(f.config_section), "%s%s",
	    strcmp(a->profile, "default") == 0 ? "" : "profile ",
	    a->profile);
	if (named && !aws_has_section(&f, a->profile))
		rc = bale_errbuf_set(err, BALE_EINVAL, "AWS profile '%s' "
		    "is in neither ~/.aws/credentials nor ~/.aws/config",
		    a->profile);
	if (rc == BALE_OK && aws_env("AWS_ACCESS_KEY_ID") &&
	    !aws_env("AWS_SECRET_ACCESS_KEY"))
		rc = bale_errbuf_set(err, BALE_EINVAL, "AWS_ACCESS_KEY_ID is "
		    "set but AWS_SECRET_ACCESS_KEY is not");
	if (rc == BALE_OK) {
		aws_credentials(a, &f);
		aws_region_endpoint(a, &f);
	}
	free(f.credentials);
	free(f.config);
	return rc;
}
