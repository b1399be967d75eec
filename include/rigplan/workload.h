// Workloads: model architectures (the zoo, user files, Hugging Face config.json) and what they
// cost in parameters and FLOPs. docs/workloads.md is the file format and the formulas.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rigplan/catalog.h"
#include "rigplan/status.h"

namespace rigplan {

struct TransformerConfig {
  std::string arch;  // decoder, encoder, encoder-decoder
  int hidden_size = 0;
  int num_layers = 0;      // decoder layers (encoder-only: encoder layers)
  int encoder_layers = 0;  // encoder-decoder only
  int num_heads = 0;
  std::optional<int> num_kv_heads;  // default num_heads
  std::optional<int> head_dim;      // default hidden_size / num_heads
  int ffn_size = 0;
  std::string ffn_type;  // gelu, relu, swiglu, geglu
  int vocab_size = 0;
  bool tied_embeddings = false;
  std::string position;  // rope, learned, alibi, relative, sinusoidal
  int max_positions = 0;
  std::string norm;  // layernorm, layernorm-nobias, rmsnorm
  std::optional<int> norms_per_layer;
  std::optional<bool> attention_bias, qkv_bias, mlp_bias, lm_head_bias, parallel_block;
  // A norm of head_dim on each head's queries and keys, before RoPE (Qwen3): 2 norms a layer.
  std::optional<bool> qk_norm;
  std::optional<int> num_experts, experts_top_k, type_vocab_size;
  std::optional<bool> embedding_norm, final_norm, pooler;
  std::optional<int> relative_attention_buckets;
  std::optional<std::int64_t> extra_params;
  std::optional<bool> dropout;
  // Sliding-window attention (docs/workloads.md, "Sliding-window attention"): a sliding layer's
  // query attends to the last `sliding_window` tokens, itself included, and its KV cache needs
  // no more. `sliding_window_pattern` P: of every P decoder layers the first P - 1 slide and
  // the last attends to the whole context (Hugging Face's sliding_window_pattern of Gemma 3, 6;
  // 2 alternates from a sliding first layer, as Gemma 2 and GPT-OSS); absent: every layer
  // slides (Mistral 7B v0.1).
  std::optional<int> sliding_window, sliding_window_pattern;

