#include "daemon/state/job_journal.h"

#include <exception>

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>

namespace bplace {

JobJournal::JobJournal(std::unique_ptr<JobStore> store) : store_(std::move(store)) {}

JobJournal::~JobJournal() { worker_.join(); }

void JobJournal::Post(std::function<void(JobStore&)> work) {
  boost::asio::post(worker_, [this, work = std::move(work)] {
    try {
      work(*store_);
    } catch (const std::exception& e) {
      spdlog::error("state store: internal error (work dropped): {}", e.what());
    }
  });
}

}  // namespace bplace
