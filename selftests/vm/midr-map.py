#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Which table the module picks for which MIDR, for the detect.sh kselftest.

Reads the module's MIDR range table (module/models_midr.h), the kernel's
MIDR_* names (arch/arm64/include/asm/cputype.h of the kernel the module is
built against, then module/coretype.c's for the ones older kernels lack)
and the table names (module/models.c); prints one line per
range, in the module's matching order:

    IMPLEMENTER PART VARIANT_MIN REVISION_MIN VARIANT_MAX REVISION_MAX TABLE

numbers in decimal, e.g. '65 3401 0 3 15 15 neoverse-n2-r0p3'.
usage: midr-map.py MODULE_DIR KERNEL_DIR"""
import re
import sys


def main():
    moddir, kdir = sys.argv[1], sys.argv[2]
    cputype = open(f'{kdir}/arch/arm64/include/asm/cputype.h').read() + \
        open(f'{moddir}/coretype.c').read()
    defs = dict(re.findall(r'^#define\s+(\w+)\s+(0[xX][0-9a-fA-F]+)\b', cputype, re.M))
    models = dict(re.findall(r'struct n3t_model (\w+) = \{\s*\.name = "([^"]+)"',
                             open(f'{moddir}/models.c').read()))

    def num(tok):
        tok = tok.strip()
        return int(defs.get(tok, tok), 0)

    def model(name):
        m = re.search(r'^#define\s+' + name + r'\s+MIDR_CPU_MODEL\((\w+),\s*(\w+)\)',
                      cputype, re.M)
        if not m:
            sys.exit(f'midr-map: {name} not in cputype.h')
        return num(m.group(1)), num(m.group(2))

    n = 0
    # each entry: '.model = &TABLE,' then its ranges, up to the next entry
    text = open(f'{moddir}/models_midr.h').read()
    for entry in re.split(r'(?=\.model = &)', text)[1:]:
        table = re.match(r'\.model = &(\w+)', entry).group(1)
        for m in re.finditer(r'(MIDR_ALL_VERSIONS|MIDR_RANGE)\((\w+)([^)]*)\)', entry):
            imp, part = model(m.group(2))
            if m.group(1) == 'MIDR_ALL_VERSIONS':
                rng = [0, 0, 15, 15]
            else:
                rng = [num(t) for t in m.group(3).split(',')[1:]]
            print(imp, part, *rng, models[table])
            n += 1
    if not n:
        sys.exit('midr-map: no ranges in models_midr.h')


if __name__ == '__main__':
    main()
