// The layers of image-generation models, as diffusers builds them (diffusers 0.30: models/unets/
// unet_2d_condition.py and unet_2d_blocks.py, models/transformers/transformer_flux.py and
// transformer_sd3.py, models/autoencoders/autoencoder_kl.py; transformers CLIPTextModel and
// T5EncoderModel). Shapes are per image. Which outputs the backward pass keeps follows what each
// op saves in PyTorch autograd: a convolution or linear layer saves its input, a norm its input,
// SiLU and GELU their input, an add nothing; so the output of a convolution that only a residual
// add reads is not kept (Layer::kept).
#include "workload/diffusion.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "util/strings.h"

namespace rigplan {
namespace {

using I = std::int64_t;

struct Builder {
  std::vector<Layer> layers;
  std::string component;
  bool inference_only = false;

  Layer& add(std::string op, std::string name) {
    Layer l;
    l.op = std::move(op);
    l.name = component + "." + std::move(name);
    l.component = component;
    l.inference_only = inference_only;
    layers.push_back(std::move(l));
    return layers.back();
  }
  Layer& conv(std::string name, int in, int out, int kernel, int stride, int out_hw) {
    Layer& l = add("conv2d", std::move(name));
    l.in_channels = in;
    l.out_channels = out;
    l.kernel = kernel;
    l.stride = stride;
    l.bias = true;
    l.out_h = l.out_w = out_hw;
    return l;
  }
  Layer& linear(std::string name, int in, int out, I tokens, bool bias = true,
                std::string lora = "") {
    Layer& l = add("linear", std::move(name));
    l.in_features = in;
    l.out_features = out;
    l.tokens = tokens;
    l.bias = bias;
    l.lora = std::move(lora);
    return l;
  }
  // kind: groupnorm, layernorm (params_per_channel 0 without affine parameters), or rmsnorm.
  Layer& norm(std::string name, std::string kind, int channels, I elements, int per_channel) {
    Layer& l = add("norm", std::move(name));
    l.kind = std::move(kind);
    l.channels = channels;
    l.elements = elements;
    l.norm_params_per_channel = per_channel;
    return l;
  }
  Layer& attention(std::string name, int heads, int head_dim, I query, I key) {
    Layer& l = add("attention", std::move(name));
    l.heads = heads;
    l.head_dim = head_dim;
    l.query_len = query;
    l.key_len = key;
    return l;
  }
  Layer& elementwise(std::string name, I elements, bool kept = true) {
    Layer& l = add("elementwise", std::move(name));
    l.elements = elements;
    l.kept = kept;
    return l;
  }
  Layer& embedding(std::string name, I rows, int dim, I lookups) {
    Layer& l = add("embedding", std::move(name));
    l.num_embeddings = rows;
    l.dim = dim;
    l.lookups = lookups;
    return l;
  }
};

// ResnetBlock2D: GroupNorm, SiLU, 3×3 conv, (+ time embedding), GroupNorm, SiLU, 3×3 conv,
// 1×1 shortcut when the width changes, residual add. `temb` 0: none (the autoencoder's).
void resnet(Builder& b, const std::string& name, int in, int out, int hw, int temb) {
  const I area = static_cast<I>(hw) * hw;
  b.norm(name + ".norm1", "groupnorm", in, in * area, 2);
  b.elementwise(name + ".silu1", in * area);
  b.conv(name + ".conv1", in, out, 3, 1, hw).kept = temb == 0;
  if (temb > 0) {
    b.linear(name + ".time_emb_proj", temb, out, 1);
    b.elementwise(name + ".add_temb", out * area);
  }
  b.norm(name + ".norm2", "groupnorm", out, out * area, 2);
  b.elementwise(name + ".silu2", out * area);
  b.conv(name + ".conv2", out, out, 3, 1, hw).kept = false;
  if (in != out) b.conv(name + ".conv_shortcut", in, out, 1, 1, hw).kept = false;
  b.elementwise(name + ".residual", out * area);
}

// Transformer2DModel with `layers` BasicTransformerBlocks (self-attention, cross-attention to
// the text, GEGLU feed-forward) of width c over hw×hw tokens.
void transformer_2d(Builder& b, const std::string& name, int c, int layers, int heads, int hw,
                    const DiffusionComponent& u, int text) {
  const I n = static_cast<I>(hw) * hw;
  b.norm(name + ".norm", "groupnorm", c, c * n, 2);
  if (u.linear_projection) {
    b.linear(name + ".proj_in", c, c, n);
  } else {
    b.conv(name + ".proj_in", c, c, 1, 1, hw);
  }
  auto rows = [&](Layer& l) -> Layer& {
    l.count = layers;
    return l;
  };
  const std::string blk = fmt::format("{}.blocks(x{})", name, layers);
  const int head_dim = c / heads;
  rows(b.norm(blk + ".norm1", "layernorm", c, c * n, 2));
  for (const char* p : {"q", "k", "v"})
    rows(b.linear(fmt::format("{}.attn1.to_{}", blk, p), c, c, n, false, p));
  rows(b.attention(blk + ".attn1", heads, head_dim, n, n));
  rows(b.linear(blk + ".attn1.to_out", c, c, n, true, "o")).kept = false;
  rows(b.elementwise(blk + ".residual1", c * n));
  rows(b.norm(blk + ".norm2", "layernorm", c, c * n, 2));
  rows(b.linear(blk + ".attn2.to_q", c, c, n, false, "q"));
  rows(b.linear(blk + ".attn2.to_k", u.cross_attention_dim, c, text, false, "k"));
  rows(b.linear(blk + ".attn2.to_v", u.cross_attention_dim, c, text, false, "v"));
  rows(b.attention(blk + ".attn2", heads, head_dim, n, text));
  rows(b.linear(blk + ".attn2.to_out", c, c, n, true, "o")).kept = false;
  rows(b.elementwise(blk + ".residual2", c * n));
  rows(b.norm(blk + ".norm3", "layernorm", c, c * n, 2));
  rows(b.linear(blk + ".ff.geglu_proj", c, 8 * c, n, true, "up"));
  rows(b.elementwise(blk + ".ff.gelu_gate", I{4} * c * n));
  // GEGLU returns hidden_states * gelu(gate): the product is a new tensor, the input ff.out saves.
  rows(b.elementwise(blk + ".ff.geglu_product", I{4} * c * n));
  rows(b.linear(blk + ".ff.out", 4 * c, c, n, true, "down")).kept = false;
  rows(b.elementwise(blk + ".residual3", c * n));
  if (u.linear_projection) {
    b.linear(name + ".proj_out", c, c, n).kept = false;
  } else {
    b.conv(name + ".proj_out", c, c, 1, 1, hw).kept = false;
  }
  b.elementwise(name + ".residual", c * n);
}

Status check_unet(const DiffusionComponent& u) {
  bool heads_ok = u.mid_transformer_layers == 0 || u.mid_heads > 0;
  for (const auto& level : u.levels) {
    heads_ok = heads_ok && (level.transformer_layers == 0 ||
                            (level.heads > 0 && level.channels % level.heads == 0));
  }
  if (u.levels.empty() || u.cross_attention_dim <= 0 || u.in_channels <= 0 || !heads_ok) {
    return Status::invalid_input(
        fmt::format("component '{}' (unet) needs in_channels, cross_attention_dim and [[level]] "
                    "tables whose attention heads divide their channels",
                    shown(u.name)));
  }
  return {};
}

// Where a UNet pass stands between its stages: the side of its feature map, its channels, and
// the channels of the skip connections the down path leaves for the up path (last on top).
struct UNetState {
  int hw = 0;
  int channels = 0;
  std::vector<int> skips;
};

// The down path: per level, layers_per_block resnets (with attention where the level has it),
// then a stride-2 convolution except at the last level. Every output is a skip connection.
void unet_down(Builder& b, const DiffusionComponent& u, int temb, int text, UNetState& s) {
  const int levels = static_cast<int>(u.levels.size());
  for (int i = 0; i < levels; ++i) {
    const UNetLevel& level = u.levels[static_cast<size_t>(i)];
    for (int j = 0; j < u.layers_per_block; ++j) {
      const std::string name = fmt::format("down_blocks.{}.{}", i, j);
      resnet(b, name + ".resnet", s.channels, level.channels, s.hw, temb);
      s.channels = level.channels;
      if (level.transformer_layers > 0)
        transformer_2d(b, name + ".attentions", s.channels, level.transformer_layers, level.heads,
                       s.hw, u, text);
      s.skips.push_back(s.channels);
    }
    if (i + 1 < levels) {
      s.hw = (s.hw + 1) / 2;
      b.conv(fmt::format("down_blocks.{}.downsampler", i), s.channels, s.channels, 3, 2, s.hw);
      s.skips.push_back(s.channels);
    }
  }
}

// The mid block: resnet, attention when it has any, resnet, at the smallest resolution.
void unet_mid(Builder& b, const DiffusionComponent& u, int temb, int text, const UNetState& s) {
  resnet(b, "mid_block.resnets.0", s.channels, s.channels, s.hw, temb);
  if (u.mid_transformer_layers > 0) {
    transformer_2d(b, "mid_block.attentions", s.channels, u.mid_transformer_layers, u.mid_heads,
                   s.hw, u, text);
  }
  resnet(b, "mid_block.resnets.1", s.channels, s.channels, s.hw, temb);
}

// The up path, levels in reverse: layers_per_block + 1 resnets, each on its input concatenated
// with a skip connection, then a nearest-neighbour 2× upsample and a 3×3 convolution except at
// the last level.
void unet_up(Builder& b, const DiffusionComponent& u, int temb, int text, UNetState& s) {
  const int levels = static_cast<int>(u.levels.size());
  for (int i = 0; i < levels; ++i) {
    const UNetLevel& level = u.levels[static_cast<size_t>(levels - 1 - i)];
    for (int j = 0; j <= u.layers_per_block; ++j) {
      const std::string name = fmt::format("up_blocks.{}.{}", i, j);
      const int skip = s.skips.back();
      s.skips.pop_back();
      b.elementwise(name + ".concat_skip", static_cast<I>(s.channels + skip) * s.hw * s.hw);
      resnet(b, name + ".resnet", s.channels + skip, level.channels, s.hw, temb);
      s.channels = level.channels;
      if (level.transformer_layers > 0)
        transformer_2d(b, name + ".attentions", s.channels, level.transformer_layers, level.heads,
                       s.hw, u, text);
    }
    if (i + 1 < levels) {
      s.hw *= 2;
      const I elements = static_cast<I>(s.channels) * s.hw * s.hw;
      b.elementwise(fmt::format("up_blocks.{}.upsample_nearest", i), elements);
      b.conv(fmt::format("up_blocks.{}.upsampler", i), s.channels, s.channels, 3, 1, s.hw);
    }
  }
}

// UNet2DConditionModel: input convolution and time (and added) embeddings, the down path, the
// mid block, the up path, and the output norm and convolution back to the latent channels.
Status unet(Builder& b, const DiffusionComponent& u, int latent_hw, int text) {
  if (Status s = check_unet(u); !s.ok()) return s;
  const int c0 = u.levels.front().channels, temb = 4 * c0;
  b.conv("conv_in", u.in_channels, c0, 3, 1, latent_hw);
  b.linear("time_embedding.linear_1", c0, temb, 1);
  b.linear("time_embedding.linear_2", temb, temb, 1);
  if (u.addition_embed_dim > 0) {
    b.linear("add_embedding.linear_1", u.addition_embed_dim, temb, 1);
    b.linear("add_embedding.linear_2", temb, temb, 1);
  }
  UNetState state{latent_hw, c0, {c0}};
  unet_down(b, u, temb, text, state);
  unet_mid(b, u, temb, text, state);
  unet_up(b, u, temb, text, state);
  const I area = static_cast<I>(state.hw) * state.hw;
  b.norm("conv_norm_out", "groupnorm", c0, c0 * area, 2);
  b.elementwise("conv_norm_out.silu", c0 * area);
  b.conv("conv_out", c0, u.in_channels, 3, 1, state.hw);
  return {};
}

// Timestep (and guidance, pooled-text) embedders: 256 sinusoidal channels -> d -> d (diffusers'
// CombinedTimestep*Embeddings: Timesteps(num_channels=256) for SD3 and Flux).
void embedder(Builder& b, const std::string& name, int in, int d) {
  b.linear(name + ".linear_1", in, d, 1);
  b.elementwise(name + ".silu", d);
  b.linear(name + ".linear_2", d, d, 1);
}

// AdaLayerNormZero-style modulation: SiLU(temb), a linear to `chunks`·d, a LayerNorm without
// affine parameters over the tokens and the scale and shift.
void ada_norm(Builder& b, const std::string& name, int d, int chunks, I tokens) {
  b.elementwise(name + ".silu", d);
  b.linear(name + ".linear", d, chunks * d, 1);
  b.norm(name + ".norm", "layernorm", d, d * tokens, 0);
  b.elementwise(name + ".modulate", d * tokens);
}

// Joint attention of an image stream (n tokens) and a text stream (t tokens): their own
// projections, one attention over both; `rms` adds Flux's RMSNorm on queries and keys.
void joint_attention(Builder& b, const std::string& name, int d, int heads, I n, I t, bool rms,
                     bool text_out) {
  const int head_dim = d / heads;
  for (const char* p : {"q", "k", "v"})
    b.linear(fmt::format("{}.to_{}", name, p), d, d, n, true, p);
  for (const char* p : {"q", "k", "v"})
    b.linear(fmt::format("{}.add_{}_proj", name, p), d, d, t, true, p);
  if (rms) {
    for (const char* p : {"norm_q", "norm_k"}) {
      b.norm(fmt::format("{}.{}", name, p), "rmsnorm", head_dim, d * n, 1);
      b.norm(fmt::format("{}.{}_added", name, p), "rmsnorm", head_dim, d * t, 1);
    }
    b.elementwise(name + ".rope", I{2} * d * (n + t));
  }
  b.attention(name + ".attention", heads, head_dim, n + t, n + t);
  b.linear(name + ".to_out", d, d, n, true, "o").kept = false;
  if (text_out) b.linear(name + ".to_add_out", d, d, t, true, "o").kept = false;
}

// A GELU feed-forward d -> 4d -> d over `tokens`, its gated residual add.
void feed_forward(Builder& b, const std::string& name, int d, I tokens) {
  b.linear(name + ".proj", d, 4 * d, tokens, true, "up");
  b.elementwise(name + ".gelu", I{4} * d * tokens);
  b.linear(name + ".out", 4 * d, d, tokens, true, "down").kept = false;
  b.elementwise(name + ".gated_residual", d * tokens);
}

Status check_transformer(const DiffusionComponent& c) {
  if (c.hidden_size <= 0 || c.num_layers <= 0 || c.num_heads <= 0 ||
      c.hidden_size % c.num_heads != 0 || c.latent_channels <= 0 || c.text_tokens <= 0 ||
      c.joint_attention_dim <= 0 || c.pooled_projection_dim <= 0) {
    return Status::invalid_input(
        fmt::format("component '{}' ({}) needs hidden_size, num_layers, num_heads dividing "
                    "hidden_size, latent_channels, text_tokens, joint_attention_dim and "
                    "pooled_projection_dim",
                    shown(c.name), c.kind));
  }
  return {};
}

// FluxTransformer2DModel: double-stream blocks (image and text with their own weights, one
// joint attention), then single-stream blocks over the concatenated tokens (attention and MLP
// side by side); latents packed 2×2 into tokens.
Status flux(Builder& b, const DiffusionComponent& f, int latent_hw) {
  if (Status s = check_transformer(f); !s.ok()) return s;
  const int d = f.hidden_size, heads = f.num_heads;
  const I n = static_cast<I>(latent_hw / f.patch_size) * (latent_hw / f.patch_size);
  const I t = f.text_tokens;
  const int packed = f.latent_channels * f.patch_size * f.patch_size;
  b.linear("x_embedder", packed, d, n);
  embedder(b, "time_text_embed.timestep_embedder", 256, d);
  if (f.guidance_embeds) embedder(b, "time_text_embed.guidance_embedder", 256, d);
  embedder(b, "time_text_embed.text_embedder", f.pooled_projection_dim, d);
  b.linear("context_embedder", f.joint_attention_dim, d, t);
  const size_t double_begin = b.layers.size();
  ada_norm(b, "transformer_blocks.norm1", d, 6, n);
  ada_norm(b, "transformer_blocks.norm1_context", d, 6, t);
  joint_attention(b, "transformer_blocks.attn", d, heads, n, t, true, true);
  b.elementwise("transformer_blocks.gated_residual", d * n);
  b.elementwise("transformer_blocks.gated_residual_context", d * t);
  b.norm("transformer_blocks.norm2", "layernorm", d, d * n, 0);
  b.norm("transformer_blocks.norm2_context", "layernorm", d, d * t, 0);
  feed_forward(b, "transformer_blocks.ff", d, n);
  feed_forward(b, "transformer_blocks.ff_context", d, t);
  for (size_t i = double_begin; i < b.layers.size(); ++i) b.layers[i].count = f.num_layers;
  const size_t single_begin = b.layers.size();
  const I all = n + t;
  ada_norm(b, "single_transformer_blocks.norm", d, 3, all);
  b.linear("single_transformer_blocks.proj_mlp", d, 4 * d, all, true, "up");
  b.elementwise("single_transformer_blocks.gelu", I{4} * d * all);
  for (const char* p : {"q", "k", "v"})
    b.linear(fmt::format("single_transformer_blocks.attn.to_{}", p), d, d, all, true, p);
  for (const char* p : {"norm_q", "norm_k"})
    b.norm(fmt::format("single_transformer_blocks.attn.{}", p), "rmsnorm", d / heads, d * all, 1);
  b.elementwise("single_transformer_blocks.attn.rope", I{2} * d * all);
  b.attention("single_transformer_blocks.attn.attention", heads, d / heads, all, all);
  b.elementwise("single_transformer_blocks.concat_attn_mlp", I{5} * d * all);
  b.linear("single_transformer_blocks.proj_out", 5 * d, d, all, true, "o").kept = false;
  b.elementwise("single_transformer_blocks.gated_residual", d * all);
  for (size_t i = single_begin; i < b.layers.size(); ++i) b.layers[i].count = f.single_layers;
  ada_norm(b, "norm_out", d, 2, n);
  b.linear("proj_out", d, packed, n);
  return {};
}

// SD3Transformer2DModel (MMDiT): joint blocks with both streams; the last block keeps only the
// image stream's output (context_pre_only: no text output projection or feed-forward).
Status mmdit(Builder& b, const DiffusionComponent& m, int latent_hw) {
  if (Status s = check_transformer(m); !s.ok()) return s;
  const int d = m.hidden_size, heads = m.num_heads;
  const int patches = latent_hw / m.patch_size;
  const I n = static_cast<I>(patches) * patches;
  const I t = m.text_tokens;
  b.conv("pos_embed.proj", m.latent_channels, d, m.patch_size, m.patch_size, patches);
  b.elementwise("pos_embed.add", d * n);
  embedder(b, "time_text_embed.timestep_embedder", 256, d);
  embedder(b, "time_text_embed.text_embedder", m.pooled_projection_dim, d);
  b.linear("context_embedder", m.joint_attention_dim, d, t);
  for (int last = 0; last < 2; ++last) {
    const size_t begin = b.layers.size();
    const std::string blk = last ? "transformer_blocks.last" : "transformer_blocks";
    ada_norm(b, blk + ".norm1", d, 6, n);
    ada_norm(b, blk + ".norm1_context", d, last ? 2 : 6, t);
    joint_attention(b, blk + ".attn", d, heads, n, t, false, !last);
    b.elementwise(blk + ".gated_residual", d * n);
    b.norm(blk + ".norm2", "layernorm", d, d * n, 0);
    feed_forward(b, blk + ".ff", d, n);
    if (!last) {
      b.elementwise(blk + ".gated_residual_context", d * t);
      b.norm(blk + ".norm2_context", "layernorm", d, d * t, 0);
      feed_forward(b, blk + ".ff_context", d, t);
    }
    const int count = last ? 1 : m.num_layers - 1;
    for (size_t i = begin; i < b.layers.size(); ++i) b.layers[i].count = count;
  }
  ada_norm(b, "norm_out", d, 2, n);
  b.linear("proj_out", d, m.patch_size * m.patch_size * m.latent_channels, n);
  return {};
}

// CLIPTextModel(WithProjection) and T5EncoderModel: a transformer encoder over `tokens`.
Status text_encoder(Builder& b, const DiffusionComponent& e) {
  if (e.hidden_size <= 0 || e.num_layers <= 0 || e.num_heads <= 0 || e.ffn_size <= 0 ||
      e.vocab_size <= 0 || e.tokens <= 0) {
    return Status::invalid_input(fmt::format(
        "component '{}' ({}) needs hidden_size, num_layers, num_heads, ffn_size, vocab_size and "
        "tokens",
        shown(e.name), e.kind));
  }
  const bool t5 = e.kind == "t5-encoder";
  const int d = e.hidden_size;
  const I t = e.tokens;
  // T5 norms are RMSNorm (a scale only) and its linears have no biases.
  const int norm_params = t5 ? 1 : 2;
  const std::string norm_kind = t5 ? "rmsnorm" : "layernorm";
  b.embedding("token_embedding", e.vocab_size, d, t);
  if (t5) {
    b.embedding("relative_attention_bias (first layer)", 32, e.num_heads, 1);
  } else {
    b.embedding("position_embedding", t, d, t);
  }
  const size_t begin = b.layers.size();
  const std::string blk = fmt::format("layers(x{})", e.num_layers);
  b.norm(blk + ".norm1", norm_kind, d, d * t, norm_params);
  for (const char* p : {"q", "k", "v"})
    b.linear(fmt::format("{}.{}_proj", blk, p), d, d, t, !t5, p);
  b.attention(blk + ".self_attn", e.num_heads, d / e.num_heads, t, t);
  b.linear(blk + ".out_proj", d, d, t, !t5, "o");
  b.norm(blk + ".norm2", norm_kind, d, d * t, norm_params);
  if (t5) b.linear(blk + ".wi_0 (gate)", d, e.ffn_size, t, false, "gate");
  b.linear(blk + (t5 ? ".wi_1" : ".fc1"), d, e.ffn_size, t, !t5, "up");
  b.elementwise(blk + ".gelu", static_cast<I>(e.ffn_size) * t);
  b.linear(blk + (t5 ? ".wo" : ".fc2"), e.ffn_size, d, t, !t5, "down");
  for (size_t i = begin; i < b.layers.size(); ++i) b.layers[i].count = e.num_layers;
  b.norm("final_layer_norm", norm_kind, d, d * t, norm_params);
  if (e.projection) b.linear("text_projection", d, d, 1, false);
  return {};
}

void vae_attention(Builder& b, const std::string& name, int c, int hw) {
  const I n = static_cast<I>(hw) * hw;
  b.norm(name + ".group_norm", "groupnorm", c, c * n, 2);
  for (const char* p : {"q", "k", "v"}) b.linear(fmt::format("{}.to_{}", name, p), c, c, n);
  b.attention(name + ".attention", 1, c, n, n);
  b.linear(name + ".to_out", c, c, n).kept = false;
  b.elementwise(name + ".residual", c * n);
}

// AutoencoderKL: the encoder runs when a training step encodes its images (unless the latents
// are cached); the decoder only at inference.
Status vae(Builder& b, const DiffusionComponent& v, int resolution) {
  if (v.levels.empty() || v.latent_channels <= 0 || v.in_channels <= 0) {
    return Status::invalid_input(
        fmt::format("component '{}' (vae) needs in_channels, latent_channels and [[level]] tables",
                    shown(v.name)));
  }
  const int levels = static_cast<int>(v.levels.size());
  int hw = resolution, out = v.levels.front().channels;
  b.conv("encoder.conv_in", v.in_channels, out, 3, 1, hw);
  for (int i = 0; i < levels; ++i) {
    const int c = v.levels[static_cast<size_t>(i)].channels;
    for (int j = 0; j < v.layers_per_block; ++j) {
      resnet(b, fmt::format("encoder.down_blocks.{}.resnets.{}", i, j), out, c, hw, 0);
      out = c;
    }
    if (i + 1 < levels) {
      hw /= 2;
      b.conv(fmt::format("encoder.down_blocks.{}.downsampler", i), c, c, 3, 2, hw);
    }
  }
  resnet(b, "encoder.mid_block.resnets.0", out, out, hw, 0);
  vae_attention(b, "encoder.mid_block.attention", out, hw);
  resnet(b, "encoder.mid_block.resnets.1", out, out, hw, 0);
  b.norm("encoder.conv_norm_out", "groupnorm", out, static_cast<I>(out) * hw * hw, 2);
  b.elementwise("encoder.silu", static_cast<I>(out) * hw * hw);
  b.conv("encoder.conv_out", out, 2 * v.latent_channels, 3, 1, hw);
  if (v.quant_conv) b.conv("quant_conv", 2 * v.latent_channels, 2 * v.latent_channels, 1, 1, hw);

  b.inference_only = true;
  if (v.quant_conv) b.conv("post_quant_conv", v.latent_channels, v.latent_channels, 1, 1, hw);
  out = v.levels.back().channels;
  b.conv("decoder.conv_in", v.latent_channels, out, 3, 1, hw);
  resnet(b, "decoder.mid_block.resnets.0", out, out, hw, 0);
  vae_attention(b, "decoder.mid_block.attention", out, hw);
  resnet(b, "decoder.mid_block.resnets.1", out, out, hw, 0);
  for (int i = 0; i < levels; ++i) {
    const int c = v.levels[static_cast<size_t>(levels - 1 - i)].channels;
    for (int j = 0; j <= v.layers_per_block; ++j) {
      resnet(b, fmt::format("decoder.up_blocks.{}.resnets.{}", i, j), out, c, hw, 0);
      out = c;
    }
    if (i + 1 < levels) {
      hw *= 2;
      b.elementwise(fmt::format("decoder.up_blocks.{}.upsample_nearest", i),
                    static_cast<I>(out) * hw * hw);
      b.conv(fmt::format("decoder.up_blocks.{}.upsampler", i), out, out, 3, 1, hw);
    }
  }
  b.norm("decoder.conv_norm_out", "groupnorm", out, static_cast<I>(out) * hw * hw, 2);
  b.elementwise("decoder.silu", static_cast<I>(out) * hw * hw);
  b.conv("decoder.conv_out", out, v.in_channels, 3, 1, hw);
  b.inference_only = false;
  return {};
}

// The most [[level]] tables of a component. The models here have three or four; each level
// halves the feature map, so eight take a 1,024 px image below one latent pixel.
constexpr size_t kMaxLevels = 8;

// The autoencoder's downsampling: 2 per stride-2 level, 8× in every model here (three of four
// levels); 1 without an autoencoder.
int vae_downsample(const DiffusionConfig& config) {
  for (const auto& c : config.components) {
    if (c.kind == "vae" && !c.levels.empty() && c.levels.size() <= kMaxLevels)
      return 1 << (static_cast<int>(c.levels.size()) - 1);
  }
  return 1;
}

// The component a layer belongs to; nullptr when none of `config`'s has its name.
const DiffusionComponent* component_of(const DiffusionConfig& config, const Layer& layer) {
  for (const auto& c : config.components) {
    if (c.name == layer.component) return &c;
  }
  return nullptr;
}

// A Flux or SD 3 transformer's block a layer belongs to, by the prefix of the names flux() and
// mmdit() write: "<component>.transformer_blocks" (Flux's double-stream blocks, SD 3's joint
// blocks but the last), "<component>.transformer_blocks.last" (SD 3's last, context_pre_only),
// "<component>.single_transformer_blocks"; empty for the layers outside the blocks.
std::string transformer_block(const std::string& component, std::string_view name) {
  for (const char* block :
       {".transformer_blocks.last", ".transformer_blocks", ".single_transformer_blocks"}) {
    std::string prefix = component + block;
    if (name.substr(0, prefix.size() + 1) == prefix + ".") return prefix;
  }
  return {};
}

}  // namespace

// diffusers 0.30 (recalled, not quoted from the shared data): CrossAttnDownBlock2D,
// DownBlock2D, UNetMidBlock2DCrossAttn, CrossAttnUpBlock2D and UpBlock2D pass each resnet to
// `_gradient_checkpointing_func`, and Transformer2DModel passes each BasicTransformerBlock;
// FluxTransformer2DModel passes each of its transformer_blocks and single_transformer_blocks,
// SD3Transformer2DModel each of its transformer_blocks; everything else runs as usual.
std::string checkpoint_module(const DiffusionConfig& config, const Layer& layer) {
  const DiffusionComponent* component = component_of(config, layer);
  if (component == nullptr) return {};
  if (component->kind == "flux" || component->kind == "mmdit")
    return transformer_block(component->name, layer.name);
  if (component->kind != "unet") return {};
  const std::string_view name = layer.name;
  if (const size_t at = name.find(".blocks(x"); at != std::string_view::npos) {
    const size_t end = name.find(')', at);
    if (end != std::string_view::npos) return std::string(name.substr(0, end + 1));
  }
  if (const size_t at = name.find(".resnet."); at != std::string_view::npos)
    return std::string(name.substr(0, at + std::string_view(".resnet").size()));
  if (const size_t at = name.find(".resnets."); at != std::string_view::npos)
    return std::string(name.substr(0, name.find('.', at + std::string_view(".resnets.").size())));
  return {};
}

std::vector<std::string> saved_only_by_linears(const DiffusionConfig& config, const Layer& layer) {
  const DiffusionComponent* component = component_of(config, layer);
  if (component == nullptr || component->kind != "unet") return {};
  const std::string_view name = layer.name;
  const size_t at = name.find(").");
  if (name.find(".blocks(x") == std::string_view::npos || at == std::string_view::npos) return {};
  const std::string_view op = name.substr(at + 2);
  if (op == "norm1") return {"q", "k", "v"};
  if (op == "norm2") return {"q"};
  if (op == "norm3") return {"up"};
  if (op == "ff.geglu_product") return {"down"};
  return {};
}

double block_streams(const DiffusionConfig& config, const std::string& module) {
  for (const auto& c : config.components) {
    const bool joint = (c.kind == "flux" || c.kind == "mmdit") && c.patch_size > 0 &&
                       module == c.name + ".transformer_blocks";
    if (!joint) continue;
    const I patches = config.resolution / vae_downsample(config) / c.patch_size;
    return static_cast<double>(c.hidden_size) *
           static_cast<double>(patches * patches + c.text_tokens);
  }
  return 0;
}

Result<std::vector<Layer>> diffusion_layers(const DiffusionConfig& config) {
  const int downsample = vae_downsample(config);
  int text_tokens = 0;
  for (const auto& c : config.components) {
    if (c.levels.size() > kMaxLevels) {
      return Status::invalid_input(
          fmt::format("component '{}' has {} [[level]] tables; at most {} are accepted",
                      shown(c.name), c.levels.size(), kMaxLevels));
    }
    if (c.kind == "clip-text" && text_tokens == 0) text_tokens = c.tokens;
  }
  if (config.resolution % (downsample * 2) != 0) {
    return Status::invalid_input(
        fmt::format("resolution {} px is not accepted; expected a multiple of {} (the latent is "
                    "{}× smaller and packed 2×2)",
                    config.resolution, downsample * 2, downsample));
  }
  const int latent_hw = config.resolution / downsample;
  Builder b;
  for (const auto& c : config.components) {
    b.component = c.name;
    Status s;
    if (c.kind == "unet") {
      s = unet(b, c, latent_hw, text_tokens);
    } else if (c.kind == "flux") {
      s = flux(b, c, latent_hw);
    } else if (c.kind == "mmdit") {
      s = mmdit(b, c, latent_hw);
    } else if (c.kind == "clip-text" || c.kind == "t5-encoder") {
      s = text_encoder(b, c);
    } else {
      s = vae(b, c, config.resolution);
    }
    if (!s.ok()) return s;
  }
  return std::move(b.layers);
}

}  // namespace rigplan