  // Resolved values of the optional fields (docs/workloads.md gives the defaults).
  int kv_heads() const { return num_kv_heads.value_or(num_heads); }
  int head_size() const { return head_dim.value_or(hidden_size / num_heads); }
  int experts() const { return num_experts.value_or(1); }
  int top_k() const { return experts_top_k.value_or(1); }
  bool gated() const { return ffn_type == "swiglu" || ffn_type == "geglu"; }
  int total_layers() const { return num_layers + encoder_layers; }
  // Decoder layers that attend through a window (0 without one), and the window in tokens.
  int sliding_layers() const;
  int window() const { return sliding_window.value_or(0); }
};

// Keys the queries at positions 1..tokens of one causal layer attend to, summed:
// tokens·(tokens + 1)/2 without a window (window 0), the sum of min(i, window) with one.
double causal_keys(double tokens, int window);

struct ResNetConfig {
  int depth = 0;
  int image_size = 224;
  int num_classes = 1000;
};

// One resolution level of a diffusion UNet (diffusers UNet2DConditionModel: one entry of
// block_out_channels, transformer_layers_per_block and the attention heads).
struct UNetLevel {
  int channels = 0;
  int transformer_layers = 0;  // 0: a plain DownBlock2D / UpBlock2D, no attention
  int heads = 0;               // attention heads of its transformer blocks
};

// One part of an image-generation model, as diffusers names it (unet, transformer,
// text_encoder, text_encoder_2, text_encoder_3, vae), built as layers by its `kind`
// (docs/workloads.md, "Diffusion models"). Which fields apply depends on the kind.
struct DiffusionComponent {
  std::string name;
  std::string kind;     // unet, flux, mmdit, clip-text, t5-encoder, vae
  bool trains = false;  // a full fine-tune trains it (the UNet or the diffusion transformer)
  std::int64_t published_params = 0;  // 0: none published for this part
  std::string params_source;
  // unet, vae
  int in_channels = 0;  // latent channels in (unet); 3 image channels (vae)
  int layers_per_block = 2;
  std::vector<UNetLevel> levels;
  // unet
  int cross_attention_dim = 0;
  bool linear_projection = false;  // proj_in / proj_out as linear layers (SDXL), not 1×1 convs
  int addition_embed_dim = 0;      // SDXL's text_time embedding input (2816); 0: none
  int mid_transformer_layers = 0;  // the mid block's transformer blocks and their heads
  int mid_heads = 0;
  // flux, mmdit, clip-text, t5-encoder
  int hidden_size = 0, num_layers = 0, num_heads = 0;
  // flux: single-stream blocks after the num_layers double-stream ones
  int single_layers = 0;
  int joint_attention_dim = 0;    // width of the text embeddings the transformer reads
  int pooled_projection_dim = 0;  // width of the pooled text embedding
  bool guidance_embeds = false;   // flux-dev's distilled-guidance embedder
  int patch_size = 2;             // latent pixels per image token along each side
  int latent_channels = 0;        // flux, mmdit, vae
  int text_tokens = 0;            // flux, mmdit: tokens of the text stream
  // clip-text, t5-encoder
  int ffn_size = 0, vocab_size = 0;
  int tokens = 0;           // sequence the encoder reads (77 for CLIP)
  bool projection = false;  // clip-text: CLIPTextModelWithProjection's text_projection
  // vae
  bool quant_conv = true;  // quant_conv / post_quant_conv (SD 1.x, SDXL; not Flux or SD 3)
};

struct DiffusionConfig {
  int resolution = 0;  // training resolution in pixels (square images); --resolution changes it
  std::vector<DiffusionComponent> components;
};

// One layer (or `count` identical ones) of a network described as a layer list. Shapes are per
// sample; which fields apply depends on `op` (docs/workloads.md).
struct Layer {
  std::string
      op;  // conv2d, conv_transpose2d, linear, embedding, lstm, norm, attention, elementwise
  std::string name;
  int count = 1;
  // conv2d, conv_transpose2d
  int in_channels = 0, out_channels = 0, kernel = 0;
  std::optional<int> kernel_h, kernel_w;
  int stride = 1, groups = 1;
  std::optional<bool> bias;  // default: false for convolutions, true for linear layers
  int out_h = 0, out_w = 0;
  // linear
  int in_features = 0, out_features = 0;
  std::int64_t tokens = 1;
  // embedding
  std::int64_t num_embeddings = 0;
  int dim = 0;
  std::int64_t lookups = 1;
  // lstm
  int input_size = 0, hidden_size = 0;
  bool bidirectional = false;
  std::int64_t steps = 0;
  // norm
  std::string kind;
  int channels = 0;
  // norm, elementwise
  std::int64_t elements = 0;
  // attention
  int heads = 0, head_dim = 0;
  std::int64_t query_len = 0, key_len = 0;
  // The part of the model it belongs to (a DiffusionComponent's name); empty: the only one.
  std::string component;
  // Whether the backward pass keeps this layer's output as a new tensor: false for an in-place
  // op (ReLU(inplace=True), `out += identity`) whose output is its input's memory, and for an
  // output that only an add reads (the add saves nothing).
  bool kept = true;
  // Runs at inference only: a training step loads its weights but never runs it (the VAE
  // decoder of a diffusion model).
  bool inference_only = false;
  // linear: the LoRA target name it answers to (q, k, v, o, gate, up, down); empty: none.
  std::string lora;
  // norm: the number of parameters per channel (2 with scale and shift, 1 for RMSNorm, 0
  // without affine parameters).
  int norm_params_per_channel = 2;
};

struct Workload {
  std::string id;
  std::string name;
  std::vector<std::string> aliases;
  std::string task;
  std::int64_t published_params = 0;
  std::string params_source;
  std::string default_precision;  // fp32, fp16, bf16
  int default_batch = 1;
  std::optional<int> default_seq_len;
  std::string throughput_unit;
  // The training input it reads, an [[input]] of data/pipeline (imagenet-jpeg); empty: none the
  // pipeline data describes, and its input pipeline is not modelled.
  std::string input;
  std::optional<TransformerConfig> transformer;
  std::optional<ResNetConfig> resnet;
  std::optional<DiffusionConfig> diffusion;
  std::vector<Layer> layers;  // the layer list; generated for a ResNet and a diffusion model
  Provenance provenance;
};

// Parameters, and where they sit, computed from the architecture (not from published_params).
struct ParamCounts {
  std::int64_t total = 0;
  std::int64_t embedding = 0;  // input embeddings and position tables
  std::int64_t head = 0;       // an untied LM head
  std::int64_t per_layer = 0;  // one transformer layer (decoder layer for encoder-decoders)
  std::int64_t active = 0;     // used per token: MoE counts top-k experts only
  // A mixture of experts' expert MLPs, all experts of all layers (not the router, which every
  // GPU keeps): the parameters expert parallelism splits. 0 for a dense model.
  std::int64_t experts = 0;
};
ParamCounts count_params(const Workload& workload);
// Parameters of one layer of a layer list (not times its count).
std::int64_t layer_params(const Layer& layer);
// Parameters of one norm layer of a transformer: LayerNorm's weight and bias (2·d), or a weight
// alone (RMSNorm, LayerNorm without bias: d).
std::int64_t norm_layer_params(const TransformerConfig& t);

// The largest model rigplan plans (a thousand times the largest trained today): every size
// derived from a model this large fits in 64-bit integers and is exact in doubles.
inline constexpr double kMaxModelParams = 1e15;
// kInvalidInput when the architecture has more than kMaxModelParams parameters.
Status check_model_size(const Workload& workload);

// FLOPs of one step for a batch (multiply-adds count as 2 FLOPs). docs/workloads.md, "FLOPs".
struct FlopCounts {
  double forward = 0;           // one forward pass over the batch
  double backward = 0;          // gradients of activations and weights: 2 × forward
  double train = 0;             // forward + backward
  double train_recompute = 0;   // with activation checkpointing: + one more forward
  double prefill = 0;           // inference over the prompt (= forward)
  double decode_per_token = 0;  // one generated token per sequence, attending to the whole context
};
FlopCounts count_flops(const Workload& workload, int batch, int seq_len);

// Linear layers of one transformer layer, for LoRA: (name, in, out).
struct LinearShape {
  std::string_view name;  // q, k, v, o, gate, up, down
  std::int64_t in = 0, out = 0;
};
std::vector<LinearShape> layer_linears(const TransformerConfig& t);

// The workload at another input resolution (square images, pixels): a diffusion model's
// training resolution, or a ResNet's image size. Other workloads have no resolution to change:
// a kInvalidInput Status that says so.
Result<Workload> at_resolution(const Workload& workload, int pixels);

// The zoo: workloads by id, alias or name.
class NameIndex;
class Zoo {
 public:
  Zoo();
  ~Zoo();
  Zoo(Zoo&&) noexcept;
  Zoo& operator=(Zoo&&) noexcept;

  std::vector<Workload> workloads;
  Result<const Workload*> find(std::string_view name) const;
  void build_index(const Catalog::ClashHandler& on_clash = {});

 private:
  std::unique_ptr<NameIndex> index_;
};

std::vector<CatalogFile> embedded_workloads();
Result<Zoo> load_zoo(const std::vector<CatalogFile>& files);

// Imports a Hugging Face config.json (llama, mistral, mixtral, qwen2, gemma, gemma2, phi, phi3,
// falcon, gpt2, gpt_neox, bert). `path` names the file in messages.
Result<Workload> import_hf_config(const std::string& path, const std::string& json_text);

}  // namespace rigplan
