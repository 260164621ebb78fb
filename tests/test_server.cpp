// `scalelab serve` over real HTTP on 127.0.0.1: the static course and the JSON API.
// Each test suite starts the binary with --port 0 on a temporary root and parses the port
// from the line it prints.
#include <gtest/gtest.h>
#include <httplib.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>

#include "scalelab/engine.hpp"
#include "scalelab/limits.hpp"
#include "support/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using scalelab::testing::json;

// A `scalelab serve` child process.
class ServerProcess {
 public:
  explicit ServerProcess(const std::vector<std::string>& extra_args) {
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("pipe");
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], 1);
      close(out[0]);
      close(out[1]);
      std::vector<std::string> args = {scalelab::testing::scalelab_bin(), "serve", "--port", "0", "--threads", "4"};
      args.insert(args.end(), extra_args.begin(), extra_args.end());
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(out[1]);
    // Read the "scalelab: serving ROOT on http://HOST:PORT" line (at most 60 s: ASan builds are slow).
    std::string line;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (line.find('\n') == std::string::npos && std::chrono::steady_clock::now() < deadline) {
      pollfd p{out[0], POLLIN, 0};
      if (poll(&p, 1, 200) <= 0) continue;
      char buf[256];
      ssize_t n = read(out[0], buf, sizeof buf);
      if (n <= 0) break;
      line.append(buf, n);
    }
    close(out[0]);
    line_ = line;
    std::smatch m;
    if (std::regex_search(line, m, std::regex(R"(on http://([^:\s]+):(\d+))"))) {
      host_ = m[1];
      port_ = std::stoi(m[2]);
    }
  }
  ~ServerProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int status = 0;
      waitpid(pid_, &status, 0);
    }
  }
  int port() const { return port_; }
  const std::string& host() const { return host_; }
  const std::string& line() const { return line_; }
  // Stops with SIGTERM and returns the exit status.
  int stop() {
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string host_, line_;
};

void write(const fs::path& p, const std::string& content) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << content;
}

const std::string kIndex = "<!doctype html><title>scalelab test</title><p>home</p>\n";
const std::string kSubIndex = "<!doctype html><title>sub</title><p>sub page</p>\n";
const std::string kAppJs = "export const answer = 42; // " + std::string(2000, 'x') + "\n";
const std::string kAppJsGz = std::string("\x1f\x8b\x08\x00gzip-bytes-for-the-test", 26);
const std::string kWasm = std::string("\0asm\x01\0\0\0", 8);
const std::string kSecret = "TOP-SECRET-OUTSIDE-ROOT";

class Server : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("scalelab-server-test-" + std::to_string(getpid())));
    fs::remove_all(*dir_);
    fs::path root = *dir_ / "root";
    write(root / "index.html", kIndex);
    write(root / "sub" / "index.html", kSubIndex);
    write(root / "app.js", kAppJs);
    write(root / "app.js.gz", kAppJsGz);
    write(root / "engine.wasm", kWasm);
    write(root / "style.css", "body{}\n");
    write(root / "assets" / "app-1234abcd.js", "console.log(1)\n");
    write(*dir_ / "secret.txt", kSecret);
    server_ = new ServerProcess({"--root", root.string()});
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
    fs::remove_all(*dir_);
    delete dir_;
  }
  void SetUp() override {
    ASSERT_GT(server_->port(), 0) << "server did not report a port; it printed: " << server_->line();
  }
  static httplib::Client client() {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_decompress(false);
    c.set_url_encode(false);
    c.set_connection_timeout(10);
    c.set_read_timeout(30);
    return c;
  }
  static ServerProcess* server_;
  static fs::path* dir_;
};
ServerProcess* Server::server_ = nullptr;
fs::path* Server::dir_ = nullptr;

TEST_F(Server, PrintsTheServingLineOnLoopback) {
  EXPECT_EQ(server_->host(), "127.0.0.1") << "binds loopback by default: " << server_->line();
  EXPECT_NE(server_->line().find("scalelab: serving "), std::string::npos) << server_->line();
}

TEST_F(Server, ServesIndexAndSubdirectoryIndex) {
  auto c = client();
  auto r = c.Get("/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, kIndex);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/html; charset=utf-8");
  auto sub = c.Get("/sub/");
  ASSERT_TRUE(sub);
  EXPECT_EQ(sub->status, 200);
  EXPECT_EQ(sub->body, kSubIndex);
  auto sub_no_slash = c.Get("/sub");
  ASSERT_TRUE(sub_no_slash);
  EXPECT_EQ(sub_no_slash->body, kSubIndex);
}

