#!/usr/bin/env python3
"""Builds validation/serving.csv from the public LLM inference measurements.

Usage: scripts/serving_validation.py SERVING_THROUGHPUT_CSV MEMORY_MEASUREMENTS_CSV \
           > validation/serving.csv

The inputs are serving_throughput.csv and memory_measurements.csv of the shared data folder (one
row per published measurement, each with its source, repository, path and commit); the second
gives LitGPT's single-GPU generation speeds (PyTorch eager). The output follows the
validation contract of `rigplan validate`, with the optional inference columns (engine, input_len,
output_len, concurrency, request_rate, requests, tp, pp, ep, kv_cache; `requests` only where the
source states a run's request count: a finite run). Every output row names where it came
from in `source` and how it was read in `note`. Rows are kept only when the GPU is in the catalog,
the model in the zoo, the engine modelled and the run described fully enough to predict (fixed
input and output lengths); validation/README.md lists what is left out and why.
"""

import csv
import re
import sys

# GPU names as the sources write them -> catalog ids. A name is mapped only where the source
# says which part it is; the notes of validation/README.md give the reasoning.
GPUS = {
    "H100 80GB HBM3": "h100-sxm5-80gb",
    "H100": "h100-sxm5-80gb",
    "H100 (section states Hopper experiments on a single H100; throughput subsection does not "
    "restate GPU)": "h100-sxm5-80gb",
    "H200 141GB HBM3": "h200-sxm-141gb",
    "H200": "h200-sxm-141gb",
    "B200": "b200-sxm-192gb",
    # One Blackwell GPU of a GB200 superchip (the tables' GB200 columns run 1 or 4 of them, in
    # NVL4 or NVL72 systems): the catalog's gb200-nvl72, 186 GB HBM3e at 8 TB/s, NVLink 5.
    "GB200": "gb200-nvl72",
    "A100-SXM4-80GB": "a100-sxm4-80gb",
    "L40S": "l40s",
    "GH200 480GB": "gh200-96gb",
    "RTX 6000 Pro Blackwell Server Edition": "rtx-pro-6000-blackwell",
    "NVIDIA RTX PRO 6000 Blackwell Workstation Edition": "rtx-pro-6000-blackwell",
    "NVIDIA GeForce RTX 4090": "rtx-4090",
    "RTX 4090": "rtx-4090",
    "NVIDIA GeForce RTX 4080": "rtx-4080",
    "RTX 3090": "rtx-3090",
    "NVIDIA GeForce RTX 3090 Ti": "rtx-3090-ti",
    "7900 XTX": "rx-7900-xtx",
}

# Model names -> zoo ids. Llama 3.3 70B has the architecture of Llama 3.1 70B.
MODELS = {
    "LLaMA 3.1 70B": "llama-3.1-70b",
    "LLaMA v3.1 70B": "llama-3.1-70b",
    "Llama 3.3 70B": "llama-3.1-70b",
    "LLaMA v3.3 70B": "llama-3.1-70b",
    "LLaMA 3.1 8B": "llama-3.1-8b",
    "LLaMA v3.1 8B": "llama-3.1-8b",
    "Llama 3.1 8B": "llama-3.1-8b",
    "Llama-3.1-8B": "llama-3.1-8b",
    "Meta-Llama-3.1-8B-Instruct": "llama-3.1-8b",
    "Llama 3.1 405B": "llama-3.1-405b",
    "LLaMA v3.1 405B": "llama-3.1-405b",
    "Mistral 7B": "mistral-7b",
    "Mixtral 8x7B": "mixtral-8x7b",
    "Mixtral 8x22B": "mixtral-8x22b",
    "Qwen3-30B-A3B": "qwen3-30b-a3b",
    "Qwen3 30B A3B": "qwen3-30b-a3b",
    "qwen3moe 30B.A3B Q4_K - Medium (section \"Qwen3 30B-A3B\")": "qwen3-30b-a3b",
    "Qwen3-235B-A22B": "qwen3-235b-a22b",
    "Qwen3 235B A22B": "qwen3-235b-a22b",
    "Llama-2-7B (TheBloke GGUF)": "llama-2-7b",
    "llama 7B Q4_0 (section \"600W\")": "llama-2-7b",
    "codellama-7b (llama 7B)": "llama-2-7b",
    "llama 7B": "llama-2-7b",
    "llama 70B Q4_K - Medium (section \"70B\")": "llama-3.1-70b",
    "Qwen2.5-7B-Instruct (qwen2 7B Q4_K - Medium)": "qwen2.5-7b",
    "GPT-OSS 120B": "gpt-oss-120b",
    "gpt-oss 120B Q8_0 (section \"gpt-oss-120b\")": "gpt-oss-120b",
    "openai/gpt-oss-120b": "gpt-oss-120b",
    "GPT-OSS 20B": "gpt-oss-20b",
    "gpt-oss-20b": "gpt-oss-20b",
}

