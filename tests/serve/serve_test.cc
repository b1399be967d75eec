// The HTTP API over loopback: each endpoint answers exactly what the command prints with --json,
// bad parameters get 400 with the command's own message, and the server holds its limits.
#include <httplib.h>

#include <future>
#include <nlohmann/json.hpp>

#include "serve/live_server.h"

namespace rigplan::testing {
namespace {

class ServeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new LiveServer(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  // The client waits up to kClientReadTimeoutS for an answer: httplib's default of 5 s is less
  // than a report takes under ASan on a loaded two-core machine.
  static httplib::Client client() {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_read_timeout(kClientReadTimeoutS, 0);
    return c;
  }
  static constexpr int kClientReadTimeoutS = 60;
  static LiveServer* server_;
};
LiveServer* ServeTest::server_ = nullptr;

TEST_F(ServeTest, RecommendAnswersWhatTheCommandPrintsWithJson) {
  auto res = client().Get("/api/recommend?preset=kaggle&budget=2500");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
  const auto cli = server_->cli({"recommend", "--preset", "kaggle", "--budget", "2500", "--json"});
  ASSERT_EQ(cli.code, 0);
  EXPECT_EQ(res->body, cli.out);
  const auto json = nlohmann::json::parse(res->body);
  EXPECT_EQ(json["constraints"]["budget_usd"], 2500);
  EXPECT_FALSE(json["options"].empty());
}

TEST_F(ServeTest, EveryListingMatchesTheCommandLine) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"/api/gpus?vendor=amd", {"gpus", "list", "--vendor", "amd", "--json"}},
      {"/api/gpus/show?gpu=RTX%204090", {"gpus", "show", "RTX 4090", "--json"}},
      {"/api/workloads", {"workloads", "list", "--json"}},
      {"/api/presets", {"recommend", "--presets", "--json"}},
      {"/api/memory?workload=llama-2-7b&gpu=rtx-4090&method=qlora&weights=nf4",
       {"memory", "llama-2-7b", "--gpu", "rtx-4090", "--method", "qlora", "--weights", "nf4",
        "--json"}},
      {"/api/memory?workload=llama-2-7b&gpu=a100-sxm4-40gb&recipe=litgpt&method=adapter-v2&"
       "weights=nf4",
       {"memory", "llama-2-7b", "--gpu", "a100-sxm4-40gb", "--recipe", "litgpt", "--method",
        "adapter-v2", "--weights", "nf4", "--json"}},
      {"/api/predict?workload=resnet50&gpu=h100-sxm5-80gb&cpu=ryzen-7-7800x3d&loader=dali",
       {"predict", "resnet50", "--gpu", "h100-sxm5-80gb", "--cpu", "ryzen-7-7800x3d", "--loader",
        "dali", "--json"}},
      {"/api/compare?workload=resnet50&gpus=rtx-4090,rtx-3090",
       {"compare", "resnet50", "--gpus", "rtx-4090,rtx-3090", "--json"}},
      {"/api/compare?workload=resnet50&gpus=2x%20rtx-3090,1x%20rtx-4090",
       {"compare", "resnet50", "--gpus", "2x rtx-3090,1x rtx-4090", "--json"}},
      {"/api/predict?workload=resnet50&gpu=v100-sxm2-16gb&gpus=8&precision=fp32&batch=256",
       {"predict", "resnet50", "--gpu", "v100-sxm2-16gb", "--gpus", "8", "--precision", "fp32",
        "--batch", "256", "--json"}},
      {"/api/recommend?preset=kaggle&gpus-allowed=rtx-3090,rtx-4090",
       {"recommend", "--preset", "kaggle", "--gpus-allowed", "rtx-3090,rtx-4090", "--json"}},
      {"/api/recommend?preset=kaggle&have=gtx-1080-ti",
       {"recommend", "--preset", "kaggle", "--have", "gtx-1080-ti", "--json"}},
      {"/api/recommend?preset=kaggle&compile=true&cuda-graphs",
       {"recommend", "--preset", "kaggle", "--compile", "--cuda-graphs", "--json"}},
      {"/api/"
       "cost?gpu=rtx-3090&price=2200&power=450&rent=2.14&utilisation=0.15&electricity=0.12&no-"
       "resale",
       {"cost", "--gpu", "rtx-3090", "--price", "2200", "--power", "450", "--rent", "2.14",
        "--utilisation", "0.15", "--electricity", "0.12", "--no-resale", "--json"}},
  };
  for (const auto& [path, args] : cases) {
    auto res = client().Get(path);
    ASSERT_TRUE(res) << path;
    const auto cli = server_->cli(args);
    ASSERT_EQ(cli.code, 0) << path << ": " << cli.err;
    EXPECT_EQ(res->status, 200) << path << ": " << res->body;
    EXPECT_EQ(res->body, cli.out) << path;
  }
}

