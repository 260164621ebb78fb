// The static site held in memory: every file under the root, with its MIME type, ETag and
// precompressed variants, loaded once at start (the course is a few MB).
#pragma once
#include <map>
#include <optional>
#include <string>

namespace scalelab {

struct StaticFile {
  std::string body;
  std::string gzip;    // contents of "<file>.gz" if it exists
  std::string brotli;  // contents of "<file>.br" if it exists
  std::string mime;
  std::string etag;
  bool immutable = false;  // content-hashed asset: cache for a year
};

class StaticSite {
 public:
  explicit StaticSite(const std::string& root);
  // Looks up a request path ("/chapters/01-rooflines/") safely: no path leaves the root.
  const StaticFile* find(const std::string& url_path) const;
  size_t size() const { return files_.size(); }

 private:
  std::map<std::string, StaticFile> files_;  // keyed by "/relative/path"
};

std::string mime_type(const std::string& path);

}  // namespace scalelab
