# Quick start: `make run` and `make test`. Both install what is missing, then build.
.PHONY: setup build build-dev build-asan run test check-format test-dev test-asan tidy bench format clean

JOBS ?= $(shell nproc 2>/dev/null || echo 2)

setup:
	@bash scripts/setup.sh

build: setup
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)

build-dev: setup
	@cmake --preset dev >/dev/null
	@cmake --build --preset dev -j $(JOBS)

run: build
	@./build/release/rigplan recommend --preset kaggle --html build/rigplan-report.html

# The format check first (seconds), then the whole suite built by clang with ASan and UBSan, where
# each fuzz target runs RIGPLAN_FUZZ_SECONDS, then clang-tidy over src/ with the same compile
# commands. `make test-dev` runs the suite on the optimised GCC build that `make run` ships.
test: check-format test-asan tidy

check-format: setup
	@bash scripts/check_style.sh format

test-dev: build-dev
	@ctest --preset dev -j $(JOBS)

build-asan: setup
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j $(JOBS)

test-asan: build-asan
	@ctest --preset asan -j $(JOBS)

tidy: build-asan
	@bash scripts/check_style.sh tidy build/asan

bench: build
	@./build/release/bench/rigplan_bench

format:
	@clang-format -i $$(git ls-files '*.h' '*.cc')

clean:
	@rm -rf build
