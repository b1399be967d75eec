// Hugging Face config.json -> TransformerConfig, for the common decoder and encoder families.
// Field names follow each family's configuration class in the transformers library.
#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "rigplan/input.h"
#include "rigplan/workload.h"
#include "util/strings.h"
#include "workload/workload_schema.h"

namespace rigplan {
namespace {

using nlohmann::json;

constexpr std::string_view kFamilies[] = {"llama",    "mistral", "mixtral", "qwen2",  "gemma",
                                          "gemma2",   "phi",     "phi3",    "falcon", "gpt2",
                                          "gpt_neox", "bert",    "gpt_oss"};

// Default context used for the run defaults of an imported model: a model's full context
// (128k tokens for Llama 3.1) is rarely what a fine-tune or benchmark uses.
constexpr int kDefaultSeqCap = 4096;

// A JSON value in a message: scalars as written (long strings cut), containers by kind only, so
// that a message never grows with the input.
std::string describe(const json& value) {
  constexpr size_t kShown = 40;
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    if (text.size() <= kShown) return value.dump();
    return json(utf8_prefix(text, kShown)).dump() + "...";
  }
  return value.dump();
}

// Deepest nesting of arrays and objects in JSON text (strings skipped), stopping past `limit`.
int nesting_depth(std::string_view text, int limit) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit) break;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

// The accepted range of a field, as the workload file format declares it (docs/workloads.md).
Range range_of(std::string_view field) {
  const FieldSpec<TransformerConfig>* spec = find_field(transformer_fields(), field);
  assert(spec && "a TransformerConfig field");
  return spec->range;
}

class Reader {
 public:
  Reader(const std::string& path, const json& j, std::string family)
      : path_(path), j_(j), family_(std::move(family)) {}

  // The first of `keys` present, as an integer within the range of the workload format's `field`;
  // records a problem when none is.
  int integer(std::initializer_list<const char*> keys, std::string_view field) {
    for (const char* key : keys) {
      auto it = j_.find(key);
      if (it == j_.end() || it->is_null()) continue;
      return checked(key, *it, field).value_or(0);
    }
    problems_.push_back(fmt::format("{}: field '{}' is missing; a '{}' config needs it", path_,
                                    *keys.begin(), family_));
    return 0;
  }
  std::optional<int> optional_integer(const char* key, std::string_view field) {
    auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return std::nullopt;
    return checked(key, *it, field);
  }
  bool flag(const char* key, bool fallback) {
    auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return fallback;
    if (!it->is_boolean()) {
      problems_.push_back(
          fmt::format("{}: field '{}': expected true or false, got {}", path_, key, describe(*it)));
      return fallback;
    }
    return it->get<bool>();
  }
  std::string text(const char* key, std::string fallback) {
    auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return fallback;
    if (!it->is_string()) {
      problems_.push_back(
          fmt::format("{}: field '{}': expected a string, got {}", path_, key, describe(*it)));
      return fallback;
    }
    return it->get<std::string>();
  }
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  std::optional<int> checked(const char* key, const json& value, std::string_view field) {
    const Range range = range_of(field);
    // Integers as written, compared as doubles: 2147483648 is out of range, not wrapped.
    if (value.is_number_integer()) {
      const double v = value.is_number_unsigned() ? static_cast<double>(value.get<std::uint64_t>())
                                                  : static_cast<double>(value.get<std::int64_t>());
      if (range.contains(v)) return static_cast<int>(v);
      problems_.push_back(fmt::format("{}: field '{}': {} is out of range; expected an integer {}",
                                      path_, key, describe(value), range.describe()));
      return std::nullopt;
    }
    problems_.push_back(fmt::format("{}: field '{}': expected a positive integer, got {}", path_,
                                    key, describe(value)));
    return std::nullopt;
  }

  const std::string& path_;
  const json& j_;
  std::string family_;
  std::vector<std::string> problems_;
};

// The config's JSON object, refused when it nests deeper than any config.json or is no object.
Result<json> parse_config(const std::string& path, const std::string& json_text) {
  if (nesting_depth(json_text, input::kMaxJsonDepth) > input::kMaxJsonDepth) {
    return Status::invalid_input(
        fmt::format("{}: arrays and objects nested more than {} deep; a Hugging Face config.json "
                    "nests a few levels",
                    path, input::kMaxJsonDepth));
  }
  json j = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::invalid_input(
        fmt::format("{}: not a JSON object (a Hugging Face config.json)", path));
  }
  return j;
}

// The config's model_type, one of kFamilies.
Result<std::string> supported_family(const std::string& path, const json& j) {
  const auto model_type = j.find("model_type");
  if (model_type != j.end() && !model_type->is_string() && !model_type->is_null()) {
    return Status::invalid_input(fmt::format("{}: field 'model_type': expected a string, got {}",
                                             path, describe(*model_type)));
  }
  const std::string family =
      model_type != j.end() && model_type->is_string() ? model_type->get<std::string>() : "";
  const std::vector<std::string> families(std::begin(kFamilies), std::end(kFamilies));
  if (std::find(families.begin(), families.end(), family) == families.end()) {
    return Status::invalid_input(
        fmt::format("{}: model_type '{}' is not supported; supported: {}{}", path,
                    utf8_prefix(family, input::kMaxNameBytes), join(families, ", "),
                    did_you_mean(family, families)));
  }
  return family;
}

