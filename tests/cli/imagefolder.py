"""imagefolder.py - torchvision's ImageFolder rule, written out for the
test helpers that build other tools' datasets from a tree."""
import os

EXTS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff",
        ".webp")


def samples(root):
    """(relative path, label) in torchvision's make_dataset order."""
    classes = sorted(e.name for e in os.scandir(root) if e.is_dir())
    for label, c in enumerate(classes):
        for d, _, files in sorted(os.walk(os.path.join(root, c),
                                          followlinks=True)):
            for f in sorted(files):
                if f.lower().endswith(EXTS):
                    yield os.path.relpath(os.path.join(d, f), root), label
