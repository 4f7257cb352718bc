"""The house style that a machine can check, on every C file of the tree:
lines of at most 80 columns (a tab to the next multiple of 8), indented
with tabs (no line starts with eight spaces), and no space at a line's
end. (clang-format cannot express the continuation lines the tree uses,
four spaces after the tabs of the statement: HACKING.md, "Style".)
    style.py SOURCE_ROOT"""
import pathlib
import subprocess
import sys

LIMIT = 80


def columns(line):
    col = 0
    for c in line:
        col = (col // 8 + 1) * 8 if c == "\t" else col + 1
    return col


def problems(path, text):
    for n, line in enumerate(text.split("\n"), 1):
        if columns(line) > LIMIT:
            yield f"{path}:{n}: {columns(line)} columns (at most {LIMIT})"
        if line.rstrip() != line:
            yield f"{path}:{n}: space at the end of the line"
        if line.startswith(" " * 8):
            yield f"{path}:{n}: indented with spaces, not a tab"


def main(root):
    files = subprocess.run(["git", "-C", root, "ls-files", "*.c", "*.h",
                            "*.h.in"], capture_output=True, text=True)
    if files.returncode != 0:          # not a git checkout: every file
        names = [str(p.relative_to(root)) for p in
                 pathlib.Path(root).rglob("*.[ch]")
                 if not p.relative_to(root).parts[0].startswith("build")]
    else:
        names = files.stdout.split()
    bad = []
    for name in sorted(names):
        path = pathlib.Path(root) / name
        if path.exists():
            bad += problems(name, path.read_text(errors="replace"))
    for b in bad:
        print(b)
    print(f"style: {len(names)} files, {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
