// The interpreter of the per-request kinds (docs/state-and-block-ops.md,
// "What a description computes").
#include "family/request_plan.h"

namespace slotguard {
namespace {

constexpr int64_t kPad = -1;

/// The formula variables with the parameters and the batch's sizes set.
std::vector<int64_t> GroupVars(const FamilyDesc& desc, const std::vector<int64_t>& params, const Batch* batch) {
  std::vector<int64_t> v(desc.variables.size(), 0);
  for (size_t p = 0; p < params.size() && p < desc.params.size(); ++p) v[desc.param_var(static_cast<int32_t>(p))] = params[p];
  if (batch) {
    v[FamilyDesc::kNumReqs] = batch->num_reqs();
    v[FamilyDesc::kNumTokens] = batch->num_tokens;
    v[FamilyDesc::kNumActualTokens] = batch->num_actual_tokens;
    v[FamilyDesc::kNumRealTokens] = batch->num_real_tokens();
  }
  return v;
}

/// Sets request r's per-request inputs (InputValues: `values`) in `v`.
void SetInputs(const FamilyDesc& desc, const std::vector<std::vector<int64_t>>& values, int32_t r, int64_t* v) {
  for (size_t k = 0; k < desc.inputs.size(); ++k)
    if (!desc.inputs[k].per_token()) v[desc.input_var(k)] = values[k][r];
}

bool Test(const Expr& e, const std::vector<int64_t>& vars) {
  int64_t value = 0;
  ExprError error = ExprError::kNone;
  return !e.empty() && e.Evaluate(vars.data(), &value, &error) && value != 0;
}

/// The per-request loop, one request (and each of its operations) at a time.
class RequestRun {
 public:
  RequestRun(const FamilyDesc& desc, const RequestDesc& m, const std::vector<int64_t>& params, const Batch& batch,
             const BlockTable& table, bool facts, Interpretation* out)
      : d_(desc), m_(m), b_(batch), table_(table), facts_(facts), out_(out), v_(GroupVars(desc, params, &batch)),
        state_(desc.kind == FamilyKind::kStateIndex), params_(params) {}

  bool Go(int64_t ops, std::string* err) {
    if (!InputValues(d_, params_, b_, &inputs_, err)) return false;
    const int32_t R = b_.num_reqs();
    const size_t n = static_cast<size_t>(R) * static_cast<size_t>(ops);
    const int outputs = state_ || m_.op != BlockOpKind::kCopy ? 1 : 2;
    int64_t marker = kPad;
    if (state_ && !Eval(m_.marker, "marker", -1, &marker, err)) return false;
    out_->slots.assign(outputs, std::vector<int64_t>(n, state_ ? marker : kPad));
    out_->facts.assign(facts_ ? outputs : 0, std::vector<uint8_t>(n, 0));
    out_->owner.assign(n, -1);
    for (int32_t r = 0; r < R; ++r) {
      for (int64_t k = 0; k < ops; ++k) out_->owner[static_cast<size_t>(r * ops + k)] = r;
      if (!Request(r, ops, err)) return false;
    }
    return true;
  }

 private:
  bool Eval(const Expr& e, const char* knob, int32_t r, int64_t* value, std::string* err) {
    ExprError error = ExprError::kNone;
    if (e.Evaluate(v_.data(), value, &error)) return true;
    *err = (r >= 0 ? "request " + std::to_string(r) + ": " : std::string()) + "the description's '" + knob + "' (" +
           e.text() + "): " + ExprErrorText(error);
    return false;
  }
  void Fact(size_t e, uint8_t bits) {
    if (facts_)
      for (auto& f : out_->facts) f[e] |= bits;
  }
  /// Entry `col` of request r's row after the range rule; false when the
  /// column names no entry (PAD: the marker, or no operation).
  bool Entry(int32_t row, int64_t col, int64_t width, int64_t* entry) const {
    if (col >= width || col < 0) {
      if (m_.range != RangeRule::kClamp || width == 0) return false;
      col = col < 0 ? 0 : width - 1;
    }
    *entry = table_.at(row, static_cast<int32_t>(col));
    return true;
  }

