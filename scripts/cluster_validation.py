#!/usr/bin/env python3
"""Builds validation/cluster.csv from the public measurements of LLM training at scale.

Usage: scripts/cluster_validation.py CLUSTER_TRAINING_THROUGHPUT_CSV > validation/cluster.csv

The input is cluster_training_throughput.csv of the shared data folder: Megatron-LM, torchtitan
and llm-foundry runs with their parallel layouts, one row per published figure with its source,
repository, path and commit. The output follows the validation contract of `rigplan validate`
with the layout columns (tp, pp, cp, ep, vp, micro_batch, global_batch, recompute,
sequence_parallel, link, nodes, zero), the framework that ran it and whether it ran under
torch.compile (the `compile` column: 1 where the source says so, empty where it does not).
Every row is an absolute row (empty ref, a group of its own): it is scored against its own
measurement, in tokens/s over all GPUs. Every output row names where it came from in `source` and how it was read in `note`.

Rows are kept only when the GPU is in the catalog, the model in the zoo and the run described
fully enough to predict; the others are listed with the reason on standard error (and in
validation/README.md). Published figures other than tokens/s are converted with the source's own
FLOP count (see `tokens_per_s`).
"""

import csv
import math
import sys

HEADER = [
    "group", "ref", "gpu", "num_gpus", "workload", "mode", "precision", "weights", "method",
    "optimizer", "lora_rank", "batch_per_gpu", "seq_len", "grad_checkpointing", "metric", "value",
    "unit", "source", "tp", "pp", "cp", "ep", "vp", "micro_batch", "global_batch", "recompute",
    "sequence_parallel", "link", "nodes", "fabric", "gpus_per_nic", "zero", "flash_attention",
    "framework", "compile", "note",
]

# The framework that ran each source group's runs, as `rigplan --framework` names it: its level
# sets the speed of workloads with no measured speed (docs/performance.md, "Frameworks").
FRAMEWORKS = {"A_megatron_readme": "megatron-lm", "C_torchtitan": "torchtitan"}

# Dense FP16/BF16 tensor peak of an A100, TFLOP/s: what Megatron-LM's MFU is a share of
# (NVIDIA A100 datasheet, 312 TFLOPS without sparsity).
A100_PEAK_TFLOPS = 312.0
GPUS_PER_NODE = 8  # DGX A100 (Selene), HGX H200 and the A100 clusters of these runs

# Model names as the file writes them -> zoo ids (data/workloads/megatron.toml for the GPT models).
MODELS = {
    "GPT-2-style 1B (Megatron-LM 2020 scaling case)": "megatron-gpt2-1.2b",
    "GPT-2-style 2B (Megatron-LM 2020 scaling case)": "megatron-gpt2-2b",
    "GPT-2-style 4B (Megatron-LM 2020 scaling case)": "megatron-gpt2-4b",
    "GPT-2-style 8B (Megatron-LM 2020 scaling case)": "megatron-gpt2-8b",
    "GPT 22B (Korthikanti et al. 2022 config)": "megatron-22b",
    "GPT 175B (Korthikanti et al. 2022 config)": "gpt3-175b",
    "GPT 530B (Korthikanti et al. 2022 config)": "megatron-530b",
    "GPT 1T (Korthikanti et al. 2022 config)": "megatron-1t",
    "GPT-3 175B (examples/gpt3 175B script)": "gpt3-175b",
    "Llama 3 8B": "llama-3-8b",
    "Llama 3 70B": "llama-3-70b",
    "Llama 2 13B": "llama-2-13b",
    "Llama 2 70B": "llama-2-70b",
    "Llama 3.1 8B": "llama-3.1-8b",
    "Llama 3.1 70B": "llama-3.1-70b",
    "Llama 3.1 405B": "llama-3.1-405b",
}

# The SC21 weak-scaling runs (Narayanan et al. 2021, Table 1): zoo id and (tp, pp) by size in
# billions. The file has the GPU and data-parallel counts but not the split of the model-parallel
# size; the split is recalled from the paper and checked here against tp x pp x dp = GPUs.
SC21 = {
    "1.7": ("megatron-1.7b", 1, 1), "3.6": ("megatron-3.6b", 2, 1), "7.5": ("megatron-7.5b", 4, 1),
    "18.4": ("megatron-18b", 8, 1), "39.1": ("megatron-39b", 8, 2), "76.1": ("megatron-76b", 8, 4),
    "145.6": ("megatron-145b", 8, 8), "310.1": ("megatron-310b", 8, 16),
    "529.6": ("megatron-530b", 8, 35), "1008.0": ("megatron-1t", 8, 64),
}

