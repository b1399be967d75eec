// Named constants of the memory model, each with its source (docs/memory.md).
#pragma once

namespace rigplan::memory_constants {

// GPU memory is marketed in binary units: a "24 GB" card has 24 GiB (nvidia-smi shows 24576 MiB
// on an RTX 3090, 40960 MiB on an A100 40GB). rigplan reports GB = 1e9 bytes.
constexpr double kBytesPerMarketedGb = 1073741824.0;

// CUDA context, kernels, cuBLAS/cuDNN handles of a PyTorch process, not counted by
// torch.cuda.max_memory_allocated. Measured 1.343 GiB with nvidia-smi for PyTorch on a V100
// (Hugging Face transformers docs, model_memory_anatomy.md); lazy module loading (CUDA >= 11.7)
// brings it to ~0.3-0.5 GB (PyTorch PR #86509). rigplan takes the conservative middle.
constexpr double kCudaContextGb = 1.0;

// Caching-allocator fragmentation on top of the allocated peak: 5-15% (models.md 2.6,
// assumption); rigplan uses the low end for one GPU and adds NCCL buffers for several.
constexpr double kFragmentation = 0.05;
constexpr double kNcclBuffersGb = 0.5;  // NCCL communicator buffers per GPU (models.md 2.6)

// Bytes kept per token for the loss: the logits in the activation type plus an fp32 copy for
// the softmax / cross entropy (models.md 2.6, after llm-analysis).
constexpr double kLossFp32BytesPerLogit = 4.0;

// 8-bit Adam (bitsandbytes): two 1-byte states per parameter plus block statistics
// (Dettmers et al. 2022, "8-bit Optimizers via Block-wise Quantization").
constexpr double kAdam8bitBytes = 2.0;

// Adafactor keeps a factored second moment, 4 B x (rows + cols) per rows x cols matrix (Shazeer
// and Stern 2018); for a model without transformer shapes rigplan takes a 1024 x 1024 matrix's
// share, 4 x 2048 / 1024^2 = 0.008, rounded to 0.01 B per parameter.
constexpr double kAdafactorBytesPerParam = 0.01;

// DeepSpeed ZeRO-3 defaults (DeepSpeed configuration documentation, ZeRO section; the defaults
// of deepspeed/runtime/zero/config.py, recalled). accelerate's DeepSpeed plugin, which PEFT's
// examples run, writes none of these keys, so they hold there too (recalled).
// `stage3_max_reuse_distance`: a gathered parameter is not released if it is used again within
// this many parameter elements of the module order.
constexpr double kZero3MaxReuseDistance = 1e9;
// `reduce_bucket_size`: elements of the contiguous gradient bucket stage 3 allocates on the GPU
// up front, in the gradient type (DeepSpeedZeroOptimizer_Stage3 with contiguous_gradients, its
// default; recalled).
constexpr double kZero3ReduceBucketElements = 5e8;

// FSDP / ZeRO-3 gather one layer's weights to compute and prefetch the next: two layers live
// (PyTorch FSDP forward_prefetch / backward_prefetch BACKWARD_PRE; DeepSpeed prefetch bucket).
constexpr double kGatheredLayers = 2;

// Activation offloading (torchtune OffloadActivations, unsloth's offloaded checkpointing) copies
// each saved tensor to pinned host memory on a side stream and brings it back for the backward;
// about two layers' worth are in flight on the GPU at once (torchtune
// training/_activation_offloading.py: the current layer's and the next one's).
constexpr double kOffloadedLayersInFlight = 2;

// Plain (not memory-efficient) attention in training: score-sized tensors that live at the peak
// beside the kept softmax probabilities, at the largest attention. The backward of
// softmax(baddbmm(Q, K)) @ V holds the gradient of the probabilities and then that of the
// scores (PyTorch autograd: bmm's and softmax's backward each return a new tensor); the forward
// holds the scores and baddbmm's torch.empty input (diffusers AttnProcessor.get_attention_scores).
constexpr double kPlainAttentionLiveScores = 2;

// Inference: peak transient activations of one layer at prefill, as a multiple of the widest
// layer output (llm-analysis: max over attention / MLP / norm tensors).
constexpr int kPrefillLiveTensors = 2;

}  // namespace rigplan::memory_constants
