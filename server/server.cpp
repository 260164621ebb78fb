// `scalelab serve`: the static course and /api/v1 over HTTP/1.1, on Boost.Beast (Asio).
// Event-driven: a few threads run every connection, so hundreds of keep-alive clients share
// them fairly (a thread-per-connection pool starved them, see BENCHMARKS.md); each request must
// arrive whole within a deadline, so a slow or silent client is dropped without costing others.
#include "scalelab/server.hpp"

#include <pthread.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>
#include <regex>
#include <string_view>
#include <thread>
#include <vector>

#include "scalelab/engine.hpp"
#include "scalelab/limits.hpp"
#include "static_files.hpp"

namespace scalelab {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using Request = http::request<http::string_body>;

constexpr const char* kCsp =
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self'; worker-src 'self'; "
    "object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'";
constexpr size_t kMaxHeaderBytes = 16 * 1024;

// What one request is answered with. Static files point into the StaticSite (which outlives the
// server) and are never copied; API answers own their text.
struct Reply {
  http::status status = http::status::ok;
  std::string_view body;
  std::string owned;  // body's storage when it is not a static file
  std::vector<std::pair<http::field, std::string>> headers;
  std::string content_type;
};

Reply json_reply(http::status status, std::string body) {
  Reply r;
  r.status = status;
  r.owned = std::move(body);
  r.content_type = "application/json";
  r.headers.emplace_back(http::field::cache_control, "no-store");
  return r;
}

Reply error_reply(http::status status, const std::string& message, Status kind = Status::bad_input) {
  // Messages here are fixed ASCII text, so no escaping is needed.
  return json_reply(status, std::string("{\"error\":{\"status\":\"") + status_name(kind) +
                                "\",\"param\":null,\"message\":\"" + message + "\"}}");
}

bool accepts(const Request& req, std::string_view encoding) {
  auto it = req.find(http::field::accept_encoding);
  return it != req.end() && it->value().find(encoding) != std::string_view::npos;
}

Reply static_reply(const StaticSite& site, const Request& req, std::string_view path) {
  const StaticFile* f = site.find(std::string(path));
  bool fallback = !f;
  if (fallback) f = site.find("/404.html");
  Reply r;
  if (!f) {
    r.status = http::status::not_found;
    r.owned = "Not found\n";
    r.content_type = "text/plain; charset=utf-8";
    return r;
  }
  r.status = fallback ? http::status::not_found : http::status::ok;
  r.content_type = f->mime;
  r.headers.emplace_back(http::field::etag, f->etag);
  r.headers.emplace_back(http::field::cache_control, f->immutable ? "public, max-age=31536000, immutable" : "no-cache");
  r.headers.emplace_back(http::field::vary, "Accept-Encoding");
  auto inm = req.find(http::field::if_none_match);
  if (!fallback && inm != req.end() && inm->value() == f->etag) {
    r.status = http::status::not_modified;
    return r;
  }
  if (!f->brotli.empty() && accepts(req, "br")) {
    r.headers.emplace_back(http::field::content_encoding, "br");
    r.body = f->brotli;
  } else if (!f->gzip.empty() && accepts(req, "gzip")) {
    r.headers.emplace_back(http::field::content_encoding, "gzip");
    r.body = f->gzip;
  } else {
    r.body = f->body;
  }
  return r;
}

http::status eval_status(Status s) {
  switch (s) {
    case Status::ok: return http::status::ok;
    case Status::unknown_calculator: return http::status::not_found;
    case Status::internal: return http::status::internal_server_error;  // an engine fault, not the caller's
    default: return http::status::bad_request;
  }
}

Reply api_reply(const Request& req, std::string_view path) {
  static const std::string calculators = calculators_json();
  static const std::string chips = chips_json();
  static const std::string models = models_json();
  static const std::regex eval_route(R"(/api/v1/(eval|sweep)/([A-Za-z0-9_]{1,64}))");
  bool get = req.method() == http::verb::get || req.method() == http::verb::head;
  if (get && path == "/api/v1/calculators") return json_reply(http::status::ok, calculators);
  if (get && path == "/api/v1/chips") return json_reply(http::status::ok, chips);
  if (get && path == "/api/v1/models") return json_reply(http::status::ok, models);
  bool post_eval = path.rfind("/api/v1/eval/", 0) == 0 || path.rfind("/api/v1/sweep/", 0) == 0;
  if (req.method() == http::verb::post && post_eval) {
    std::match_results<std::string_view::const_iterator> m;
    if (!std::regex_match(path.begin(), path.end(), m, eval_route)) {
      return error_reply(http::status::not_found, "unknown calculator; see GET /api/v1/calculators", Status::unknown_calculator);
    }
    Evaluation e = m[1] == "eval" ? evaluate(m[2].str(), req.body()) : sweep_request(m[2].str(), req.body());
    return json_reply(eval_status(e.status), std::move(e.json));
  }
  if (get) return error_reply(http::status::not_found, "no such API route; see GET /api/v1/calculators");
  return error_reply(http::status::method_not_allowed,
                     "the API takes GET for catalogs and POST for /api/v1/eval/NAME and /api/v1/sweep/NAME");
}

Reply route(const StaticSite& site, const Request& req) {
  std::string_view target = req.target();
  std::string_view path = target.substr(0, target.find('?'));
  if (path.rfind("/api/", 0) == 0) return api_reply(req, path);
  if (req.method() != http::verb::get && req.method() != http::verb::head) {
    Reply r = error_reply(http::status::method_not_allowed, "the course is read with GET");
    r.headers.emplace_back(http::field::allow, "GET, HEAD");
    return r;
  }
  return static_reply(site, req, path);
}

// Each worker thread runs an io_context of its own (concurrency hint 1: no locks in its scheduler)
// and the connections handed to it: a connection's handlers never run on two threads, so it
// needs no strand, and its types name that context's executor, not the type-erased one.
using Executor = net::io_context::executor_type;
using Socket = net::basic_stream_socket<tcp, Executor>;
using Stream = beast::basic_stream<tcp, Executor>;

// One client connection: read a request (whole, within the deadline), answer it, repeat while
// the client keeps the connection alive.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(Socket socket, const StaticSite& site, std::chrono::seconds deadline)
      : stream_(std::move(socket)), site_(site), deadline_(deadline) {}