TEST_F(Server, MimeTypes) {
  auto c = client();
  auto wasm = c.Get("/engine.wasm");
  ASSERT_TRUE(wasm);
  EXPECT_EQ(wasm->status, 200);
  EXPECT_EQ(wasm->get_header_value("Content-Type"), "application/wasm");
  EXPECT_EQ(wasm->body, kWasm);
  auto js = c.Get("/app.js");
  ASSERT_TRUE(js);
  EXPECT_EQ(js->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  auto css = c.Get("/style.css");
  ASSERT_TRUE(css);
  EXPECT_EQ(css->get_header_value("Content-Type"), "text/css; charset=utf-8");
  EXPECT_EQ(js->get_header_value("X-Content-Type-Options"), "nosniff");
}

TEST_F(Server, GzipWhenAccepted) {
  auto c = client();
  auto gz = c.Get("/app.js", {{"Accept-Encoding", "gzip, deflate"}});
  ASSERT_TRUE(gz);
  EXPECT_EQ(gz->status, 200);
  EXPECT_EQ(gz->get_header_value("Content-Encoding"), "gzip");
  EXPECT_EQ(gz->get_header_value_count("Content-Encoding"), 1u) << "compressed once, labelled once";
  EXPECT_EQ(gz->body, kAppJsGz) << "the precompressed file is sent as is";
  EXPECT_EQ(gz->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_NE(gz->get_header_value("Vary").find("Accept-Encoding"), std::string::npos);
  auto plain = c.Get("/app.js", {{"Accept-Encoding", "identity"}});
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->has_header("Content-Encoding"));
  EXPECT_EQ(plain->body, kAppJs);
  // no .br exists: asking for brotli gets the plain file, or one compressed on the fly
  auto br = c.Get("/app.js", {{"Accept-Encoding", "br"}});
  ASSERT_TRUE(br);
  EXPECT_LE(br->get_header_value_count("Content-Encoding"), 1u);
  if (!br->has_header("Content-Encoding")) {
    EXPECT_EQ(br->body, kAppJs);
  } else {
    EXPECT_EQ(br->get_header_value("Content-Encoding"), "br");
  }
  // gzip and brotli both accepted: the precompressed gzip, never a second encoding on top
  auto both = c.Get("/app.js", {{"Accept-Encoding", "gzip, br"}});
  ASSERT_TRUE(both);
  EXPECT_EQ(both->get_header_value_count("Content-Encoding"), 1u);
  if (both->get_header_value("Content-Encoding") == "gzip") {
    EXPECT_EQ(both->body, kAppJsGz);
  }
  // the .gz itself is not a page of its own
  auto direct = c.Get("/app.js.gz");
  ASSERT_TRUE(direct);
  EXPECT_EQ(direct->status, 404);
}

TEST_F(Server, ETagAndNotModified) {
  auto c = client();
  auto first = c.Get("/app.js");
  ASSERT_TRUE(first);
  std::string etag = first->get_header_value("ETag");
  ASSERT_FALSE(etag.empty());
  EXPECT_EQ(first->get_header_value("Cache-Control"), "no-cache");
  auto again = c.Get("/app.js", {{"If-None-Match", etag}});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 304);
  EXPECT_TRUE(again->body.empty());
  auto stale = c.Get("/app.js", {{"If-None-Match", "\"not-the-tag\""}});
  ASSERT_TRUE(stale);
  EXPECT_EQ(stale->status, 200);
  auto asset = c.Get("/assets/app-1234abcd.js");
  ASSERT_TRUE(asset);
  EXPECT_NE(asset->get_header_value("Cache-Control").find("immutable"), std::string::npos);
}

TEST_F(Server, ContentSecurityPolicy) {
  auto c = client();
  for (const char* path : {"/", "/app.js", "/api/v1/calculators", "/no-such-page"}) {
    auto r = c.Get(path);
    ASSERT_TRUE(r) << path;
    std::string csp = r->get_header_value("Content-Security-Policy");
    EXPECT_NE(csp.find("default-src 'self'"), std::string::npos) << path << ": " << csp;
    EXPECT_NE(csp.find("'wasm-unsafe-eval'"), std::string::npos) << csp;
    EXPECT_EQ(csp.find("'unsafe-eval'"), std::string::npos) << "no eval beyond wasm: " << csp;
    EXPECT_NE(csp.find("object-src 'none'"), std::string::npos) << csp;
    EXPECT_NE(csp.find("frame-ancestors 'none'"), std::string::npos) << csp;
  }
}