  bool Request(int32_t r, int64_t ops, std::string* err) {
    const bool dummy = b_.is_dummy(r);
    const int32_t row = b_.row_of(r);
    const bool has_row = row >= 0 && row < table_.rows;
    SetRequestVars(b_, r, v_.data());
    SetInputs(d_, inputs_, r, v_.data());
    const int64_t width = has_row ? table_.row_width(row) : 0;
    v_[FamilyDesc::kWidth] = width;
    v_[FamilyDesc::kRows] = table_.rows;
    const bool owns_none = dummy || !has_row;
    const size_t first = static_cast<size_t>(r * ops);
    if ((dummy && m_.dummy == DummyRule::kPad) || !has_row) {
      for (int64_t k = 0; k < ops; ++k) Fact(first + k, kFactNoState | kFactMarker);
      return true;  // the marker (state_index) or no operation (block_op), as filled
    }
    if (state_) {
      for (const LetDesc& let : m_.lets)
        if (!Eval(let.value, let.name.c_str(), r, &v_[let.var], err)) return false;
      int64_t col, index;
      if (!Eval(m_.column, "column", r, &col, err)) return false;
      if (!Entry(row, col, width, &index)) {
        Fact(first, (owns_none ? kFactNoState : 0) | kFactMarker);
        return true;
      }
      out_->slots[0][first] = index;
      v_[FamilyDesc::kIndex] = index;
      if (owns_none) {
        Fact(first, kFactNoState);
      } else if (!Test(m_.null_index, v_)) {
        Fact(first, kFactLiveIndex);
      }
      return true;
    }
    for (int64_t k = 0; k < ops; ++k) {
      const size_t e = first + static_cast<size_t>(k);
      v_[FamilyDesc::kOp] = k;
      for (const LetDesc& let : m_.lets)
        if (!Eval(let.value, let.name.c_str(), r, &v_[let.var], err)) return false;
      bool selected = true;
      for (const Expr& s : m_.select) {
        int64_t holds;
        if (!Eval(s, "select", r, &holds, err)) return false;
        selected = selected && holds != 0;
      }
      const bool reads = m_.op == BlockOpKind::kCopy || m_.op == BlockOpKind::kStore;
      const bool writes = m_.op != BlockOpKind::kStore;
      int64_t src = kPad, dst = kPad, col;
      bool done = selected;
      if (done && !m_.skip_null_at.empty()) {
        // Another column's entry decides (a chunk whose last block is null
        // is skipped whole): a null id there, or no entry, cancels it.
        if (!Eval(m_.skip_null_at, "skip_null_at", r, &col, err)) return false;
        if (col < 0 || col >= width) {
          done = false;
        } else {
          v_[FamilyDesc::kIndex] = table_.at(row, static_cast<int32_t>(col));
          done = !Test(m_.null_index, v_);
        }
      }
      if (done && reads) {
        if (!Eval(m_.src, "src", r, &col, err)) return false;
        done = Entry(row, col, width, &src);
        v_[FamilyDesc::kIndex] = src;
        if (done && m_.skip_null_src && Test(m_.null_index, v_)) done = false;  // nothing to read
      }
      if (done && writes) {
        if (!Eval(m_.dst, "dst", r, &col, err)) return false;
        done = Entry(row, col, width, &dst);
      }
      if (!done) {
        Fact(e, (owns_none ? kFactNoState : 0) | kFactMarker);
        continue;
      }
      if (m_.op == BlockOpKind::kCopy) {
        out_->slots[0][e] = src;
        out_->slots[1][e] = dst;
      } else {
        out_->slots[0][e] = reads ? src : dst;
      }
      v_[FamilyDesc::kIndex] = writes ? dst : src;
      if (owns_none) {
        Fact(e, kFactNoState);
      } else if (!Test(m_.null_index, v_)) {
        Fact(e, kFactLiveIndex);
      }
    }
    return true;
  }

