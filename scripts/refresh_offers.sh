#!/usr/bin/env bash
# Regenerates the shipped cloud offers, data/catalog/offers-skypilot-<cloud>.toml, from the
# SkyPilot catalog snapshot in rigplan's shared data, with rigplan's own importer
# (`rigplan offers import`, docs/prices.md). Run from anywhere; review the diff before committing.
#
#   scripts/refresh_offers.sh [PATH/TO/skypilot_prices.csv]
#
# The snapshot's files carry no date. rigplan shared/data/README.md says the v7 catalog was pinned
# in mid-2025 and asks to treat its prices as 2025; its AWS p5.48xlarge still has the list price
# that AWS cut in June 2025, so its AWS prices predate that month. Every price is dated 2025-06-01
# (docs/prices.md, "Dates").
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
source="${1:-../shared/data/skypilot_prices.csv}"  # relative to the repository
as_of="2025-06-01"
rigplan="${RIGPLAN:-$repo/build/release/rigplan}"

if [ ! -x "$rigplan" ]; then
  echo "refresh_offers: $rigplan is missing; run 'make build' first (or set RIGPLAN)" >&2
  exit 2
fi
# No user overlay: the shipped catalog must stand on its own.
empty_overlay="$(mktemp -d)"
trap 'rm -rf "$empty_overlay"' EXIT

# From the list's own directory, so that the files name it without a path of this machine.
source="$(cd "$repo" && realpath "$source")"
cd "$(dirname "$source")"
"$rigplan" --catalog "$repo/data/catalog" --overlay "$empty_overlay" \
  offers import "$(basename "$source")" --format skypilot --as-of "$as_of" --out "$repo/data/catalog"
rm -f "$repo"/data/catalog/offers-skypilot-*.toml.bak
