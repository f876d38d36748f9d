#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The module's layering: its include graph and call graph have no cycle.

usage: layers.py MODULE_SRC_DIR MODULE_OBJ_DIR

Nodes are the module's units: a file's name without its extension, so that
config.c and config.h are one unit "config".  Include edges: A -> B when a
file of unit A has '#include "B.h"' (B another unit).  Call edges, from the
built objects: A -> B when a symbol undefined in A.o ('U' in nm) is defined
in B.o (the kernel's own symbols are defined in no unit and make no edge).
Prints every edge as a '#' line, then 'ok'/'not ok' for each graph and for
the two together, naming a cycle when there is one.
"""
import os
import re
import subprocess
import sys


def find_cycle(nodes, edges):
    """A cycle of the graph as a list of nodes, or None (iterative DFS)."""
    state = {n: 0 for n in nodes}	# 0 new, 1 on the stack, 2 done
    for root in sorted(nodes):
        if state[root]:
            continue
        stack = [(root, iter(sorted(edges.get(root, ()))))]
        path = [root]
        state[root] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
                path.pop()
            elif state[nxt] == 1:
                return path[path.index(nxt):] + [nxt]
            elif state[nxt] == 0:
                state[nxt] = 1
                path.append(nxt)
                stack.append((nxt, iter(sorted(edges.get(nxt, ())))))
    return None


def include_edges(src):
    edges = {}
    for f in sorted(os.listdir(src)):
        if not f.endswith(('.c', '.h')):
            continue
        unit = f.rsplit('.', 1)[0]
        for inc in re.findall(r'^\s*#\s*include\s+"([^"/]+)\.h"', open(os.path.join(src, f)).read(),
                              re.M):
            if inc != unit and os.path.exists(os.path.join(src, inc + '.h')):
                edges.setdefault(unit, set()).add(inc)
    return edges


def call_edges(obj, units):
    defined, undef = {}, {}
    for u in units:
        out = subprocess.run(['nm', os.path.join(obj, u + '.o')], check=True,
                             capture_output=True, text=True).stdout
        for ln in out.splitlines():
            parts = ln.split()
            if len(parts) == 2 and parts[0] == 'U':
                undef.setdefault(u, set()).add(parts[1])
            elif len(parts) == 3 and parts[1].isupper():
                defined.setdefault(parts[2], set()).add(u)
    edges = {}
    for u, syms in undef.items():
        for s in syms:
            for d in defined.get(s, ()):
                if d != u:
                    edges.setdefault(u, set()).add(d)
    return edges


def report(name, nodes, edges):
    cyc = find_cycle(nodes, edges)
    if cyc:
        print(f'# {name}: cycle ' + ' -> '.join(cyc))
        print(f'not ok layers-{name}-acyclic')
    else:
        print(f'ok layers-{name}-acyclic')


def main():
    src, obj = sys.argv[1], sys.argv[2]
    # the module's sources (not kbuild's n3telemetry.mod.c)
    units = sorted(f[:-2] for f in os.listdir(src) if f.endswith('.c') and '.' not in f[:-2])
    missing = [u for u in units if not os.path.exists(os.path.join(obj, u + '.o'))]
    if missing:
        sys.exit(f'layers: not built: {missing}')
    inc = include_edges(src)
    call = call_edges(obj, units)
    nodes = set(units) | {f.rsplit('.', 1)[0] for f in os.listdir(src) if f.endswith('.h')}
    for name, edges in (('include', inc), ('call', call)):
        for a in sorted(edges):
            print(f'# {name}: {a} -> ' + ' '.join(sorted(edges[a])))
    both = {}
    for edges in (inc, call):
        for a, bs in edges.items():
            both.setdefault(a, set()).update(bs)
    report('include-graph', nodes, inc)
    report('call-graph', nodes, call)
    report('include-and-call-graph', nodes, both)


if __name__ == '__main__':
    main()
