#pragma once

// The schema of the job store (daemon/state/job_store.h) as the steps that
// build it: the submissions table, the tracked jobs and their labels.
// Constant data, thread-safe.

#include <span>

namespace bplace {

// Schema version this build writes: the number of steps.
inline constexpr int kJobStoreSchemaVersion = 1;

// The schema steps, kJobStoreSchemaVersion of them: step i (0-based) takes a
// file from version i to version i+1 and is SQL text of one or more
// statements, without parameters. The migration runner (JobStore::Migrate)
// runs each in one transaction with the version bump. A future version
// appends a step; a step already released is never edited.
std::span<const char* const> JobStoreMigrations();

}  // namespace bplace