// The fields every family has (under GPT-2's names for gpt2), over a Llama-like default.
TransformerConfig read_common_fields(Reader& r, const std::string& family) {
  TransformerConfig t;
  t.arch = "decoder";
  t.position = "rope";
  t.norm = "rmsnorm";
  t.ffn_type = "swiglu";
  const bool gpt2 = family == "gpt2";
  t.hidden_size = gpt2 ? r.integer({"n_embd"}, "hidden_size")
                       : r.integer({"hidden_size", "d_model"}, "hidden_size");
  t.num_layers =
      gpt2 ? r.integer({"n_layer"}, "num_layers") : r.integer({"num_hidden_layers"}, "num_layers");
  t.num_heads = gpt2 ? r.integer({"n_head"}, "num_heads")
                     : r.integer({"num_attention_heads", "n_head"}, "num_heads");
  t.vocab_size = r.integer({"vocab_size"}, "vocab_size");
  t.max_positions =
      gpt2 ? r.integer({"n_positions"}, "max_positions")
           : r.optional_integer("max_position_embeddings", "max_positions").value_or(2048);
  t.head_dim = r.optional_integer("head_dim", "head_dim");
  t.num_kv_heads = r.optional_integer("num_key_value_heads", "num_kv_heads");
  t.tied_embeddings = r.flag("tie_word_embeddings", false);
  return t;
}

// OpenAI's gpt-oss: every layer a mixture of experts whose gate, up and down projections and
// router have biases, attention with biases and one learned sink logit per head, and
// sliding-window attention on alternate layers from the first (layer_types), read as
// sliding_window_pattern 2 (layer_types itself is not read).
void read_gpt_oss_fields(Reader& r, TransformerConfig& t) {
  t.ffn_size = r.integer({"intermediate_size"}, "ffn_size");
  t.attention_bias = r.flag("attention_bias", true);
  t.mlp_bias = true;
  t.num_experts = r.integer({"num_local_experts"}, "num_experts");
  t.experts_top_k = r.integer({"num_experts_per_tok", "experts_per_token"}, "experts_top_k");
  t.sliding_window = r.optional_integer("sliding_window", "sliding_window");
  if (t.sliding_window) t.sliding_window_pattern = 2;
  // The routers' biases and the sinks: E + H a layer.
  t.extra_params = static_cast<std::int64_t>(t.num_layers) * (*t.num_experts + t.num_heads);
}

void read_falcon_fields(Reader& r, TransformerConfig& t) {
  t.ffn_type = "gelu";
  t.norm = "layernorm";
  t.ffn_size = r.optional_integer("ffn_hidden_size", "ffn_size").value_or(4 * t.hidden_size);
  t.parallel_block = r.flag("parallel_attn", true);
  t.tied_embeddings = r.flag("tie_word_embeddings", true);
  t.attention_bias = t.mlp_bias = r.flag("bias", false);
  if (r.flag("new_decoder_architecture", false)) {
    t.num_kv_heads = r.integer({"num_kv_heads"}, "num_kv_heads");
    t.norms_per_layer = 2;
  } else {
    t.num_kv_heads = r.flag("multi_query", true) ? 1 : t.num_heads;
    t.norms_per_layer = 1;
  }
}

void read_bert_fields(Reader& r, TransformerConfig& t) {
  t.arch = "encoder";
  t.ffn_size = r.integer({"intermediate_size"}, "ffn_size");
  t.ffn_type = "gelu";
  t.norm = "layernorm";
  t.position = "learned";
  t.tied_embeddings = true;  // the bare encoder has no LM head
  t.attention_bias = t.mlp_bias = true;
  t.type_vocab_size = r.optional_integer("type_vocab_size", "type_vocab_size").value_or(2);
  t.embedding_norm = true;
  t.final_norm = false;
  t.pooler = true;
  t.dropout = true;
}

