#!/usr/bin/python3
"""bench/scale.sh's pack memory against samples, as an SVG line chart and
a markdown table: max RSS of `bale pack` per format (and all three in one
run) at each size measured, with --shuffle where it was run, and the
growth a sample between the smallest and largest size.

    python3 bench/scale_chart.py IN.jsonl OUT.svg > table.md"""
import json
import sys

COLOURS = {"wds": "#4c78a8", "lmdb": "#54a24b", "hdf5": "#e45756",
           "wds,lmdb,hdf5": "#b279a2"}
LEFT, TOP, WIDTH, HEIGHT = 60, 30, 420, 240
MAX_MIB = 256


SMALL = set()  # (formats, shuffled, millions) measured on --small trees


def packs(path):
    """{(formats, shuffled): {millions: max RSS MiB}}, the last record of
    each wins (a re-run replaces what it measured again). A run on the
    --small trees (the same samples, of fewer bytes) fills a place only
    where the usual trees have none, and is marked in the table."""
    out = {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            what = r.get("what", "")
            if not what.startswith("pack -f ") or "max_rss_kib" not in r:
                continue
            fmt = what.split()[2]
            key = (fmt, what.endswith("--shuffle"))
            m = r["millions"]
            pts = out.setdefault(key, {})
            if r.get("small"):
                if m in pts and key + (m,) not in SMALL:
                    continue
                SMALL.add(key + (m,))
            else:
                SMALL.discard(key + (m,))
            pts[m] = r["max_rss_kib"] / 1024
    return out


def growth(points):
    """Bytes a sample between the smallest and largest size, or None."""
    sizes = sorted(points)
    if len(sizes) < 2:
        return None
    lo, hi = sizes[0], sizes[-1]
    return (points[hi] - points[lo]) * 1048576 / ((hi - lo) * 1e6)


def table(data):
    sizes = sorted({m for pts in data.values() for m in pts})
    head = "| `bale pack -f` | " + " | ".join(f"{m} M" for m in sizes)
    lines = [head + " | bytes a sample |",
             "|---" * (len(sizes) + 2) + "|"]
    for (fmt, shuffled), pts in sorted(data.items()):
        cells = [f"{pts[m]:.0f} MiB" + ("*" if (fmt, shuffled, m) in SMALL
                                         else "") if m in pts else "-"
                 for m in sizes]
        g = growth(pts)
        name = fmt + (" --shuffle" if shuffled else "")
        tail = f" | {g:.1f} |" if g is not None else " | - |"
        lines.append(f"| {name} | " + " | ".join(cells) + tail)
    if SMALL:
        lines.append("\n\\* on the `--small` trees: the same samples, of "
                     "8x8-pixel JPEGs, so that the outputs fit the disk")
    return "\n".join(lines) + "\n"


def chart(data):
    top = max(max(m for pts in data.values() for m in pts), 1)
    xs = lambda m: LEFT + WIDTH * m / top
    ys = lambda mib: TOP + HEIGHT - HEIGHT * min(mib, MAX_MIB) / MAX_MIB
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" '
           f'width="{LEFT + WIDTH + 150}" height="{TOP + HEIGHT + 40}" '
           'font-family="sans-serif" font-size="11">',
           f'<text x="{LEFT}" y="16" font-size="12">bale pack: max RSS '
           '(MiB) against samples (millions)</text>']
    for mib in range(0, MAX_MIB + 1, 64):
        out.append(f'<line x1="{LEFT}" y1="{ys(mib):.1f}" '
                   f'x2="{LEFT + WIDTH}" y2="{ys(mib):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 6}" y="{ys(mib) + 4:.1f}" '
                   f'text-anchor="end">{mib}</text>')
    for m in sorted({m for pts in data.values() for m in pts}):
        out.append(f'<text x="{xs(m):.1f}" y="{TOP + HEIGHT + 16}" '
                   f'text-anchor="middle">{m}</text>')
    for i, ((fmt, shuffled), pts) in enumerate(sorted(data.items())):
        colour = COLOURS.get(fmt, "#888")
        dash = ' stroke-dasharray="4 3"' if shuffled else ""
        path = " ".join(f"{xs(m):.1f},{ys(pts[m]):.1f}" for m in sorted(pts))
        out.append(f'<polyline points="{path}" fill="none" '
                   f'stroke="{colour}" stroke-width="2"{dash}/>')
        y = TOP + 12 + i * 16
        out.append(f'<line x1="{LEFT + WIDTH + 10}" y1="{y - 4}" '
                   f'x2="{LEFT + WIDTH + 30}" y2="{y - 4}" '
                   f'stroke="{colour}" stroke-width="2"{dash}/>')
        out.append(f'<text x="{LEFT + WIDTH + 34}" y="{y}">{fmt}'
                   f'{" shuffled" if shuffled else ""}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    data = packs(sys.argv[1])
    with open(sys.argv[2], "w") as f:
        f.write(chart(data))
    sys.stdout.write(table(data))


if __name__ == "__main__":
    main()