# GPT-OSS runs its native checkpoint: the experts in MXFP4, attention, router, embeddings and LM
# head in bf16 (rigplan's mxfp4 format covers the experts only).
NATIVE_MXFP4 = {"gpt-oss-120b", "gpt-oss-20b"}
# Hopper GPUs of the TensorRT-LLM tables: their GPT-OSS runs keep a bf16 KV cache (trt_offline).
HOPPER_GPUS = {"h100-sxm5-80gb", "h200-sxm-141gb"}

HEADER = [
    "group", "ref", "gpu", "num_gpus", "workload", "mode", "precision", "weights", "method",
    "optimizer", "lora_rank", "batch_per_gpu", "seq_len", "grad_checkpointing", "metric", "value",
    "unit", "source", "engine", "input_len", "output_len", "concurrency", "request_rate",
    "requests", "tp", "pp", "ep", "kv_cache", "split", "note",
]

# Models added after data/calibration/inference.toml was fitted (issue 14's mixtures of experts):
# their rows are `split = held-out`, scored by `rigplan validate` and never fitted by `rigplan
# calibrate`, so their errors are those a new model meets. Every other row is `split = fit`.
HELD_OUT_MODELS = {"mixtral-8x22b", "qwen3-30b-a3b", "qwen3-235b-a22b", "gpt-oss-120b",
                   "gpt-oss-20b"}
# Rows added after that fit as well: every GB200 row (the GPU joined the catalog later) and every
# expert-parallel (DEP) row. Held out too, so the fit stays what it was.
HELD_OUT_GPUS = {"gb200-nvl72"}
# Held-out rows that a term of the model was shaped on since, so `split = fit`: TensorRT-LLM
# 1.0's host time per sequence (B200) and Grace's single-thread speed (GB200), fitted on Qwen3
# 30B A3B at 128-token prompts (data/engines/engines.toml, release 1.0 and [[host]]).
SHAPED_ON = {("trtllm-v1.0/qwen3-30b-a3b-tp1pp1-128-128", "b200-sxm-192gb"),
             ("trtllm-v1.0/qwen3-30b-a3b-tp1pp1-128-2048", "b200-sxm-192gb"),
             ("trtllm-v1.0/qwen3-30b-a3b-tp1pp1-128-128", "gb200-nvl72"),
             ("trtllm-v1.0/qwen3-30b-a3b-tp1pp1-128-2048", "gb200-nvl72")}

# Reference GPU of a cross-GPU group, in order of preference.
REF_ORDER = ["h100-sxm5-80gb", "h200-sxm-141gb", "rtx-4090", "a100-sxm4-40gb"]


def provenance(r):
    return f"{r['repo']} {r['path']} @ {r['commit'][:10]}; {r['source']}; gpu '{r['gpu']}'"


def base_row(r, gpu, model):
    row = dict.fromkeys(HEADER, "")
    row.update(gpu=gpu, workload=model, num_gpus=r["gpu_count"], source=provenance(r),
               note=r["notes"])
    return row


