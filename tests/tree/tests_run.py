"""Every test the tree holds is run: each tests/cli/*.sh (but lib.sh, which
the others source), tests/interop/*.sh, tests/python/test_*.py,
tests/unit/test_*.c, tests/s3/*.sh (but lib.sh and gateway.sh) and
tests/s3/test_*.py is named in the meson.build that lists its kind, so a
new test script cannot sit in the tree unrun.
    tests_run.py SOURCE_ROOT"""
import pathlib
import re
import sys


def names(build_file):
    """Every quoted word of a meson.build outside its comments: the test
    lists are such."""
    text = re.sub(r"#[^\n]*", "", build_file.read_text())
    return set(re.findall(r"'([^'\n]+)'", text))


def main(root):
    tests = pathlib.Path(root) / "tests"
    listed = names(tests / "meson.build")
    unit = names(tests / "unit" / "meson.build")
    missing = []
    for f in sorted((tests / "cli").glob("*.sh")):
        if f.name != "lib.sh" and f.stem not in listed and \
                f"cli/{f.name}" not in listed:
            missing.append(f"tests/cli/{f.name}")
    for f in sorted((tests / "interop").glob("*.sh")):
        if f"interop/{f.name}" not in listed:
            missing.append(f"tests/interop/{f.name}")
    for f in sorted((tests / "s3").glob("*.sh")):
        if f.name not in ("lib.sh", "gateway.sh") and \
                f"s3/{f.name}" not in listed and f.stem not in listed:
            missing.append(f"tests/s3/{f.name}")
    for f in sorted((tests / "s3").glob("test_*.py")):
        if f"s3/{f.name}" not in listed:
            missing.append(f"tests/s3/{f.name}")
    for f in sorted((tests / "python").glob("test_*.py")):
        if f.stem[len("test_"):] not in listed:
            missing.append(f"tests/python/{f.name}")
    for f in sorted((tests / "unit").glob("test_*.c")):
        if f.name not in unit and f.stem[len("test_"):] not in unit:
            missing.append(f"tests/unit/{f.name}")
    for m in missing:
        print(f"{m}: in the tree, but no meson.build runs it")
    print(f"tests_run: {len(missing)} test files not run")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