TEST_F(ServeTest, DettmersBreakEvenOverHttp) {
  // 293.0 days, as `rigplan cost` computes for Dettmers' RTX 3090 example (docs/cost.md).
  auto res = client().Get(
      "/api/"
      "cost?gpu=rtx-3090&price=2200&power=450&rent=2.14&utilisation=0.15&electricity=0.12&no-"
      "resale");
  ASSERT_TRUE(res);
  EXPECT_NEAR(nlohmann::json::parse(res->body)["break_even_days"].get<double>(), 293.0, 0.05);
}

TEST_F(ServeTest, BadParametersGetTheCommandsOwnMessage) {
  auto res = client().Get("/api/gpus/show?gpu=rtx-409");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  const auto cli = server_->cli({"gpus", "show", "rtx-409", "--json"});
  EXPECT_EQ(cli.code, 2);
  const std::string message = nlohmann::json::parse(res->body)["error"];
  EXPECT_EQ(message + "\n", cli.err);
  EXPECT_NE(message.find("did you mean 'rtx-4090'"), std::string::npos) << message;

  res = client().Get("/api/recommend?workload=resnet50&budget=lots&hours-per-month=10");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_NE(res->body.find("--budget"), std::string::npos) << res->body;

  res = client().Get("/api/recommend?workload=resnet50");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_EQ(nlohmann::json::parse(res->body)["error"].get<std::string>() + "\n",
            server_->cli({"recommend", "resnet50", "--json"}).err);
}

// A recommend request under torch.compile: its tasks and its notes say so, its speeds are not
// eager's, and a serving job refuses it with predict's words.
TEST_F(ServeTest, RecommendUnderTorchCompile) {
  const std::string job = "/api/recommend?workload=resnet50&images=1281167&epochs=1";
  auto eager = client().Get(job);
  auto compiled = client().Get(job + "&compile=true");
  ASSERT_TRUE(eager && compiled);
  ASSERT_EQ(compiled->status, 200) << compiled->body;
  const auto with = nlohmann::json::parse(compiled->body);
  const auto without = nlohmann::json::parse(eager->body);
  EXPECT_EQ(with["demand"]["tasks"][0]["compile"], true);
  EXPECT_FALSE(without["demand"]["tasks"][0].contains("compile"));
  EXPECT_NE(with["assumptions"].dump().find("Speeds assume resnet50 trains under torch.compile"),
            std::string::npos);
  EXPECT_GT(with["options"][0]["throughput"].get<double>(),
            without["options"][0]["throughput"].get<double>());

  auto res = client().Get("/api/recommend?preset=chatbot-8b&compile=true");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  const auto cli = server_->cli({"recommend", "--preset", "chatbot-8b", "--compile", "--json"});
  EXPECT_EQ(cli.code, 2);
  EXPECT_EQ(nlohmann::json::parse(res->body)["error"].get<std::string>() + "\n", cli.err);
  EXPECT_NE(cli.err.find("--compile and --cuda-graphs model a training step"), std::string::npos);
}

// A request rate is the load of a serving run, and a concurrency another: given both, the
// concurrency was ignored (8 asked, 33.4 in flight) while the answer's batch said 8.
TEST_F(ServeTest, ARequestRateTakesNoConcurrencyAndNoOtherMode) {
  auto res = client().Get(
      "/api/predict?workload=llama-3.1-8b&gpu=l40s&mode=serve&input-len=1024&output-len=256&"
      "request-rate=4&concurrency=8");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  const auto cli = server_->cli({"predict", "llama-3.1-8b", "--gpu", "l40s", "--mode", "serve",
                                 "--input-len", "1024", "--output-len", "256", "--request-rate",
                                 "4", "--concurrency", "8", "--json"});
  EXPECT_EQ(cli.code, 2);
  const std::string message = nlohmann::json::parse(res->body)["error"];
  EXPECT_EQ(message + "\n", cli.err);
  EXPECT_EQ(message,
            "rigplan: --request-rate 4 and --concurrency 8 each set the load of --mode serve: the "
            "rate finds the sequences in flight that serve it, --concurrency holds that many in "
            "flight; give one of them");
  res = client().Get("/api/predict?workload=llama-3.1-8b&gpu=l40s&mode=decode&request-rate=4");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_EQ(
      nlohmann::json::parse(res->body)["error"],
      "rigplan: --request-rate 4 is the load of --mode serve; this run's mode is decode (give "
      "--mode serve, or leave --request-rate out)");
}

