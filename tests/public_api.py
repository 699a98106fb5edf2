# Lists the functions the public headers declare, from clang's syntax tree of
# include/skelanim.h (clang -Xclang -ast-dump=json): one line per function,
# "LAYER NAME", for every function declared in include/skelanim/LAYER/*.h
# that is not static (static inline helpers are not exported).
# A declaration without SK_API is listed all the same: the export test then
# finds it missing from the shared libraries.
import json
import sys

ast = json.load(sys.stdin)
where = {'file': None}


def seen(loc):
    """Follows clang's location elision: a file is named only when it changes."""
    if not isinstance(loc, dict):
        return None
    for k in ('spellingLoc', 'expansionLoc'):
        if k in loc:
            seen(loc[k])
    if 'file' in loc:
        where['file'] = loc['file']
    return where['file']


def walk(node, top, out):
    seen(node.get('loc'))
    rng = node.get('range', {})
    begin = seen(rng.get('begin'))
    seen(rng.get('end'))
    if top and node.get('kind') == 'FunctionDecl' and node.get('storageClass') != 'static':
        f = begin or where['file'] or ''
        i = f.find('include/skelanim/')
        if i >= 0:
            layer = f[i + len('include/skelanim/'):].split('/')[0]
            out.add((layer, node['name']))
    for child in node.get('inner', []):
        walk(child, False, out)


out = set()
for decl in ast.get('inner', []):
    walk(decl, True, out)
for layer, name in sorted(out):
    print(layer, name)
