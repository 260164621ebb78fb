// The HTTP front: the static course (web/dist) and the JSON API /api/v1.
#pragma once
#include <functional>
#include <string>

namespace scalelab {

struct ServerOptions {
  std::string host = "127.0.0.1";  // loopback unless asked otherwise
  int port = 8080;
  std::string root = "web/dist";
  int threads = 2;             // threads running the event loop (every connection shares them)
  int request_timeout_s = 10;  // a request must arrive whole within this; idle keep-alive too
};

// Serves until stopped (SIGINT/SIGTERM). `on_ready` runs once the socket listens, with the
// bound port (useful with port 0). Returns a process exit status.
int serve(const ServerOptions& options, const std::function<void(int port)>& on_ready = {});

}  // namespace scalelab