# Zoo shapes the FLOP conversions need: layers, hidden size, vocabulary (51,200: Megatron-LM's
# padded GPT-2 vocabulary).
SHAPES = {
    "megatron-gpt2-1.2b": (24, 1920), "megatron-gpt2-2b": (30, 2304),
    "megatron-gpt2-4b": (36, 3072), "megatron-gpt2-8b": (42, 4096),
    "megatron-1.7b": (24, 2304), "megatron-3.6b": (30, 3072), "megatron-7.5b": (36, 4096),
    "megatron-18b": (40, 6144), "megatron-39b": (48, 8192), "megatron-76b": (60, 10240),
    "megatron-145b": (80, 12288), "megatron-310b": (96, 16384), "megatron-530b": (105, 20480),
    "megatron-1t": (128, 25600), "megatron-22b": (48, 6144), "gpt3-175b": (96, 12288),
}
VOCAB = 51200


def gpu_of(r):
    """Catalog id of the row's GPU and how it was read, or (None, reason)."""
    g = r["gpu"]
    if g.startswith("NVIDIA V100 (DGX-2)"):
        return None, "GPU: the DGX-2's V100 is the SXM3 32 GB part (350 W), not in the catalog"
    if g.startswith("NVIDIA A100 (DGX-A100)"):
        return "a100-sxm4-40gb", "DGX-A100 of the 2020 table: the 40 GB SXM4 part (the 80 GB came later)"
    if g.startswith("NVIDIA A100 80GB") or g == "a100_80gb":
        return "a100-sxm4-80gb", ""
    if g == "NVIDIA A100":
        return "a100-sxm4-80gb", "GPU memory not stated: Selene's A100 SXM4 80 GB assumed"
    if g.startswith("NVIDIA H200"):
        return "h200-sxm-141gb", "8 H200 per host over NVLink: the SXM part"
    if "96GB HBM2e" in g or "HBM2e 94/95GB" in g:
        return None, ("GPU: Meta's H100 SXM with 96 GB HBM2e at a lower power limit, not in the "
                      "catalog (its bandwidth and clocks differ from h100-sxm5-80gb)")
    return None, f"GPU '{g}' is not in the catalog"


def flops_per_token(workload, seq, recompute_count):
    """Megatron-LM's FLOPs per token: 72·L·h²·(1 + s/(6h) + V/(12·L·h)) for the model (MFU,
    Korthikanti et al. 2022), 96·L·h²·(1 + s/(6h) + V/(16·L·h)) with full recomputation
    (Narayanan et al. 2021, eq. 3, the count behind their TFLOP/s figures)."""
    layers, h = SHAPES[workload]
    if recompute_count:
        return 96 * layers * h * h * (1 + seq / (6 * h) + VOCAB / (16 * layers * h))
    return 72 * layers * h * h * (1 + seq / (6 * h) + VOCAB / (12 * layers * h))


def tokens_per_s(r, workload, seq, gpus, global_batch):
    """The run's tokens/s over all GPUs and how it was derived."""
    metric, value = r["metric"], float(r["value"])
    if metric == "iteration_time_s":
        return global_batch * seq / value, (
            f"tokens/s = global batch {global_batch} x seq {seq} / iteration {value} s")
    if metric == "tokens_per_s_per_gpu":
        return value * gpus, f"tokens/s = {value} per GPU x {gpus} GPUs"
    if metric == "achieved_tflops_per_gpu":
        f = flops_per_token(workload, seq, True)
        return value * 1e12 * gpus / f, (
            f"tokens/s = {value} TFLOP/s per GPU x {gpus} GPUs / {f:.4g} FLOP per token "
            "(Narayanan et al. 2021 eq. 3, with recomputation, the count of the published figure)")
    if metric == "mfu_pct":
        f = flops_per_token(workload, seq, False)
        return value / 100 * A100_PEAK_TFLOPS * 1e12 * gpus / f, (
            f"tokens/s = MFU {value}% x {A100_PEAK_TFLOPS:.0f} TFLOP/s x {gpus} GPUs / {f:.4g} model "
            "FLOP per token (Korthikanti et al. 2022's model FLOPs)")
    raise ValueError(metric)


