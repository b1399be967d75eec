#include "workload/workload_schema.h"

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
      {"kind", &L::kind, kOptional, "", {"batchnorm", "layernorm", "groupnorm"}},
      {"kept", &L::kept, kOptional},
      {"channels", &L::channels, kOptional, "", {}, count_range(1e6)},
      {"elements", &L::elements, kOptional, "", {}, count_range(1e12)},
      {"heads", &L::heads, kOptional, "", {}, count_range(1e4)},
      {"head_dim", &L::head_dim, kOptional, "", {}, count_range(1e5)},
      {"query_len", &L::query_len, kOptional, "", {}, count_range(1e9)},
      {"key_len", &L::key_len, kOptional, "", {}, count_range(1e9)},
  };
  return kFields;
}

}  // namespace rigplan
