// End to end: `rigplan serve` on loopback, driven in headless Chromium as a user would: the page
// loads its lists from the API, the test picks a workload, a job size, a budget and a region,
// submits, and checks the rendered recommendation, comparison and charts. Screenshots of the
// main views are kept under the build directory's test-artefacts/.
//
// Chromium is Debian's (scripts/setup.sh installs it), driven over the DevTools protocol on a
// pipe (--remote-debugging-pipe: JSON messages ended by NUL on file descriptors 3 and 4).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "serve/live_server.h"

namespace rigplan::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string chromium_path() {
  if (const char* path = std::getenv("RIGPLAN_CHROMIUM"); path && *path) return path;
  return "/usr/bin/chromium";
}

std::string base64_decode(const std::string& in) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  int bits = 0, buffer = 0;
  for (char c : in) {
    const int v = value(c);
    if (v < 0) continue;
    buffer = (buffer << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xFF);
    }
  }
  return out;
}

// One headless Chromium and one page, driven over the DevTools protocol.
class Browser {
 public:
  Browser() {
    profile_ =
        std::filesystem::temp_directory_path() / ("rigplan-chromium-" + std::to_string(::getpid()));
    int to_browser[2], from_browser[2];
    if (::pipe(to_browser) != 0 || ::pipe(from_browser) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      // The child: fd 3 is what Chromium reads, fd 4 what it writes.
      ::dup2(to_browser[0], 3);
      ::dup2(from_browser[1], 4);
      const int devnull = ::open("/dev/null", O_WRONLY);
      ::dup2(devnull, 1);
      ::dup2(devnull, 2);
      const std::string profile = "--user-data-dir=" + profile_.string();
      const std::string chromium = chromium_path();
      ::execl(chromium.c_str(), chromium.c_str(), "--headless", "--no-sandbox", "--disable-gpu",
              "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
              "--hide-scrollbars", "--remote-debugging-pipe", "--window-size=1100,1400",
              profile.c_str(), "about:blank", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(to_browser[0]);
    ::close(from_browser[1]);
    write_fd_ = to_browser[1];
    read_fd_ = from_browser[0];
  }

  ~Browser() {
    if (pid_ > 0) {
      if (session_.empty() || !send("Browser.close", json::object(), false)) ::kill(pid_, SIGTERM);
      const auto deadline = Clock::now() + std::chrono::seconds(10);
      int status = 0;
      while (::waitpid(pid_, &status, WNOHANG) == 0) {
        if (Clock::now() > deadline) {
          ::kill(pid_, SIGKILL);
          ::waitpid(pid_, &status, 0);
          break;
        }
        ::usleep(50'000);
      }
    }
    if (write_fd_ >= 0) ::close(write_fd_);
    if (read_fd_ >= 0) ::close(read_fd_);
    std::error_code ec;
    std::filesystem::remove_all(profile_, ec);
  }

  bool started() const { return pid_ > 0; }

  // Attaches to the first page (waiting for Chromium to open it); false when it did not answer.
  bool attach() {
    const auto deadline = Clock::now() + std::chrono::seconds(30);
    while (Clock::now() < deadline) {
      auto targets = command("Target.getTargets", json::object(), false);
      if (!targets) return false;
      for (const auto& t : (*targets)["targetInfos"]) {
        if (t["type"] != "page") continue;
        auto attached = command("Target.attachToTarget",
                                {{"targetId", t["targetId"]}, {"flatten", true}}, false);
        if (!attached) return false;
        session_ = (*attached)["sessionId"];
        return command("Page.enable", json::object()) && command("Runtime.enable", json::object());
      }
      ::usleep(100'000);
    }
    return false;
  }

  bool navigate(const std::string& url) {
    return command("Page.navigate", {{"url", url}}).has_value();
  }

  // The value of a JavaScript expression (awaited when it is a promise).
  json eval(const std::string& expression) {
    auto r = command("Runtime.evaluate",
                     {{"expression", expression}, {"returnByValue", true}, {"awaitPromise", true}});
    if (!r) return nullptr;
    if (r->contains("exceptionDetails")) {
      ADD_FAILURE() << "JavaScript threw: " << (*r)["exceptionDetails"].dump() << " in "
                    << expression;
      return nullptr;
    }
    return (*r)["result"].value("value", json());
  }

  // Polls `expression` until it is true; false after `seconds`. While the page loads it may
  // throw (no body yet): that counts as false.
  bool wait_for(const std::string& expression, int seconds) {
    const std::string guarded =
        "(() => { try { return " + expression + "; } catch (e) { return false; } })()";
    const auto deadline = Clock::now() + std::chrono::seconds(seconds);
    while (Clock::now() < deadline) {
      if (eval(guarded) == true) return true;
      ::usleep(100'000);
    }
    return false;
  }

  // A PNG of the whole page.
  bool screenshot(const std::filesystem::path& file) {
    auto metrics = command("Page.getLayoutMetrics", json::object());
    if (!metrics) return false;
    const json size = (*metrics)["cssContentSize"];
    auto shot = command("Page.captureScreenshot", {{"format", "png"},
                                                   {"captureBeyondViewport", true},
                                                   {"clip",
                                                    {{"x", 0},
                                                     {"y", 0},
                                                     {"width", size["width"]},
                                                     {"height", size["height"]},
                                                     {"scale", 1}}}});
    if (!shot) return false;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << base64_decode((*shot)["data"].get<std::string>());
    return std::filesystem::file_size(file) > 1000;
  }

 private:
  bool send(const std::string& method, const json& params, bool in_session) {
    json message = {{"id", ++last_id_}, {"method", method}, {"params", params}};
    if (in_session) message["sessionId"] = session_;
    const std::string text = message.dump() + '\0';
    size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(write_fd_, text.data() + done, text.size() - done);
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }

  // Sends a command and waits (30 s at most) for its result, skipping events.
  std::optional<json> command(const std::string& method, const json& params,
                              bool in_session = true) {
    if (!send(method, params, in_session)) return std::nullopt;
    const int id = last_id_;
    const auto deadline = Clock::now() + std::chrono::seconds(30);
    while (Clock::now() < deadline) {
      const size_t end = buffer_.find('\0');
      if (end == std::string::npos) {
        pollfd p{read_fd_, POLLIN, 0};
        if (::poll(&p, 1, 200) <= 0) continue;
        char chunk[65536];
        const ssize_t n = ::read(read_fd_, chunk, sizeof chunk);
        if (n <= 0) return std::nullopt;
        buffer_.append(chunk, static_cast<size_t>(n));
        continue;
      }
      const json message = json::parse(buffer_.substr(0, end), nullptr, false);
      buffer_.erase(0, end + 1);
      if (message.value("id", -1) != id) continue;
      if (message.contains("error")) {
        ADD_FAILURE() << method << ": " << message["error"].dump();
        return std::nullopt;
      }
      return message["result"];
    }
    ADD_FAILURE() << method << ": no answer from Chromium in 30 s";
    return std::nullopt;
  }

  std::filesystem::path profile_;
  pid_t pid_ = -1;
  int write_fd_ = -1, read_fd_ = -1;
  int last_id_ = 0;
  std::string buffer_;
  std::string session_;
};

const std::filesystem::path kArtefacts = RIGPLAN_TEST_ARTEFACTS;

// Waits until the page's state is `state`, saying where it stopped otherwise.
void expect_state(Browser& browser, const std::string& state, int seconds) {
  ASSERT_TRUE(browser.wait_for("document.body.dataset.state === '" + state + "'", seconds))
      << "state: " << browser.eval("document.body.dataset.state")
      << ", error: " << browser.eval("document.getElementById('error').textContent");
}

// Chromium started, attached, on the server's page with the form ready.
void open_form(Browser& browser, const LiveServer& server) {
  ASSERT_TRUE(browser.started());
  ASSERT_TRUE(browser.attach()) << "Chromium did not answer on its DevTools pipe";
  ASSERT_TRUE(browser.navigate(server.url("/")));
  ASSERT_NO_FATAL_FAILURE(expect_state(browser, "ready", 30));
}

// The lists came from the API.
void expect_form_lists(Browser& browser) {
  EXPECT_GE(browser.eval("document.querySelectorAll('#workload option').length").get<int>(), 50);
  EXPECT_GE(browser.eval("document.querySelectorAll('#region option').length").get<int>(), 50);
  EXPECT_EQ(browser.eval("document.querySelectorAll('#preset option').length").get<int>(), 11);
}

// A user who trains ResNet-50 about 100 hours a month, with 3,000 USD, in Germany.
void submit_resnet_in_germany(Browser& browser) {
  browser.eval(R"(
    const set = (id, value) => {
      const e = document.getElementById(id);
      e.value = value;
      e.dispatchEvent(new Event('change', {bubbles: true}));
    };
    set('workload', 'resnet50');
    set('size-kind', 'hours-per-month');
    set('size', '100');
    set('budget', '3000');
    set('region', 'de');
    set('gpus', 'rtx-4090,rtx-3090,rtx-3070,a100-sxm4-80gb,h100-sxm5-80gb');
    document.getElementById('go').click();
  )");
  ASSERT_NO_FATAL_FAILURE(expect_state(browser, "done", 60));
}

// The rendered recommendation is the API's: the same first option, and charts beside it.
void expect_recommendation_as_the_api(Browser& browser, const LiveServer& server) {
  const auto api = server.cli({"recommend", "resnet50", "--hours-per-month", "100", "--budget",
                               "3000", "--region", "de", "--json"});
  ASSERT_EQ(api.code, 0) << api.err;
  const json expected = json::parse(api.out);
  ASSERT_FALSE(expected["options"].empty());
  const json first = expected["options"][0];
  const std::string row =
      browser.eval("document.querySelector('#options tbody tr').textContent").get<std::string>();
  EXPECT_NE(row.find(first["gpu"].get<std::string>()), std::string::npos) << row;
  EXPECT_NE(row.find(first["reason"].get<std::string>()), std::string::npos) << row;
  EXPECT_EQ(browser.eval("document.querySelectorAll('#options tbody tr').length").get<size_t>(),
            expected["options"].size());
  EXPECT_NE(browser.eval("document.getElementById('summary').textContent")
                .get<std::string>()
                .find("resnet50"),
            std::string::npos);
  EXPECT_GE(browser.eval("document.querySelectorAll('#charts svg').length").get<int>(), 2);
  EXPECT_NE(browser.eval("document.querySelector('#charts svg').getAttribute('aria-label')")
                .get<std::string>()
                .find("Total cost"),
            std::string::npos);
  EXPECT_GE(browser.eval("document.querySelectorAll('#charts svg circle').length").get<int>(), 10);
}

// The comparison of the five GPUs asked for, with its charts.
void expect_comparison(Browser& browser) {
  EXPECT_EQ(browser.eval("document.querySelectorAll('#compare-table tbody tr').length").get<int>(),
            5);
  // At batch 256 ResNet-50 needs 12.7 GB: the 8 GB RTX 3070 runs the largest batch it holds,
  // 161, and says so.
  EXPECT_NE(browser.eval("document.getElementById('compare-table').textContent")
                .get<std::string>()
                .find("yes, batch 161"),
            std::string::npos);
  EXPECT_GE(browser.eval("document.querySelectorAll('#compare-charts svg').length").get<int>(), 4);
}

// A request the command line refuses shows the command's own message.
void expect_refusal_as_the_command_line(Browser& browser, const LiveServer& server) {
  browser.eval(
      "document.getElementById('size').value = ''; document.getElementById('go').click();");
  ASSERT_NO_FATAL_FAILURE(expect_state(browser, "error", 30));
  const auto refused =
      server.cli({"recommend", "resnet50", "--budget", "3000", "--region", "de", "--json"});
  EXPECT_EQ(refused.code, 2);
  EXPECT_EQ(browser.eval("document.getElementById('error').textContent").get<std::string>() + "\n",
            refused.err);
}

TEST(Browser, PicksAWorkloadSubmitsAndSeesTheRecommendationWithItsCharts) {
  ASSERT_TRUE(std::filesystem::exists(chromium_path()))
      << chromium_path()
      << " is missing: scripts/setup.sh installs Debian's chromium (or set RIGPLAN_CHROMIUM)";
  LiveServer server;
  Browser browser;
  ASSERT_NO_FATAL_FAILURE(open_form(browser, server));
  expect_form_lists(browser);
  EXPECT_TRUE(browser.screenshot(kArtefacts / "serve-form.png"));

  ASSERT_NO_FATAL_FAILURE(submit_resnet_in_germany(browser));
  ASSERT_NO_FATAL_FAILURE(expect_recommendation_as_the_api(browser, server));
  expect_comparison(browser);
  EXPECT_TRUE(browser.screenshot(kArtefacts / "serve-recommendation.png"));

  ASSERT_NO_FATAL_FAILURE(expect_refusal_as_the_command_line(browser, server));
  EXPECT_TRUE(browser.screenshot(kArtefacts / "serve-error.png"));
}

}  // namespace
}  // namespace rigplan::testing