  void start() { read(); }

 private:
  void read() {
    parser_.emplace();
    parser_->header_limit(kMaxHeaderBytes);
    parser_->body_limit(kMaxInputBytes);
    stream_.expires_after(deadline_);  // the whole request, headers and body, by then
    http::async_read(stream_, buffer_, *parser_, beast::bind_front_handler(&Session::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, size_t) {
    if (ec == http::error::body_limit) {
      return send(error_reply(http::status::payload_too_large, "request body larger than 64 KiB"), false);
    }
    if (ec == http::error::header_limit) {
      return send(error_reply(http::status::request_header_fields_too_large, "request headers larger than 16 KiB"), false);
    }
    if (ec) return close();  // end of stream, timeout, reset, malformed request
    const Request& req = parser_->get();
    send(route(site_, req), req.keep_alive(), req.method() == http::verb::head);
  }

  void send(Reply reply, bool keep_alive, bool head = false) {
    auto res = std::make_shared<http::response<http::span_body<const char>>>();
    res->result(reply.status);
    res->version(11);
    res->set("Content-Security-Policy", kCsp);
    res->set("X-Content-Type-Options", "nosniff");
    res->set("Referrer-Policy", "no-referrer");
    // Cross-origin isolation (COOP + COEP): the page may then share memory with its Workers
    // (SharedArrayBuffer), which WebAssembly threads need. Every response carries both, a Worker's
    // script too (a dedicated Worker of an isolated page must be served with COEP). Everything
    // the course loads is same-origin, so require-corp blocks nothing of ours; CORP keeps other
    // sites from embedding our files.
    res->set("Cross-Origin-Opener-Policy", "same-origin");
    res->set("Cross-Origin-Embedder-Policy", "require-corp");
    res->set("Cross-Origin-Resource-Policy", "same-origin");
    if (!reply.content_type.empty()) res->set(http::field::content_type, reply.content_type);
    for (auto& [field, value] : reply.headers) res->set(field, value);
    auto owned = std::make_shared<std::string>(std::move(reply.owned));
    std::string_view body = reply.body.data() ? reply.body : std::string_view(*owned);
    if (reply.status == http::status::not_modified) body = {};
    else res->content_length(body.size());
    if (!head) res->body() = {body.data(), body.size()};
    res->keep_alive(keep_alive);
    stream_.expires_after(deadline_);
    http::async_write(stream_, *res, [self = shared_from_this(), res, owned](beast::error_code ec, size_t) {
      if (ec || !res->keep_alive()) return self->close();
      self->read();
    });
  }

  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.socket().close(ignored);
  }

  Stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  const StaticSite& site_;
  std::chrono::seconds deadline_;
};

// The acceptor runs on the first context and deals the accepted connections to the contexts in turn.
using Acceptor = net::basic_socket_acceptor<tcp, Executor>;
void accept(Acceptor& acceptor, std::vector<std::unique_ptr<net::io_context>>& contexts, size_t next,
            const StaticSite& site, std::chrono::seconds deadline) {
  net::io_context& target = *contexts[next % contexts.size()];
  acceptor.async_accept(target, [&acceptor, &contexts, next, &site, deadline](beast::error_code ec, Socket socket) {
    if (!ec) {
      // started on the connection's own thread: from here on only that thread touches it
      Executor ex = socket.get_executor();
      net::post(ex, [session = std::make_shared<Session>(std::move(socket), site, deadline)] { session->start(); });
    }
    if (acceptor.is_open()) accept(acceptor, contexts, next + 1, site, deadline);
  });
}

}  // namespace