// The layout search over HTTP: the CLI's fastest layout of Llama 3 70B on 64 H100 SXM5s, TP 4 ×
// PP 8 × CP 2, ZeRO-1, at 60,643 tokens/s: its global batch of 512 sequences of 8,192 tokens
// (4,194,304 tokens) in a 69.164 s step.
TEST_F(ServeTest, TrainPlanAnswersTheCommandsFastestLayout) {
  auto res = client().Get("/api/train-plan?workload=llama-3-70b&gpu=h100-sxm5-80gb&gpus=64&top=2");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  const auto cli = server_->cli({"train-plan", "llama-3-70b", "--gpu", "h100-sxm5-80gb", "--gpus",
                                 "64", "--top", "2", "--json"});
  ASSERT_EQ(cli.code, 0) << cli.err;
  EXPECT_EQ(res->body, cli.out);
  const auto json = nlohmann::json::parse(res->body);
  EXPECT_EQ(json["global_batch"], 512);
  const auto& fastest = json["layouts"][0];
  EXPECT_EQ(fastest["tp"], 4);
  EXPECT_EQ(fastest["pp"], 8);
  EXPECT_EQ(fastest["vp"], 1);
  EXPECT_EQ(fastest["cp"], 2);
  EXPECT_EQ(fastest["zero"], 1);
  const auto& prediction = fastest["prediction"];
  EXPECT_NEAR(prediction["step_time_s"].get<double>(), 69.164, 5e-4);
  EXPECT_NEAR(prediction["throughput"].get<double>(), 512 * 8192 / 69.164, 1.0);
  EXPECT_EQ(prediction["throughput"], 60643.0);
}

// The layout search refuses over HTTP what it refuses on the command line, naming the field.
TEST_F(ServeTest, TrainPlanRefusalsAreA400NamingTheField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"/api/train-plan?workload=llama-3-70b&gpu=h100-sxm5-80gb&gpus=0",
       "rigplan: --gpus 0 is out of range; expected an integer from 1 to 1048576"},
      {"/api/train-plan?workload=llama-3-70b&gpu=h100-sxm5-80gb&gpus=64&top=-1",
       "rigplan: --top -1 is out of range; expected an integer from 0 to 100000"},
      {"/api/train-plan?workload=resnet50&gpu=h100-sxm5-80gb&gpus=8",
       "rigplan: train-plan searches transformer layouts; resnet50 is not a transformer"},
  };
  for (const auto& [path, message] : cases) {
    auto res = client().Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 400) << path;
    EXPECT_EQ(nlohmann::json::parse(res->body)["error"], message) << path;
  }
}

TEST_F(ServeTest, ABareKeyIsAFlagAndNeverTakesTheNextParameter) {
  // `batch=` became a bare --batch, which took the next argument, --gpu=rtx-4090, as its value.
  auto res = client().Get("/api/memory?workload=llama-2-7b&batch=&gpu=rtx-4090");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_EQ(nlohmann::json::parse(res->body)["error"],
            "rigplan: --batch true is not a number; expected an integer from 1 to 1000000000");
  res = client().Get("/api/memory?workload=llama-2-7b&gpu=rtx-4090&checkpointing&no-flash=true");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body, server_
                           ->cli({"memory", "llama-2-7b", "--gpu", "rtx-4090", "--checkpointing",
                                  "--no-flash", "--json"})
                           .out);
}

TEST_F(ServeTest, ParallelDegreesThatOverflowAreA400AndTheServerLives) {
  // tp × pp wrapped to 0 and `gpus % 0` ended the server with SIGFPE (issue 20).
  auto res = client().Get("/api/memory?workload=llama-2-7b&gpu=rtx-4090&tp=65536&pp=65536");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_EQ(nlohmann::json::parse(res->body)["error"],
            "rigplan: --gpus 1 must be a multiple of tensor parallel 65536 × pipeline parallel "
            "65536");
  auto after = client().Get("/api/memory?workload=llama-2-7b&gpu=rtx-4090");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200);
}

