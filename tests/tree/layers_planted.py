"""The layer check catches what it is for: beside the library, an object
of src/util/ that calls the pipeline (a later layer), and two objects of
src/bench/ that call each other (a circle of files), each fail it and
are named; the library alone passes.
    layers_planted.py SOURCE_ROOT LIBBALE_CORE.a"""
import pathlib
import subprocess
import sys
import tempfile

import layers

PLANTED = {
    # object name as meson makes it -> its source
    "src_util_planted.c.o":
        "int bale_pipeline_new(void **p);\n"
        "int bale_util_planted(void) { void *p; "
        "return bale_pipeline_new(&p); }\n",
    "src_bench_planted_a.c.o":
        "int bale_bench_planted_b(int n);\n"
        "int bale_bench_planted_a(int n) "
        "{ return n ? bale_bench_planted_b(n - 1) : 0; }\n",
    "src_bench_planted_b.c.o":
        "int bale_bench_planted_a(int n);\n"
        "int bale_bench_planted_b(int n) "
        "{ return n ? bale_bench_planted_a(n - 1) : 1; }\n",
}


def check(root, lib, objects, want):
    got = subprocess.run([sys.executable, layers.__file__, root, lib] +
                         objects, capture_output=True, text=True)
    if (got.returncode != 0) != bool(want):
        print(f"exit {got.returncode} with {objects}:\n{got.stdout}")
        return 1
    for w in want:
        if w not in got.stdout:
            print(f"not said: {w!r}\n{got.stdout}")
            return 1
    return 0


def main(root, lib):
    bad = check(root, lib, [], [])
    with tempfile.TemporaryDirectory() as tmp:
        objs = {}
        for name, text in PLANTED.items():
            c = pathlib.Path(tmp) / (name[:-2])
            c.write_text(text)
            objs[name] = str(pathlib.Path(tmp) / name)
            subprocess.run(["cc", "-c", str(c), "-o", objs[name]],
                           check=True)
        bad += check(root, lib, [objs["src_util_planted.c.o"]],
                     ["src/util/planted.c calls bale_pipeline_new of "
                      "src/pipeline/pipeline.c, a later layer"])
        bad += check(root, lib, [objs["src_bench_planted_a.c.o"],
                                 objs["src_bench_planted_b.c.o"]],
                     ["src/bench/: a circle of calls between planted_a.c, "
                      "planted_b.c"])
    return bad


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
