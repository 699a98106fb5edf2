# Quick start (Debian 12):
#   make demo   install what is missing, build, run the demo
#   make test   install what is missing (test tools too), build twice
#               (gcc; clang with AddressSanitizer+UBSan), run every test
# Other targets: build, bench, install (PREFIX=/usr/local), clean.
JOBS ?= $(shell nproc)
PREFIX ?= /usr/local

.PHONY: demo test build build-asan bench install clean setup setup-test

setup:
	@bash scripts/setup.sh

setup-test:
	@bash scripts/setup.sh --test

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

bench: build
	./build/skelanim bench load ../shared/assets/gltf

install: build
	cmake --install build --prefix $(PREFIX)

clean:
	rm -rf build build-test build-asan
