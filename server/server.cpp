#include "scalelab/server.hpp"

#include <httplib.h>

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>
#include <cstdio>
#include <memory>

#include "scalelab/engine.hpp"
#include "scalelab/limits.hpp"
#include "static_files.hpp"

namespace scalelab {
namespace {

constexpr const char* kCsp =
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self'; worker-src 'self'; "
    "object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'";

void security_headers(httplib::Response& res) {
  res.set_header("Content-Security-Policy", kCsp);
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Referrer-Policy", "no-referrer");
  res.set_header("Cross-Origin-Opener-Policy", "same-origin");
}

void json_reply(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_header("Cache-Control", "no-store");
  res.set_content(body, "application/json");
}

std::string error_body(const std::string& message, Status status = Status::bad_input) {
  // Messages here are fixed ASCII text, so no escaping is needed.
  return std::string("{\"error\":{\"status\":\"") + status_name(status) +
         "\",\"param\":null,\"message\":\"" + message + "\"}}";
}

bool accepts(const httplib::Request& req, const char* encoding) {
  return req.get_header_value("Accept-Encoding").find(encoding) != std::string::npos;
}

// Precompressed bytes go out through a fixed-length content provider: httplib (built with
// zlib and brotli) compresses every set_content() body of a text type that the client
// accepts, which would gzip the .gz file a second time and repeat Content-Encoding.
// `data` lives in the StaticSite, which outlives the server.
void send_as_is(httplib::Response& res, const std::string& data, const std::string& mime) {
  const std::string* bytes = &data;
  res.set_content_provider(bytes->size(), mime,
                           [bytes](size_t offset, size_t length, httplib::DataSink& sink) {
                             return sink.write(bytes->data() + offset, length);
                           });
}

void serve_file(const StaticSite& site, const httplib::Request& req, httplib::Response& res) {
  const StaticFile* f = site.find(req.path);
  bool fallback = false;
  if (!f) {
    f = site.find("/404.html");
    fallback = true;
  }
  if (!f) {
    res.status = 404;
    res.set_content("Not found\n", "text/plain; charset=utf-8");
    return;
  }
  res.status = fallback ? 404 : 200;
  res.set_header("ETag", f->etag);
  res.set_header("Cache-Control", f->immutable ? "public, max-age=31536000, immutable" : "no-cache");
  res.set_header("Vary", "Accept-Encoding");
  if (!fallback && req.get_header_value("If-None-Match") == f->etag) {
    res.status = 304;
    return;
  }
  if (!f->brotli.empty() && accepts(req, "br")) {
    res.set_header("Content-Encoding", "br");
    send_as_is(res, f->brotli, f->mime);
  } else if (!f->gzip.empty() && accepts(req, "gzip")) {
    res.set_header("Content-Encoding", "gzip");
    send_as_is(res, f->gzip, f->mime);
  } else {
    res.set_content(f->body, f->mime);
  }
}

void api_routes(httplib::Server& server) {
  static const std::string calculators = calculators_json();
  static const std::string chips = chips_json();
  static const std::string models = models_json();
  server.Get("/api/v1/calculators", [](const httplib::Request&, httplib::Response& res) {
    json_reply(res, 200, calculators);
  });
  server.Get("/api/v1/chips", [](const httplib::Request&, httplib::Response& res) {
    json_reply(res, 200, chips);
  });
  server.Get("/api/v1/models", [](const httplib::Request&, httplib::Response& res) {
    json_reply(res, 200, models);
  });
  server.Post(R"(/api/v1/eval/([A-Za-z0-9_]{1,64}))",
              [](const httplib::Request& req, httplib::Response& res) {
                Evaluation e = evaluate(req.matches[1].str(), req.body);
                int status = e.status == Status::ok                   ? 200
                             : e.status == Status::unknown_calculator ? 404
                             : e.status == Status::internal           ? 500
                                                                      : 400;
                json_reply(res, status, e.json);
              });
  server.Get(R"(/api/.*)", [](const httplib::Request&, httplib::Response& res) {
    json_reply(res, 404, error_body("no such API route; see GET /api/v1/calculators"));
  });
  server.Post(R"(/api/v1/eval/.*)", [](const httplib::Request&, httplib::Response& res) {
    json_reply(res, 404, error_body("unknown calculator; see GET /api/v1/calculators", Status::unknown_calculator));
  });
}

}  // namespace

int serve(const ServerOptions& options, const std::function<void(int)>& on_ready) {
  auto site = std::make_shared<StaticSite>(options.root);
  if (site->size() == 0) {
    std::fprintf(stderr, "scalelab serve: %s holds no files (build the web course first); "
                         "serving the API only\n", options.root.c_str());
  }
  httplib::Server server;
  server.new_task_queue = [threads = options.threads] { return new httplib::ThreadPool(threads); };
  server.set_keep_alive_max_count(1000);
  server.set_tcp_nodelay(true);
  server.set_payload_max_length(kMaxInputBytes);
  server.set_post_routing_handler([](const httplib::Request&, httplib::Response& res) {
    security_headers(res);
  });
  server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.status == 413) {
      json_reply(res, 413, error_body("request body larger than 64 KiB"));
    } else if (req.path.rfind("/api/", 0) == 0 && res.body.empty()) {
      json_reply(res, res.status, error_body("request refused"));
    }
  });
  api_routes(server);
  server.Get(R"(/.*)", [site](const httplib::Request& req, httplib::Response& res) {
    serve_file(*site, req, res);
  });

  int port = options.port;
  if (port == 0) {
    port = server.bind_to_any_port(options.host.c_str());
  } else if (!server.bind_to_port(options.host.c_str(), port)) {
    port = -1;
  }
  if (port < 0) {
    std::fprintf(stderr, "scalelab serve: cannot listen on %s:%d\n", options.host.c_str(), options.port);
    return 1;
  }
  // SIGINT/SIGTERM are taken synchronously by this thread (sigwait), never in a handler: stopping
  // from a handler is not async-signal-safe, and a signal that came before the listener started
  // would be lost and leave the server running.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // inherited by the listener and its workers
  std::atomic<bool> finished{false};
  bool ok = true;
  std::thread listener([&] {
    ok = server.listen_after_bind();
    finished = true;
  });
  while (!server.is_running() && !finished) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (!finished) {
    if (on_ready) on_ready(port);
    int signal_number = 0;
    sigwait(&signals, &signal_number);
    server.stop();
  }
  listener.join();
  return ok ? 0 : 1;
}

}  // namespace scalelab