def trt_weights(precision):
    """TensorRT-LLM: weights, precision and KV cache of a precision column."""
    if precision == "fp8":  # ModelOpt FP8 checkpoints: FP8 weights, activations and KV cache
        return "fp8", "bf16", "fp8"
    if precision == "fp4":  # NVFP4 checkpoints with FP8 KV cache
        return "nvfp4", "bf16", "fp8"
    if precision in ("fp16", "bf16"):
        return ("f16" if precision == "fp16" else "bf16"), precision, ""
    return None


def layout(r):
    """TP, PP and EP of a TensorRT-LLM column: the header's 'TPn,PPm' where it has one; 'DEPn'
    (attention data parallel and the experts split over n GPUs) as tp 1, ep n, and its 'PPm'."""
    dep = re.fullmatch(r"DEP(\d+)", r["tp"])
    if dep:
        header = re.search(r"DEP(\d+),PP(\d+)", r["notes"])
        return 1, int(header.group(2)) if header else int(r["pp"] or 1), int(dep.group(1))
    header = re.search(r"TP(\d+),PP(\d+)", r["notes"])
    if header:
        return int(header.group(1)), int(header.group(2)), 1
    tp = re.fullmatch(r"TP(\d+)", r["tp"]) or re.fullmatch(r"(\d+)", r["tp"])
    if not tp:
        return None
    return int(tp.group(1)), int(r["pp"] or 1), 1


# Editions whose TensorRT-LLM ran otherwise than the engine's own figures (the 1.0 PyTorch
# backend), named as their release in data/engines/engines.toml ([[engine.release]]): v0.17's
# trtllm-bench ran TensorRT engines, whose attention reads a sliding layer's whole context.
# v1.0's ran the PyTorch backend, whose Python executor takes host time per sequence each step.
TRT_RELEASES = {"v0.17": "tensorrt-llm@0.17", "v1.0": "tensorrt-llm@1.0"}


def trt_offline(r, out):
    """trtllm-bench max-load throughput: every request queued, output tokens/s."""
    gpu, model = GPUS.get(r["gpu"]), MODELS.get(r["model"])
    formats, lay = trt_weights(r["precision"]), layout(r)
    if not (gpu and model and formats and lay):
        return
    value = float(r["value"])
    if r["metric"] == "output_tokens_per_s_per_gpu":
        value *= int(r["gpu_count"])
    elif r["metric"] != "output_tokens_per_s":
        return
    edition = re.search(r"\((newest|v[0-9.]+) edition\)|\((newest)\)", r["source"])
    edition = edition.group(1) or edition.group(2)
    tp, pp, ep = lay
    if model in NATIVE_MXFP4:
        # The GPT-OSS tables run openai's MXFP4 checkpoint in both columns, so the column's FP8 or
        # FP4 names no format of this run, and the table does not say its KV cache. The checkpoint
        # quantizes none, so TensorRT-LLM keeps it in bf16 (kv_cache_config dtype "auto") unless
        # the run's options ask for fp8. Read per GPU family as the 20B's rows choose, the
        # 120B's held out (validation/README.md): fp8 on Blackwell, the checkpoint's bf16 on
        # Hopper.
        kv = "" if gpu in HOPPER_GPUS else "fp8"
        formats = ("mxfp4", formats[1], kv)
        r = dict(r, notes=r["notes"] + "; weights: the native MXFP4 checkpoint (experts MXFP4, "
                 "the rest bf16); KV cache " + ("bf16, the checkpoint's (not stated; chosen on "
                                               "the 20B's Hopper rows)" if kv == "" else
                                               "fp8 (not stated; chosen on the 20B's Blackwell "
                                               "rows)"))
    row = base_row(r, gpu, model)
    row.update(mode="serve", weights=formats[0], precision=formats[1], kv_cache=formats[2],
               metric="throughput", value=f"{value:g}", unit="tokens/s",
               engine=TRT_RELEASES.get(edition, "tensorrt-llm"),
               input_len=r["input_len"], output_len=r["output_len"], tp=tp, pp=pp,
               ep=ep if ep > 1 else "")
    if r["metric"] == "output_tokens_per_s_per_gpu":
        row["note"] += f"; converted: per-GPU value x {r['gpu_count']} GPUs"
    if ep > 1:
        row["note"] += f"; DEP{ep} read as tp 1, ep {ep}, pp {pp}"
    split = f"dep{ep}pp{pp}" if ep > 1 else f"tp{tp}pp{pp}"
    row["group"] = f"trtllm-{edition}/{model}-{split}-{r['input_len']}-{r['output_len']}"
    out.append(row)


