/* test_aws_config.c - credentials, region and endpoint found where
 * awscli and boto3 find them: the environment over the profile, the
 * credentials file over the config file, a named profile's sections, a
 * nested "s3 =" block; a profile that is nowhere is an error. */
#include "aws_config.h"
#include "bale_backend_util.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const aws_vars[] = {
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
	"AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL",
	"AWS_ENDPOINT_URL_S3", "AWS_CA_BUNDLE", "AWS_SHARED_CREDENTIALS_FILE",
	"AWS_CONFIG_FILE", NULL,
};

static char home[64];

static void clean_env(void)
{
	size_t i;

	for (i = 0; aws_vars[i]; i++)
		unsetenv(aws_vars[i]);
	setenv("HOME", home, 1);
}

static void put(const char *name, const char *text)
{
	char *path = bale_strfmt("%s/.aws/%s", home, name);

	CHECK(bale_file_write_atomic(path, text, strlen(text), 0) == 0);
	free(path);
}

static void test_ini(void)
{
	const char *text = "# comment\n[default]\nregion = eu-west-1\n"
	    "[profile p]\n  region=us-west-2 \ns3 =\n  addressing_style = "
	    "virtual\n  endpoint_url = http://e:1\nother = x\n";
	char v[64];

	CHECK(bale_aws_ini_get(text, "default", "region", v, sizeof(v)));
	CHECK_STR("eu-west-1", v);
	CHECK(bale_aws_ini_get(text, "profile p", "region", v, sizeof(v)));
	CHECK_STR("us-west-2", v);
	CHECK(bale_aws_ini_get(text, "profile p", "s3.addressing_style", v,
	    sizeof(v)));
	CHECK_STR("virtual", v);
	CHECK(bale_aws_ini_get(text, "profile p", "s3.endpoint_url", v,
	    sizeof(v)));
	CHECK_STR("http://e:1", v);
	CHECK(bale_aws_ini_get(text, "profile p", "other", v, sizeof(v)));
	CHECK_STR("x", v);
	/* a nested key is not the profile's own */
	CHECK(!bale_aws_ini_get(text, "profile p", "endpoint_url", v,
	    sizeof(v)));
	CHECK(!bale_aws_ini_get(text, "default", "s3.endpoint_url", v,
	    sizeof(v)));
	CHECK(!bale_aws_ini_get(text, "p", "region", v, sizeof(v)));
}

static void test_env_first(void)
{
	struct bale_aws a;
	struct bale_errbuf err;

	clean_env();
	put("credentials", "[default]\naws_access_key_id = FILEKEY\n"
	    "aws_secret_access_key = FILESECRET\n");
	put("config", "[default]\nregion = eu-central-1\n");
	CHECK_EQ(BALE_OK, bale_aws_resolve(&a, &err));
	CHECK_STR("FILEKEY", a.key_id);
	CHECK_STR("FILESECRET", a.secret);
	CHECK_STR("eu-central-1", a.region);
	CHECK_STR("", a.endpoint);
	CHECK_EQ(0, a.path_style);	/* AWS: by host name */
	setenv("AWS_ACCESS_KEY_ID", "ENVKEY", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "ENVSECRET", 1);
	setenv("AWS_SESSION_TOKEN", "TOK", 1);
	setenv("AWS_DEFAULT_REGION", "ap-south-1", 1);
	setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:7480/", 1);
	CHECK_EQ(BALE_OK, bale_aws_resolve(&a, &err));
	CHECK_STR("ENVKEY", a.key_id);
	CHECK_STR("TOK", a.token);
	CHECK_STR("ap-south-1", a.region);
	CHECK_STR("http://127.0.0.1:7480", a.endpoint);
	CHECK_EQ(1, a.path_style);	/* a custom endpoint: by path */
	setenv("AWS_REGION", "us-east-2", 1);
	CHECK_EQ(BALE_OK, bale_aws_resolve(&a, &err));
	CHECK_STR("us-east-2", a.region);
	unsetenv("AWS_SECRET_ACCESS_KEY");
	CHECK_EQ(BALE_EINVAL, bale_aws_resolve(&a, &err));
	CHECK(strstr(err.msg, "AWS_SECRET_ACCESS_KEY") != NULL);
}

static void test_profiles(void)
{
	struct bale_aws a;
	struct bale_errbuf err;

	clean_env();
	put("credentials", "[default]\naws_access_key_id = D\n"
	    "aws_secret_access_key = DS\n[work]\naws_access_key_id = W\n"
	    "aws_secret_access_key = WS\n");
	put("config", "[profile work]\nregion = eu-north-1\nendpoint_url = "
	    "https://minio.example:9000\ns3 =\n  addressing_style = virtual\n"
	    "[profile cfgonly]\naws_access_key_id = C\n"
	    "aws_secret_access_key = CS\nca_bundle = /etc/ca.pem\n");
	setenv("AWS_PROFILE", "work", 1);
	CHECK_EQ(BALE_OK, bale_aws_resolve(&a, &err));
	CHECK_STR("W", a.key_id);
	CHECK_STR("eu-north-1", a.region);
	CHECK_STR("https://minio.example:9000", a.endpoint);
	CHECK_EQ(0, a.path_style);
	CHECK(strstr(a.source, "work") != NULL);
	setenv("AWS_PROFILE", "cfgonly", 1);
	CHECK_EQ(BALE_OK, bale_aws_resolve(&a, &err));
	CHECK_STR("C", a.key_id);
	CHECK_STR("us-east-1", a.region);	/* none set anywhere */
	CHECK_STR("/etc/ca.pem", a.ca_bundle);
	setenv("AWS_CA_BUNDLE", "/other.pem", 1);
	CHECK_EQ(BALE_OK, bale_aws_resolve(&a, &err));
	CHECK_STR("/other.pem", a.ca_bundle);
	setenv("AWS_PROFILE", "nowhere", 1);
	CHECK_EQ(BALE_EINVAL, bale_aws_resolve(&a, &err));
	CHECK(strstr(err.msg, "'nowhere'") != NULL);
	/* no credentials anywhere: requests go unsigned */
	clean_env();
	put("credentials", "");
	put("config", "");
	CHECK_EQ(BALE_OK, bale_aws_resolve(&a, &err));
	CHECK_STR("", a.key_id);
}

int main(void)
{
	char *aws;

	snprintf(home, sizeof(home), "/tmp/bale-aws-XXXXXX");
	if (!mkdtemp(home))
		return 1;
	aws = bale_strfmt("%s/.aws", home);
	CHECK(bale_file_mkdirs(aws) == 0);
	free(aws);
	test_ini();
	test_env_first();
	test_profiles();
	check_rmtree(home);
	return CHECK_DONE();
}
