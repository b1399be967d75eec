# Quick start: `make run` and `make test`. Both install what is missing, then build.
.PHONY: setup build build-dev run test check-format test-dev tidy test-asan bench format clean

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

# The format check first (seconds), then the suite and clang-tidy over src/. `make test-asan` runs
# the suite again with ASan and UBSan (clang), where each fuzz target runs RIGPLAN_FUZZ_SECONDS.
test: check-format test-dev tidy

check-format: setup
	@bash scripts/check_style.sh format

test-dev: build-dev
	@ctest --preset dev -j $(JOBS)

tidy: build-dev
	@bash scripts/check_style.sh tidy build/dev

test-asan: setup
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j $(JOBS)
	@ctest --preset asan -j $(JOBS)

bench: build
	@./build/release/bench/rigplan_bench

format:
	@clang-format -i $$(git ls-files '*.h' '*.cc')

clean:
	@rm -rf build
