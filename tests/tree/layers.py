"""src/ by concern, in layers, by includes and by calls.

The layers are the folders of src/ in the order src/meson.build lists
them, with the formats (formats/*/) where its "# layer: formats" line
stands. A folder includes headers of its own and of the layers before
it, never of one after it, and no header includes itself back through
others. The objects of a folder (nm over the static library's members)
call only what their folder or a layer before it defines, and the
files of a folder call each other in one direction: no circle of
files. So the library reads bottom up, with no circles.
    layers.py SOURCE_ROOT [LIBBALE_CORE.a [OBJECT...]]"""
import collections
import pathlib
import re
import subprocess
import sys


def layer_order(src):
    return re.findall(r"^(?:subdir\('(\w+)'\)|# layer: (\w+))$",
                      (src / "meson.build").read_text(), re.M)


def include_problems(src, order):
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
    bad += [f"src/{p.name}: outside any folder" for p in src.glob("*.[ch]")]

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
    return bad


def member_place(member):
    """(layer, folder, file) of a static library member's object."""
    obj = pathlib.PurePath(member).name[:-len(".c.o")]
    m = re.match(r"src_([a-z0-9]+)_(\w+)$", obj)
    if m:
        return m.group(1), "src/" + m.group(1), m.group(2) + ".c"
    fmt, _, name = obj.partition("_")
    return "formats", "formats/" + fmt, name + ".c"


def symbols(libs):
    """Each object's defined and undefined globals, in the static
    libraries and objects @libs."""
    out = subprocess.run(["nm", "-A"] + libs, check=True,
                         capture_output=True, text=True).stdout
    defined, undefined = {}, collections.defaultdict(set)
    for line in filter(None, out.splitlines()):
        *_, member, rest = line.split(":")
        fields = rest.split()
        if len(fields) == 2 and fields[0] == "U":
            undefined[member].add(fields[1])
        elif len(fields) == 3 and fields[1] in "TDBRCVW":
            defined[fields[2]] = member
    return defined, undefined


def file_circles(edges):
    """The strongly connected sets of more than one file (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while not comp or comp[-1] != v:
                comp.append(stack.pop())
                on.discard(comp[-1])
            if len(comp) > 1:
                found.append(sorted(comp))
    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def call_problems(libs, order):
    defined, undefined = symbols(libs)
    bad = []
    edges = collections.defaultdict(set)
    for member, names in sorted(undefined.items()):
        layer, folder, name = member_place(member)
        if layer not in order:
            bad.append(f"{folder}/{name}: in no layer of src/meson.build")
            continue
        for sym in sorted(names):
            if sym not in defined:
                continue             # a library's, or the C library's
            dlayer, dfolder, dname = member_place(defined[sym])
            if order.index(dlayer) > order.index(layer):
                bad.append(f"{folder}/{name} calls {sym} of "
                           f"{dfolder}/{dname}, a later layer")
            elif dfolder == folder and dname != name:
                edges[(folder, name)].add((dfolder, dname))
    for comp in file_circles(edges):
        bad.append(f"{comp[0][0]}/: a circle of calls between " +
                   ", ".join(name for _, name in comp))
    return bad


def main(root, *libs):
    src = pathlib.Path(root) / "src"
    order = [a or b for a, b in layer_order(src)]
    bad = include_problems(src, [f for f in order if f != "formats"])
    if libs:
        bad += call_problems(list(libs), order)
    for b in sorted(set(bad)):
        print(b)
    print(f"layers: {' < '.join(order)}; {len(set(bad))} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
