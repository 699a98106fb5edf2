#!/usr/bin/env bash
# Installs the built tree into a temporary prefix, then builds the example
# program against it twice: with pkg-config and with CMake's find_package.
# Needs cmake, pkg-config and a C compiler (SK_CC): without them tests/lib.sh's
# rule applies (a failure under CI, else skipped with a note).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_BINARY_DIR:?}" "${SK_SOURCE_DIR:?}"
sk_need_cmd cmake
sk_need_cmd pkg-config "Debian: pkg-config"
sk_need_cmd "${SK_CC:-cc}" "the C compiler the tree was built with"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$SK_BINARY_DIR" --prefix "$tmp/prefix" >/dev/null
libdir=$(ls -d "$tmp"/prefix/lib*/ | head -1)
test -f "$libdir/pkgconfig/skelanim.pc"
test -f "$libdir/pkgconfig/skelanim_io.pc"
test -f "$libdir/pkgconfig/skelanim_batch.pc"
test -f "$libdir/libskelanim_batch.a"
test -f "$tmp/prefix/include/skelanim/batch/batch.h"
test -f "$libdir/cmake/skelanim/skelanimConfig.cmake"
test -f "$tmp/prefix/include/skelanim.h"
test -f "$libdir/pkgconfig/skelanim_offline.pc"
test -f "$libdir/libskelanim_offline.a"
test -f "$tmp/prefix/include/skelanim/offline/compress.h"

# pkg-config, static library
export PKG_CONFIG_PATH="$libdir/pkgconfig"
"${SK_CC:-cc}" ${SK_CFLAGS:-} -std=c11 -Wall -Wextra -Werror "$SK_SOURCE_DIR/examples/print_joints.c" -o "$tmp/pj_pc" \
  $(pkg-config --cflags skelanim_io) "$libdir/libskelanim_io.a" "$libdir/libskelanim.a" $(pkg-config --libs --static zlib) -lm
"$tmp/pj_pc" | grep -q "position"
echo "pkg-config build of examples/print_joints.c: ok"
# libskelanim_io needs no cJSON (its JSON reader is src/io/json.c): not in
# its pkg-config file, and no object of the installed archive refers to it.
if pkg-config --print-requires-private skelanim_io | grep -qi cjson; then
  echo "skelanim_io.pc still requires cJSON" >&2; exit 1
fi
sk_need_cmd nm "Debian: binutils"
nm -u "$libdir/libskelanim_io.a" | awk '{print $2}' | sort -u > "$tmp/io_undef.txt"
test "$(wc -l < "$tmp/io_undef.txt")" -gt 5   # the archive was read
if grep -q '^cJSON_' "$tmp/io_undef.txt"; then
  echo "libskelanim_io.a refers to: $(grep '^cJSON_' "$tmp/io_undef.txt" | tr '\n' ' ')" >&2; exit 1
fi
echo "libskelanim_io: no cJSON in skelanim_io.pc or the archive: ok"

# the offline library (compressor, resampler) through pkg-config: the
# mannequin's walk resampled to 30 fps and compressed
cat > "$tmp/offline.c" <<'EOC'
#include <skelanim.h>
#include <stdio.h>
int main(void) {
    sk_asset *a = NULL;
    sk_clip *r = NULL, *c = NULL;
    sk_error err = {0};
    if (sk_mannequin_create(NULL, NULL, &a, &err) != SK_OK) return 1;
    if (sk_clip_resample(a->clips[0], a->skeleton, 30.0, NULL, &r, &err) != SK_OK) return 2;
    sk_compress_stats st;
    if (sk_clip_compress(r, a->skeleton, NULL, NULL, &c, &st, &err) != SK_OK) return 3;
    printf("compressed %zu bytes, max error %.4f cm\n", st.compressed_bytes, st.max_error_cm);
    sk_clip_destroy(c);
    sk_clip_destroy(r);
    sk_asset_destroy(a);
    return st.compressed_bytes > 0 ? 0 : 4;
}
EOC
"${SK_CC:-cc}" ${SK_CFLAGS:-} -std=c11 -Wall -Wextra -Werror "$tmp/offline.c" -o "$tmp/offline" \
  $(pkg-config --cflags skelanim_offline) "$libdir/libskelanim_offline.a" "$libdir/libskelanim.a" -lm
"$tmp/offline" | grep -q "compressed"
echo "pkg-config build against libskelanim_offline: ok"

# find_package
mkdir -p "$tmp/proj"
cat > "$tmp/proj/CMakeLists.txt" <<EOC
cmake_minimum_required(VERSION 3.16)
project(uses_skelanim C)
find_package(skelanim REQUIRED)
add_executable(pj "$SK_SOURCE_DIR/examples/print_joints.c")
target_link_libraries(pj PRIVATE skelanim::skelanim_io)
EOC
cmake -S "$tmp/proj" -B "$tmp/proj/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_C_COMPILER="${SK_CC:-cc}" \
  -DCMAKE_C_FLAGS="${SK_CFLAGS:-}" -DCMAKE_EXE_LINKER_FLAGS="${SK_CFLAGS:-}" >/dev/null
cmake --build "$tmp/proj/build" >/dev/null
"$tmp/proj/build/pj" | grep -q "position"
echo "find_package(skelanim) build of examples/print_joints.c: ok"

# libskelanim_batch (threads): pkg-config and find_package
"${SK_CC:-cc}" ${SK_CFLAGS:-} -std=c11 -Wall -Wextra -Werror "$SK_SOURCE_DIR/examples/batch_crowd.c" -o "$tmp/bc_pc" \
  $(pkg-config --cflags skelanim_batch) "$libdir/libskelanim_batch.a" "$libdir/libskelanim.a" -pthread -lm
pkg-config --libs --static skelanim_batch | grep -q -- "-pthread"
"$tmp/bc_pc" | grep -q "1000 characters, 60 frames"
echo "pkg-config build of examples/batch_crowd.c: ok"
mkdir -p "$tmp/proj2"
cat > "$tmp/proj2/CMakeLists.txt" <<EOC
cmake_minimum_required(VERSION 3.16)
project(uses_skelanim_batch C)
find_package(skelanim REQUIRED)
add_executable(bc "$SK_SOURCE_DIR/examples/batch_crowd.c")
target_link_libraries(bc PRIVATE skelanim::skelanim_batch)
EOC
cmake -S "$tmp/proj2" -B "$tmp/proj2/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_C_COMPILER="${SK_CC:-cc}" \
  -DCMAKE_C_FLAGS="${SK_CFLAGS:-}" -DCMAKE_EXE_LINKER_FLAGS="${SK_CFLAGS:-}" >/dev/null
cmake --build "$tmp/proj2/build" >/dev/null
"$tmp/proj2/build/bc" | grep -q "1000 characters, 60 frames"
echo "find_package(skelanim) build of examples/batch_crowd.c (skelanim::skelanim_batch): ok"