def fabric_of(r):
    """(catalog fabric id, note) of the network between the row's nodes."""
    if r["source_group"] == "A_megatron_readme":
        return "ib-hdr", ("fabric: Selene's DGX A100 nodes, 8 HDR InfiniBand compute ports each "
                          "(DGX A100 reference architecture, recalled; the source does not say)")
    if "400Gb/s" in r["interconnect"]:
        return "ib-ndr", ("fabric: 400 Gb/s RDMA (ConnectX-7) per GPU as stated; InfiniBand or "
                          "RoCE is not, and ib-ndr and eth-400g have the same rate")
    return "", "fabric not stated: rigplan's default, one HDR InfiniBand port per GPU"


def first_int(text):
    digits = ""
    for c in text.strip():
        if not c.isdigit():
            break
        digits += c
    return int(digits) if digits else None


def recompute_of(r):
    """(recompute, note) from the file's wording, or (None, reason)."""
    text = r["recompute"].lower()
    group = r["source_group"]
    if group == "A_megatron_readme" and text == "not stated":
        return "full", ("recompute full: the published TFLOP/s equal the count with recomputation "
                        "(96·B·s·L·h²·...), so the runs recomputed activations")
    if text.startswith("selective layer"):
        return None, ("recompute: torchtitan's layer-selective checkpointing (every second block) "
                      "is not a policy rigplan models")
    if text.startswith("selective op") or "per-op sac" in text:
        if group.startswith("A_megatron"):
            return None, f"recompute '{r['recompute']}': per-op checkpointing in a Megatron-LM run"
        return "selective-op", ("recompute selective-op: torchtitan's per-op selective "
                                "checkpointing (every other matmul's output kept)")
    if text.startswith("selective"):
        return "selective", ""
    if text.startswith("full"):
        return "full", ""
    if text == "none":
        return "none", ""
    if text.startswith("not stated (config default)"):
        return "selective-op", ("recompute selective-op: the default of torchtitan's "
                                "llama3_8b.toml (mode selective, selective_ac_option op; recalled, "
                                "not in the source)")
    return None, f"recompute '{r['recompute']}' not stated"


def precision_of(r):
    text = r["precision"].lower()
    if "fp8" in text or "float8" in text:
        return "fp8"
    if "bf16" in text:
        return "bf16"
    return "fp16"  # Megatron-LM's mixed precision (the README and Calculon's encoding: float16)


def workload_of(r):
    """(zoo id, tp, pp, note) or (None, reason)."""
    model = r["model"]
    if "SC21" in model:
        wid, tp, pp = SC21[r["params_b"]]
        return wid, tp, pp, ("tp and pp from Narayanan et al. 2021 Table 1 (recalled; the file "
                             "has only their product via GPUs / dp)")
    if "Megatron-Core r0.8.0" in model:
        return None, 0, 0, ("model: the Megatron-Core weak-scaling table does not state the "
                            "architecture (MLP, tied or untied embeddings); a 4h GELU MLP with "
                            "untied embeddings does not reproduce the 1.7B and 32B sizes within 1%")
    if model not in MODELS:
        return None, 0, 0, f"model '{model}' is not in the zoo"
    tp, pp = first_int(r["tp"]) or 1, first_int(r["pp"]) or 1
    return MODELS[model], tp, pp, ""


def skip_reason(r, used_runs):
    """Why a row is not converted, or ''."""
    group = r["source_group"]
    if group == "D_llm_foundry":
        return ("already in validation/throughput.csv (groups llmfoundry and llmfoundry-scaling, "
                "from llmfoundry_mpt_training_throughput.csv)")
    if group == "G_llama3_secondary":
        return ("secondary source: the sequence length and the FLOP count behind its TFLOP/s per "
                "GPU are not stated, so it cannot be turned into tokens/s")
    if r["metric"] == "hfu_pct":
        return "same run as the MFU row before it (hardware FLOPs: the MFU row is used)"
    key = (r["source"], r["model"], r["num_gpus"], r["global_batch"], r["gpu"])
    if r["metric"] == "achieved_tflops_per_gpu" and key in used_runs:
        return f"same run as row {used_runs[key]} (its iteration time is used)"
    if r["metric"] == "tokens_per_s":
        return "GPU: Meta's H100 SXM 96 GB HBM2e, not in the catalog"
    return ""


