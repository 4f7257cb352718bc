"""Every command's --help gives an example, and every option it lists is
in the command's man page (doc/man/bale-CMD.1.scd), so the pages cannot
fall behind the tool.
    man_options.py BALE SOURCE_ROOT"""
import pathlib
import re
import subprocess
import sys

FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])")


def helptext(bale, *args):
    return subprocess.run([bale, *args, "--help"], capture_output=True,
                          text=True, check=True).stdout


def listed_flags(text):
    """The flags of the help's option lines (an indented line whose first
    word is a flag), -h/--help aside."""
    flags = set()
    for line in text.splitlines():
        m = re.match(r"^ {1,8}(-\S.*?)(?: {2,}|$)", line)
        if m:
            flags.update(FLAG.findall(m.group(1)))
    return flags - {"-h", "--help"}


def main(bale, root):
    man = pathlib.Path(root) / "doc" / "man"
    top = helptext(bale)
    commands = re.findall(r"^  (\w+) ", top.split("Commands:")[1]
                          .split("\n\n")[0], re.M)
    bad = []
    for cmd, text in [("", top)] + [(c, helptext(bale, c))
                                    for c in commands]:
        page = man / (f"bale-{cmd}.1.scd" if cmd else "bale.1.scd")
        if not page.exists():
            bad.append(f"{cmd or 'bale'}: no man page {page.name}")
            continue
        src = page.read_text().replace("\\", "")
        for flag in sorted(listed_flags(text)):
            if flag not in src:
                bad.append(f"{page.name}: lacks {flag}, which "
                           f"'bale {cmd} --help' lists")
        if "Example" not in text:
            bad.append(f"'bale {cmd} --help' gives no example")
    for b in bad:
        print(b)
    print(f"man_options: {len(commands)} commands, {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
