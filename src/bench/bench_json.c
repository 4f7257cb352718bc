/* bench_json.c - the bench results as JSON, through the one JSON writer,
 * written to a file. */
#include "bench.h"

#include "bale.h"
#include "bale_backend.h"
#include "bale_backend_util.h"

#include <errno.h>
#include <string.h>

static void bench_json_array(struct bale_buf *j, const char *key,
    const double *v, unsigned n)
{
	unsigned i;

	bale_json_key(j, key, 0);
	bale_buf_puts(j, "[");
	for (i = 0; i < n; i++)
		bale_buf_printf(j, "%s%.6g", i ? "," : "", v[i]);
	bale_buf_puts(j, "]");
}

static void bench_json_method(struct bale_buf *j,
    const struct bale_bench_method *m)
{
	bale_buf_puts(j, "{\"method\":{");
	bale_json_kv_u64(j, "samples", m->samples, 1);
	bale_json_kv_u64(j, "seed", m->seed, 0);
	bale_json_kv_u64(j, "runs", m->runs, 0);
	bale_json_key(j, "decode", 0);
	bale_buf_puts(j, m->decode ? "true" : "false");
	bale_json_kv_str(j, "order", m->sequential ? "sequential" : "random",
	    0);
	bale_json_kv_str(j, "eviction", m->eviction, 0);
	bale_buf_puts(j, "},\"results\":[");
}

static void bench_json_row(struct bale_buf *j, const struct bale_bench_row *r)
{
	bale_buf_puts(j, "{");
	bale_json_kv_str(j, "target", r->label, 1);
	bale_json_kv_str(j, "cache", r->cache, 0);
	bale_json_kv_u64(j, "threads", r->threads, 0);
	bale_json_key(j, "median_samples_per_s", 0);
	bale_buf_printf(j, "%.1f", r->median_rate);
	/* the baseline is the raw folder in every bench bale runs */
	bale_json_key(j, "ratio_to_folder", 0);
	bale_buf_printf(j, "%.4f", r->ratio);
	bench_json_array(j, "samples_per_s", r->rate, r->nruns);
	bench_json_array(j, "mb_per_s", r->mbps, r->nruns);
	bench_json_array(j, "p50_ms", r->p50_ms, r->nruns);
	bench_json_array(j, "p99_ms", r->p99_ms, r->nruns);
	bench_json_array(j, "resident_before", r->resident, r->nruns);
	bale_json_key(j, "digest", 0);
	bale_buf_printf(j, "\"%08x\"", (unsigned)r->digest);
	bale_buf_puts(j, "}");
}

/* The method and results of @b as one JSON object, into @j. */
static void bench_json(const struct bale_bench *b, struct bale_buf *j)
{
	struct bale_bench_method m;
	size_t i;

	bale_bench_method(b, &m);
	bench_json_method(j, &m);
	for (i = 0; i < bale_bench_nrows(b); i++) {
		bale_buf_puts(j, i ? ",\n" : "\n");
		bench_json_row(j, bale_bench_row(b, i));
	}
	bale_buf_puts(j, "]}\n");
}

int bale_bench_write_json(struct bale_bench *b, const char *path)
{
	struct bale_buf j = BALE_BUF_INIT;
	int rc = BALE_OK;

	bench_json(b, &j);
	if (j.failed)
		rc = bale_errbuf_set(bale_bench_err(b), BALE_ENOMEM,
		    "no memory");
	else if (bale_file_write_atomic(path, j.data, j.len, 0) != 0)
		rc = bale_errbuf_set(bale_bench_err(b), BALE_EIO,
		    "cannot write '%s': %s", path, strerror(errno));
	bale_buf_release(&j);
	return rc;
}
