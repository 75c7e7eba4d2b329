#include "plugin/spec_launch.h"

#include <algorithm>
#include <cstring>

#include "util/error_line.h"

namespace slotguard {
namespace {

/// "ring 8, num_reqs 3": the variables' values in one call.
std::string Values(const std::vector<std::string>& names, const sg_mapping_call& call, int64_t groups) {
  std::string out;
  for (const std::string& name : names) {
    int64_t v;
    if (!CallVariable(name, call, groups, &v)) continue;
    out += (out.empty() ? "" : ", ") + name + " " + std::to_string(v);
  }
  return out;
}

std::string GroupName(const std::vector<std::string>& groups, size_t i) {
  return i < groups.size() ? "group '" + groups[i] + "'" : "group " + std::to_string(i);
}

/// The value a scalar, parameter, constant, value formula or scratch size
/// takes in one call; false with *why.
bool ArgValue(const SpecArg& a, const sg_mapping_call& call, int64_t groups, int64_t* v, std::string* why) {
  switch (a.kind) {
    case SpecArgKind::kConstant:
      *v = a.constant;
      return true;
    case SpecArgKind::kScalar:
    case SpecArgKind::kParam:
      if (CallVariable(a.name, call, groups, v)) return true;
      *why = "'" + a.name + "' is not a parameter of family " + (call.family ? call.family : "?");
      return false;
    case SpecArgKind::kValue:
    case SpecArgKind::kScratch:
      return a.formula.Evaluate(call, groups, v, why);
    default:
      *why = "not a number";
      return false;
  }
}

/// Where a number argument's formula is, for messages.
std::string ArgPointer(const SpecKernel& k, size_t i) {
  const SpecArg& a = k.params[i];
  const std::string p = k.params_pointer + "/" + std::to_string(i);
  return a.kind == SpecArgKind::kValue ? p + "/value" : a.kind == SpecArgKind::kScratch ? p + "/elements" : p;
}

/// "'dcp_world' (/params/3)", "value 'ring * 2' (/params/4)".
std::string ArgLabel(const SpecKernel& k, size_t i) {
  const SpecArg& a = k.params[i];
  const std::string at = " (" + k.params_pointer + "/" + std::to_string(i) + ")";
  if (a.kind == SpecArgKind::kValue) return "value '" + a.formula.text() + "'" + at;
  if (a.kind == SpecArgKind::kScratch) return "size '" + a.formula.text() + "' of scratch '" + a.name + "'" + at;
  return "'" + a.name + "'" + at;
}

void PutCell(SpecType type, int64_t value, uint64_t* cell) {
  *cell = 0;
  if (type == SpecType::kI32) {
    const int32_t v32 = static_cast<int32_t>(value);
    std::memcpy(cell, &v32, sizeof(v32));
  } else {
    std::memcpy(cell, &value, sizeof(value));
  }
}

constexpr int64_t kMaxScratchBytes = int64_t{1} << 40;
constexpr size_t kListedSpecializations = 8;  // in a skip line
constexpr int64_t kMaxGrid[3] = {INT32_MAX, 65535, 65535};  // CUDA's gridDim limits
constexpr size_t kMaxLineChars = 1000;        // a skip or error line, whatever the spec holds


SpecChoice ChooseUncapped(const KernelSpec& spec, const std::vector<sg_mapping_call>& calls,
                          const std::vector<std::string>& groups) {
  SpecChoice choice;
  if (calls.empty()) return choice;
  const int64_t n = static_cast<int64_t>(calls.size());
  const std::string who = "kernel " + EscapeText(spec.display_symbol()) + " (spec " + EscapeText(spec.file, 0) + ")";
  const auto in_group = [&](size_t i) { return n > 1 ? " in " + GroupName(groups, i) : std::string(); };

  // 1. The launch preconditions: else the engine's launcher routes the batch elsewhere.
  for (size_t p = 0; p < spec.precondition.size(); ++p) {
    const GridFormula& f = spec.precondition[p];
    for (size_t i = 0; i < calls.size(); ++i) {
      int64_t v;
      std::string why;
      if (!f.Evaluate(calls[i], n, &v, &why)) {
        choice.error = spec.file + ":/precondition/" + std::to_string(p) + ": " + why;
        return choice;
      }
      if (v != 0) continue;
      const std::string values = Values(f.Variables(), calls[i], n);
      choice.skip = who + ": precondition '" + f.text() + "' does not hold" +
                    (values.empty() ? "" : " (" + values + ")") + in_group(i) +
                    ": the engine's launcher would route this batch elsewhere";
      return choice;
    }
  }

  // 2. The specialization: the first whose conditions hold on every call.
  if (spec.specializations.empty()) {
    choice.kernel = &spec;
  } else {
    std::vector<std::vector<bool>> fits(spec.specializations.size(), std::vector<bool>(calls.size(), true));
    for (size_t s = 0; s < spec.specializations.size(); ++s) {
      const SpecSpecialization& sp = spec.specializations[s];
      bool all = true;
      for (size_t i = 0; i < calls.size(); ++i) {
        for (size_t c = 0; c < sp.conditions.size() && fits[s][i]; ++c) {
          int64_t v;
          std::string why;
          if (!sp.conditions[c].Evaluate(calls[i], n, &v, &why)) {
            choice.error = spec.file + ":/specializations/" + std::to_string(s) + "/requires/" + std::to_string(c) +
                           ": " + why;
            return choice;
          }
          fits[s][i] = v != 0;
        }
        all = all && fits[s][i];
      }
      if (all && !choice.kernel) {
        choice.kernel = &sp.kernel;
        choice.specialization = static_cast<int>(s);
      }
    }
    if (!choice.kernel) {
      std::vector<std::string> vars;  // every condition's variables, in order
      std::string list;
      size_t listed = 0;
      for (const SpecSpecialization& sp : spec.specializations) {
        std::string conditions;
        for (const GridFormula& f : sp.conditions) {
          conditions += (conditions.empty() ? "" : " && ") + f.text();
          for (const std::string& v : f.Variables())
            if (std::find(vars.begin(), vars.end(), v) == vars.end()) vars.push_back(v);
        }
        // The first few: a spec of 10,000 specializations gave a 150 KB line.
        if (listed++ < kListedSpecializations) list += (list.empty() ? "" : ", ") + conditions;
      }
      if (listed > kListedSpecializations)
        list += ", and " + std::to_string(listed - kListedSpecializations) + " more";
      const std::string specializations = " (specializations: " + list + ")";
      for (size_t i = 0; i < calls.size(); ++i) {
        bool some = false;
        for (size_t s = 0; s < fits.size(); ++s) some = some || fits[s][i];
        if (some) continue;
        choice.skip = who + ": no specialization fits " + Values(vars, calls[i], n) +
                      (n > 1 ? " of " + GroupName(groups, i) : std::string()) + specializations;
        return choice;
      }
      std::string each;
      for (size_t i = 0; i < calls.size(); ++i)
        each += (each.empty() ? "" : "; ") + GroupName(groups, i) + ": " + Values(vars, calls[i], n);
      choice.skip = who + ": no one specialization fits every group (" + each + ")" + specializations;
      return choice;
    }
  }

  // 3. One launch over every group takes each plain value once: the groups must agree.
  if (n > 1) {
    const SpecKernel& k = *choice.kernel;
    const auto differ = [&](const std::string& label, int64_t first, int64_t other, size_t i) {
      choice.kernel = nullptr;
      choice.specialization = -1;
      choice.skip = who + ": one launch over every group takes one " + label + ", and the groups differ (" +
                    std::to_string(first) + " in " + GroupName(groups, 0) + ", " + std::to_string(other) + " in " +
                    GroupName(groups, i) + "); expected the same value in every group, or a group_array";
    };
    for (size_t a = 0; a < k.params.size(); ++a) {
      const SpecArgKind kind = k.params[a].kind;
      if (kind != SpecArgKind::kScalar && kind != SpecArgKind::kParam && kind != SpecArgKind::kValue &&
          kind != SpecArgKind::kScratch)
        continue;
      int64_t first = 0;
      for (size_t i = 0; i < calls.size(); ++i) {
        int64_t v;
        std::string why;
        if (!ArgValue(k.params[a], calls[i], n, &v, &why)) {
          choice.kernel = nullptr;
          choice.specialization = -1;
          choice.error = spec.file + ":" + ArgPointer(k, a) + ": " + why;
          return choice;
        }
        if (i == 0) first = v;
        else if (v != first) {
          differ(ArgLabel(k, a), first, v, i);
          return choice;
        }
      }
    }
    for (int d = 0; d < 3; ++d) {
      int64_t first = 0;
      for (size_t i = 0; i < calls.size(); ++i) {
        int64_t v;
        std::string why;
        if (!k.grid[d].Evaluate(calls[i], n, &v, &why)) {
          choice.kernel = nullptr;
          choice.specialization = -1;
          choice.error = spec.file + ":" + k.grid_pointer + "/" + std::to_string(d) + ": " + why;
          return choice;
        }
        if (i == 0) first = v;
        else if (v != first) {
          differ("grid '" + k.grid[d].text() + "' (" + k.grid_pointer + "/" + std::to_string(d) + ")", first, v, i);
          return choice;
        }
      }
    }
  }
  return choice;
}

}  // namespace

SpecChoice ChooseSpecKernel(const KernelSpec& spec, const std::vector<sg_mapping_call>& calls,
                            const std::vector<std::string>& groups) {
  SpecChoice choice = ChooseUncapped(spec, calls, groups);
  choice.skip = ElideText(choice.skip, kMaxLineChars);
  choice.error = ElideText(choice.error, kMaxLineChars);
  return choice;
}

bool PlanLaunch(const KernelSpec& spec, const SpecKernel& kernel, const std::vector<sg_mapping_call>& calls,
                LaunchPlan* plan, std::string* err) {
  if (calls.empty()) {
    *err = spec.file + ": no call to launch";
    return false;
  }
  const int64_t n = static_cast<int64_t>(calls.size());
  const sg_mapping_call& first = calls[0];  // the batch's buffers and scalars
  plan->args.assign(kernel.params.size(), PlannedArg());
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const SpecArg& a = kernel.params[i];
    PlannedArg& out = plan->args[i];
    const std::string at = spec.file + ":" + kernel.params_pointer + "/" + std::to_string(i);
    std::string why;
    int64_t value = 0;
    switch (a.kind) {
      case SpecArgKind::kBuffer: {
        const void* p = CallBuffer(a.name, first);
        std::memcpy(&out.cell, &p, sizeof(p));
        continue;
      }
      case SpecArgKind::kGroupArray: {
        out.kind = PlannedArg::Kind::kGroupArray;
        const bool buffer = a.type == SpecType::kU64;
        const size_t size = a.type == SpecType::kI32 ? 4 : 8;
        out.data.assign(calls.size() * size, 0);
        for (size_t g = 0; g < calls.size(); ++g) {
          uint8_t* at_g = out.data.data() + g * size;
          if (buffer) {
            const uint64_t address = reinterpret_cast<uintptr_t>(CallBuffer(a.name, calls[g]));
            std::memcpy(at_g, &address, sizeof(address));
            continue;
          }
          if (!CallVariable(a.name, calls[g], n, &value)) {
            *err = at + ": '" + a.name + "' is not a parameter of family " + (calls[g].family ? calls[g].family : "?");
            return false;
          }
          if (a.type == SpecType::kI32 && (value < INT32_MIN || value > INT32_MAX)) {
            *err = at + ": '" + a.name + "' is " + std::to_string(value) + " in group " + std::to_string(g) +
                   "; expected an i32 (or \"type\": \"i64\")";
            return false;
          }
          if (a.type == SpecType::kI32) {
            const int32_t v32 = static_cast<int32_t>(value);
            std::memcpy(at_g, &v32, sizeof(v32));
          } else {
            std::memcpy(at_g, &value, sizeof(value));
          }
        }
        out.bytes = static_cast<int64_t>(out.data.size());
        continue;
      }
      default:
        break;
    }
    if (!ArgValue(a, first, n, &value, &why)) {
      *err = spec.file + ":" + ArgPointer(kernel, i) + ": " + why;
      return false;
    }
    if (a.kind == SpecArgKind::kScratch) {
      out.kind = PlannedArg::Kind::kScratch;
      if (value < 0 || (value > 0 && a.element_bytes > kMaxScratchBytes / value)) {
        *err = spec.file + ":" + ArgPointer(kernel, i) + ": '" + a.formula.text() + "' is " + std::to_string(value) +
               " here; expected 0 to " + std::to_string(kMaxScratchBytes / a.element_bytes) + " elements (at most 2^40 bytes)";
        return false;
      }
      out.bytes = value * a.element_bytes;
      continue;
    }
    if (a.kind == SpecArgKind::kValue && a.type == SpecType::kI32 && (value < INT32_MIN || value > INT32_MAX)) {
      *err = spec.file + ":" + ArgPointer(kernel, i) + ": '" + a.formula.text() + "' is " + std::to_string(value) +
             " here; expected an i32 (or \"type\": \"i64\")";
      return false;
    }
    PutCell(a.type, value, &out.cell);
  }
  for (int d = 0; d < 3; ++d) {
    std::string why;
    if (!kernel.grid[d].Evaluate(first, n, &plan->grid[d], &why)) {
      *err = spec.file + ":" + kernel.grid_pointer + "/" + std::to_string(d) + ": " + why;
      return false;
    }
  }
  return CheckGrid(spec, kernel, plan->grid, " here", err);
}

