// The executable slotguard runs as its worker processes (fault isolation,
// the plugin probe): `slotguard` itself. main() registers its own path;
// tests register the built binary.
#ifndef SLOTGUARD_UTIL_WORKER_EXECUTABLE_H_
#define SLOTGUARD_UTIL_WORKER_EXECUTABLE_H_

#include <string>

namespace slotguard {

void SetWorkerExecutable(const std::string& path);
/// "" when none was registered.
const std::string& WorkerExecutable();

}  // namespace slotguard

#endif  // SLOTGUARD_UTIL_WORKER_EXECUTABLE_H_
