"""What packing buys a PyTorch user: DataLoader samples/s (batch 64, random
order, first batch not timed) for torchvision's ImageFolder on the raw
tree, bale's Datasets on each output, and hand-written Datasets; and the
bare reader (a Python loop of r[i]) against C `bale bench`.

    torch_loader.py prepare TREE OUT          pack the outputs into OUT
    torch_loader.py loader TREE OUT --storage NAME --json FILE [options]
    torch_loader.py bare TREE OUT --json FILE [--bale BALE] [options]
    torch_loader.py report FILE               tables (markdown) and a chart

Run by bench/torch_loader.sh, which also mounts TREE and OUT over sshfs.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import time

VARIANTS = {"pass": [], "r256": ["--resize", "shorter:256"],
            "px": ["--pixels", "224x224"]}


def prepare(tree, out, bale):
    for name, flags in VARIANTS.items():
        dest = f"{out}/{name}"
        if os.path.exists(f"{dest}/.complete"):
            continue
        subprocess.run([bale, "pack", tree, "-f", "wds,lmdb,hdf5", "-o", dest,
                        "-q", "--force", *flags], check=True)
        open(f"{dest}/.complete", "w").close()


def drop_caches():
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def warm_up(roots):
    """Read every file under @roots once, so that warm runs are warm
    (the page cache holds them all: about 9.5 GB on a 24 GB machine)."""
    for root in roots:
        for folder, _, files in os.walk(root):
            for name in files:
                with open(os.path.join(folder, name), "rb") as f:
                    while f.read(1 << 20):
                        pass


def measure(name, paths, mode, workers, cache, samples, seed):
    """Samples/s of one DataLoader pass over @samples samples."""
    from torch.utils.data import DataLoader
    import torch_datasets as D
    variant, random_access, make = D.DATASETS[name]
    transform = D.full_transform(variant == "px") if mode == "full" else None
    ds = make(paths, transform)
    order = None
    if random_access:
        order = list(range(len(ds)))
        random.Random(seed).shuffle(order)
        order = order[:samples]
    # torch's default collate, as users have it: bytes stay a list,
    # arrays and tensors are stacked into one tensor per batch
    dl = DataLoader(ds, batch_size=64, sampler=order, num_workers=workers)
    if cache == "cold":
        drop_caches()
    it = iter(dl)
    next(it)                  # workers started, first batch in
    count, t0 = 0, time.perf_counter()
    for _, labels in it:
        count += len(labels)
        if count + 64 >= samples:
            break
    seconds = time.perf_counter() - t0
    del it
    return count / seconds


def run_loader(args):
    import torch_datasets as D
    paths = {"tree": args.tree}
    paths.update({v: f"{args.out}/{v}" for v in VARIANTS})
    names = args.datasets.split(",") if args.datasets else list(D.DATASETS)
    with open(args.json, "a") as log:
        for cache in args.caches.split(","):
            if cache == "warm":
                warm_up(paths.values())
            for mode in args.modes.split(","):
                for workers in map(int, args.workers.split(",")):
                    for run in range(args.runs):
                        k = run % len(names)
                        for name in names[k:] + names[:k]:
                            n = args.samples * (2 if mode == "raw" else 1)
                            rate = measure(name, paths, mode, workers, cache,
                                           n, args.seed + run)
                            row = dict(kind="loader", storage=args.storage,
                                       cache=cache, mode=mode,
                                       workers=workers, dataset=name,
                                       run=run, rate=rate)
                            log.write(json.dumps(row) + "\n")
                            log.flush()
                            print(json.dumps(row), file=sys.stderr)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("what", choices=["prepare", "loader", "bare", "report"])
    p.add_argument("tree", nargs="?")
    p.add_argument("out", nargs="?")
    p.add_argument("--storage", default="local")
    p.add_argument("--json")
    p.add_argument("--bale", default="build/bale")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--samples", type=int, default=768)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", default="1,2")
    p.add_argument("--caches", default="warm,cold")
    p.add_argument("--modes", default="raw,full")
    p.add_argument("--datasets", default="")
    args = p.parse_args()
    if args.what == "prepare":
        prepare(args.tree, args.out, args.bale)
    elif args.what == "loader":
        run_loader(args)
    elif args.what == "bare":
        import torch_bare
        with open(args.json, "a") as log:
            torch_bare.run(args, log)
    else:
        import torch_report
        torch_report.report(args.tree)


if __name__ == "__main__":
    main()
