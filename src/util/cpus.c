/* cpus.c - the CPUs this process may keep busy (see cpus.h). */
#include "cpus.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A positive decimal count, or 0 (unset, empty, garbage). */
static long cpus_count(const char *s)
{
	char *end;
	long n;

	if (!s || !*s)
		return 0;
	errno = 0;
	n = strtol(s, &end, 10);
	return errno == 0 && end != s && *end == '\0' && n > 0 ? n : 0;
}

/* The number in file @dir/@name, or -1. */
static long long cpus_read_number(const char *dir, const char *name)
{
	char path[PATH_MAX];
	long long v = -1;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path) || !(f = fopen(path, "r")))
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* v2's cpu.max: "QUOTA PERIOD", or "max PERIOD" for none. */
static void cpus_read_max(const char *dir, long long *quota,
    long long *period)
{
	char path[PATH_MAX];
	char word[32];
	FILE *f;

	*quota = *period = -1;
	if (snprintf(path, sizeof(path), "%s/cpu.max", dir) >=
	    (int)sizeof(path) || !(f = fopen(path, "r")))
		return;
	if (fscanf(f, "%31s %lld", word, period) == 2 &&
	    strcmp(word, "max") != 0)
		*quota = strtoll(word, NULL, 10);
	fclose(f);
}

/* The quota set on cgroup folder @dir, in CPUs rounded up; 0: none. */
static long cpus_quota_at(const char *dir, int v2)
{
	long long quota, period;

	if (v2) {
		cpus_read_max(dir, &quota, &period);
	} else {
		quota = cpus_read_number(dir, "cpu.cfs_quota_us");
		period = cpus_read_number(dir, "cpu.cfs_period_us");
	}
	if (quota <= 0 || period <= 0)
		return 0;
	return (long)((quota + period - 1) / period);
}

static long cpus_min(long a, long b)
{
	return a == 0 ? b : b == 0 ? a : a < b ? a : b;
}

/* The least quota on cgroup @sub below @root or on any folder above it
 * up to @root (a limit set on a parent binds its children; inside a
 * container the process's own path may not exist below the mount, and
 * the container's limit is on the mount's root). */
static long cpus_quota_up(const char *root, const char *sub, int v2)
{
	size_t rootlen = strlen(root);
	char dir[PATH_MAX];
	char *slash;
	long best = 0;

	if (snprintf(dir, sizeof(dir), "%s%s", root, sub) >=
	    (int)sizeof(dir))
		return 0;
	for (;;) {
		best = cpus_min(best, cpus_quota_at(dir, v2));
		slash = strlen(dir) > rootlen ? strrchr(dir + rootlen, '/') :
		    NULL;
		if (!slash)
			return best;
		*slash = '\0';
	}
}

/* 1 if the comma-separated controller list @ctrl names "cpu". */
static int cpus_has_cpu(const char *ctrl)
{
	size_t n;

	while (*ctrl) {
		n = strcspn(ctrl, ",");
		if (n == 3 && strncmp(ctrl, "cpu", 3) == 0)
			return 1;
		ctrl += n + (ctrl[n] == ',');
	}
	return 0;
}

/* The quota of one /proc/self/cgroup line "ID:CONTROLLERS:PATH". */
static long cpus_cgroup_line(char *line, const char *root)
{
	char *ctrl = strchr(line, ':');
	char *sub = ctrl ? strchr(ctrl + 1, ':') : NULL;
	char base[PATH_MAX];
	long q;

	if (!sub)
		return 0;
	*sub++ = '\0';
	*ctrl++ = '\0';
	sub[strcspn(sub, "\n")] = '\0';
	if (strcmp(line, "0") == 0 && *ctrl == '\0')
		return cpus_quota_up(root, sub, 1);	/* v2 */
	if (!cpus_has_cpu(ctrl))
		return 0;
	/* v1: mounted at root/CONTROLLERS ("cpu,cpuacct"), or at root/cpu
	 * (often a link to it) */
	q = 0;
	if (snprintf(base, sizeof(base), "%s/%s", root, ctrl) <
	    (int)sizeof(base))
		q = cpus_quota_up(base, sub, 0);
	if (strcmp(ctrl, "cpu") != 0 && snprintf(base, sizeof(base),
	    "%s/cpu", root) < (int)sizeof(base))
		q = cpus_min(q, cpus_quota_up(base, sub, 0));
	return q;
}

/* The least CPU quota of the cgroups the process is in; 0: none. */
static long cpus_cgroup(const char *proc, const char *root)
{
	char line[4096];
	long best = 0;
	FILE *f;

	if (!proc || !root || !(f = fopen(proc, "r")))
		return 0;
	while (fgets(line, sizeof(line), f))
		best = cpus_min(best, cpus_cgroup_line(line, root));
	fclose(f);
	return best;
}

long bale_cpus_limit(const struct bale_cpu_inputs *in, const char **why)
{
	const char *what = in->affinity > 0 ? "affinity" : "online";
	long n = in->affinity > 0 ? in->affinity : in->online;
	long q = cpus_cgroup(in->proc_cgroup, in->cgroup_root);
	long s = cpus_count(in->slurm_cpus_per_task);

	if (s == 0)
		s = cpus_count(in->slurm_cpus_on_node);
	if (q > 0 && (n < 1 || q < n)) {
		n = q;
		what = "cgroup";
	}
	if (s > 0 && (n < 1 || s < n)) {
		n = s;
		what = "slurm";
	}
	if (why)
		*why = what;
	return n < 1 ? 1 : n;
}

long bale_cpus_usable(const char **why)
{
	struct bale_cpu_inputs in;
	cpu_set_t set;

	memset(&in, 0, sizeof(in));
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		in.affinity = CPU_COUNT(&set);
	in.online = sysconf(_SC_NPROCESSORS_ONLN);
	in.proc_cgroup = "/proc/self/cgroup";
	in.cgroup_root = "/sys/fs/cgroup";
	in.slurm_cpus_per_task = getenv("SLURM_CPUS_PER_TASK");
	in.slurm_cpus_on_node = getenv("SLURM_CPUS_ON_NODE");
	return bale_cpus_limit(&in, why);
}