// WebAssembly threads need a cross-origin isolated page (issue 38): every answer carries COOP and
// COEP, the page, its scripts and Workers' scripts, the engine, the API, a refusal and a 304.
TEST_F(Server, CrossOriginIsolationHeadersOnEveryAnswer) {
  auto c = client();
  auto first = c.Get("/app.js");
  ASSERT_TRUE(first);
  std::string etag = first->get_header_value("ETag");
  for (const char* path : {"/", "/sub/", "/app.js", "/engine.wasm", "/style.css", "/api/v1/calculators", "/no-such-page"}) {
    auto r = c.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->get_header_value("Cross-Origin-Opener-Policy"), "same-origin") << path;
    EXPECT_EQ(r->get_header_value("Cross-Origin-Embedder-Policy"), "require-corp") << path;
    EXPECT_EQ(r->get_header_value("Cross-Origin-Resource-Policy"), "same-origin") << path;
  }
  auto again = c.Get("/app.js", {{"If-None-Match", etag}});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 304);
  EXPECT_EQ(again->get_header_value("Cross-Origin-Embedder-Policy"), "require-corp");
  auto post = c.Post("/api/v1/eval/roofline", "{\"chip\": \"tpu-v5e\", \"flops\": 1e12, \"bytes\": 1e9}", "application/json");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 200);
  EXPECT_EQ(post->get_header_value("Cross-Origin-Embedder-Policy"), "require-corp");
}

TEST_F(Server, PathTraversalIsRefused) {
  auto c = client();
  for (const char* path : {"/../secret.txt", "/sub/../../secret.txt", "/%2e%2e/secret.txt",
                           "/%2E%2E/secret.txt", "/sub/%2e%2e/%2e%2e/secret.txt", "/..%2fsecret.txt",
                           "/%252e%252e/secret.txt", "/index.html%00.js", "/%00", "/sub%00/index.html",
                           "/..\\secret.txt", "/%5c..%5csecret.txt", "//etc/passwd", "/etc/passwd"}) {
    auto r = c.Get(path);
    if (!r) continue;  // refusing the connection is a refusal too
    EXPECT_NE(r->status, 200) << path;
    EXPECT_EQ(r->body.find(kSecret), std::string::npos) << path;
    EXPECT_EQ(r->body.find("root:"), std::string::npos) << path;
  }
}

TEST_F(Server, NotFound) {
  auto c = client();
  auto r = c.Get("/no/such/page.html");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  auto api = c.Get("/api/v1/nothing");
  ASSERT_TRUE(api);
  EXPECT_EQ(api->status, 404);
  EXPECT_NO_THROW(json::parse(api->body));
}

TEST_F(Server, ApiCatalogs) {
  auto c = client();
  auto calcs = c.Get("/api/v1/calculators");
  ASSERT_TRUE(calcs);
  EXPECT_EQ(calcs->status, 200);
  EXPECT_EQ(calcs->get_header_value("Content-Type"), "application/json");
  EXPECT_EQ(calcs->body, scalelab::calculators_json());
  auto chips = c.Get("/api/v1/chips");
  ASSERT_TRUE(chips);
  EXPECT_EQ(chips->body, scalelab::chips_json());
  auto models = c.Get("/api/v1/models");
  ASSERT_TRUE(models);
  EXPECT_EQ(models->body, scalelab::models_json());
}

