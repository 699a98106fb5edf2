"""Generates the cffi declarations of the skelanim package from the public C headers.

Reads include/skelanim.h and the headers it includes with a small preprocessor
written here (so that installing the package needs no C compiler: cffi runs in
ABI mode), parses the result with pycparser and keeps what cffi's parser takes:
typedefs, structs, enums and the functions declared with SK_API. Dropped: the
static inline helpers (their bodies are not in the shared libraries) and
function-like macros (SK_POSE_OF). Integer macros become cffi #define lines;
floating-point macros a Python dict.

Usage: gen_cdef.py INCLUDE_DIR OUT.py   (writes CDEF, FLOAT_CONSTANTS, FUNCTIONS)
"""
import os
import re
import sys

# Types cffi knows by itself: pycparser needs them declared, the cdef must not redeclare them.
_STD_TYPEDEFS = {
    'size_t': 'unsigned long', 'ptrdiff_t': 'long', 'uintptr_t': 'unsigned long', 'intptr_t': 'long',
    'int8_t': 'signed char', 'uint8_t': 'unsigned char', 'int16_t': 'short', 'uint16_t': 'unsigned short',
    'int32_t': 'int', 'uint32_t': 'unsigned int', 'int64_t': 'long', 'uint64_t': 'unsigned long',
    'bool': '_Bool',
}
_STD_HEADERS = {'stddef.h', 'stdint.h', 'stdbool.h'}
_IDENT = re.compile(r'[A-Za-z_]\w*')


class PreprocessError(Exception):
    pass


