"""src/ by concern, in layers: a folder of src/ includes headers of its
own and of the folders listed before it in src/meson.build, never of one
after it; and no header includes itself back through others. So the
library reads bottom up (util, image, source, core, runs, pipeline, then
bench and loader) with no circles.
    layers.py SOURCE_ROOT"""
import pathlib
import re
import sys


def main(root):
    src = pathlib.Path(root) / "src"
    order = re.findall(r"^subdir\('(\w+)'\)", (src / "meson.build")
                       .read_text(), re.M)
    where = {}                       # header name -> its folder
    for f in order:
        for h in (src / f).glob("*.h"):
            where[h.name] = f
    bad = []
    includes = {}
    for rank, f in enumerate(order):
        for p in sorted((src / f).glob("*.[ch]")):
            names = re.findall(r'^#include "([^"]+)"', p.read_text(), re.M)
            includes[p.name] = [n for n in names if n in where]
            for n in includes[p.name]:
                if order.index(where[n]) > rank:
                    bad.append(f"src/{f}/{p.name} includes {n} of "
                               f"src/{where[n]}/, a later layer")
    loose = [p.name for p in src.glob("*.[ch]")]
    bad += [f"src/{n}: outside any folder" for n in loose]

    def visit(h, path):              # header include cycles
        if h in path:
            bad.append("include cycle: " + " -> ".join(path[path.index(h):]
                                                       + [h]))
            return
        for n in includes.get(h, []):
            if n.endswith(".h"):
                visit(n, path + [h])
    for h in where:
        visit(h, [])
    for b in sorted(set(bad)):
        print(b)
    print(f"layers: {' < '.join(order)}; {len(set(bad))} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
