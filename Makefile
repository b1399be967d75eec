# Quick start: `make run` and `make test`. Both install what is missing, then build.
.PHONY: setup build build-dev run test bench format clean

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

test: build-dev
	@ctest --preset dev -j $(JOBS)

bench: build
	@./build/release/bench/rigplan_bench

format:
	@clang-format -i $$(git ls-files '*.h' '*.cc')

clean:
	@rm -rf build
