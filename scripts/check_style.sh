#!/usr/bin/env bash
# The style checks that `make test` runs (CONTRIBUTING.md, "Style"):
#   scripts/check_style.sh format         every tracked .h and .cc file is clang-format clean
#   scripts/check_style.sh tidy BUILD_DIR the checks of .clang-tidy over src/, warnings as errors,
#                                         with the compile commands of a configured BUILD_DIR
# Exits non-zero with the offending files and lines; `make format` fixes the first.
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
  format)
    mapfile -t files < <(git ls-files '*.h' '*.cc')
    if ! clang-format --dry-run --Werror "${files[@]}"; then
      echo "check_style: the files above are not clang-format clean; run \`make format\`" >&2
      exit 1
    fi
    echo "check_style: ${#files[@]} files clang-format clean"
    ;;
  tidy)
    build="${2:?usage: scripts/check_style.sh tidy BUILD_DIR}"
    if ! run-clang-tidy -p "$build" -j "$(nproc)" -quiet "$PWD/src/" >"$build/clang-tidy.log" 2>&1; then
      grep -E "(error|warning):" "$build/clang-tidy.log" | sort -u >&2 || cat "$build/clang-tidy.log" >&2
      echo "check_style: clang-tidy found the problems above (full log: $build/clang-tidy.log)" >&2
      exit 1
    fi
    echo "check_style: $(grep -c "\"file\": \"$PWD/src/" "$build/compile_commands.json") files of src/ clang-tidy clean"
    ;;
  *)
    echo "usage: scripts/check_style.sh format | tidy BUILD_DIR" >&2
    exit 2
    ;;
esac
