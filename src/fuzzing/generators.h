// The one scenario generator behind every fuzzing engine: `slotguard fuzz`
// (a seeded PRNG), the libFuzzer targets (the input bytes) and the
// RapidCheck properties (rc::gen draws). Every decision goes through a
// Choices source, so each engine's failure is the same readable scenario.
//
// Scenarios are valid by construction (the loader accepts them) and
// engine-consistent by default (docs/families.md, "Engine states"): dummy
// requests are marked (idx_mapping -1) and hold only null entries, live
// requests address only real blocks. So with every kernel `fixed` a campaign
// finds nothing, and each finding is a kernel bug. `inconsistent` adds
// runner-state faults (an unmarked dummy, a live request addressing an
// unallocated zero column), and such scenarios say so in their description.
//
// Engine shapes come at low probability, so most scenarios stay small:
// persistent tables (a live request reads its own row of a table with more
// rows than requests, the other rows stale, holding blocks live requests own
// now; a dummy reads no row), every table layout, batches of up to
// --max-requests requests and requests of up to 64k tokens, token counts at
// and beside the engines' tiles, positions and slots past int32, block ids
// up to INT32_MAX - 1 and, opted in, batches past 2^24 tokens. Operators and
// their rates: generators.cc.
#ifndef SLOTGUARD_FUZZING_GENERATORS_H_
#define SLOTGUARD_FUZZING_GENERATORS_H_

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace slotguard {

/// A source of decisions.
class Choices {
 public:
  virtual ~Choices() = default;
  /// A value in [lo, hi], both inclusive (lo when hi < lo).
  virtual int64_t Range(int64_t lo, int64_t hi) = 0;

  bool Chance(int percent) { return Range(0, 99) < percent; }
  template <class T>
  T Pick(const std::vector<T>& values) {
    return values[static_cast<size_t>(Range(0, static_cast<int64_t>(values.size()) - 1))];
  }
  /// Pick from a literal list, without building a vector.
  template <class T>
  T Pick(std::initializer_list<T> values) {
    return values.begin()[Range(0, static_cast<int64_t>(values.size()) - 1)];
  }
};

/// Decisions from a seeded PRNG (xoshiro256**, its state expanded from the
/// seed by splitmix64): the same seed gives the same scenarios. A campaign
/// seeds one per scenario, so seeding must be cheap (mt19937_64's took a
/// tenth of a small scenario's time).
class RandomChoices : public Choices {
 public:
  explicit RandomChoices(uint64_t seed);
  int64_t Range(int64_t lo, int64_t hi) override;

 private:
  uint64_t Next();
  uint64_t state_[4];
};

/// Decisions from fuzzer bytes; once they run out, every answer is `lo`, so
/// short inputs give small scenarios (libFuzzer grows them).
class ByteChoices : public Choices {
 public:
  ByteChoices(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  int64_t Range(int64_t lo, int64_t hi) override;

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

struct GeneratorOptions {
  std::vector<Family> families;  // empty: every family
  bool inconsistent = false;     // add runner-state faults
  int32_t max_requests = 1024;
  /// --table-layout: every scenario laid out so; unset, the generator varies it.
  std::optional<TableLayoutKind> table_layout;
  /// False for a kernel provider that takes seq_lens as int32 (plugin ABI
  /// 1, kernel spec 1): no seq_len passes int32. Persistent tables are
  /// generated for every provider: the backends gather them row by row for
  /// one that reads only per-request tables, as `check` does.
  bool int64_seq_lens = true;
  /// --huge-batches: rarely, a batch past 2^24 tokens (a float's exact
  /// integers end there; about a gigabyte to check, so opt-in).
  bool huge_batches = false;
  /// False for an implementation other than slotguard's (a plugin, a
  /// --kernel-cmd provider): it gets no dummy_run key (the engine's kernel
  /// never does), and no kernel can tell a dummy run from a live batch by
  /// its inputs (idx_mapping arange), so it is given no dummy runs.
  bool dummy_runs = true;
};

/// How often each generator operator fired (RapidCheck's RC_CLASSIFY, for
/// the whole campaign): proof that every bug class was exercised.
using Classification = std::map<std::string, int64_t>;

/// Every operator name, for reports that list the ones never exercised.
const std::vector<std::string>& GeneratorOperators();

/// One scenario. `classes`, when given, counts the operators used.
Scenario GenerateScenario(Choices& choices, const GeneratorOptions& options,
                          Classification* classes = nullptr);

/// The fuzz_mapping libFuzzer target's scenario for an input: every family,
/// engine-consistent, `variant` ("", "NAME" or "FAMILY/NAME") forced. `slotguard import` calls it
/// too, so an artifact turns back into the scenario the target checked.
Scenario FuzzMappingScenario(const uint8_t* data, size_t size, const std::string& variant,
                             Classification* classes = nullptr);

}  // namespace slotguard

#endif  // SLOTGUARD_FUZZING_GENERATORS_H_
