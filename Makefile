# Quick start (Debian 12):
#   make demo   install what is missing, build, run the demo
#   make test   install what is missing (test tools too), build twice
#               (gcc; clang with AddressSanitizer+UBSan), run every test,
#               the Python suite, the browser viewer (web-test-ci), TSan
#               and the fuzzers' smoke pass
#   make fuzz   build the libFuzzer harnesses (clang) and run each for
#               FUZZ_SECONDS (default 60); docs/robustness.md, "Fuzzing"
#   make tsan   ThreadSanitizer build (clang) of the playback, blending,
#               state-machine, locomotion, thread and batch tests, and run them
#   make python build the libraries and install the Python package (python/)
#               into the venv .venv over them (docs/python.md)
#   make web    the browser viewer with Debian's emscripten: build-web/ is one
#               static folder any file server can host (docs/web.md)
#   make web-test  it in headless chromium (tests/web/run.js)
#   make web-screenshot  docs/img/web-viewer.png, the README's picture of the viewer
#   make test-nosimd  build without any SSE/AVX/AVX-512 path (-DSK_SIMD=OFF,
#               build-nosimd: the plain-C code WebAssembly runs) and run every
#               test there under CI=true
#   make docs   the API reference: build/docs/html/index.html (doxygen;
#               the porting guides docs/porting-*.md among its pages)
# Other targets: build, bench, install (PREFIX=/usr/local), clean,
# fuzz-smoke (each harness for FUZZ_SMOKE_SECONDS over its regression corpus
# and seeds; `make test` runs it and `make tsan`).
JOBS ?= $(shell nproc)
PREFIX ?= /usr/local
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 5
# Debian's interpreter (numpy, cffi, pytest from apt), not a python3 earlier on PATH.
PYTHON ?= /usr/bin/python3
VENV ?= .venv
# The tests `make tsan` runs (ctest names).
TSAN_TESTS = test_player test_blend test_blendspace test_statemachine test_sync test_terrain test_locomotor test_threads test_batch

.PHONY: web web-test web-test-ci web-screenshot python python-test demo test build build-asan build-fuzz build-tsan build-nosimd test-nosimd docs fuzz fuzz-smoke tsan bench install clean setup setup-test setup-docs

setup:
	@bash scripts/setup.sh

setup-test:
	@bash scripts/setup.sh --test

setup-docs:
	@bash scripts/setup.sh --docs

build: setup
	@cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSK_BUILD_TESTS=OFF >/dev/null
	@cmake --build build -j $(JOBS)

demo: build
	@./build/skelanim demo

build-test: setup-test
	cmake -S . -B build-test -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=gcc -DSK_WERROR=ON >/dev/null
	cmake --build build-test -j $(JOBS)

build-asan: setup-test
	cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang -DSK_SANITIZE=ON -DSK_WERROR=ON >/dev/null
	cmake --build build-asan -j $(JOBS)

test: build-test build-asan
	@echo "== tests: gcc release build =="
	ctest --test-dir build-test --output-on-failure -j $(JOBS)
	@echo "== tests: clang AddressSanitizer + UndefinedBehaviorSanitizer build =="
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir build-asan --output-on-failure -j $(JOBS)
	@$(MAKE) --no-print-directory python-test
	@$(MAKE) --no-print-directory web-test-ci
	@$(MAKE) --no-print-directory tsan
	@$(MAKE) --no-print-directory fuzz-smoke

# The Python package: installed into a venv that sees Debian's numpy and cffi (Debian refuses pip
# into the system interpreter), the libraries found through the folder recorded at install.
python: build
	$(PYTHON) -m venv --system-site-packages $(VENV)
	SKELANIM_LIB_DIR=$(CURDIR)/build $(VENV)/bin/pip install -q --no-build-isolation --no-index ./python
	@echo "python: $(VENV)/bin/python -c 'import skelanim' (libraries: $(CURDIR)/build)"

# make test's step: the same install over build-test's libraries, then the pytest suite.
python-test: build-test
	@echo "== tests: Python package (venv build-test/venv over build-test's libraries) =="
	$(PYTHON) -m venv --system-site-packages build-test/venv
	SKELANIM_LIB_DIR=$(CURDIR)/build-test build-test/venv/bin/pip install -q --no-build-isolation --no-index ./python
	cd build-test && SKELANIM_EXPECT_INSTALLED=1 SKELANIM_CLI=$(CURDIR)/build-test/skelanim venv/bin/python -m pytest -q -p no:cacheprovider ../python/tests

