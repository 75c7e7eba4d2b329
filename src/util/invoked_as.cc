#include "util/invoked_as.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "util/shell_quote.h"

namespace slotguard {
namespace {

std::string& Invoked() {
  static std::string path = "slotguard";
  return path;
}

std::string SelfPath() {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0) return "slotguard";
  path[n] = 0;
  return path;
}

// Whether the shell, looking `name` up on PATH, runs the file at `self`.
bool PathFinds(const std::string& name, const std::string& self) {
  const char* env = std::getenv("PATH");
  if (env == nullptr) return false;
  const std::string path = env;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    const std::string dir = end > start ? path.substr(start, end - start) : ".";
    const std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) {
      std::error_code ec;
      return std::filesystem::equivalent(candidate, self, ec) && !ec;
    }
    start = end + 1;
  }
  return false;
}

}  // namespace

void SetInvokedAs(const char* argv0) {
  const std::string given = argv0 ? argv0 : "";
  if (given.find('/') != std::string::npos) {
    Invoked() = given;
    return;
  }
  const std::string self = SelfPath();
  Invoked() = !given.empty() && PathFinds(given, self) ? given : self;
}

const std::string& InvokedAs() { return Invoked(); }

std::string InvokedAsWord() { return ShellQuote(Invoked()); }

}  // namespace slotguard
