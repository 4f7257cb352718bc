"""bale.Loader reading an output from S3 (a Ceph gateway on this
machine) against the same output on local disk, and with 20 ms more
round trip (tests/s3/fault_proxy.py), in the sample order and the run
order (runs of 64, 16 at a time): samples/s of training input
(RandomResizedCrop(224) + flip, batch 64, warm page cache for the local
output) after the first batch, the time to that first batch (opening
included), the share of the threads' time spent waiting for bytes from
the store, the HTTP requests and bytes per sample, and the gateway's
and the proxy's CPU shares while the Loader ran (they compete for the
same two cores). Cells rotate; medians of RUNS.

    s3_loader.py TREE WORK [--endpoint URL] [--runs R] [--epochs E]
                 [--threads T] [--json FILE]

TREE is packed into WORK/out with --resize shorter:256 (wds) once, and
uploaded with boto3 to a bucket of its own; AWS_* point at the gateway
(tests/s3/gateway.sh prints its URL; the keys are AKTEST/SKTEST)."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import uuid

import boto3

import bale
from bale import _bale

HERE = os.path.dirname(os.path.abspath(__file__))
PROXY = os.path.join(HERE, "..", "tests", "s3", "fault_proxy.py")
PROXY_NAME = ("fault_proxy.py",)


def gateway_cpu(names=("radosgw", "ceph-osd", "ceph-mon")):
    """CPU seconds the gateway's daemons (or the processes called
    @names) have used so far."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/{pid}/cmdline") as f:
                cmd = f.read()
            if name not in names and not any(n in cmd for n in names):
                continue
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except (OSError, ValueError, IndexError):
            continue
    return total


def epoch_cell(path, endpoint, order, args, size_sum):
    """One cell: the Loader over @path for args.epochs epochs, in @order
    ("sample", or "runs" of 64 samples, 16 at a time): the time to its
    first batch (opening included), then samples/s over the rest."""
    if endpoint:
        os.environ["AWS_ENDPOINT_URL"] = endpoint
    req0, bytes0, _ = _bale.store_counts()
    t_open = time.perf_counter()
    seen, t0 = 0, None
    with bale.Loader(path, batch_size=64, size=224, threads=args.threads,
                     seed=7, order=order) as loader:
        for e in range(args.epochs):
            loader.set_epoch(e)
            for x, _ in loader:
                seen += x.shape[0]
                if t0 is None:      # the rest is timed from here
                    first = time.perf_counter() - t_open
                    cpu0, proxy0 = gateway_cpu(), gateway_cpu(PROXY_NAME)
                    wait0 = _bale.store_counts()[2]
                    t0, after = time.perf_counter(), seen
        wall = time.perf_counter() - t0
        waited = _bale.store_counts()[2] - wait0
    timed = seen - after
    req1, bytes1, _ = _bale.store_counts()
    return {"samples_s": timed / wall, "first_batch_s": first,
            "io_wait_share": waited / (wall * args.threads),
            "requests_per_sample": (req1 - req0) / seen,
            "bytes_ratio": (bytes1 - bytes0) / (size_sum * args.epochs),
            "gateway_cpu_share": (gateway_cpu() - cpu0) / wall / 2,
            "proxy_cpu_share": (gateway_cpu(PROXY_NAME) - proxy0) /
            wall / 2}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("tree")
    p.add_argument("work")
    p.add_argument("--endpoint", default=os.environ.get(
        "BALE_TEST_S3", os.environ.get("AWS_ENDPOINT_URL")))
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--json")
    args = p.parse_args()
    os.environ.update(AWS_ENDPOINT_URL=args.endpoint,
                      AWS_ACCESS_KEY_ID=os.environ.get("AWS_ACCESS_KEY_ID",
                                                       "AKTEST"),
                      AWS_SECRET_ACCESS_KEY=os.environ.get(
                          "AWS_SECRET_ACCESS_KEY", "SKTEST"),
                      AWS_REGION=os.environ.get("AWS_REGION", "us-east-1"))
    out = os.path.join(args.work, "out")
    if not os.path.exists(os.path.join(out, "data-shards.json")):
        subprocess.run(["bale", "pack", args.tree, "-o", out, "-f", "wds",
                        "--resize", "shorter:256", "-q"], check=True)
    local = bale.open(os.path.join(out, "data-shards.json"))
    n = len(local)
    size_sum = sum(len(local[i].data) for i in range(n))
    s3 = boto3.client("s3", endpoint_url=args.endpoint)
    bucket = f"bale-bench-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=bucket)
    for name in sorted(os.listdir(out)):
        s3.upload_file(os.path.join(out, name), bucket, f"out/{name}")
    proxy = subprocess.Popen([sys.executable, PROXY,
                              args.endpoint.rsplit(":", 1)[1],
                              "--latency", "20"], stdout=subprocess.PIPE,
                             text=True)
    slow = f"http://127.0.0.1:{proxy.stdout.readline().strip()}"
    url = f"s3://{bucket}/out/"
    listed = os.path.join(out, "data-shards.json")
    cells = {"local": (listed, None, "sample"),
             "s3": (url, args.endpoint, "sample"),
             "s3_20ms": (url, slow, "sample"),
             "local_runs": (listed, None, "runs"),
             "s3_runs": (url, args.endpoint, "runs"),
             "s3_20ms_runs": (url, slow, "runs")}
    results = {k: [] for k in cells}
    try:
        for _ in range(args.runs):
            for name, (path, endpoint, order) in cells.items():
                results[name].append(epoch_cell(path, endpoint, order,
                                                args, size_sum))
    finally:
        proxy.kill()
        for o in s3.list_objects_v2(Bucket=bucket).get("Contents", []):
            s3.delete_object(Bucket=bucket, Key=o["Key"])
        s3.delete_bucket(Bucket=bucket)
    med = {k: {m: statistics.median(r[m] for r in v) for m in v[0]}
           for k, v in results.items()}
    summary = {"samples": n, "mean_sample_bytes": size_sum / n,
               "threads": args.threads, "runs": args.runs, "cells": med,
               "s3_vs_local": med["s3"]["samples_s"] /
               med["local"]["samples_s"],
               "s3_20ms_vs_s3": med["s3_20ms"]["samples_s"] /
               med["s3"]["samples_s"],
               "s3_runs_vs_local_runs": med["s3_runs"]["samples_s"] /
               med["local_runs"]["samples_s"],
               "s3_20ms_runs_vs_s3_runs": med["s3_20ms_runs"]["samples_s"] /
               med["s3_runs"]["samples_s"], "all": results}
    print(json.dumps({k: v for k, v in summary.items() if k != "all"},
                     indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