def _strip_comments(text):
    """Removes /* */ and // comments (keeping newlines) and joins continued lines."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            if j < 0:
                raise PreprocessError('unterminated comment')
            out.append('\n' * text.count('\n', i, j) + ' ')
            i = j + 2
        elif text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
        else:
            out.append(c)
            i += 1
    return ''.join(out).replace('\\\n', ' ')


class Preprocessor:
    """Just what the public headers use: quoted includes below the include folder, the three
    standard headers, include guards, #ifdef/#ifndef/#if defined(...)/#else/#endif, object-like
    #define (expanded) and function-like #define (recorded, never expanded). Nothing is predefined:
    no __cplusplus, no __GNUC__ (so SK_API is empty and no __attribute__ survives)."""

    def __init__(self, include_dir):
        self.include_dir = include_dir
        self.macros = {}        # object-like: name -> replacement text
        self.function_macros = set()
        self.defined_in = {}    # name -> header (for the constants' listing)
        self.done = set()
        self.out = []

    def _expand(self, line, depth=0):
        if depth > 32:
            raise PreprocessError('macro recursion')
        changed = [False]

        def sub(m):
            name = m.group(0)
            if name in self.macros:
                changed[0] = True
                return self.macros[name]
            return name
        res = _IDENT.sub(sub, line)
        return self._expand(res, depth + 1) if changed[0] else res

    def _eval(self, expr, path):
        expr = re.sub(r'defined\s*\(\s*(\w+)\s*\)|defined\s+(\w+)',
                      lambda m: '1' if (m.group(1) or m.group(2)) in self.macros or
                      (m.group(1) or m.group(2)) in self.function_macros else '0', expr)
        expr = self._expand(expr)
        expr = expr.replace('||', ' or ').replace('&&', ' and ')
        expr = re.sub(r'!(?!=)', ' not ', expr)
        expr = _IDENT.sub(lambda m: m.group(0) if m.group(0) in ('or', 'and', 'not') else '0', expr)
        try:
            return bool(eval(expr, {'__builtins__': {}}))  # noqa: S307 (digits and operators only)
        except Exception as e:  # pragma: no cover
            raise PreprocessError('%s: cannot evaluate #if %s (%s)' % (path, expr, e))

    def include(self, rel):
        path = os.path.join(self.include_dir, rel)
        if path in self.done:
            return
        self.done.add(path)
        with open(path, encoding='utf-8') as f:
            text = _strip_comments(f.read())
        stack = []  # (taking, seen_true_branch, parent_taking)
        taking = True
        for line in text.split('\n'):
            s = line.strip()
            if s.startswith('#'):
                d = s[1:].strip()
                word = d.split(None, 1)[0] if d else ''
                rest = d[len(word):].strip()
                if word in ('ifdef', 'ifndef'):
                    cond = (rest in self.macros or rest in self.function_macros) == (word == 'ifdef')
                    stack.append((taking, cond))
                    taking = taking and cond
                elif word == 'if':
                    cond = self._eval(rest, path) if taking else False
                    stack.append((taking, cond))
                    taking = taking and cond
                elif word == 'else':
                    parent, cond = stack[-1]
                    taking = parent and not cond
                elif word == 'endif':
                    taking, _ = stack.pop()
                elif word in ('elif',):
                    raise PreprocessError('%s: #elif is not handled' % path)
                elif not taking:
                    pass
                elif word == 'include':
                    m = re.match(r'"([^"]+)"|<([^>]+)>', rest)
                    if m.group(1):
                        self.include(m.group(1))
                    elif m.group(2) not in _STD_HEADERS:
                        raise PreprocessError('%s: unexpected system header <%s>' % (path, m.group(2)))
                elif word == 'define':
                    m = re.match(r'(\w+)(\(?)(.*)', rest)
                    name, paren, body = m.group(1), m.group(2), m.group(3).strip()
                    if paren:
                        self.function_macros.add(name)
                    else:
                        self.macros[name] = body
                        self.defined_in[name] = rel
                elif word == 'undef':
                    self.macros.pop(rest, None)
                else:
                    raise PreprocessError('%s: unexpected directive #%s' % (path, word))
            elif taking:
                self.out.append(self._expand(line))
        if stack:
            raise PreprocessError('%s: unbalanced #if' % path)


_INT_LITERAL = re.compile(r'^\(?\s*(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\s*\)?$')
_FLOAT_LITERAL = re.compile(r'^\(?\s*([0-9.]+(?:[eE][-+]?\d+)?)[fF]?\s*\)?$')


def generate(include_dir):
    """Returns (cdef text, {float macro: value}, [(function, header layer)])."""
    from pycparser import c_ast, c_generator, c_parser

    pp = Preprocessor(include_dir)
    pp.include('skelanim.h')
    prelude = ''.join('typedef %s %s;\n' % (v, k) for k, v in _STD_TYPEDEFS.items())
    source = prelude + '\n'.join(pp.out)
    ast = c_parser.CParser().parse(source, filename='<skelanim.h>')
    gen = c_generator.CGenerator()
    lines, functions = [], []
    for node in ast.ext:
        if isinstance(node, c_ast.FuncDef):
            continue  # static inline helpers
        if isinstance(node, c_ast.Typedef) and node.name in _STD_TYPEDEFS:
            continue
        if isinstance(node, c_ast.Decl) and 'static' in (node.storage or []):
            continue
        if isinstance(node, c_ast.Decl) and isinstance(node.type, c_ast.FuncDecl):
            functions.append(node.name)
        text = gen.visit(node)
        # cffi's parser takes integer suffixes only on plain literals: drop them everywhere.
        text = re.sub(r'\b(0[xX][0-9a-fA-F]+|\d+)[uU]\b', r'\1', text)
        lines.append(text + ';')
    ints, floats = [], {}
    for name, body in sorted(pp.macros.items()):
        if not name.startswith('SK_') or name in ('SK_API',):
            continue
        m = _INT_LITERAL.match(body)
        if m:
            ints.append('#define %s %d' % (name, int(m.group(1), 0)))
            continue
        m = _FLOAT_LITERAL.match(body)
        if m:
            floats[name] = float(m.group(1))
    # Which header declares each function: the layer decides the library.
    layer_of = {}
    for root, _, files in os.walk(os.path.join(include_dir, 'skelanim')):
        for fn in files:
            if fn.endswith('.h'):
                with open(os.path.join(root, fn), encoding='utf-8') as f:
                    for m in re.finditer(r'\b(sk_\w+)\s*\(', _strip_comments(f.read())):
                        layer_of.setdefault(m.group(1), os.path.basename(root))
    return '\n'.join(ints + lines) + '\n', floats, [(f, layer_of.get(f, '?')) for f in functions]


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    cdef, floats, functions = generate(argv[1])
    tmp = argv[2] + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as f:
        f.write('# Generated by skelanim_build/gen_cdef.py from the public headers. Do not edit.\n')
        f.write('CDEF = %r\n' % cdef)
        f.write('FLOAT_CONSTANTS = %r\n' % floats)
        f.write('FUNCTIONS = %r\n' % functions)
    os.replace(tmp, argv[2])
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
