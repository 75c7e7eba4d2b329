#include "util/worker_executable.h"

namespace slotguard {
namespace {

std::string& WorkerPath() {
  static std::string path;
  return path;
}

}  // namespace

void SetWorkerExecutable(const std::string& path) { WorkerPath() = path; }
const std::string& WorkerExecutable() { return WorkerPath(); }

}  // namespace slotguard
