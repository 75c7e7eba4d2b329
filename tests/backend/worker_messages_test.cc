// Both ends of the worker pipe (backend/worker_messages.h): what one end
// writes, the other reads back, and malformed messages are refused.
#include "backend/worker_messages.h"

#include <gtest/gtest.h>

#include "testing/scenario_fixtures.h"

namespace slotguard {
namespace {

TEST(WorkerMessagesTest, RequestsCrossWhole) {
  const std::vector<Scenario> curated = CuratedScenarios();
  ASSERT_GE(curated.size(), 2u);
  WriterOptions writers;
  writers.head_bytes = 64;
  writers.max_cache_bytes = int64_t{3} << 32;
  WireBuffer wire;
  PutWorkerRequest(WorkerOp::kRunMany, writers, 5, {&curated[0], &curated[1]}, &wire);
  WorkerRequest request;
  std::string err;
  ASSERT_TRUE(GetWorkerRequest(&wire, &request, &err)) << err;
  EXPECT_EQ(WorkerOp::kRunMany, request.op);
  EXPECT_EQ(64, request.writers.head_bytes);
  EXPECT_EQ(int64_t{3} << 32, request.writers.max_cache_bytes);
  EXPECT_EQ(5u, request.threads);
  ASSERT_EQ(2u, request.scenarios.size());
  EXPECT_EQ(curated[1].name, request.scenarios[1].name);
  EXPECT_EQ(curated[1].batch.positions, request.scenarios[1].batch.positions);
}

TEST(WorkerMessagesTest, GraphStepsCrossWithTheirBatches) {
  const std::vector<Scenario> curated = CuratedScenarios();
  const std::vector<GraphStep> steps = {{GraphStep::Kind::kEager, 1}, {GraphStep::Kind::kCapture, 0},
                                        {GraphStep::Kind::kZeroNull, 0}, {GraphStep::Kind::kReplay, 0},
                                        {GraphStep::Kind::kReplay, 1}};
  WireBuffer wire;
  PutWorkerRequest(WorkerOp::kRunReplays, WriterOptions(), 1, {&curated[0], &curated[0]}, &wire, steps);
  WorkerRequest request;
  std::string err;
  ASSERT_TRUE(GetWorkerRequest(&wire, &request, &err)) << err;
  EXPECT_EQ(WorkerOp::kRunReplays, request.op);
  ASSERT_EQ(2u, request.scenarios.size());
  EXPECT_EQ(steps, request.steps);
  // A step of no kind is refused.
  WireBuffer bad;
  PutWorkerRequest(WorkerOp::kRunReplays, WriterOptions(), 1, {&curated[0]}, &bad, {{GraphStep::Kind::kReplay, 0}});
  bad.bytes[bad.bytes.size() - 5] = 7;  // the step's kind
  EXPECT_FALSE(GetWorkerRequest(&bad, &request, &err));
  EXPECT_EQ("malformed graph steps in a request", err);
}

TEST(WorkerMessagesTest, MalformedRequestsSayWhy) {
  const std::vector<Scenario> curated = CuratedScenarios();
  WorkerRequest request;
  std::string err;
  WireBuffer header;
  header.PutU8(1);
  EXPECT_FALSE(GetWorkerRequest(&header, &request, &err));
  EXPECT_EQ("malformed request", err);
  WireBuffer truncated;
  PutWorkerRequest(WorkerOp::kRun, WriterOptions(), 1, {&curated[0]}, &truncated);
  truncated.bytes.resize(truncated.bytes.size() - 3);
  EXPECT_FALSE(GetWorkerRequest(&truncated, &request, &err));
  EXPECT_EQ("malformed scenario in a request", err);
  WireBuffer unknown;
  PutWorkerRequest(static_cast<WorkerOp>(9), WriterOptions(), 1, {}, &unknown);
  EXPECT_FALSE(GetWorkerRequest(&unknown, &request, &err));
  EXPECT_EQ("unknown request 9", err);
}

TEST(WorkerMessagesTest, ResponsesCrossWhole) {
  std::vector<std::vector<GroupOutputs>> results(2, std::vector<GroupOutputs>(1));
  results[1][0].engine = {{3, -1, 7}};
  results[1][0].fault = "";
  WireBuffer ok;
  PutWorkerResponse(WorkerStatus::kOk, "", &results, &ok);
  WorkerStatus status;
  std::string message;
  std::vector<std::vector<GroupOutputs>> back;
  ASSERT_TRUE(GetWorkerResponse(&ok, &status, &message, &back));
  EXPECT_EQ(WorkerStatus::kOk, status);
  ASSERT_EQ(2u, back.size());
  EXPECT_EQ(results[1][0].engine, back[1][0].engine);

  WireBuffer fault;
  PutWorkerResponse(WorkerStatus::kFault, "a kernel faulted", nullptr, &fault);
  back.clear();
  ASSERT_TRUE(GetWorkerResponse(&fault, &status, &message, &back));
  EXPECT_EQ(WorkerStatus::kFault, status);
  EXPECT_EQ("a kernel faulted", message);
  EXPECT_TRUE(back.empty());

  WireBuffer truncated;
  PutWorkerResponse(WorkerStatus::kOk, "", &results, &truncated);
  truncated.bytes.resize(truncated.bytes.size() - 1);
  EXPECT_FALSE(GetWorkerResponse(&truncated, &status, &message, &back));
}

}  // namespace
}  // namespace slotguard
