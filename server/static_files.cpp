#include "static_files.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace scalelab {
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string fnv1a_hex(const std::string& data) {
  unsigned long long h = 1469598103934665603ULL;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", h);
  return buf;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Percent-decodes a URL path; returns nullopt on malformed escapes or NUL bytes.
std::optional<std::string> decode_path(const std::string& in) {
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '%') {
      if (i + 2 >= in.size() || !std::isxdigit(static_cast<unsigned char>(in[i + 1])) ||
          !std::isxdigit(static_cast<unsigned char>(in[i + 2]))) {
        return std::nullopt;
      }
      char c = static_cast<char>(std::stoi(in.substr(i + 1, 2), nullptr, 16));
      if (c == '\0') return std::nullopt;
      out += c;
      i += 2;
    } else {
      out += in[i];
    }
  }
  return out;
}

}  // namespace

std::string mime_type(const std::string& path) {
  static const std::map<std::string, std::string> types = {
      {".html", "text/html; charset=utf-8"}, {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"}, {".css", "text/css; charset=utf-8"},
      {".json", "application/json"}, {".wasm", "application/wasm"}, {".svg", "image/svg+xml"},
      {".png", "image/png"}, {".jpg", "image/jpeg"}, {".ico", "image/x-icon"},
      {".woff2", "font/woff2"}, {".woff", "font/woff"}, {".ttf", "font/ttf"},
      {".txt", "text/plain; charset=utf-8"}, {".xml", "application/xml"},
      {".webmanifest", "application/manifest+json"}, {".map", "application/json"}};
  auto ext = fs::path(path).extension().string();
  auto it = types.find(ext);
  return it == types.end() ? "application/octet-stream" : it->second;
}

StaticSite::StaticSite(const std::string& root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return;
  for (const auto& entry : fs::recursive_directory_iterator(root, ec)) {
    if (!entry.is_regular_file()) continue;
    std::string rel = "/" + fs::relative(entry.path(), root).generic_string();
    if (ends_with(rel, ".gz") || ends_with(rel, ".br")) continue;
    StaticFile f;
    f.body = read_file(entry.path());
    if (fs::exists(entry.path().string() + ".gz")) f.gzip = read_file(entry.path().string() + ".gz");
    if (fs::exists(entry.path().string() + ".br")) f.brotli = read_file(entry.path().string() + ".br");
    f.mime = mime_type(rel);
    f.etag = "\"" + fnv1a_hex(f.body) + "\"";
    f.immutable = rel.rfind("/assets/", 0) == 0;
    files_.emplace(rel, std::move(f));
  }
}

const StaticFile* StaticSite::find(const std::string& url_path) const {
  auto decoded = decode_path(url_path);
  if (!decoded || decoded->empty() || (*decoded)[0] != '/') return nullptr;
  // Only names that exist in the in-memory map can be served; ".." can never match one,
  // but refuse it explicitly so the intent is plain.
  if (decoded->find("..") != std::string::npos || decoded->find('\\') != std::string::npos) {
    return nullptr;
  }
  std::string p = *decoded;
  auto it = files_.find(p);
  if (it != files_.end()) return &it->second;
  if (!ends_with(p, "/")) p += "/";
  it = files_.find(p + "index.html");
  return it == files_.end() ? nullptr : &it->second;
}

}  // namespace scalelab
