#!/usr/bin/python3
"""Draw bench/results/summary.tsv as a bar chart (SVG), speed ratios on a
log scale, one colour per group: python3 bench/summary_chart.py IN OUT"""
import math
import sys

COLOURS = {"pack": "#4c78a8", "read": "#54a24b", "train": "#e45756"}
LEFT, BAR, GAP, WIDTH = 290, 16, 6, 420
LO, HI = 0.5, 50.0


def rows(path):
    with open(path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                group, label, ratio, _ = line.rstrip("\n").split("\t")
                yield group, label, float(ratio)


def x_of(ratio):
    span = math.log10(HI) - math.log10(LO)
    return LEFT + WIDTH * (math.log10(ratio) - math.log10(LO)) / span


def esc(text):
    return text.replace("&", "&amp;").replace("<", "&lt;")


def draw(data):
    height = 40 + len(data) * (BAR + GAP) + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{LEFT + WIDTH + 60}"'
           f' height="{height}" font-family="sans-serif" font-size="11">',
           f'<text x="{LEFT}" y="16" font-size="12">speed against the '
           'baseline (x, log scale; above 1: bale is faster)</text>']
    for tick in (0.5, 1, 2, 5, 10, 20, 50):
        x = x_of(tick)
        out.append(f'<line x1="{x:.1f}" y1="26" x2="{x:.1f}" '
                   f'y2="{height - 24}" stroke="#ccc"/>')
        out.append(f'<text x="{x:.1f}" y="{height - 10}" '
                   f'text-anchor="middle">{tick:g}</text>')
    for i, (group, label, ratio) in enumerate(data):
        y = 32 + i * (BAR + GAP)
        x0, x1 = x_of(1), x_of(ratio)
        out.append(f'<text x="{LEFT - 6}" y="{y + 12}" text-anchor="end">'
                   f'{esc(label)}</text>')
        out.append(f'<rect x="{min(x0, x1):.1f}" y="{y}" '
                   f'width="{abs(x1 - x0):.1f}" height="{BAR}" '
                   f'fill="{COLOURS[group]}"/>')
        out.append(f'<text x="{max(x0, x1) + 4:.1f}" y="{y + 12}">'
                   f'{ratio:g}x</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    data = list(rows(sys.argv[1]))
    with open(sys.argv[2], "w") as f:
        f.write(draw(data))


if __name__ == "__main__":
    main()
