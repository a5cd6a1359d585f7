#!/usr/bin/env python3
"""usage: inline_mods.py SRC/lib.rs [SKIP_DIR...] > one_file.rs

Makes one self-contained Rust source from a crate's module tree: every out-of-line `mod NAME;`
(with optional visibility, attributes on the lines above it) becomes `mod NAME { ... }` holding
that module's file, recursively, the way rustc resolves them (NAME.rs or NAME/mod.rs, next to a
mod-rs file or in the directory named after a non-mod-rs file). A module whose file lies inside
SKIP_DIR (relative to SRC; the directory's own mod.rs is still inlined) is left out-of-line: give
such modules a cfg that is off. Inner
attributes and inner doc comments stay at the top of the inlined block, where Rust accepts them.
Deterministic: output depends only on the files read.
"""
import os
import re
import sys

MOD = re.compile(r'^(?P<indent>[ \t]*)(?P<vis>pub(?:\([^)]*\))?\s+)?mod\s+(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*;\s*(?://.*)?$')


def child_dir(path):
    base = os.path.basename(path)
    d = os.path.dirname(path)
    if base in ('lib.rs', 'main.rs', 'mod.rs'):
        return d
    return os.path.join(d, base[:-3])


def render(path, root, skips, out):
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    for line in lines:
        m = MOD.match(line)
        if not m:
            out.append(line)
            continue
        name = m.group('name')
        d = child_dir(path)
        cands = [os.path.join(d, name + '.rs'), os.path.join(d, name, 'mod.rs')]
        found = [c for c in cands if os.path.isfile(c)]
        rel = os.path.relpath(found[0], root) if found else None
        skipped = any(rel.startswith(s.rstrip('/') + '/') and rel != s.rstrip('/') + '/mod.rs'
                      for s in skips)
        if not found or skipped:
            out.append(line)
            continue
        out.append('%s%smod %s {' % (m.group('indent'), m.group('vis') or '', name))
        render(found[0], root, skips, out)
        out.append('%s}' % m.group('indent'))


def main():
    lib = sys.argv[1]
    root = os.path.dirname(lib)
    out = []
    render(lib, root, sys.argv[2:], out)
    sys.stdout.write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main()