TEST_F(Server, EvalOk) {
  auto c = client();
  const std::string body = R"({"chip": "tpu-v5e", "matmul": {"B": 512, "D": 8192, "F": 32768}})";
  auto r = c.Post("/api/v1/eval/roofline", body, "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, scalelab::evaluate("roofline", body).json) << "same bytes as the engine";
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/json");
  EXPECT_EQ(r->get_header_value("Cache-Control"), "no-store");
}

TEST_F(Server, EveryRegisteredCaseMatchesTheEngineBytes) {
  auto c = client();
  for (const auto& cs : scalelab::testing::cases()) {
    if (!scalelab::testing::registered_calculators().count(cs.calculator)) continue;
    std::string input = cs.raw["params"].dump();
    auto r = c.Post("/api/v1/eval/" + cs.calculator, input, "application/json");
    ASSERT_TRUE(r) << cs.id;
    EXPECT_EQ(r->status, 200) << cs.id;
    EXPECT_EQ(r->body, scalelab::evaluate(cs.calculator, input).json) << cs.id;
  }
}

TEST_F(Server, EvalBadInputIs400) {
  auto c = client();
  auto r = c.Post("/api/v1/eval/transfer", R"({"chips": 0})", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(r->body, scalelab::evaluate("transfer", R"({"chips": 0})").json);
  auto malformed = c.Post("/api/v1/eval/transfer", "{", "application/json");
  ASSERT_TRUE(malformed);
  EXPECT_EQ(malformed->status, 400);
  EXPECT_TRUE(json::parse(malformed->body)["error"]["param"].is_null());
}

TEST_F(Server, EvalUnknownCalculatorIs404) {
  auto c = client();
  for (const char* path : {"/api/v1/eval/warp_drive", "/api/v1/eval/..", "/api/v1/eval/a%20b",
                           "/api/v1/eval/", "/api/v1/eval/rooflinerooflinerooflinerooflinerooflinerooflinerooflineroofline"}) {
    auto r = c.Post(path, "{}", "application/json");
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 404) << path;
    json j;
    ASSERT_NO_THROW(j = json::parse(r->body)) << path << ": " << r->body;
    EXPECT_TRUE(j.contains("error")) << path;
  }
}

TEST_F(Server, SweepOkBadInputAndUnknownCalculator) {
  auto c = client();
  const std::string params = R"({"model": "llama3-70b", "chip": "tpu-v5e", "chips": 16})";
  const std::string spec = R"({"x": {"param": "batch", "values": [1, 8, 64]}, "outputs": ["step_s", "bound"]})";
  auto ok = c.Post("/api/v1/sweep/decode", R"({"params": )" + params + R"(, "sweep": )" + spec + "}", "application/json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200) << ok->body;
  EXPECT_EQ(ok->body, scalelab::sweep("decode", params, spec).json) << "same bytes as the engine";
  EXPECT_EQ(ok->get_header_value("Cache-Control"), "no-store");
  for (const char* bad : {R"({"params": {}, "sweep": {"x": {"param": "bound", "values": [1]}}})", R"({"params": {}})", "{",
                          R"({"params": {"chips": 0}, "sweep": {"x": {"param": "batch", "values": [1]}}})"}) {
    auto r = c.Post("/api/v1/sweep/decode", bad, "application/json");
    ASSERT_TRUE(r) << bad;
    EXPECT_EQ(r->status, 400) << bad;
    EXPECT_EQ(r->body, scalelab::sweep_request("decode", bad).json) << bad;
  }
  for (const char* path : {"/api/v1/sweep/warp_drive", "/api/v1/sweep/", "/api/v1/sweep/a%20b"}) {
    auto r = c.Post(path, R"({"sweep": {}})", "application/json");
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 404) << path;
    EXPECT_EQ(json::parse(r->body)["error"]["status"], "unknown_calculator") << path;
  }
}

TEST_F(Server, BodyOver64KiBIs413) {
  auto c = client();
  std::string big = R"({"bytes": 1e9})" + std::string(scalelab::kMaxInputBytes, ' ');
  auto r = c.Post("/api/v1/eval/transfer", big, "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  json j;
  ASSERT_NO_THROW(j = json::parse(r->body)) << r->body;
  EXPECT_TRUE(j.contains("error"));
  // exactly 64 KiB is still accepted
  std::string valid = R"({"bytes": 1e9})";
  std::string at_limit = valid + std::string(scalelab::kMaxInputBytes - valid.size(), ' ');
  auto ok = c.Post("/api/v1/eval/transfer", at_limit, "application/json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
}

TEST_F(Server, BadInputMatrixOverHttp) {
  auto c = client();
  int ran = 0;
  for (const auto& b : scalelab::testing::bad_inputs()) {
    if (!scalelab::testing::registered_calculators().count(b.calculator)) continue;
    ++ran;
    auto r = c.Post("/api/v1/eval/" + b.calculator, b.input, "application/json");
    ASSERT_TRUE(r) << b.id;
    if (b.input.size() > scalelab::kMaxInputBytes) {
      EXPECT_EQ(r->status, 413) << b.id;
      continue;
    }
    EXPECT_EQ(r->status, 400) << b.id << ": " << r->body.substr(0, 300);
    EXPECT_EQ(r->body, scalelab::evaluate(b.calculator, b.input).json) << b.id;
    json j = json::parse(r->body);
    EXPECT_EQ(j["error"]["param"], b.param) << b.id;
  }
  RecordProperty("bad_inputs_run", ran);
  EXPECT_GT(ran, 0);
}

TEST_F(Server, ManyConcurrentClients) {
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  const std::string body = R"({"bytes": 1e9, "path": "pcie"})";
  const std::string expected = scalelab::evaluate("transfer", body).json;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      auto c = client();
      for (int i = 0; i < 25; ++i) {
        auto r = c.Post("/api/v1/eval/transfer", body, "application/json");
        if (!r || r->status != 200 || r->body != expected) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

// A raw TCP connection to the server, for clients that misbehave.
int connect_raw(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    if (fd >= 0) close(fd);
    return -1;
  }
  return fd;
}

// True once the server has closed `fd` (a read returns end of stream or an error), waiting at most `limit`.
bool closed_by_server(int fd, std::chrono::milliseconds limit) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, static_cast<int>(limit.count())) <= 0) return false;
  char buf[512];
  return read(fd, buf, sizeof buf) <= 0;
}

// A header sent one byte at a time, and connections that never send anything, are dropped once
// the request deadline passes, and meanwhile the server answers everybody else at once.
TEST(ServerTimeouts, SlowAndSilentClientsAreDroppedWithoutStarvingOthers) {
  fs::path root = fs::temp_directory_path() / ("scalelab-server-slow-" + std::to_string(getpid()));
  write(root / "index.html", kIndex);
  ServerProcess server({"--root", root.string(), "--request-timeout", "1"});
  ASSERT_GT(server.port(), 0) << server.line();
  std::vector<int> silent;
  for (int i = 0; i < 300; ++i) {
    int fd = connect_raw(server.port());
    if (fd >= 0) silent.push_back(fd);
  }
  ASSERT_GE(silent.size(), 250u) << "could not open the idle connections";
  int slow = connect_raw(server.port());
  ASSERT_GE(slow, 0);
  const std::string header = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  auto start = std::chrono::steady_clock::now();
  size_t sent = 0;
  bool dropped = false;
  int answered = 0;
  httplib::Client c("127.0.0.1", server.port());
  c.set_connection_timeout(2);
  c.set_read_timeout(2);
  while (sent < header.size() && !dropped) {
    if (send(slow, header.data() + sent, 1, MSG_NOSIGNAL) != 1) { dropped = true; break; }
    ++sent;
    auto r = c.Get("/");  // an ordinary reader, between two bytes of the slow one
    if (r && r->status == 200) ++answered;
    dropped = closed_by_server(slow, std::chrono::milliseconds(250));
  }
  auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  EXPECT_TRUE(dropped) << "a header trickling in for " << took.count() << " ms was never cut off";
  EXPECT_LT(sent, header.size()) << "the slow header was read whole";
  EXPECT_GE(answered, 2) << "ordinary requests were not answered while the slow client held on";
  int closed = 0;
  for (int fd : silent) {
    if (closed_by_server(fd, std::chrono::milliseconds(3000))) ++closed;
    close(fd);
  }
  EXPECT_EQ(closed, static_cast<int>(silent.size())) << "silent connections kept open past the deadline";
  close(slow);
  auto after = c.Get("/");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200);
  EXPECT_EQ(server.stop(), 0);
  fs::remove_all(root);
}