def trt_online(r, out):
    """The Triton online-serving table: a request rate, mean TTFT, mean ITL, output tokens/s."""
    gpu, model = GPUS.get(r["gpu"]), MODELS.get(r["model"])
    rate = re.match(r"QPS=(\w+)", r["concurrency_or_batch"])
    if not (gpu and model and rate):
        return
    metric = {"output_tokens_per_s": ("throughput", "tokens/s"), "ttft_ms": ("ttft_ms", "ms"),
              "itl_ms": ("tpot_ms", "ms")}.get(r["metric"])
    if not metric:
        return
    infinite = rate.group(1) == "INF"
    # A burst of 500 requests at once: its mean TTFT is mostly the queue of the prompts' prefill,
    # which the serving model does not time prompt by prompt; its throughput and TPOT are those
    # of a finite run of 500 sent at once.
    if infinite and metric[0] == "ttft_ms":
        return
    # The table's runs: "generated using version 0.14.0, with 500 requests" (the date column).
    burst = re.search(r"(\d+) requests", r["concurrency_or_batch"]).group(1)
    row = base_row(r, gpu, model)
    row.update(mode="serve", precision="bf16", weights="bf16", metric=metric[0],
               value=r["value"], unit=metric[1], engine="tensorrt-llm", input_len=r["input_len"],
               output_len=r["output_len"], tp=r["tp"], pp=r["pp"] or 1,
               request_rate="" if infinite else rate.group(1), concurrency=burst if infinite else "",
               requests=burst)
    row["note"] += f"; a finite run of {burst} requests"
    if infinite:
        row["note"] += f"; QPS=INF: all {burst} sent at once"
    if r["metric"] == "itl_ms":
        row["note"] += "; mean ITL read as TPOT (one token per step)"
    row["group"] = f"trtllm-online/{model}-tp{r['tp']}-{r['input_len']}-{r['output_len']}"
    out.append(row)


def llama_bench(r, out):
    """llama-bench pp512 (prefill) and tg128 (decode of one sequence)."""
    gpu, model = GPUS.get(r["gpu"]), MODELS.get(r["model"])
    if not (gpu and model):
        return
    weights = r["precision"].lower().replace("q4_k - medium", "q4_k_m")
    if model in NATIVE_MXFP4 and weights == "q8_0":
        # llama.cpp's gpt-oss GGUFs keep the experts in MXFP4 and the other tensors in Q8_0.
        weights = "mxfp4_moe"
    if weights not in ("q4_0", "q4_k_m", "q8_0", "f16", "mxfp4_moe"):
        return
    prefill = r["metric"] == "pp_tokens_per_s"
    row = base_row(r, gpu, model)
    row.update(mode="prefill" if prefill else "decode", precision="fp16", weights=weights,
               batch_per_gpu=1, metric="throughput", value=r["value"], unit="tokens/s",
               engine="llama.cpp", tp=1, pp=1)
    if prefill:
        row.update(seq_len=r["input_len"], input_len=r["input_len"], output_len=0)
    else:
        row.update(seq_len=0, input_len=0, output_len=r["output_len"])
    source = r["source"]
    # The PR thread's January 2024 builds ran prompts at half today's speed (RTX 4090, Q4_0
    # pp512: 7,980 then, 13,944 in the 2025 table): another engine than data/engines describes.
    if "PR thread" in source:
        return
    if source.startswith("Reddit"):
        row["group"] = f"llamacpp-reddit/{model}-{weights}-{'pp' if prefill else 'tg'}"
    elif source.startswith("llm-tracker"):
        row["group"] = f"llamacpp-llmtracker/{model}-{weights}-{'pp' if prefill else 'tg'}"
    else:
        row["group"] = f"llamacpp-readme/{gpu}-{model}-{weights}-{'pp' if prefill else 'tg'}"
    out.append(row)


