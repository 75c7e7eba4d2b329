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

}  // namespace slotguard
