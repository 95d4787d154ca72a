#!/usr/bin/env python3
"""Checks that building one target builds every file given, by asking Ninja
for everything the target needs (ninja -t inputs): the demonstration must
build what `cmake --install` copies, so that the README's commands and an
install work in any order on one build folder.

Usage: demo_install_test.py NINJA BUILD_FOLDER TARGET FILE...
"""
import os
import subprocess
import sys


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    ninja, folder, target, files = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    listed = subprocess.run([ninja, "-C", folder, "-t", "inputs", target],
                            check=True, capture_output=True, text=True).stdout.split()
    needed = {os.path.normpath(os.path.join(folder, path)) for path in listed}
    missing = [path for path in files if os.path.normpath(path) not in needed]
    for path in missing:
        print(f"building {target} does not build {os.path.relpath(path, folder)}, "
              "which the install copies")
    if missing:
        sys.exit(1)
    print(f"building {target} builds all {len(files)} files the install copies")


if __name__ == "__main__":
    main()
