#!/usr/bin/env python3
"""Audit of the numbers in rigplan's C++ sources (src/, include/), for the rule that no constant
states a price, a rate or a hardware fact without a named source (CONTRIBUTING.md, "Every number
traceable": facts live in data/, model constants are named and sourced).

A. Named numeric constants (constexpr / const / #define with a number): sourced when the comment
   block just above the definition, or on its line, names a source: a citation (author, year,
   paper), a file of the project (.md, .toml, .csv, data/, docs/), a URL, a vendor document, or
   says "assumption"/"recall"/"derived"/"measured".
B. Bare numbers in expressions, other than 0, 1, 2 and unit conversions, outside files whose
   numbers are not facts (schema range limits, chart layout, calendar arithmetic, input limits).
Usage: scripts/audit_constants.py [REPO]   (prints both lists and their counts)
List A should hold only numbers that are not facts (limits, search spaces, fitting settings, unit
conversions); list B is read by hand: identities and formulas of the models, defaults of options.
"""
import re, sys, pathlib

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
NUM = r"(?:\d[\d']*\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)"
num_re = re.compile(r"(?<![\w.])(" + NUM + r")[fFuUlL]*(?![\w.])")
def_re = re.compile(r"^\s*(?:(?:inline|static|constexpr|const)\s+)+[\w:<>]+\s+(k[A-Z]\w*)(\[\])?\s*=\s*(.*)")
define_re = re.compile(r"^\s*#define\s+(\w+)\s+(" + NUM + ")")
SOURCE = re.compile(
    r"et al|\b(19|20)\d\d\b|https?://|\.md\b|\.toml\b|\.csv\b|data/|docs/|datasheet|whitepaper|"
    r"recall|assum|derived|measured|documentation|docs\b|README|PyTorch|NVIDIA|PCI-SIG|NEC|"
    r"Dettmers|d2l|Calculon|llm-analysis|Megatron|DeepSpeed|vLLM|CUTLASS|Tukey|Kleinrock|"
    r"hardware\.md|models\.md|section|paper|guide|spec|\.py\b|by counting|default", re.I)
# Numbers that state no fact: identities, unit conversions, format widths.
NOT_FACTS = {"0", "1", "2", "0.0", "1.0", "2.0", "1e3", "1e6", "1e9", "1e12", "1e15", "1e18",
             "1e-3", "1e-6", "1e-9", "1e-12", "1000", "1000.0", "1024", "1024.0", "3600", "3600.0",
             "60", "60.0", "8", "8.0", "24", "365", "12", "100", "100.0", "1e4", "10000",
             "86400", "365.25", "36.525", "1.048576", "1073741824.0", "8760", "10", "4", "3",
             "5", "6", "16", "32", "64"}
# Files whose bare numbers are sanity limits, layout, calendar or protocol constants.
NOT_FACT_FILES = ("src/catalog/schema.cc", "src/workload/workload_schema.cc",
                  "src/rig/build_file.cc", "src/prices/price_list_rules.cc",
                  "src/model/engines.cc", "src/report/", "src/catalog/date.cc",
                  "include/rigplan/input.h", "src/serve/", "src/cli/cli_context.h", "src/util/", "src/input/",
                  "src/catalog/catalog_image.cc", "src/catalog/toml_decode.h")

def strip(line, state):
    out, i = [], 0
    while i < len(line):
        if state["block"]:
            j = line.find("*/", i)
            if j < 0: return "".join(out)
            state["block"] = False; i = j + 2; continue
        if line.startswith("//", i): break
        if line.startswith("/*", i): state["block"] = True; i += 2; continue
        c = line[i]
        digit_sep = c == "'" and 0 < i < len(line) - 1 and line[i-1].isdigit() and line[i+1].isdigit()
        if c in "\"'" and not digit_sep:
            j = i + 1
            while j < len(line) and line[j] != c:
                j += 2 if line[j] == "\\" else 1
            out.append(" "); i = j + 1; continue
        out.append(c); i += 1
    return "".join(out)

def comment_above(lines, n):
    """The // comment block right above line n (1-based), plus the line's own comment."""
    text = []
    own = lines[n-1].split("//", 1)
    if len(own) == 2: text.append(own[1])
    k = n - 2
    while k >= 0 and lines[k].strip().startswith("//"):
        text.append(lines[k].strip()[2:]); k -= 1
    # a group of constants shares the block above the first one
    while k >= 0 and not text and def_re.match(lines[k]):
        k -= 1
        while k >= 0 and lines[k].strip().startswith("//"):
            text.append(lines[k].strip()[2:]); k -= 1
    return " ".join(text)

files = sorted(list(root.glob("src/**/*.cc")) + list(root.glob("src/**/*.h")) +
               list(root.glob("include/**/*.h")))
named, unsourced, bare = [], [], []
for path in files:
    rel = str(path.relative_to(root))
    lines = path.read_text().splitlines()
    state = {"block": False}
    for n, raw in enumerate(lines, 1):
        code = strip(raw, state)
        m = def_re.match(code) or define_re.match(code)
        fact_file = not rel.startswith(NOT_FACT_FILES + ("src/cli/",))
        if m and fact_file and num_re.search(m.group(m.lastindex)):
            value = m.group(m.lastindex).strip().rstrip(";")
            entry = f"{rel}:{n}: {m.group(1)} = {value[:60]}"
            named.append(entry)
            if not SOURCE.search(comment_above(lines, n)): unsourced.append(entry)
            continue
        if rel.startswith(NOT_FACT_FILES) or code.lstrip().startswith("#"): continue
        hits = [h for h in num_re.findall(code) if h not in NOT_FACTS]
        if hits: bare.append(f"{rel}:{n}: {','.join(hits)} | {raw.strip()[:100]}")

print(f"== A. named numeric constants outside limit/layout files: {len(named)}; "
      f"without a named source: {len(unsourced)}")
for e in unsourced: print("  " + e)
print(f"== B. bare numbers in expressions (to classify by hand): {len(bare)}")
for e in bare: print("  " + e)
