// The family registry (families.h).
#include "registry/families.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <memory>
#include <set>

#include "family/family_file.h"
#include "registry/builtin_families.h"
#include "util/did_you_mean.h"
#include "util/error_line.h"

namespace slotguard {
namespace {

struct KernelVariant {
  Family family;
  const char* name;
  const char* description;
};

const KernelVariant kKernelVariants[] = {
#define SG_VARIANT(family, id, name, description) {Family::k##family, name, description},
#include "registry/families.def"
#undef SG_VARIANT
};

const char* const kKernelFamilyNames[] = {
#define SG_FAMILY(id, name) name,
#include "registry/families.def"
#undef SG_FAMILY
};

/// The C strings plugin ABI 3 hands out, once the description's strings
/// stay where they are.
void FillNamePointers(FamilyDesc* d) {
  d->param_name_ptrs.clear();
  for (const ParamDesc& p : d->params) d->param_name_ptrs.push_back(p.name.c_str());
  d->output_name_ptrs.clear();
  for (const OutputDesc& o : d->mapping.outputs) d->output_name_ptrs.push_back(o.name.c_str());
}

struct Registry {
  std::deque<std::unique_ptr<FamilyDesc>> descs;
  std::vector<FamilyInfo> families;
  std::vector<VariantInfo> variants;
  std::vector<std::string> user_files;
  bool search_path_done = false;

  /// A family after the built-in kernels': its fixed variant (the
  /// description itself) and its described variants.
  void AddVariants(Family id, const FamilyDesc& d, bool fixed) {
    if (fixed)
      variants.push_back({static_cast<Variant>(variants.size()), id, "fixed", "the description itself", false,
                          &d.mapping, &d.request});
    for (const VariantDesc& v : d.variants)
      variants.push_back({static_cast<Variant>(variants.size()), id, v.name.c_str(), v.meaning.c_str(), false,
                          &v.mapping, &v.request});
  }

  /// The families each group parameter names must be known.
  bool CheckLinks(const FamilyDesc& d, std::string* err) const {
    for (const ParamDesc& p : d.params) {
      if (p.type != ParamType::kGroup || p.family == d.name) continue;
      bool known = false;
      std::vector<std::string> names;
      for (const FamilyInfo& f : families) {
        known |= p.family == f.name;
        names.push_back(f.name);
      }
      if (!known) {
        *err = d.file + ":" + p.pointer + "/family: unknown family " + QuoteName(p.family) + DidYouMean(p.family, names) +
               "; expected one of " + JoinNames(names);
        return false;
      }
    }
    return true;
  }

  bool Add(std::unique_ptr<FamilyDesc> d, bool builtin, std::string* err, bool check_links = true) {
    for (const FamilyInfo& f : families)
      if (f.name == d->name) {
        *err = d->file + ":/name: family " + QuoteName(d->name) + " is already defined by " +
               descs[static_cast<size_t>(f.family)]->file +
               "; expected a name no other family has";
        return false;
      }
    if (check_links && !CheckLinks(*d, err)) return false;
    const Family id = static_cast<Family>(families.size());
    FillNamePointers(d.get());
    families.push_back({id, d->name.c_str(), d->meaning.c_str(), d.get(), false, builtin});
    AddVariants(id, *d, true);
    descs.push_back(std::move(d));
    return true;
  }