int serve(const ServerOptions& options, const std::function<void(int)>& on_ready) {
  StaticSite site(options.root);
  if (site.size() == 0) {
    std::fprintf(stderr, "scalelab serve: %s holds no files (build the web course first); "
                         "serving the API only\n", options.root.c_str());
  }
  // SIGINT/SIGTERM are taken synchronously by this thread (sigwait), never in a handler; blocked
  // before any thread starts, so every worker inherits the mask and none of them takes a signal.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  int threads = std::max(1, options.threads);
  std::vector<std::unique_ptr<net::io_context>> contexts;
  for (int i = 0; i < threads; ++i) contexts.push_back(std::make_unique<net::io_context>(1));
  std::vector<net::executor_work_guard<Executor>> keep_running;
  for (auto& c : contexts) keep_running.push_back(net::make_work_guard(*c));
  Acceptor acceptor(contexts[0]->get_executor());
  beast::error_code ec;
  auto address = net::ip::make_address(options.host, ec);
  if (!ec) {
    tcp::endpoint endpoint(address, static_cast<unsigned short>(options.port));
    acceptor.open(endpoint.protocol(), ec);
    if (!ec) acceptor.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor.bind(endpoint, ec);
    if (!ec) acceptor.listen(net::socket_base::max_listen_connections, ec);
  }
  if (ec) {
    std::fprintf(stderr, "scalelab serve: cannot listen on %s:%d (%s)\n", options.host.c_str(), options.port,
                 ec.message().c_str());
    return 1;
  }
  accept(acceptor, contexts, 0, site, std::chrono::seconds(options.request_timeout_s));
  std::vector<std::thread> workers;
  for (auto& c : contexts) workers.emplace_back([&io = *c] { io.run(); });
  if (on_ready) on_ready(acceptor.local_endpoint().port());
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  net::post(*contexts[0], [&acceptor] { acceptor.close(); });
  for (auto& c : contexts) c->stop();
  for (auto& w : workers) w.join();
  return 0;
}

}  // namespace scalelab