// What sets the family apart: its feed-forward, norms, biases, block layout and experts.
void read_family_fields(Reader& r, const std::string& family, TransformerConfig& t) {
  if (family == "llama" || family == "mistral" || family == "mixtral" || family == "qwen2") {
    t.ffn_size = r.integer({"intermediate_size"}, "ffn_size");
    t.attention_bias = r.flag("attention_bias", false);
    t.mlp_bias = r.flag("mlp_bias", false);
    if (family == "qwen2") t.qkv_bias = true;
    // Mistral 7B v0.1 slides every layer over 4096 tokens; v0.2 and later say null.
    if (family == "mistral")
      t.sliding_window = r.optional_integer("sliding_window", "sliding_window");
    if (family == "mixtral") {
      t.num_experts = r.integer({"num_local_experts"}, "num_experts");
      t.experts_top_k = r.integer({"num_experts_per_tok"}, "experts_top_k");
    }
  } else if (family == "gemma" || family == "gemma2") {
    t.ffn_size = r.integer({"intermediate_size"}, "ffn_size");
    t.ffn_type = "geglu";
    t.tied_embeddings = r.flag("tie_word_embeddings", true);
    if (family == "gemma2") {
      t.norms_per_layer = 4;
      // Alternate layers slide, the first of each pair (Gemma 2's modeling code: even layers).
      t.sliding_window = r.optional_integer("sliding_window", "sliding_window");
      if (t.sliding_window) t.sliding_window_pattern = 2;
    }
  } else if (family == "phi3") {
    t.ffn_size = r.integer({"intermediate_size"}, "ffn_size");
  } else if (family == "phi") {
    t.ffn_size = r.integer({"intermediate_size"}, "ffn_size");
    t.ffn_type = "gelu";
    t.norm = "layernorm";
    t.parallel_block = true;
    t.norms_per_layer = 1;
    t.attention_bias = t.mlp_bias = t.lm_head_bias = true;
  } else if (family == "gpt_oss") {
    read_gpt_oss_fields(r, t);
  } else if (family == "falcon") {
    read_falcon_fields(r, t);
  } else if (family == "gpt2") {
    t.ffn_size = r.optional_integer("n_inner", "ffn_size").value_or(4 * t.hidden_size);
    t.ffn_type = "gelu";
    t.norm = "layernorm";
    t.position = "learned";
    t.tied_embeddings = r.flag("tie_word_embeddings", true);
    t.attention_bias = t.mlp_bias = true;
    t.dropout = true;
  } else if (family == "gpt_neox") {
    t.ffn_size = r.integer({"intermediate_size"}, "ffn_size");
    t.ffn_type = "gelu";
    t.norm = "layernorm";
    t.parallel_block = r.flag("use_parallel_residual", true);
    t.attention_bias = t.mlp_bias = true;
  } else {
    read_bert_fields(r, t);
  }
  if (family != "gpt2" && family != "bert") t.dropout = false;
}

// The checks that span fields: the name's length, heads against sizes, experts per token.
Status check_consistent(const std::string& path, const std::string& name,
                        const TransformerConfig& t) {
  if (name.size() > input::kMaxNameBytes) {
    return Status::invalid_input(
        fmt::format("{}: field '_name_or_path' is {} bytes long; expected "
                    "at most {}",
                    path, name.size(), input::kMaxNameBytes));
  }
  if (!t.head_dim && t.hidden_size % t.num_heads != 0) {
    return Status::invalid_input(fmt::format("{}: {} attention heads do not divide hidden size {}",
                                             path, t.num_heads, t.hidden_size));
  }
  if (t.num_kv_heads && t.num_heads % *t.num_kv_heads != 0) {
    return Status::invalid_input(
        fmt::format("{}: {} key/value heads do not divide {} attention heads", path,
                    *t.num_kv_heads, t.num_heads));
  }
  if (t.top_k() > t.experts()) {
    return Status::invalid_input(
        fmt::format("{}: {} experts per token, but only {} experts", path, t.top_k(), t.experts()));
  }
  return {};
}

// The workload of an imported model, with its run defaults and provenance.
Result<Workload> imported_workload(const std::string& path, const std::string& family,
                                   const std::string& name, const std::string& dtype,
                                   const TransformerConfig& t) {
  Workload w;
  w.id = to_lower(name.empty() ? "hf-" + family : name);
  w.name = name.empty() ? family : name;
  w.transformer = t;
  if (Status s = check_model_size(w); !s.ok()) {
    return Status::invalid_input(fmt::format("{}: {}", path, s.message()));
  }
  w.task = t.arch == "encoder" ? "nlp" : "llm";
  w.published_params = count_params(w).total;
  w.params_source = "computed from config.json (no published count)";
  w.default_precision = dtype == "float32" ? "fp32" : dtype == "float16" ? "fp16" : "bf16";
  w.default_batch = 1;
  w.default_seq_len = std::min(t.max_positions, kDefaultSeqCap);
  w.throughput_unit = t.arch == "encoder" ? "sequences" : "tokens";
  w.provenance.source = path;
  w.provenance.confidence = "cited";
  w.provenance.notes = fmt::format("imported from a '{}' config.json; default sequence {} tokens",
                                   family, *w.default_seq_len);
  w.provenance.file = path;
  return w;
}

}  // namespace

Result<Workload> import_hf_config(const std::string& path, const std::string& json_text) {
  auto j = parse_config(path, json_text);
  if (!j) return j.status();
  auto family = supported_family(path, *j);
  if (!family) return family.status();
  Reader r(path, *j, *family);
  TransformerConfig t = read_common_fields(r, *family);
  read_family_fields(r, *family, t);
  const std::string name =
      r.text("_name_or_path", std::filesystem::path(path).parent_path().filename().string());
  const std::string dtype = r.text("torch_dtype", "bfloat16");
  if (!r.problems().empty()) return Status::invalid_input(join(r.problems(), "\n"));
  if (Status s = check_consistent(path, name, t); !s.ok()) return s;
  return imported_workload(path, *family, name, dtype, t);
}

}  // namespace rigplan
