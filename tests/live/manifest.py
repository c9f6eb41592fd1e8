#!/usr/bin/env python3
"""Writes the manifest of an mfprio bundle directory, as `mfprio sprio --live --save` does:
a first line `mfprio-bundle 1`, then `file NAME SIZE DIGEST` for each input file of the
directory (its files, not its subdirectories; not the manifest itself), DIGEST the 64-bit
FNV-1a of the file's bytes in hex. `mfprio ... --from DIR` checks each file against it.

    manifest.py DIR
"""
import os
import sys


def fnv1a64(data: bytes) -> int:
    h = 14695981039346656037
    for b in data:
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def main() -> int:
    d = sys.argv[1]
    lines = ["mfprio-bundle 1"]
    for name in sorted(os.listdir(d)):
        p = os.path.join(d, name)
        if name == "manifest" or not os.path.isfile(p):
            continue
        data = open(p, "rb").read()
        lines.append(f"file {name} {len(data)} {fnv1a64(data):016x}")
    with open(os.path.join(d, "manifest"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
