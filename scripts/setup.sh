#!/usr/bin/env bash
# Installs what skelanim needs to build and test on Debian 12 (bookworm).
# Only missing packages are installed; runs apt-get as root or through sudo.
#   scripts/setup.sh            build dependencies
#   scripts/setup.sh --test     also the test tools (cmocka, clang sanitizers,
#                               Node.js + the Khronos glTF validator from npm,
#                               Python with numpy, cffi, pytest, matplotlib,
#                               doxygen for the API reference's test)
#   scripts/setup.sh --docs     build dependencies and doxygen (make docs)
#   scripts/setup.sh --web      what `make web` and `make web-test` need: emscripten,
#                               chromium, Node.js + puppeteer-core from npm (docs/web.md)
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(cmake ninja-build pkg-config gcc libcjson-dev zlib1g-dev libassimp-dev
      libepoxy-dev libegl-dev libegl-mesa0 libgl1-mesa-dri libpng-dev libgif-dev libstb-dev libsdl2-dev libimgui-dev libcairo2-dev libfontconfig-dev)
if [[ "${1:-}" == "--test" ]]; then
  pkgs+=(clang libclang-rt-14-dev libcmocka-dev xvfb xauth python3)
  # the Python package's tests (python/, docs/python.md)
  pkgs+=(python3-venv python3-pip python3-wheel python3-setuptools python3-numpy python3-cffi python3-pytest
         python3-matplotlib)
  command -v npm >/dev/null 2>&1 || pkgs+=(nodejs npm)
fi
# the API reference (make docs; tests/cli_apiref.sh under --test)
if [[ "${1:-}" == "--test" || "${1:-}" == "--docs" ]]; then
  pkgs+=(doxygen python3)
fi
if [[ "${1:-}" == "--web" ]]; then
  pkgs=(cmake ninja-build emscripten chromium python3)
  command -v npm >/dev/null 2>&1 || pkgs+=(nodejs npm)
fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    SUDO=sudo
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [[ "${1:-}" == "--test" && ! -d tools/validator/node_modules/gltf-validator ]]; then
  echo "setup: installing the Khronos glTF validator (npm ci in tools/validator)"
  (cd tools/validator && npm ci --no-audit --no-fund --loglevel=error)
fi
if [[ "${1:-}" == "--web" && ! -d tests/web/node_modules/puppeteer-core ]]; then
  echo "setup: installing puppeteer-core (npm ci in tests/web; it drives Debian's chromium, no browser download)"
  (cd tests/web && npm ci --no-audit --no-fund --loglevel=error)
fi
