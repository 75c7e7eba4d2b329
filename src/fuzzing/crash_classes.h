// Crash classes of a fuzz --keep-going campaign (docs/fuzzing.md, "Crash
// classes"). A crash or device fault of the implementation (a no_fault
// finding: a provider that exits, a plugin that dies in its child, a CUDA
// fault) costs a new process or CUDA context each time; an implementation
// that crashes on a kind of batch would spend the night restarting. Once a
// crash's signature has recurred (seen again once a finding shrank to it), its
// class is described by the batch features every crash of it seen so far
// agrees on, and once a first sample of it has crashed the campaign defers
// the scenarios that have them: it does not run them but a rate-limited sample, counts the rest per class, and
// reports them as deferred, never as checked.
//
// The description is the most specific conjunction of features consistent
// with every crash of the class (the originals the campaign met and the
// reproducers they shrank to): a feature the crashes disagree on is left
// out, one they agree on is kept. A sample that runs without a crash shows
// the description too wide: the class is retired and its scenarios run
// again.
#ifndef SLOTGUARD_FUZZING_CRASH_CLASSES_H_
#define SLOTGUARD_FUZZING_CRASH_CLASSES_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "findings/finding_signature.h"
#include "scenario/scenario.h"

namespace slotguard {

/// The yes-or-no features of a batch a class is described by.
enum CrashFeature : int {
  kFeatureRequests,            // num_reqs > 0
  kFeatureSeveralRequests,     // num_reqs > 1
  kFeatureTokens,              // num_tokens > 0
  kFeaturePadding,             // num_tokens > num_actual_tokens
  kFeatureTokensPastRequests,  // num_actual_tokens > query_start_loc[num_reqs]: tokens of no request
  kFeatureEmptyRequest,        // a request with no new token
  kFeatureDummyRequest,        // a request marked dummy (idx_mapping -1)
  kFeaturePrefill,             // a request with more than one new token
  kFeatureCachedContext,       // a request whose seq_len is past its new tokens
  kFeatureSeveralGroups,       // more than one group
  kFeatureEmptyTable,          // a group whose table has no row or no column
  kFeaturePersistentTable,     // table rows by idx_mapping
  kCrashFeatureCount
};

/// "requests", "no requests", ...: the feature as a class's description says it.
std::string CrashFeatureText(int feature, bool has);
/// Bit f set when the scenario has feature f. O(requests + groups).
uint32_t CrashFeaturesOf(const Scenario& s);

/// What the report says of a class.
struct CrashClassReport {
  std::string signature;  // FindingSignature::Id
  std::string text;       // FindingSignature::Text
  std::string shape;      // the description: "a kpool_tail/fixed group; no requests, no padding"
  int64_t crashes = 0;    // crashes it was learnt from (originals and reproducers)
  int64_t deferred = 0;   // scenarios of the class not run
  int64_t sampled = 0;    // scenarios of the class run as its sample
  bool active = false;    // recurred: its scenarios are deferred
  bool retired = false;   // a sample ran without a crash: deferral ended
};

class CrashClasses {
 public:
  /// At most one scenario of each class runs every `sample_seconds`.
  explicit CrashClasses(double sample_seconds) : sample_seconds_(sample_seconds) {}

  /// A shrunk finding of the campaign with signature `signature`: when it
  /// is a crash (no_fault fired, and it recurred when run again), its
  /// original and its reproducer are two crashes of the signature's class.
  /// A second one makes its class active (Observe too).
  void Learn(const FindingSignature& signature, const std::vector<std::string>& fired, bool recurred,
             const Scenario& original, const Scenario& minimized);

  /// Between chunks, in stream order: a crash the campaign met, unshrunk
  /// (`key`: its signature without the shape, `features`: its batch's).
  /// When its signature has a class (a reproducer shrank to it), the class
  /// has recurred: it becomes active, and learns the crash's features.
  void Observe(const FindingSignature& key, uint32_t features);

  /// Before a scenario runs (any thread): -1 when it is to run as any
  /// other; else the active class it is of, with *sample true when it runs
  /// all the same as that class's sample (none of that class in the last
  /// sample_seconds of `now`, the campaign's clock), false when deferred.
  /// A class defers only once a sample of it has crashed: until then its
  /// first match is its sample and the others run as any scenario.
  int Classify(const Scenario& s, double now, bool* sample);

  /// Between chunks, in stream order: a sample's outcome (crashed: no_fault
  /// fired), and the deferred scenarios counted. A sample that crashed
  /// confirms its class; one that did not retires it.
  void Sampled(int cls, bool crashed);
  void Deferred(int cls) { ++classes_[static_cast<size_t>(cls)].report.deferred; }

  /// Whether findings of this key (a signature without its shape) are of
  /// an active class: the class's reproducer stands for them, and the
  /// campaign shrinks no more of them (each would cost crashes).
  bool Covers(const FindingSignature& key) const;

  std::vector<CrashClassReport> Report() const;

 private:
  struct Class {
    CrashClassReport report;
    std::vector<std::string> families, variants;  // a group of each family, of one of the variants
    uint32_t care = 0, value = 0;                 // the features all its crashes agree on, and their values
    int64_t shrunk = 0;                           // findings shrunk to its signature
    double next_sample = 0;
    // Probation: an active class defers nothing until a sample of it has
    // crashed (confirmed); its first match runs as that sample, and the
    // matches met before its outcome is known run as any scenario.
    bool probing = false, confirmed = false;
    bool Matches(const Scenario& s) const;
    void Generalize(uint32_t features);  // Find-S: keep only the features `features` agrees on
  };
  void Describe(Class* c) const;

  const double sample_seconds_;
  std::vector<Class> classes_;  // grown between chunks only
  std::mutex sample_mu_;
};

}  // namespace slotguard

#endif  // SLOTGUARD_FUZZING_CRASH_CLASSES_H_
