#include "workload/workload_schema.h"

#include "rigplan/input.h"

namespace rigplan {
namespace {

constexpr bool kRequired = true;
constexpr bool kOptional = false;
constexpr Range count_range(double hi) { return {1, hi, true}; }
constexpr Range size_range(double hi) { return {0, hi, true}; }

}  // namespace

const std::vector<FieldSpec<Workload>>& workload_fields() {
  using W = Workload;
  static const std::vector<FieldSpec<W>> kFields = {
      {"id", &W::id, kRequired},
      {"name", &W::name, kRequired},
      {"aliases", &W::aliases, kOptional},
      {"task",
       &W::task,
       kRequired,
       "",
       {"llm", "nlp", "vision", "detection", "speech", "tts", "diffusion", "recommendation",
        "translation"}},
      {"published_params", &W::published_params, kRequired, "", {}, count_range(1e14)},
      {"params_source", &W::params_source, kRequired},
      {"default_precision", &W::default_precision, kRequired, "", {"fp32", "fp16", "bf16"}},
      {"default_batch", &W::default_batch, kRequired, "", {}, count_range(1e6)},
      {"default_seq_len", &W::default_seq_len, kOptional, "tokens", {}, count_range(1e8)},
      {"throughput_unit",
       &W::throughput_unit,
       kRequired,
       "",
       {"tokens", "sequences", "images", "samples", "mel-frames", "audio-samples"}},
      {"input", &W::input, kOptional},
  };
  return kFields;
}

const std::vector<FieldSpec<TransformerConfig>>& transformer_fields() {
  using T = TransformerConfig;
  static const std::vector<FieldSpec<T>> kFields = {
      {"arch", &T::arch, kRequired, "", {"decoder", "encoder", "encoder-decoder"}},
      {"hidden_size", &T::hidden_size, kRequired, "", {}, count_range(1e6)},
      {"num_layers", &T::num_layers, kRequired, "", {}, count_range(1e4)},
      {"encoder_layers", &T::encoder_layers, kOptional, "", {}, size_range(1e4)},
      {"num_heads", &T::num_heads, kRequired, "", {}, count_range(1e4)},
      {"num_kv_heads", &T::num_kv_heads, kOptional, "", {}, count_range(1e4)},
      {"head_dim", &T::head_dim, kOptional, "", {}, count_range(1e5)},
      {"ffn_size", &T::ffn_size, kRequired, "", {}, count_range(1e7)},
      {"ffn_type", &T::ffn_type, kRequired, "", {"gelu", "relu", "swiglu", "geglu"}},
      {"vocab_size", &T::vocab_size, kRequired, "", {}, size_range(1e8)},
      {"tied_embeddings", &T::tied_embeddings, kRequired},
      {"position",
       &T::position,
       kRequired,
       "",
       {"rope", "learned", "alibi", "relative", "sinusoidal"}},
      {"max_positions", &T::max_positions, kRequired, "", {}, count_range(1e9)},
      {"norm", &T::norm, kRequired, "", {"layernorm", "layernorm-nobias", "rmsnorm"}},
      {"norms_per_layer", &T::norms_per_layer, kOptional, "", {}, size_range(8)},
      {"attention_bias", &T::attention_bias, kOptional},
      {"qkv_bias", &T::qkv_bias, kOptional},
      {"mlp_bias", &T::mlp_bias, kOptional},
      {"lm_head_bias", &T::lm_head_bias, kOptional},
      {"parallel_block", &T::parallel_block, kOptional},
      {"qk_norm", &T::qk_norm, kOptional},
      {"num_experts", &T::num_experts, kOptional, "", {}, count_range(1e4)},
      {"experts_top_k", &T::experts_top_k, kOptional, "", {}, count_range(1e4)},
      {"type_vocab_size", &T::type_vocab_size, kOptional, "", {}, size_range(1e6)},
      {"embedding_norm", &T::embedding_norm, kOptional},
      {"final_norm", &T::final_norm, kOptional},
      {"pooler", &T::pooler, kOptional},
      {"relative_attention_buckets",
       &T::relative_attention_buckets,
       kOptional,
       "",
       {},
       size_range(1e5)},
      {"extra_params", &T::extra_params, kOptional, "", {}, size_range(1e13)},
      {"dropout", &T::dropout, kOptional},
      {"sliding_window", &T::sliding_window, kOptional, "tokens", {}, count_range(1e9)},
      {"sliding_window_pattern", &T::sliding_window_pattern, kOptional, "", {}, {2, 1e4, true}},
  };
  return kFields;
}

const std::vector<FieldSpec<ResNetConfig>>& resnet_fields() {
  using R = ResNetConfig;
  static const std::vector<FieldSpec<R>> kFields = {
      {"depth", &R::depth, kRequired, "", {}, count_range(1000)},
      {"image_size", &R::image_size, kOptional, "px", {}, {32, 8192, true}},
      {"num_classes", &R::num_classes, kOptional, "", {}, count_range(1e6)},
  };
  return kFields;
}

const std::vector<FieldSpec<Layer>>& layer_fields() {
  using L = Layer;
  static const std::vector<FieldSpec<L>> kFields = {
      {"op",
       &L::op,
       kRequired,
       "",
       {"conv2d", "conv_transpose2d", "linear", "embedding", "lstm", "norm", "attention",
        "elementwise"}},
      {"name", &L::name, kOptional},
      {"count", &L::count, kOptional, "", {}, count_range(1e6)},
      {"in_channels", &L::in_channels, kOptional, "", {}, count_range(1e6)},
      {"out_channels", &L::out_channels, kOptional, "", {}, count_range(1e6)},
      {"kernel", &L::kernel, kOptional, "", {}, count_range(1024)},
      {"kernel_h", &L::kernel_h, kOptional, "", {}, count_range(1024)},
      {"kernel_w", &L::kernel_w, kOptional, "", {}, count_range(1024)},
      {"stride", &L::stride, kOptional, "", {}, count_range(1024)},
      {"groups", &L::groups, kOptional, "", {}, count_range(1e6)},
      {"bias", &L::bias, kOptional},
      {"out_h", &L::out_h, kOptional, "", {}, count_range(1e6)},
      {"out_w", &L::out_w, kOptional, "", {}, count_range(1e6)},
      {"in_features", &L::in_features, kOptional, "", {}, count_range(1e8)},
      {"out_features", &L::out_features, kOptional, "", {}, count_range(1e8)},
      {"tokens", &L::tokens, kOptional, "", {}, count_range(1e9)},
      {"num_embeddings", &L::num_embeddings, kOptional, "", {}, count_range(1e10)},
      {"dim", &L::dim, kOptional, "", {}, count_range(1e6)},
      {"lookups", &L::lookups, kOptional, "", {}, count_range(1e9)},
      {"input_size", &L::input_size, kOptional, "", {}, count_range(1e6)},
      {"hidden_size", &L::hidden_size, kOptional, "", {}, count_range(1e6)},
      {"bidirectional", &L::bidirectional, kOptional},
      {"steps", &L::steps, kOptional, "", {}, count_range(1e9)},
      {"kind", &L::kind, kOptional, "", {"batchnorm", "layernorm", "groupnorm", "rmsnorm"}},
      {"channels", &L::channels, kOptional, "", {}, count_range(1e6)},
      {"elements", &L::elements, kOptional, "", {}, count_range(1e12)},
      {"heads", &L::heads, kOptional, "", {}, count_range(1e4)},
      {"head_dim", &L::head_dim, kOptional, "", {}, count_range(1e5)},
      {"query_len", &L::query_len, kOptional, "", {}, count_range(1e9)},
      {"key_len", &L::key_len, kOptional, "", {}, count_range(1e9)},
      {"component", &L::component, kOptional},
      {"kept", &L::kept, kOptional},
      {"inference_only", &L::inference_only, kOptional},
      {"lora", &L::lora, kOptional, "", {"q", "k", "v", "o", "gate", "up", "down"}},
      {"params_per_channel", &L::norm_params_per_channel, kOptional, "", {}, size_range(2)},
  };
  return kFields;
}

const std::vector<FieldSpec<DiffusionConfig>>& diffusion_fields() {
  using D = DiffusionConfig;
  static const std::vector<FieldSpec<D>> kFields = {
      {"resolution", &D::resolution, kRequired, "px", {}, input::kResolution.range()},
  };
  return kFields;
}

const std::vector<FieldSpec<DiffusionComponent>>& diffusion_component_fields() {
  using C = DiffusionComponent;
  static const std::vector<FieldSpec<C>> kFields = {
      {"name", &C::name, kRequired},
      {"kind",
       &C::kind,
       kRequired,
       "",
       {"unet", "flux", "mmdit", "clip-text", "t5-encoder", "vae"}},
      {"trains", &C::trains, kRequired},
      {"published_params", &C::published_params, kOptional, "", {}, size_range(1e14)},
      {"params_source", &C::params_source, kOptional},
      {"in_channels", &C::in_channels, kOptional, "", {}, count_range(1e4)},
      {"layers_per_block", &C::layers_per_block, kOptional, "", {}, count_range(100)},
      {"cross_attention_dim", &C::cross_attention_dim, kOptional, "", {}, count_range(1e6)},
      {"linear_projection", &C::linear_projection, kOptional},
      {"addition_embed_dim", &C::addition_embed_dim, kOptional, "", {}, size_range(1e6)},
      {"mid_transformer_layers", &C::mid_transformer_layers, kOptional, "", {}, size_range(1e3)},
      {"mid_heads", &C::mid_heads, kOptional, "", {}, size_range(1e4)},
      {"hidden_size", &C::hidden_size, kOptional, "", {}, count_range(1e6)},
      {"num_layers", &C::num_layers, kOptional, "", {}, count_range(1e4)},
      {"num_heads", &C::num_heads, kOptional, "", {}, count_range(1e4)},
      {"single_layers", &C::single_layers, kOptional, "", {}, size_range(1e4)},
      {"joint_attention_dim", &C::joint_attention_dim, kOptional, "", {}, count_range(1e6)},
      {"pooled_projection_dim", &C::pooled_projection_dim, kOptional, "", {}, count_range(1e6)},
      {"guidance_embeds", &C::guidance_embeds, kOptional},
      {"patch_size", &C::patch_size, kOptional, "", {}, count_range(64)},
      {"latent_channels", &C::latent_channels, kOptional, "", {}, count_range(1e4)},
      {"text_tokens", &C::text_tokens, kOptional, "tokens", {}, count_range(1e6)},
      {"ffn_size", &C::ffn_size, kOptional, "", {}, count_range(1e7)},
      {"vocab_size", &C::vocab_size, kOptional, "", {}, count_range(1e8)},
      {"tokens", &C::tokens, kOptional, "tokens", {}, count_range(1e6)},
      {"projection", &C::projection, kOptional},
      {"quant_conv", &C::quant_conv, kOptional},
  };
  return kFields;
}

const std::vector<FieldSpec<UNetLevel>>& unet_level_fields() {
  using U = UNetLevel;
  static const std::vector<FieldSpec<U>> kFields = {
      {"channels", &U::channels, kRequired, "", {}, count_range(1e5)},
      {"transformer_layers", &U::transformer_layers, kOptional, "", {}, size_range(1e3)},
      {"heads", &U::heads, kOptional, "", {}, size_range(1e4)},
  };
  return kFields;
}

}  // namespace rigplan