def vllm_blog(r, out):
    """vLLM FP8 KV-cache blog: ITL at no context (fitted intercept), and a long-context run."""
    gpu, model = GPUS.get(r["gpu"]), MODELS.get(r["model"])
    if not (gpu and model):
        return
    kv = "fp8" if "KV cache FP8" in r["precision"] else ""
    if "skip" in r["precision"]:
        return
    row = base_row(r, gpu, model)
    weights = "mxfp4" if model in NATIVE_MXFP4 else "bf16"  # "weights default"
    row.update(precision="bf16", weights=weights, engine="vllm", tp=1, pp=1, kv_cache=kv)
    if r["input_len"].startswith("0 (fit intercept"):
        if r["metric"] != "itl_ms":
            return
        row.update(mode="decode", batch_per_gpu=1, seq_len=0, input_len=0, output_len=1,
                   metric="tpot_ms", value=r["value"], unit="ms")
        row["group"] = f"vllm-blog-itl/{model}-kv{kv or 'bf16'}"
    else:
        metric = {"output_tokens_per_s": ("throughput", "tokens/s"), "ttft_ms": ("ttft_ms", "ms"),
                  "itl_ms": ("tpot_ms", "ms")}.get(r["metric"])
        if not metric:
            return
        # "concurrency 8, 150 requests": a finite run, at most 8 outstanding.
        load = re.fullmatch(r"concurrency (\d+), (\d+) requests", r["concurrency_or_batch"])
        row.update(mode="serve", input_len=20000, output_len=2000, concurrency=load.group(1),
                   requests=load.group(2), metric=metric[0], value=r["value"], unit=metric[1])
        row["note"] += "; lengths ~20000 and ~2000 (+-15%) taken at their centre; median ITL as TPOT"
        row["group"] = f"vllm-blog-long/{model}-kv{kv or 'bf16'}"
    out.append(row)


def vllm_dashboard(r, out):
    """vLLM's perf-dashboard CI artifact: GPT-OSS 120B at a fixed concurrency and fixed lengths;
    output tokens/s (per GPU in the file, times the GPUs), mean TTFT and mean TPOT."""
    gpu, model = GPUS.get(r["gpu"]), MODELS.get(r["model"])
    concurrency = re.fullmatch(r"concurrency (\d+)", r["concurrency_or_batch"])
    metric = {"output_tokens_per_s_per_gpu": ("throughput", "tokens/s"),
              "ttft_ms": ("ttft_ms", "ms"), "tpot_ms": ("tpot_ms", "ms")}.get(r["metric"])
    if not (gpu and model and concurrency and metric):
        return
    value = float(r["value"])
    row = base_row(r, gpu, model)
    if r["metric"] == "output_tokens_per_s_per_gpu":
        value *= int(r["gpu_count"])
        row["note"] += f"; converted: per-GPU value x {r['gpu_count']} GPUs"
    weights = "mxfp4" if model in NATIVE_MXFP4 else "bf16"
    row.update(mode="serve", precision="bf16", weights=weights, metric=metric[0],
               value=f"{value:g}", unit=metric[1], engine="vllm", input_len=r["input_len"],
               output_len=r["output_len"], concurrency=concurrency.group(1), tp=r["tp"],
               pp=r["pp"] or 1)
    row["group"] = f"vllm-dashboard/{model}-tp{r['tp']}-{r['input_len']}-{r['output_len']}"
    out.append(row)


