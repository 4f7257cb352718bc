"""No command line flag in a library message: the library speaks in its
own terms (options by their API names, remedies as codes), and each
front end (bale's CLI, the Python module) turns remedies into its own
words. Every string literal of the library's C (src/, formats/, include/)
and of the Python module is checked; comments are not messages.
    messages.py SOURCE_ROOT"""
import ast
import pathlib
import re
import sys

FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?=[\s,.;:)=\]]|$)")
C_TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'
                     r"'(?:\\.|[^'\\\n])*'", re.S)


def c_strings(text):
    """(line, literal) of every string literal outside comments."""
    for m in C_TOKEN.finditer(text):
        tok = m.group(0)
        if tok.startswith('"') and not text[:m.start()].rstrip().endswith(
                "#include"):
            yield text.count("\n", 0, m.start()) + 1, tok[1:-1]


def py_docstrings(tree):
    """ids of the docstrings' nodes: documentation, not messages."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                             ast.AsyncFunctionDef)) and node.body and \
                isinstance(node.body[0], ast.Expr) and \
                isinstance(getattr(node.body[0], "value", None),
                           ast.Constant):
            out.add(id(node.body[0].value))
    return out


def main(root):
    root = pathlib.Path(root)
    bad = []
    for d in ("src", "formats", "include"):
        for f in sorted((root / d).rglob("*")):
            if f.suffix not in (".c", ".h", ".in"):
                continue
            for line, s in c_strings(f.read_text(errors="replace")):
                if FLAG.search(s):
                    bad.append(f"{f.relative_to(root)}:{line}: \"{s}\"")
    for f in sorted((root / "python" / "bale").glob("*.py")):
        tree = ast.parse(f.read_text())
        docs = py_docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and \
                    isinstance(node.value, str) and id(node) not in docs \
                    and FLAG.search(node.value):
                bad.append(f"{f.relative_to(root)}:{node.lineno}: "
                           f"{node.value!r}")
    for b in bad:
        print(b)
    print(f"messages: {len(bad)} with a command line flag")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
