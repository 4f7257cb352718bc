"""Summaries of bench/torch_loader.py's results: markdown tables of median
samples/s (ratio to ImageFolder in the same cell), the bare reader
against C bale bench, the issue's targets, and an SVG chart."""
import collections
import json
import os
import statistics

ORDER = ["ImageFolder", "hand-lmdb", "hand-h5py", "hand-tar",
         "bale-wds-pass", "bale-lmdb-pass", "bale-hdf5-pass",
         "bale-ShardStream", "bale-wds-r256", "bale-lmdb-r256",
         "bale-hdf5-r256", "bale-wds-px", "bale-lmdb-px", "bale-hdf5-px",
         "ceiling"]
CELLS = [("warm", 1), ("warm", 2), ("cold", 1), ("cold", 2)]
STORAGES = ("local", "sshfs", "sshfs-cache")
# bale's reader and the hand-written class reading the same files
PAIRS = [("bale-lmdb-pass", "hand-lmdb"), ("bale-hdf5-pass", "hand-h5py"),
         ("bale-ShardStream", "hand-tar")]


def load(path):
    rates = collections.defaultdict(list)
    bare = collections.defaultdict(list)
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if r["kind"] == "loader":
                key = (r["storage"], r["mode"], r["cache"], r["workers"],
                       r["dataset"])
                rates[key].append(r["rate"])
            elif r["kind"] == "bare_run":
                bare[(r["format"], r["threads"])].append(r)
    medians = {k: statistics.median(v) for k, v in rates.items()}
    return medians, bare


def loader_tables(med):
    out = []
    for storage in STORAGES:
        for mode in ("raw", "full"):
            if not any(k[0] == storage and k[1] == mode for k in med):
                continue
            out.append(f"\n{storage}, {mode} (samples/s, x ImageFolder "
                       "in the same column)\n")
            out.append("| dataset | " + " | ".join(
                f"{c} w{w}" for c, w in CELLS) + " |")
            out.append("|---|" + "---:|" * len(CELLS))
            for name in ORDER:
                cells = []
                for cache, w in CELLS:
                    v = med.get((storage, mode, cache, w, name))
                    base = med.get((storage, mode, cache, w, "ImageFolder"))
                    cells.append("" if v is None else
                                 f"{v:,.0f} ({v / base:.2f}x)" if base else
                                 f"{v:,.0f}")
                if any(cells):
                    out.append(f"| {name} | " + " | ".join(cells) + " |")
    return out


def bare_medians(runs):
    """Medians over runs of each rate, and of the per-run ratios."""
    def m(f):
        return statistics.median(f(r) for r in runs)
    out = dict(python=m(lambda r: r["python"]), c=m(lambda r: r["c"]),
               ratio=m(lambda r: r["python"] / r["c"]), runs=len(runs))
    if "pread" in runs[0]:
        out["pread"] = m(lambda r: r["pread"])
        out["to_pread"] = m(lambda r: r["python"] / r["pread"])
        out["pread_ratio"] = m(lambda r: r["pread"] / r["c"])
    return out


def bare_table(bare):
    out = ["\nbare reader, warm, random order (samples/s; ratios are "
           "medians of per-run ratios)\n",
           "| format | threads | Python r[i] loop | C bale bench | ratio "
           "| Python os.pread loop (x C) | r[i] x os.pread |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for (fmt, t), runs in sorted(bare.items()):
        b = bare_medians(runs)
        pread = (f"{b['pread']:,.0f} ({b['pread_ratio']:.2f}) | "
                 f"{b['to_pread']:.2f}" if "pread" in b else " | ")
        out.append(f"| {fmt} | {t} | {b['python']:,.0f} | {b['c']:,.0f} | "
                   f"{b['ratio']:.2f} | {pread} |")
    return out


def targets(med, bare):
    out = ["\ntargets\n"]
    worse = [(k, mine, med[k[:4] + (mine,)], med[k[:4] + (hand,)])
             for mine, hand in PAIRS for k in med
             if k[4] == hand and k[:4] + (mine,) in med
             and med[k[:4] + (mine,)] < med[k]]
    out.append(f"- bale's reader >= the hand-written class: "
               f"{'every cell' if not worse else f'{len(worse)} cells not'}")
    for k, mine, a, b in worse:
        out.append(f"  - {k[:4]} {mine} {a:,.0f} < {b:,.0f}")
    ratios = [bare_medians(runs)["ratio"] for runs in bare.values()]
    if ratios:
        out.append(f"- bare Python loop / C bale bench: min {min(ratios):.2f}"
                   f" (target >= 0.9)")
    passthrough = ["bale-wds-pass", "bale-lmdb-pass", "bale-hdf5-pass"]
    for storage, mode, goal, names in (
            ("sshfs", "raw", 10, passthrough),
            ("sshfs-cache", "raw", 10, passthrough),
            ("local", "full", 3, ["bale-wds-px", "bale-lmdb-px",
                                  "bale-hdf5-px"])):
        for cache, w in CELLS:
            base = med.get((storage, mode, cache, w, "ImageFolder"))
            got = [med[(storage, mode, cache, w, n)] / base for n in names
                   if base and (storage, mode, cache, w, n) in med]
            if got:
                out.append(f"- {storage} {mode} {cache} w{w}: "
                           f"{min(got):.2f}-{max(got):.2f}x ImageFolder "
                           f"(target >= {goal}x)")
    return out


def svg(med, path):
    """Bars: 2 workers, each storage x mode a panel, warm and cold."""
    panels = [(s, m) for s in STORAGES for m in ("raw", "full")
              if any(k[0] == s and k[1] == m for k in med)]
    names = [n for n in ORDER if any(k[4] == n for k in med)]
    bar, gap, label_w, panel_w = 7, 6, 130, 260
    height = 40 + len(names) * (2 * bar + gap)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="'
             f'{label_w + len(panels) * (panel_w + 20)}" height="{height}" '
             'font-family="sans-serif" font-size="10">']
    for i, name in enumerate(names):
        y = 30 + i * (2 * bar + gap) + bar
        parts.append(f'<text x="{label_w - 4}" y="{y + 3}" '
                     f'text-anchor="end">{name}</text>')
    for p, (storage, mode) in enumerate(panels):
        x0 = label_w + p * (panel_w + 20)
        top = max(med.get((storage, mode, c, 2, n), 0)
                  for n in names for c in ("warm", "cold") if n != "ceiling")
        parts.append(f'<text x="{x0}" y="14" font-weight="bold">{storage}, '
                     f'{mode}, 2 workers (samples/s; warm dark, cold '
                     'light)</text>')
        for i, name in enumerate(names):
            for j, cache in enumerate(("warm", "cold")):
                v = med.get((storage, mode, cache, 2, name))
                if v is None:
                    continue
                w = min(panel_w - 40, (panel_w - 40) * v / top)
                y = 30 + i * (2 * bar + gap) + j * bar
                color = ("#2b6cb0", "#90cdf4")[j]
                parts.append(f'<rect x="{x0}" y="{y}" width="{w:.1f}" '
                             f'height="{bar - 1}" fill="{color}"/>')
                parts.append(f'<text x="{x0 + w + 2:.1f}" y="{y + bar - 1}"'
                             f' font-size="7">{v:,.0f}</text>')
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")


def report(path):
    med, bare = load(path)
    for line in loader_tables(med) + bare_table(bare) + \
            targets(med, bare):
        print(line)
    chart = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         "results", "torch_loader.svg")
    os.makedirs(os.path.dirname(chart), exist_ok=True)
    svg(med, chart)
    print(f"\nchart: {os.path.relpath(chart)}")
