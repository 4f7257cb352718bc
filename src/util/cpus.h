/* cpus.h - how many CPUs this process may keep busy, which the default
 * thread counts follow: the least of its affinity mask, the CPU quota of
 * its cgroup (or of any cgroup above it; v2 cpu.max, v1 CFS quota) and
 * what Slurm gave the task. A Slurm task or a container given 2 of 256
 * cores must not start 256 threads. */
#ifndef BALE_CPUS_H
#define BALE_CPUS_H

/* What the limit is made of, for bale_cpus_limit(). */
struct bale_cpu_inputs {
	long affinity;			/* CPUs in the mask, or 0: unknown */
	long online;			/* the machine's */
	const char *proc_cgroup;	/* /proc/self/cgroup, or NULL */
	const char *cgroup_root;	/* /sys/fs/cgroup */
	const char *slurm_cpus_per_task;	/* environment, or NULL */
	const char *slurm_cpus_on_node;
};

/** The CPUs these inputs allow (at least 1); @why, if not NULL, gets a
 *  static word naming what decided it ("affinity", "cgroup", "slurm",
 *  "online"). */
long bale_cpus_limit(const struct bale_cpu_inputs *in, const char **why);

/** bale_cpus_limit() of this process, now. */
long bale_cpus_usable(const char **why);

#endif