// A non-loopback address of this machine, if it has one.
std::string external_ipv4() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return "";
  std::string found;
  for (ifaddrs* a = list; a && found.empty(); a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET) continue;
    char buf[INET_ADDRSTRLEN];
    auto* in = reinterpret_cast<sockaddr_in*>(a->ifa_addr);
    inet_ntop(AF_INET, &in->sin_addr, buf, sizeof buf);
    if (std::string(buf).rfind("127.", 0) != 0) found = buf;
  }
  freeifaddrs(list);
  return found;
}

TEST(ServerDefaults, BindsLoopbackOnlyAndStopsOnSigterm) {
  fs::path root = fs::temp_directory_path() / ("scalelab-server-empty-" + std::to_string(getpid()));
  fs::create_directories(root);
  ServerProcess server({"--root", root.string()});
  ASSERT_GT(server.port(), 0) << server.line();
  EXPECT_EQ(server.host(), "127.0.0.1");
  std::string ip = external_ipv4();
  if (!ip.empty()) {
    httplib::Client outside(ip, server.port());
    outside.set_connection_timeout(2);
    auto r = outside.Get("/api/v1/calculators");
    EXPECT_FALSE(r) << "reachable on " << ip << ": the server must bind loopback by default";
  }
  // an empty root still serves the API
  httplib::Client c("127.0.0.1", server.port());
  auto r = c.Get("/api/v1/calculators");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(server.stop(), 0) << "SIGTERM stops the server cleanly";
  fs::remove_all(root);
}

}  // namespace
