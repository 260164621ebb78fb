#!/usr/bin/env python3
"""Code bytes by function of a WebAssembly module that carries a name section.

The shipped engine has no names: link the same objects again with --profiling-funcs, e.g.
  (cd build-wasm/wasm && em++ $(flags of CMakeFiles/engine_web.dir/link.txt) --profiling-funcs \\
     CMakeFiles/engine_web.dir/bindings.cpp.o ../engine/libscalelab_engine.a -o OUT/engine.js)
then
  python3 bench/wasm_sizes.py OUT/engine.wasm [--top 25]
prints the largest functions (demangled with c++filt) and the code bytes per family
(scalelab::, nlohmann, std::string, ...). See BENCHMARKS.md, "Bytes: what the engine is made of".
"""
import argparse
import collections
import subprocess

FAMILIES = ['nlohmann', 'emscripten::', 'basic_ostream', 'locale', 'basic_string', 'scalelab::',
            '__cxa', 'printf', 'strto', 'std::__2::']


def leb(data, i):
    value = shift = 0
    while True:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, i


def read_module(data):
    """(number of imported functions, code size of each defined function, names by index)"""
    imported, sizes, names = 0, [], {}
    i = 8
    while i < len(data):
        section = data[i]
        n, i = leb(data, i + 1)
        end = i + n
        if section == 2:  # imports: count the functions among them
            count, j = leb(data, i)
            for _ in range(count):
                for _ in range(2):  # module and field names
                    length, j = leb(data, j)
                    j += length
                kind = data[j]
                j += 1
                if kind == 0:
                    _, j = leb(data, j)
                    imported += 1
                elif kind == 1:  # table: element type, limits
                    flags, j = leb(data, j + 1)
                    _, j = leb(data, j)
                    if flags & 1:
                        _, j = leb(data, j)
                elif kind == 2:  # memory: limits
                    flags, j = leb(data, j)
                    _, j = leb(data, j)
                    if flags & 1:
                        _, j = leb(data, j)
                elif kind == 3:  # global: type, mutability
                    j += 2
                elif kind == 4:  # tag
                    j += 1
                    _, j = leb(data, j)
        elif section == 10:  # code: one body per defined function
            count, j = leb(data, i)
            for _ in range(count):
                size, k = leb(data, j)
                sizes.append(size + (k - j))
                j = k + size
        elif section == 0:
            length, j = leb(data, i)
            if data[j:j + length] == b'name':
                j += length
                while j < end:
                    sub = data[j]
                    sub_len, j = leb(data, j + 1)
                    sub_end = j + sub_len
                    if sub == 1:  # function names
                        count, k = leb(data, j)
                        for _ in range(count):
                            index, k = leb(data, k)
                            length, k = leb(data, k)
                            names[index] = data[k:k + length].decode('utf8', 'replace')
                            k += length
                    j = sub_end
        i = end
    return imported, sizes, names


def demangle(symbols):
    out = subprocess.run(['c++filt'], input='\n'.join(symbols), capture_output=True, text=True).stdout
    return out.split('\n')


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('wasm')
    ap.add_argument('--top', type=int, default=25)
    args = ap.parse_args()
    data = open(args.wasm, 'rb').read()
    imported, sizes, names = read_module(data)
    if not names:
        raise SystemExit(f'{args.wasm} has no function names: link it with --profiling-funcs')
    rows = sorted(((size, names.get(k + imported, '?')) for k, size in enumerate(sizes)), reverse=True)
    readable = demangle([name for _, name in rows])
    total = sum(sizes)
    print(f'{len(sizes)} functions, {total} code bytes')
    for (size, _), name in list(zip(rows, readable))[:args.top]:
        print(f'{size:8d}  {name[:160]}')
    families = collections.Counter()
    for (size, _), name in zip(rows, readable):
        families[next((f for f in FAMILIES if f in name), 'other')] += size
    print('\nby family:')
    for family, size in families.most_common():
        print(f'{size:8d}  {100 * size / total:5.1f} %  {family}')


if __name__ == '__main__':
    main()
