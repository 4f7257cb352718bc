/* first_touch.c - what a page of new memory costs on this machine.
 *
 * A DataLoader moves every batch tensor through new shared memory, and
 * the process that receives it maps it afresh: each 4 KiB page is faulted
 * in at least twice per batch. Where a fault is slow (a VM's nested page
 * tables), that, not reading or decoding, bounds samples/s.
 *
 *   cc -O2 -o first_touch bench/first_touch.c && ./first_touch
 */
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void)
{
	size_t n = (size_t)64 << 20;
	double best = 1e9;
	double t;
	size_t i;
	int run;
	char *p;

	for (run = 0; run < 5; run++) {
		p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE |
		    MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 1;
		t = now();
		for (i = 0; i < n; i += 4096)
			p[i] = 1;
		t = now() - t;
		best = t < best ? t : best;
		munmap(p, n);
	}
	printf("first touch of new memory: %.2f us per 4 KiB page, %.0f MB/s "
	    "(best of 5, 64 MiB)\n", best / (double)(n / 4096) * 1e6,
	    (double)n / best / 1e6);
	return 0;
}
