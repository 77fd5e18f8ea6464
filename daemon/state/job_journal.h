#pragma once

#include <functional>
#include <memory>

#include <boost/asio/thread_pool.hpp>

#include "daemon/state/job_store.h"

namespace bplace {

// The durable state (JobStore, SQLite) behind one worker thread: every
// store call blocks on the disk, so none runs on an io_context thread.
// Work runs in the order posted, one at a time.
// Thread-safe: Post may be called from any thread.
class JobJournal {
 public:
  explicit JobJournal(std::unique_ptr<JobStore> store);
  // Finishes the work already posted, then stops the worker.
  ~JobJournal();

  JobJournal(const JobJournal&) = delete;
  JobJournal& operator=(const JobJournal&) = delete;

  // Runs `work` on the worker thread with the store. An exception thrown by
  // `work` is logged and dropped (the worker goes on).
  void Post(std::function<void(JobStore&)> work);

  // The store, for start-up only (before any Post; the caller blocks).
  JobStore& StoreForStartup() { return *store_; }

 private:
  std::unique_ptr<JobStore> store_;
  boost::asio::thread_pool worker_{1};
};

}  // namespace bplace