def convert(r, used_runs):
    """An output row, or (None, reason)."""
    reason = skip_reason(r, used_runs)
    if reason:
        return None, reason
    workload, tp, pp, model_note = workload_of(r)
    if not workload:
        return None, model_note
    gpu, gpu_note = gpu_of(r)
    if not gpu:
        return None, gpu_note
    recompute, recompute_note = recompute_of(r)
    if not recompute:
        return None, recompute_note
    gpus = int(r["num_gpus"])
    cp = first_int(r["cp"]) or 1
    dp = first_int(r["dp"]) or gpus // (tp * pp * cp)
    if tp * pp * cp * dp != gpus:
        return None, f"layout tp {tp} x pp {pp} x cp {cp} x dp {dp} is not {gpus} GPUs"
    seq = first_int(r["seq_len"]) or 2048
    global_batch = first_int(r["global_batch"])
    micro = first_int(r["micro_batch"])
    if global_batch is None:
        return None, "global batch not stated"
    assumed = []
    if micro is None and r["source_group"] == "C_torchtitan":
        micro = global_batch // dp
        assumed.append("micro-batch = the local batch (no pipeline)")
    if micro is None and workload == "gpt3-175b" and pp == 16:
        micro = 1
        assumed.append("micro-batch 1: the examples/gpt3 script's --micro-batch-size "
                       "(recalled, not in the README sentence)")
    value, how = tokens_per_s(r, workload, seq, gpus, global_batch)
    if r["metric"] == "iteration_time_s":
        used_runs[(r["source"], r["model"], r["num_gpus"], r["global_batch"], r["gpu"])] = r["row_id"]
    vp = first_int(r["vp"])
    sp = r["sequence_parallel"].lower().startswith("yes")
    fsdp = r["source_group"] == "C_torchtitan"
    fabric, fabric_note = fabric_of(r)
    notes = [n for n in (how, gpu_note, model_note, recompute_note, fabric_note, *assumed) if n]
    if not first_int(r["seq_len"]):
        notes.append("seq 2048: the examples/gpt3 script's --seq-length (not in the README sentence)")
    compiled = "torch.compile" in r["precision"]
    if compiled:
        notes.append("with torch.compile as the source states it (the compile column)")
    notes.append(f"source note: {r['note']}")
    prefix = {"A_megatron_readme": "megatron", "C_torchtitan": "torchtitan"}[r["source_group"]]
    out = {
        "group": f"{prefix}/{workload}-{gpus}gpu-row{r['row_id']}", "ref": "", "gpu": gpu,
        "num_gpus": gpus, "workload": workload, "mode": "train",
        "precision": precision_of(r), "method": "full", "optimizer": "adamw",
        "batch_per_gpu": global_batch // dp, "seq_len": seq,
        "grad_checkpointing": 1 if recompute == "full" else 0, "metric": "throughput",
        "value": f"{value:.6g}", "unit": "tokens/s",
        "source": f"{r['source']}; shared/data/cluster_training_throughput.csv row {r['row_id']}",
        "tp": tp, "pp": pp, "cp": cp, "ep": "", "vp": vp or "", "micro_batch": micro or "",
        "global_batch": global_batch, "recompute": recompute,
        "sequence_parallel": 1 if sp else 0, "link": "nvswitch",
        "nodes": math.ceil(gpus / GPUS_PER_NODE), "fabric": fabric, "gpus_per_nic": 1,
        "zero": 3 if fsdp else 0,
        # Megatron-LM took FlashAttention in 2023; these runs (2020-2022) kept the s x s scores,
        # which is why Korthikanti et al. recompute them selectively.
        "flash_attention": 0 if r["source_group"] == "A_megatron_readme" else 1,
        "framework": FRAMEWORKS[r["source_group"]],
        "compile": 1 if compiled else "",
        "note": "; ".join(notes),
    }
    return out, ""


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1], newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    writer = csv.DictWriter(sys.stdout, fieldnames=HEADER, lineterminator="\n")
    writer.writeheader()
    used_runs, skipped, kept = {}, {}, 0
    for r in rows:
        out, reason = convert(r, used_runs)
        if out:
            writer.writerow({k: out.get(k, "") for k in HEADER})
            kept += 1
        else:
            skipped.setdefault(reason, []).append(r["row_id"])
    print(f"{kept} of {len(rows)} rows kept", file=sys.stderr)
    for reason, ids in skipped.items():
        print(f"skipped {len(ids)} (rows {', '.join(ids)}): {reason}", file=sys.stderr)


if __name__ == "__main__":
    main()