# libFuzzer harnesses (fuzz/): clang, everything instrumented (ASan, UBSan, coverage); the
# tool's C++ panel left out (g++ knows no fuzzer instrumentation, and no harness needs it).
build-fuzz: setup-test
	cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" -DCMAKE_C_COMPILER=clang \
	  -DSK_FUZZ=ON -DSK_BUILD_TESTS=OFF -DSK_PANEL=OFF -DSK_WERROR=ON >/dev/null
	cmake --build build-fuzz -j $(JOBS) --target fuzzers skelanim

fuzz: build-fuzz
	@echo "== fuzzing: each harness for $(FUZZ_SECONDS) s (corpora in build-fuzz/fuzz-corpus) =="
	SK_CLI=build-fuzz/skelanim bash fuzz/run.sh build-fuzz $(FUZZ_SECONDS)

fuzz-smoke: build-fuzz
	@echo "== fuzzing: regression corpus and seeds, then each harness for $(FUZZ_SMOKE_SECONDS) s =="
	rm -rf build-fuzz/fuzz-seed build-fuzz/fuzz-artifacts
	SK_CLI=build-fuzz/skelanim bash fuzz/run.sh build-fuzz $(FUZZ_SMOKE_SECONDS)

# ThreadSanitizer: the tests that share data between instances, tests/test_threads.c and
# tests/test_batch.c (the worker pool of libskelanim_batch).
build-tsan: setup-test
	cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" -DCMAKE_C_COMPILER=clang \
	  -DSK_TSAN=ON -DSK_PANEL=OFF -DSK_WERROR=ON >/dev/null
	cmake --build build-tsan -j $(JOBS) --target $(TSAN_TESTS)

tsan: build-tsan
	@echo "== tests: clang ThreadSanitizer build ($(TSAN_TESTS)) =="
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  ctest --test-dir build-tsan --output-on-failure -j $(JOBS) -R '^($(subst $(eval) ,|,$(TSAN_TESTS)))$$'

# The browser viewer: emcmake over the same CMakeLists.txt (the runtime and io libraries and
# web/). Debian's emscripten runs its JavaScript optimiser with Node.js modules from
# /usr/share/nodejs; its system libraries come prebuilt (its cache), so nothing is built
# there on first use (an EM_CACHE of your own is used as given).
EM_NODE_PATH ?= /usr/share/nodejs
web:
	@bash scripts/setup.sh --web
	NODE_PATH=$(EM_NODE_PATH) emcmake cmake -S . -B build-web -G Ninja -DCMAKE_BUILD_TYPE=Release -DSK_WERROR=ON >/dev/null
	NODE_PATH=$(EM_NODE_PATH) cmake --build build-web -j $(JOBS) --target skelanim_web
	@echo "web: build-web/ (serve it: python3 -m http.server -d build-web, open http://localhost:8000/)"

# The viewer in Debian's headless chromium against python3 -m http.server; the native tool
# (build/skelanim) is the reference for the clip counts.
web-test: web build
	node tests/web/run.js build-web build/skelanim

# The README's picture of the viewer (the whole page, the mannequin mid-stride).
web-screenshot: web
	node tests/web/run.js build-web --screenshot docs/img/web-viewer.png

# make test's pass: the same test, build-test's tool the reference (no third native build).
web-test-ci: web build-test
	@echo "== tests: the browser viewer (WebAssembly, headless chromium) =="
	node tests/web/run.js build-web build-test/skelanim

# The plain-C paths: every SSE2/AVX2/AVX-512 kernel and the CPU dispatch compiled out
# (-DSK_SIMD=OFF), the whole suite run over them, CI=true (a missing input fails).
build-nosimd: setup-test
	cmake -S . -B build-nosimd -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=gcc -DSK_SIMD=OFF -DSK_WERROR=ON >/dev/null
	cmake --build build-nosimd -j $(JOBS)

test-nosimd: build-nosimd
	@echo "== tests: build without SIMD (-DSK_SIMD=OFF) =="
	CI=true ctest --test-dir build-nosimd --output-on-failure -j $(JOBS)

# The API reference: doxygen over include/skelanim/ (docs/Doxyfile, main page docs/api.md), in
# build/docs/ beside `make build`'s CMake files (CMake writes no docs/ folder there; make clean
# removes both).
docs: setup-docs
	rm -rf build/docs/html build/docs/xml
	mkdir -p build/docs
	( cat docs/Doxyfile; echo "PROJECT_NUMBER = $$(sed -n 's/^#define SK_VERSION_STRING "\(.*\)"/\1/p' include/skelanim/core/base.h)"; echo "WARN_AS_ERROR = FAIL_ON_WARNINGS" ) | doxygen -
	@echo "docs: build/docs/html/index.html"

bench: build
	./build/skelanim bench load ../shared/assets/gltf

install: build
	cmake --install build --prefix $(PREFIX)

clean:
	rm -rf build build-test build-asan build-fuzz build-tsan build-web build-nosimd build-docs $(VENV) python/build python/skelanim.egg-info
