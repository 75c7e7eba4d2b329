#include "backend/backend.h"

#include "registry/families.h"

namespace slotguard {

std::string Backend::Describe() const {
  std::string text = name();
  if (!provider_) return text;
  text += " with " + provider_->name() + " for";
  for (size_t i = 0; i < provider_->families().size(); ++i)
    text += std::string(i ? ", " : " ") + GetFamily(provider_->families()[i]).name;
  return text;
}

std::string ImplementationName(const Backend& backend) {
  if (!backend.provider()) return "slotguard";
  // "plugin NAME (PATH)", "kernel SYMBOL (PATH, spec SPEC)": the name, not
  // where this machine keeps the file, so a signature is the same in CI.
  const std::string name = backend.provider()->name();
  return name.substr(0, name.find(" ("));
}

}  // namespace slotguard