TEST_F(ServeTest, InvalidUtf8IsA400NamingTheParameter) {
  // It was a 500 with an empty body and the exception's text in an EXCEPTION_WHAT header.
  for (const char* path :
       {"/api/gpus/show?gpu=%ff%fe", "/api/memory?workload=llama-2-7b&gpu=%c3%28",
        "/api/recommend?preset=kaggle&region=%ed%a0%80"}) {
    auto res = client().Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 400) << path;
    EXPECT_FALSE(res->has_header("EXCEPTION_WHAT")) << path;
    const auto json = nlohmann::json::parse(res->body);
    EXPECT_NE(json["error"].get<std::string>().find("is not valid UTF-8"), std::string::npos)
        << res->body;
  }
  auto res = client().Get("/api/gpus/show?gpu=%ff");
  ASSERT_TRUE(res);
  EXPECT_EQ(nlohmann::json::parse(res->body)["error"],
            "rigplan serve: parameter 'gpu' is not valid UTF-8 (byte 1 is 0xff)");
  res = client().Get("/api/gpus?%ff=1");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_EQ(nlohmann::json::parse(res->body)["error"],
            "rigplan serve: a parameter name is not valid UTF-8");
}

TEST_F(ServeTest, ParametersAndRangesAreBounded) {
  std::string many = "/api/gpus?vendor=nvidia";
  for (int i = 0; i < 64; ++i) many += "&a" + std::to_string(i) + "=1";
  auto res = client().Get(many);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_EQ(nlohmann::json::parse(res->body)["error"],
            "rigplan serve: 65 query parameters; at most 64 are accepted");
  // 2,000 ranges once inflated a 4.8 KB answer to 236 KB.
  std::string ranges = "bytes=0-1";
  for (int i = 0; i < 1500; ++i) ranges += ",0-1";
  res = client().Get("/api/presets", {{"Range", ranges}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 416);
  EXPECT_LT(res->body.size(), 200u);
  res = client().Get("/api/presets", {{"Range", "bytes=0-9"}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 206);
  EXPECT_EQ(res->body.size(), 10u);
}

TEST(ServeCache, KeepsAnswersWithinItsBytes) {
  cli::CliContext ctx{.out = &std::cout, .err = &std::cerr};
  // 64 KiB: an answer above 8 KiB is not kept; the overview (about 4 KB) is.
  const serve::Handler handler(*ctx.load(), *ctx.load_zoo(),
                               serve::CacheLimits{.entries = 1000, .bytes = 64 << 10});
  size_t largest = 0;
  for (int budget = 1000; budget < 1100; ++budget) {
    const auto r = handler.get("/api/overview", {{"max-price", std::to_string(budget)}});
    ASSERT_EQ(r.status, 200) << r.body;
    largest = std::max(largest, r.body.size());
    EXPECT_LE(handler.cached_bytes(), 64u << 10);
  }
  EXPECT_LT(largest, 8u << 10);
  EXPECT_GT(handler.cached_entries(), 5u);
  EXPECT_LT(handler.cached_entries(), 100u);  // older answers went out to stay within the bytes
  const size_t before = handler.cached_entries();
  const auto big = handler.get("/api/gpus", {});
  ASSERT_GT(big.body.size(), 8u << 10);
  EXPECT_EQ(handler.cached_entries(), before);  // too large to keep
}

// One thread serves every request below with the same command line (ReusedCommandLine): each
// answer is the one a fresh command line gives, whatever the request before it set.
TEST(ServeCommandLine, EachRequestStartsFromTheDefaults) {
  cli::CliContext ctx{.out = &std::cout, .err = &std::cerr};
  const serve::Handler handler(*ctx.load(), *ctx.load_zoo(), serve::CacheLimits{.entries = 0});
  const auto fresh = [](std::vector<std::string> args) {
    args.insert(args.begin(), {"rigplan", "--json"});
    std::ostringstream out, err;
    cli::CliContext c{.out = &out, .err = &err};
    EXPECT_EQ(cli::run_command_line(args, c), cli::kExitOk) << err.str();
    return out.str();
  };
  const serve::Params plain = {{"workload", "resnet50"}, {"hours-per-month", "100"}};
  const std::string expected = fresh({"recommend", "resnet50", "--hours-per-month", "100"});
  ASSERT_EQ(handler.get("/api/recommend", plain).body, expected);
  const auto full = handler.get("/api/recommend", {{"workload", "resnet50"},
                                                   {"hours-per-month", "100"},
                                                   {"budget", "2000"},
                                                   {"region", "de"},
                                                   {"acquire", "rent"},
                                                   {"top", "2"},
                                                   {"have", "rtx-3090"},
                                                   {"no-resale", ""}});
  EXPECT_EQ(full.body, fresh({"recommend", "resnet50", "--hours-per-month", "100", "--budget",
                              "2000", "--region", "de", "--acquire", "rent", "--top", "2", "--have",
                              "rtx-3090", "--no-resale"}));
  EXPECT_EQ(handler.get("/api/recommend", {{"workload", "resnet50"}, {"top", "x"}}).status, 400);
  EXPECT_EQ(handler.get("/api/recommend", plain).body, expected);
}

TEST_F(ServeTest, ValuesCannotBecomeOptions) {
  // A value starting with '-' stays a value: no option can be smuggled in.
  auto res = client().Get("/api/gpus/show?gpu=--html");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  res = client().Get("/api/recommend?workload=resnet50&hours-per-month=--html=/tmp/x");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
}

TEST_F(ServeTest, FilesAreNeitherReadNorWritten) {
  for (const char* path : {"/api/recommend?hf-config=/etc/passwd", "/api/cost?build=/etc/passwd",
                           "/api/recommend?preset=kaggle&html=/tmp/rigplan-serve-test.html",
                           "/api/gpus?catalog=/etc"}) {
    auto res = client().Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 400) << path;
    EXPECT_NE(res->body.find("not accepted over HTTP"), std::string::npos) << res->body;
  }
  for (const char* path :
       {"/../etc/passwd", "/etc/passwd", "/web/index.html", "/api/validate", "/report/gpus"}) {
    auto res = client().Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 404) << path;
  }
}

