// Image-generation models as layer lists: the diffusers UNet (SD 1.x, SDXL), the Flux and SD 3
// diffusion transformers, the CLIP and T5 text encoders and the KL autoencoder, each built from
// its published configuration at a training resolution (docs/workloads.md, "Diffusion models").
#pragma once

#include <string>
#include <vector>

#include "rigplan/workload.h"

namespace rigplan {

// The layers of every component at `config.resolution`, each tagged with its component's name.
// A component whose fields do not fit its kind is a kInvalidInput Status naming the field.
Result<std::vector<Layer>> diffusion_layers(const DiffusionConfig& config);

// The module diffusers' gradient checkpointing (`unet.enable_gradient_checkpointing()`)
// recomputes a layer of `config`'s UNet in, by the layer's name as diffusion_layers writes it: a
// resnet ("unet.down_blocks.0.0.resnet", "unet.mid_block.resnets.1") or one transformer block of
// an attention ("unet.up_blocks.3.2.attentions.blocks(x1)", a row of that many blocks). Empty for
// the layers it runs outside any checkpoint (conv_in, the time embedding, the down- and
// upsamplers, the skip concatenations, each attention's norm, proj_in and proj_out, conv_out),
// and for every layer of another component (docs/memory.md, "Diffusion models").
// Flux's and SD 3's transformers are checkpointed block by block: "transformer.transformer_blocks"
// names one repetition of a double-stream (joint) block, "transformer.single_transformer_blocks"
// of a single-stream one, "transformer.transformer_blocks.last" SD 3's last joint block.
std::string checkpoint_module(const DiffusionConfig& config, const Layer& layer);

// The LoRA target names (q, k, v, up, down) of the linears that alone save a UNet layer's output
// for the backward pass: a transformer block's norm1 (the self-attention's q, k, v), norm2 (the
// cross-attention's q; its k and v read the text), norm3 (the GEGLU projection, up) and the
// GEGLU product (the output linear, down). PyTorch saves a linear's input only when its weight
// needs a gradient (autograd's addmm and mm save mat1 for mat2's gradient alone), so when the
// UNet's weights are frozen under LoRA these outputs are kept only if a targeted linear, whose
// adapter saves its input, reads them. Empty for every other layer: another op saves its output
// (a convolution, a norm, an activation, the attention), or it is not a UNet's.
std::vector<std::string> saved_only_by_linears(const DiffusionConfig& config, const Layer& layer);

// The elements per image that one repetition of a checkpointed module hands to the next when its
// last layer is not all of it: a joint block of Flux or SD 3 (`module` "<component>.
// transformer_blocks") returns its image stream and its text stream, n·d + t·d (n image tokens
// of the patched latent, t text tokens, d wide). 0 for every other module, whose output is its
// last layer's (a UNet's resnets and transformer blocks, Flux's single-stream blocks over the
// concatenated tokens, SD 3's last block, which returns the image stream only).
double block_streams(const DiffusionConfig& config, const std::string& module);

}  // namespace rigplan