  static Registry Build() {
    Registry r;
    std::vector<std::unique_ptr<FamilyDesc>> builtin;
    for (int i = 0; i < kBuiltinFamilyFileCount; ++i) {
      auto d = std::make_unique<FamilyDesc>();
      std::string err;
      if (!ParseFamilyDescription(reinterpret_cast<const char*>(kBuiltinFamilyFiles[i].text), kBuiltinFamilyFiles[i].path, d.get(), &err)) {
        std::fprintf(stderr, "slotguard: internal error: a built-in family description does not load: %s\n",
                     err.c_str());
        std::abort();
      }
      d->file = std::string(kBuiltinFamilyFiles[i].path) + " (built in)";
      builtin.push_back(std::move(d));
    }
    auto take = [&](const std::string& name) {
      for (auto& d : builtin)
        if (d && d->name == name) return std::move(d);
      return std::unique_ptr<FamilyDesc>();
    };
    // The kernel families, in families.def order: their ids are the enum's.
    for (int f = 0; f < kKernelFamilyCount; ++f) {
      std::unique_ptr<FamilyDesc> d = take(kKernelFamilyNames[f]);
      if (!d) {
        std::fprintf(stderr, "slotguard: internal error: no families/%s.json for a kernel of families.def\n",
                     kKernelFamilyNames[f]);
        std::abort();
      }
      FillNamePointers(d.get());
      r.families.push_back({static_cast<Family>(f), d->name.c_str(), d->meaning.c_str(), d.get(), true, true});
      r.descs.push_back(std::move(d));
    }
    for (const KernelVariant& v : kKernelVariants) {
      const FamilyDesc& d = *r.descs[static_cast<size_t>(v.family)];
      const bool fixed = std::string(v.name) == "fixed";
      r.variants.push_back({static_cast<Variant>(r.variants.size()), v.family, v.name, v.description, true,
                            fixed ? &d.mapping : nullptr, fixed ? &d.request : nullptr});
    }
    for (int f = 0; f < kKernelFamilyCount; ++f) r.AddVariants(static_cast<Family>(f), *r.descs[f], false);
    // The other built-in descriptions, in name order (the generated list's).
    std::vector<std::unique_ptr<FamilyDesc>> rest;
    for (auto& d : builtin)
      if (d) rest.push_back(std::move(d));
    for (auto& d : rest) {
      std::string err;
      if (!r.Add(std::move(d), true, &err, /*check_links=*/false)) {
        std::fprintf(stderr, "slotguard: internal error: %s\n", err.c_str());
        std::abort();
      }
    }
    for (const auto& d : r.descs) {
      std::string err;
      if (!r.CheckLinks(*d, &err)) {
        std::fprintf(stderr, "slotguard: internal error: %s\n", err.c_str());
        std::abort();
      }
    }
    return r;
  }
};

Registry& Reg() {
  static Registry registry = Registry::Build();
  return registry;
}

}  // namespace

const std::vector<FamilyInfo>& AllFamilies() { return Reg().families; }
const std::vector<VariantInfo>& AllVariants() { return Reg().variants; }

const FamilyInfo& GetFamily(Family family) { return Reg().families[static_cast<size_t>(family)]; }
const VariantInfo& GetVariant(Variant variant) { return Reg().variants[static_cast<size_t>(variant)]; }

std::vector<Variant> VariantsOf(Family family) {
  std::vector<Variant> out;
  for (const VariantInfo& info : AllVariants())
    if (info.family == family) out.push_back(info.variant);
  return out;
}

Variant FixedVariant(Family family) {
  for (const VariantInfo& info : AllVariants())  // each family lists its fixed variant first
    if (info.family == family) return info.variant;
  return Variant{};
}

std::vector<Variant> NonFixedVariants() {
  std::vector<Variant> out;
  for (const VariantInfo& v : AllVariants())
    if (v.variant != FixedVariant(v.family)) out.push_back(v.variant);
  return out;
}

bool FindFamily(const std::string& name, Family* family, NameError* err) {
  std::vector<std::string> names;
  for (const FamilyInfo& info : AllFamilies()) {
    if (name == info.name) {
      *family = info.family;
      return true;
    }
    names.push_back(info.name);
  }
  *err = UnknownName("kernel family", name, names);
  return false;
}

bool FindVariant(Family family, const std::string& name, Variant* variant, NameError* err) {
  std::vector<std::string> names;
  for (Variant v : VariantsOf(family)) {
    if (name == GetVariant(v).name) {
      *variant = v;
      return true;
    }
    names.push_back(GetVariant(v).name);
  }
  *err = UnknownName("variant", name, names, std::string(" of family ") + GetFamily(family).name);
  return false;
}

bool FindFamily(const std::string& name, Family* family, std::string* err) {
  NameError e;
  if (FindFamily(name, family, &e)) return true;
  *err = e.Text();
  return false;
}

bool FindVariant(Family family, const std::string& name, Variant* variant, std::string* err) {
  NameError e;
  if (FindVariant(family, name, variant, &e)) return true;
  *err = e.Text();
  return false;
}

bool LookupVariant(Family family, const std::string& name, Variant* variant) {
  for (const VariantInfo& info : AllVariants())
    if (info.family == family && name == info.name) {
      *variant = info.variant;
      return true;
    }
  return false;
}

bool ValidateVariantName(const std::string& name, std::string* err) {
  if (name.empty() || name == "all") return true;
  std::vector<std::string> names = {"all"};
  for (const VariantInfo& v : AllVariants()) {
    if (name == v.name) return true;
    if (std::find(names.begin(), names.end(), v.name) == names.end()) names.push_back(v.name);
  }
  *err = UnknownName("variant", name, names).Text();
  return false;
}

bool RegisterFamilyText(const std::string& text, const std::string& file, std::string* err) {
  auto d = std::make_unique<FamilyDesc>();
  if (!ParseFamilyDescription(text, file, d.get(), err)) return false;
  return Reg().Add(std::move(d), false, err);
}

bool RegisterFamilyFile(const std::string& path, std::string* err) {
  auto d = std::make_unique<FamilyDesc>();
  if (!LoadFamilyFile(path, d.get(), err)) return false;
  if (!Reg().Add(std::move(d), false, err)) return false;
  Reg().user_files.push_back(path);
  return true;
}

bool RegisterFamilyFiles(const std::vector<std::string>& paths, std::string* err) {
  namespace fs = std::filesystem;
  // The same file twice (by its absolute path) is one registration: each
  // path resolved once and looked up in a set (a worker is handed thousands
  // of files; comparing each with every earlier one was quadratic).
  std::set<fs::path> seen;
  std::error_code ec;
  for (const std::string& earlier : Reg().user_files) seen.insert(fs::weakly_canonical(fs::absolute(earlier, ec), ec));
  for (const std::string& path : paths) {
    if (!seen.insert(fs::weakly_canonical(fs::absolute(path, ec), ec)).second) continue;
    if (!RegisterFamilyFile(path, err)) return false;
  }
  return true;
}

bool RegisterFamilySearchPath(std::string* err) {
  Registry& r = Reg();
  if (r.search_path_done) return true;
  r.search_path_done = true;
  const char* path = std::getenv("SLOTGUARD_FAMILY_PATH");
  if (!path || !*path) return true;
  namespace fs = std::filesystem;
  std::string all = path;
  for (size_t start = 0; start <= all.size();) {
    const size_t colon = std::min(all.find(':', start), all.size());
    const std::string dir = all.substr(start, colon - start);
    start = colon + 1;
    if (dir.empty()) continue;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      *err = "SLOTGUARD_FAMILY_PATH: " + EscapeText(dir) + ": not a directory; expected directories of family "
             "description files, separated by ':'";
      return false;
    }
    std::vector<std::string> files;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".json") files.push_back(it->path().string());
    if (ec) {  // never skipped silently: its families would be "unknown" later
      *err = "SLOTGUARD_FAMILY_PATH: " + EscapeText(dir) + ": cannot list the directory: " + ec.message() +
             "; expected readable directories of family description files, separated by ':'";
      return false;
    }
    std::sort(files.begin(), files.end());
    for (const std::string& f : files)
      if (!RegisterFamilyFile(f, err)) return false;
  }
  return true;
}

const std::vector<std::string>& UserFamilyFiles() { return Reg().user_files; }

}  // namespace slotguard
