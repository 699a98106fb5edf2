# Sourced by tests/cli_porting_*.sh: builds one program of examples/porting/
# as a user would, against the public headers and the shared libraries of
# this build (-std=c11 -pedantic, warnings as errors), and checks that its
# porting guide shows it unchanged (tests/porting_check.py page).
# Needs: tests/lib.sh sourced, $tmp, a C compiler (SK_CC) and python3.

porting_build() {  # porting_build NAME PAGE  ->  $tmp/NAME
  local name=$1 page=$2
  python3 "$SK_SOURCE_DIR/tests/porting_check.py" page "$SK_SOURCE_DIR/docs/$page" \
    "$SK_SOURCE_DIR/examples/porting/$name.c"
  local lib
  for lib in skelanim skelanim_io; do
    [[ -f "$SK_BINARY_DIR/lib$lib.so" ]] || { echo "FAIL: missing $SK_BINARY_DIR/lib$lib.so" >&2; exit 1; }
  done
  # shellcheck disable=SC2086  # SK_CFLAGS is a list of flags
  "${SK_CC:-cc}" ${SK_CFLAGS:-} -std=c11 -pedantic -Wall -Wextra -Werror -I"$SK_SOURCE_DIR/include" \
    "$SK_SOURCE_DIR/examples/porting/$name.c" -o "$tmp/$name" \
    -L"$SK_BINARY_DIR" -lskelanim_io -lskelanim -Wl,-rpath,"$SK_BINARY_DIR" -lm
  echo "examples/porting/$name.c: built against $SK_BINARY_DIR/libskelanim_io.so and libskelanim.so"
}

# The input a program is checked on besides the mannequin: CesiumMan and its
# three.js oracle from ../shared (tests/lib.sh's rule when it is missing).
porting_cesium() {  # sets CESIUM and ORACLE, or returns 1
  local dir
  dir=$(sk_shared_dir) || { sk_missing_part "../shared (CesiumMan and its three.js oracle)"; return 1; }
  CESIUM="$dir/assets/gltf/CesiumMan/CesiumMan.glb"
  ORACLE="$dir/assets/gltf/CesiumMan/oracle.three.json"
  [[ -f "$CESIUM" && -f "$ORACLE" ]] || { sk_missing_part "$CESIUM or its oracle.three.json"; return 1; }
}

# A program refuses bad input with a message and exit status 1, not a crash.
porting_refuses() {  # porting_refuses PATTERN PROGRAM ARGS...
  local pattern=$1; shift
  local rc=0
  "$@" > "$tmp/refused.txt" 2> "$tmp/refused.err" || rc=$?
  if [[ $rc != 1 ]] || ! grep -q -- "$pattern" "$tmp/refused.err"; then
    echo "FAIL: $* exited with $rc (want 1 and a message matching '$pattern'):" >&2
    cat "$tmp/refused.err" >&2
    exit 1
  fi
}