LITGPT_MODELS = {"phi-1.5": "phi-1.5", "stablelm-base-alpha-3b": "stablelm-base-alpha-3b",
                 "Llama-2-7b": "llama-2-7b", "Llama-2-13b": "llama-2-13b",
                 "CodeLlama-34b": "codellama-34b", "Falcon-40b": "falcon-40b",
                 "Llama-2-70b": "llama-2-70b"}


def litgpt_generate(r, out):
    """LitGPT generate, batch 1 on an A100 40GB: decode tokens/s in PyTorch eager."""
    if r["workload"] != "inference" or not re.fullmatch(r"[0-9.]+", r["throughput_tokens_per_s"]):
        return
    model = LITGPT_MODELS.get(r["model"])
    weights = {"none": "bf16", "bnb.nf4": "nf4", "bnb.nf4-dq": "nf4-dq"}.get(
        r["weight_quantization"])
    if not (model and weights):
        return
    row = dict.fromkeys(HEADER, "")
    row.update(group=f"litgpt-generate/{weights}", gpu="a100-sxm4-40gb", num_gpus=1,
               workload=model, mode="decode", precision="bf16", weights=weights,
               batch_per_gpu=1, seq_len=8, metric="throughput",
               value=r["throughput_tokens_per_s"], unit="tokens/s",
               source=f"{r['repo']} {r['path']} @ {r['commit'][:10]}; {r['section']}; "
                      f"gpu '{r['gpu_raw']}'",
               engine="pytorch", input_len=8, output_len=50, tp=1, pp=1,
               note=f"{r['notes']}; litgpt generate defaults: prompt 'What food do llamas eat?' "
                    "(about 8 tokens), max_new_tokens 50")
    out.append(row)


def assign_refs(rows):
    """Marks one row per group as its ref: groups with several GPUs compare them. The GPUs of
    HELD_OUT_GPUS never make a group relative nor serve as its ref, so that adding their rows left
    the other rows' groups as they were (a GB200 row alone with a B200 is scored absolutely)."""
    groups = {}
    for row in rows:
        if row["gpu"] not in HELD_OUT_GPUS:
            groups.setdefault(row["group"], []).append(row)
    for members in groups.values():
        gpus = {m["gpu"] for m in members}
        if len(members) < 2 or len(gpus) < 2:
            continue
        for preferred in REF_ORDER + sorted(gpus):
            candidates = [m for m in members if m["gpu"] == preferred]
            if candidates:
                candidates[0]["ref"] = 1
                break


def main():
    with open(sys.argv[1], newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    out = []
    for r in rows:
        source = r["source"]
        if source.startswith("TRT-LLM perf-overview") and "Online" in source:
            trt_online(r, out)
        elif source.startswith("TRT-LLM perf-overview"):
            trt_offline(r, out)
        elif "llama.cpp" in r["engine"]:
            llama_bench(r, out)
        elif source.startswith("vllm-project/perf-dashboard"):
            vllm_dashboard(r, out)
        elif source.startswith("vLLM blog"):
            vllm_blog(r, out)
    with open(sys.argv[2], newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            litgpt_generate(r, out)
    assign_refs(out)
    for row in out:
        held_out = (row["workload"] in HELD_OUT_MODELS or row["gpu"] in HELD_OUT_GPUS
                    or row["ep"] != "")
        shaped = (row["group"], row["gpu"]) in SHAPED_ON
        row["split"] = "held-out" if held_out and not shaped else "fit"
    out.sort(key=lambda row: (row["group"], row["ref"] != 1, row["gpu"], row["metric"]))
    writer = csv.DictWriter(sys.stdout, fieldnames=HEADER, lineterminator="\n")
    writer.writeheader()
    writer.writerows(out)


if __name__ == "__main__":
    main()