bool CheckGrid(const KernelSpec& spec, const SpecKernel& kernel, const int64_t grid[3], const std::string& when,
               std::string* err) {
  for (int d = 0; d < 3; ++d) {
    if (grid[d] >= 0 && grid[d] <= kMaxGrid[d]) continue;
    *err = spec.file + ":" + kernel.grid_pointer + "/" + std::to_string(d) + ": '" + kernel.grid[d].text() + "' is " +
           std::to_string(grid[d]) + when + "; expected 0 <= grid " + "xyz"[d] + " <= " + std::to_string(kMaxGrid[d]) +
           " (CUDA's limit)";
    return false;
  }
  int64_t xy, blocks;  // within the limits the product fits; checked all the same
  if (__builtin_mul_overflow(grid[0], grid[1], &xy) || __builtin_mul_overflow(xy, grid[2], &blocks)) {
    *err = spec.file + ":" + kernel.grid_pointer + ": the grid's " + std::to_string(grid[0]) + " x " +
           std::to_string(grid[1]) + " x " + std::to_string(grid[2]) + " blocks overflow int64" + when;
    return false;
  }
  return true;
}

bool CheckConstantGrids(const KernelSpec& spec, std::string* err) {
  std::vector<const SpecKernel*> kernels;
  if (spec.specializations.empty()) kernels.push_back(&spec);
  for (const SpecSpecialization& s : spec.specializations) kernels.push_back(&s.kernel);
  for (const SpecKernel* k : kernels) {
    // Each dimension that names no variable is known now; the others
    // count as 1 (their values are checked at each launch).
    int64_t grid[3] = {1, 1, 1};
    for (int d = 0; d < 3; ++d) {
      if (!k->grid[d].Variables().empty()) continue;
      std::string why;
      if (!k->grid[d].Evaluate(sg_mapping_call{}, 1, &grid[d], &why)) {
        *err = spec.file + ":" + k->grid_pointer + "/" + std::to_string(d) + ": " + why;
        return false;
      }
    }
    if (!CheckGrid(spec, *k, grid, "", err)) return false;
    // The block: each dimension is at most 1024 when the spec loads; CUDA
    // also takes at most 64 in z and 1024 threads in all.
    int64_t threads = 1;
    for (int d = 0; d < 3; ++d) threads *= k->block[d];  // at most 2^30: no overflow
    if (threads > 1024 || k->block[2] > 64) {
      const std::string pointer = k->grid_pointer.substr(0, k->grid_pointer.size() - 4) + "block";
      *err = spec.file + ":" + pointer + ": " + std::to_string(k->block[0]) + " x " + std::to_string(k->block[1]) +
             " x " + std::to_string(k->block[2]) + " threads per block; expected at most 1024 in all and 64 in z "
             "(CUDA's limits)";
      return false;
    }
  }
  return true;
}

}  // namespace slotguard