TEST_F(ServeTest, ThePageAndItsAssets) {
  auto page = client().Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page->body.find("<script src=\"/app.js\""), std::string::npos);
  EXPECT_EQ(page->body.find("http"), std::string::npos) << "the page fetches nothing from outside";
  auto script = client().Get("/app.js");
  ASSERT_TRUE(script);
  EXPECT_EQ(script->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_NE(script->body.find("/api/recommend"), std::string::npos);
}

TEST_F(ServeTest, ReportsAreTheHtmlPages) {
  auto res = client().Get("/report/recommend?preset=kaggle");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body, server_->cli({"recommend", "--preset", "kaggle", "--html", "-"}).out);
  EXPECT_NE(res->body.find("<svg"), std::string::npos);
  res = client().Get("/report/build/propose?gpus=2x%20rtx-4090&region=de");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
  EXPECT_NE(res->body.find("PSU load"), std::string::npos);
}

TEST_F(ServeTest, ConcurrentRequestsGetTheSameAnswers) {
  const std::string expected = server_->cli({"recommend", "--preset", "startup", "--json"}).out;
  std::vector<std::future<int>> workers;
  for (int t = 0; t < 8; ++t) {
    workers.push_back(std::async(std::launch::async, [&, t] {
      int good = 0;
      for (int i = 0; i < 10; ++i) {
        // Half repeat one request (the cache), half vary the budget (fresh work).
        const std::string path = t % 2 ? "/api/recommend?preset=startup"
                                       : "/api/recommend?preset=startup&budget=" +
                                             std::to_string(20000 + 1000 * (t * 10 + i));
        auto res = client().Get(path);
        good += res && res->status == 200 && (t % 2 == 0 || res->body == expected);
      }
      return good;
    }));
  }
  for (auto& w : workers) EXPECT_EQ(w.get(), 10);
}

TEST_F(ServeTest, RequestsAreBounded) {
  auto long_uri = client().Get("/api/gpus?sort=" + std::string(9000, 'a'));
  ASSERT_TRUE(long_uri);
  EXPECT_EQ(long_uri->status, 414);
  auto big_body =
      client().Post("/api/gpus", std::string(serve::kMaxBodyBytes + 1, 'x'), "text/plain");
  ASSERT_TRUE(big_body);
  EXPECT_EQ(big_body->status, 413);
}

}  // namespace
}  // namespace rigplan::testing