  const FamilyDesc& d_;
  const RequestDesc& m_;
  const Batch& b_;
  const BlockTable& table_;
  const bool facts_;
  Interpretation* out_;
  std::vector<int64_t> v_;
  const bool state_;
  const std::vector<int64_t>& params_;
  std::vector<std::vector<int64_t>> inputs_;  // the inputs over the batch (InputValues)
};

}  // namespace

bool OpsPerRequest(const FamilyDesc& desc, const RequestDesc& request, const std::vector<int64_t>& params,
                   int64_t width, int64_t* ops, std::string* err) {
  if (desc.kind != FamilyKind::kBlockOp) return *ops = 1, true;
  std::vector<int64_t> v = GroupVars(desc, params, nullptr);
  v[FamilyDesc::kWidth] = width;
  std::string why;
  if (!request.ops.Evaluate(v.data(), ops, &why)) {
    *err = "the description's 'ops' (" + request.ops.text() + "): " + why;
    return false;
  }
  if (*ops < 0 || *ops > (int64_t{1} << 20)) {
    *err = "the description's 'ops' (" + request.ops.text() + ") is " + std::to_string(*ops) +
           "; expected 0 to 1048576 operations per request";
    return false;
  }
  return true;
}

bool RequestOutputLength(const FamilyDesc& desc, const RequestDesc& request, const std::vector<int64_t>& params,
                         int64_t width, int32_t num_reqs, int64_t* length, std::string* err) {
  int64_t ops;
  if (!OpsPerRequest(desc, request, params, width, &ops, err)) return false;
  *length = ops * num_reqs;
  return true;
}

std::vector<std::string> RequestOutputSuffixes(const FamilyDesc& desc) {
  if (desc.kind == FamilyKind::kBlockOp && desc.request.op == BlockOpKind::kCopy) return {"dst"};
  return {};
}

bool InterpretRequests(const FamilyDesc& desc, const RequestDesc& request, const std::vector<int64_t>& params,
                       const Batch& batch, const BlockTable& table, bool with_facts, Interpretation* out,
                       std::string* err) {
  int64_t ops;
  if (!OpsPerRequest(desc, request, params, table.width, &ops, err)) return false;
  return RequestRun(desc, request, params, batch, table, with_facts, out).Go(ops, err);
}

void ForEachRequestColumn(const FamilyDesc& desc, const RequestDesc& request, const std::vector<int64_t>& params,
                          const Batch& batch, int64_t width,
                          const std::function<void(int32_t r, int64_t column, bool source)>& fn) {
  std::vector<int64_t> v = GroupVars(desc, params, &batch);
  v[FamilyDesc::kWidth] = width;
  int64_t ops = 1;
  std::string unused;
  if (!OpsPerRequest(desc, request, params, width, &ops, &unused)) return;
  std::vector<std::vector<int64_t>> inputs;
  if (!InputValues(desc, params, batch, &inputs, &unused)) return;
  ExprError error = ExprError::kNone;
  for (int32_t r = 0; r < batch.num_reqs(); ++r) {
    if (batch.is_dummy(r)) continue;
    SetRequestVars(batch, r, v.data());
    SetInputs(desc, inputs, r, v.data());
    for (int64_t k = 0; k < ops; ++k) {
      v[FamilyDesc::kOp] = k;
      bool ok = true;
      for (const LetDesc& let : request.lets) ok = ok && let.value.Evaluate(v.data(), &v[let.var], &error);
      if (!ok) break;
      int64_t col, holds;
      if (desc.kind == FamilyKind::kStateIndex) {
        if (request.column.Evaluate(v.data(), &col, &error)) fn(r, col, false);
        break;
      }
      for (const Expr& s : request.select) ok = ok && s.Evaluate(v.data(), &holds, &error) && holds != 0;
      if (!ok) continue;
      if (!request.skip_null_at.empty() && request.skip_null_at.Evaluate(v.data(), &col, &error)) fn(r, col, true);
      if (!request.src.empty() && request.src.Evaluate(v.data(), &col, &error)) fn(r, col, true);
      if (!request.dst.empty() && request.dst.Evaluate(v.data(), &col, &error)) fn(r, col, false);
    }
  }
}

bool IsNullIndex(const FamilyDesc& desc, const RequestDesc& request, const std::vector<int64_t>& params,
                 int64_t index) {
  std::vector<int64_t> v = GroupVars(desc, params, nullptr);
  v[FamilyDesc::kIndex] = index;
  return Test(request.null_index, v);
}

bool ConsumerSkips(const FamilyDesc& desc, const ConsumerDesc& c, const std::vector<int64_t>& params, int64_t index) {
  std::vector<int64_t> v = GroupVars(desc, params, nullptr);
  v[FamilyDesc::kIndex] = index;
  return Test(c.skip, v);
}

int64_t MarkerOf(const FamilyDesc& desc, const RequestDesc& request, const std::vector<int64_t>& params) {
  const std::vector<int64_t> v = GroupVars(desc, params, nullptr);
  int64_t marker = 0;
  ExprError error = ExprError::kNone;
  return request.marker.Evaluate(v.data(), &marker, &error) ? marker : 0;
}

}  // namespace slotguard
