#!/usr/bin/env bash
# Installs the Debian packages rigplan needs to build and test, when they are missing.
# Idempotent: installs nothing when everything is present. Uses sudo when not root.
set -euo pipefail

packages=(
  cmake ninja-build g++ make pkg-config
  libcli11-dev nlohmann-json3-dev libtomlplusplus-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev libcpp-httplib-dev
  libmimalloc-dev             # the allocator of rigplan-serve
  clang libclang-rt-14-dev    # the asan preset: ASan, UBSan and libFuzzer (fuzz/)
  clang-format clang-tidy     # scripts/check_style.sh
  chromium fonts-dejavu-core  # the browser test of `rigplan serve` (tests/serve/browser_test.cc)
  wrk curl                    # scripts/load_test.sh
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "setup: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
