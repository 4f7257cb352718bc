/* test_cpus.c - the CPU count thread defaults follow: affinity, cgroup
 * v1 and v2 quotas (on the process's cgroup, a parent, or a container's
 * root), Slurm's allocation. */
#include "cpus.h"
#include "check.h"

#include <errno.h>
#include <sys/stat.h>

static char root[] = "/tmp/bale-cpus-XXXXXX";

/* Write @text to @rel below the scratch root, making its folders. */
static void put(const char *rel, const char *text)
{
	char path[4096];
	char *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		CHECK(mkdir(path, 0755) == 0 || errno == EEXIST);
		*p = '/';
	}
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The limit for a process in @cgroup_line, with @affinity CPUs. */
static long limit(const char *cgroup_line, long affinity, const char **why)
{
	struct bale_cpu_inputs in;
	char proc[4096];
	char sys[4096];

	put("proc-cgroup", cgroup_line);
	snprintf(proc, sizeof(proc), "%s/proc-cgroup", root);
	snprintf(sys, sizeof(sys), "%s/sys", root);
	memset(&in, 0, sizeof(in));
	in.affinity = affinity;
	in.online = 64;
	in.proc_cgroup = proc;
	in.cgroup_root = sys;
	return bale_cpus_limit(&in, why);
}

static void test_v2(void)
{
	const char *why;

	put("sys/cpu.max", "max 100000\n");
	put("sys/a/cpu.max", "250000 100000\n");	/* 2.5: rounds up */
	put("sys/a/b/cpu.max", "max 100000\n");
	CHECK_EQ(3, limit("0::/a/b\n", 8, &why));
	CHECK_STR("cgroup", why);
	CHECK_EQ(2, limit("0::/a/b\n", 2, &why));	/* affinity is less */
	CHECK_STR("affinity", why);
	CHECK_EQ(8, limit("0::/c\n", 8, &why));	/* no quota on the way */
	/* a container: its own path is not below the mount, the limit is
	 * on the mount's root */
	put("sys/cpu.max", "100000 100000\n");
	CHECK_EQ(1, limit("0::/docker/0123abc\n", 8, &why));
	CHECK_STR("cgroup", why);
}

static void test_v1(void)
{
	const char *why;

	put("sys/cpu,cpuacct/job/cpu.cfs_quota_us", "400000\n");
	put("sys/cpu,cpuacct/job/cpu.cfs_period_us", "100000\n");
	put("sys/cpu,cpuacct/job/t/cpu.cfs_quota_us", "-1\n");
	put("sys/cpu,cpuacct/job/t/cpu.cfs_period_us", "100000\n");
	CHECK_EQ(4, limit("5:memory:/job/t\n4:cpu,cpuacct:/job/t\n", 16,
	    &why));
	CHECK_STR("cgroup", why);
	/* cpuacct alone is not the cpu controller */
	CHECK_EQ(16, limit("4:cpuacct:/job/t\n", 16, &why));
	CHECK_STR("affinity", why);
}

static void test_slurm_and_fallbacks(void)
{
	struct bale_cpu_inputs in;
	const char *why;

	memset(&in, 0, sizeof(in));
	in.affinity = 0;	/* unknown: the machine's */
	in.online = 12;
	CHECK_EQ(12, bale_cpus_limit(&in, &why));
	CHECK_STR("online", why);
	in.affinity = 8;
	in.slurm_cpus_on_node = "6";
	CHECK_EQ(6, bale_cpus_limit(&in, &why));
	CHECK_STR("slurm", why);
	in.slurm_cpus_per_task = "2";	/* the task's share, first */
	CHECK_EQ(2, bale_cpus_limit(&in, &why));
	in.slurm_cpus_per_task = "two";	/* not a count: ignored */
	in.slurm_cpus_on_node = "";
	CHECK_EQ(8, bale_cpus_limit(&in, &why));
	in.proc_cgroup = "/nonexistent/cgroup";
	in.cgroup_root = "/nonexistent";
	CHECK_EQ(8, bale_cpus_limit(&in, &why));
	in.affinity = 0;
	in.online = -1;		/* sysconf failed: still one */
	CHECK_EQ(1, bale_cpus_limit(&in, NULL));
	CHECK(bale_cpus_usable(&why) >= 1);
}

int main(void)
{
	CHECK(mkdtemp(root) != NULL);
	test_v2();
	test_v1();
	test_slurm_and_fallbacks();
	check_rmtree(root);
	return CHECK_DONE();
}
