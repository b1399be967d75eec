#!/usr/bin/env bash
# Rewrites the expected files of the golden tests (tests/golden/<case>/expected.*) from the
# current build, on purpose: after a change that is meant to alter rigplan's output.
#
#   scripts/update_golden.sh            every case
#   scripts/update_golden.sh CASE...    those cases (directory names under tests/golden/)
#
# A file is rewritten only where the output differs beyond the runner's numeric tolerance.
# Review `git diff tests/golden` before committing: every changed line is a change users see.
# BUILD_DIR (default build/dev) is the configured build tree whose rigplan is run.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build/dev}
if [[ ! -d $build_dir ]]; then
  echo "update_golden.sh: no build tree at $build_dir; run 'cmake --preset dev' first" >&2
  exit 2
fi
if ! log=$(cmake --build "$build_dir" --target rigplan golden_runner 2>&1); then
  echo "$log" >&2
  exit 1
fi

cases=("$@")
if [[ ${#cases[@]} -eq 0 ]]; then
  for cmd in tests/golden/*/cmd; do cases+=("$(basename "$(dirname "$cmd")")"); done
fi
for name in "${cases[@]}"; do
  if [[ ! -f tests/golden/$name/cmd ]]; then
    echo "update_golden.sh: tests/golden/$name/cmd does not exist" >&2
    exit 2
  fi
  "$build_dir/tests/golden_runner" --update --rigplan "$build_dir/rigplan" \
    --case "tests/golden/$name" --data tests/data --scratch "$build_dir/tests/golden/$name"
done
echo "updated ${#cases[@]} golden case(s); review before committing:"
git status --short tests/golden
