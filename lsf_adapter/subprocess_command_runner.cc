#include "lsf_adapter/subprocess_command_runner.h"

#include <pthread.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include <boost/asio/strand.hpp>

#include "lsf_adapter/subprocess_child.h"

namespace bplace::lsf {

// Registry of children and the spawn queue, shared by the runner, its spawn
// thread and the children (which may outlive the runner). Guarded by `mu`.
struct SubprocessCommandRunner::Shared {
  void Remove(const Child* child) {
    std::lock_guard lock(mu);
    live.erase(child);
  }

  // Body of the spawn thread: spawns queued children in order until told to
  // stop with an empty queue.
  void SpawnLoop();

  std::mutex mu;
  std::condition_variable spawn_wanted;
  bool shut_down = false;
  bool stop_spawner = false;
  std::deque<std::shared_ptr<Child>> spawn_queue;
  std::unordered_map<const Child*, std::weak_ptr<Child>> live;
};

void SubprocessCommandRunner::Shared::SpawnLoop() {
  for (;;) {
    std::shared_ptr<Child> child;
    {
      std::unique_lock lock(mu);
      spawn_wanted.wait(lock, [this] { return stop_spawner || !spawn_queue.empty(); });
      if (spawn_queue.empty()) return;
      child = std::move(spawn_queue.front());
      spawn_queue.pop_front();
    }
    child->Spawn();
  }
}

SubprocessCommandRunner::SubprocessCommandRunner(boost::asio::any_io_executor executor,
                                                 SubprocessRunnerOptions options)
    : executor_(std::move(executor)), options_(options), shared_(std::make_shared<Shared>()) {}

SubprocessCommandRunner::~SubprocessCommandRunner() {
  Shutdown();
  {
    std::lock_guard lock(shared_->mu);
    shared_->stop_spawner = true;
  }
  shared_->spawn_wanted.notify_all();
  // Joined rather than detached: the thread posts to our executor, which
  // must not happen after the io_context is gone.
  if (spawner_.joinable()) spawner_.join();
}

void SubprocessCommandRunner::Run(CommandSpec spec, Callback done) {
  auto child = std::make_shared<Child>(
      boost::asio::make_strand(executor_), std::move(spec), std::move(done), options_,
      [shared = shared_](const Child* gone) { shared->Remove(gone); });
  std::optional<Error> refusal;
  {
    std::lock_guard lock(shared_->mu);
    if (shared_->shut_down) {
      refusal = Error{ErrorCode::kCommandFailed, "the command runner is shut down"};
    } else if (!spawner_.joinable()) {
      // Started lazily so that the constructor cannot fail.
      try {
        spawner_ = std::thread([shared = shared_] {
          // Named, not the name of whichever thread ran the first command
          // (top -H, /proc/PID/task/TID/comm).
          pthread_setname_np(pthread_self(), "bplace-spawn");
          shared->SpawnLoop();
        });
      } catch (const std::system_error& e) {
        refusal = Error{ErrorCode::kCommandFailed,
                        std::string("cannot start the spawn thread: ") + e.what()};
      }
    }
    if (!refusal) {
      shared_->live.emplace(child.get(), child);
      child->Start();  // before queueing, so the timeout is armed before OnSpawned
      shared_->spawn_queue.push_back(child);
    }
  }
  if (refusal) {
    child->Refuse(std::move(*refusal));
    return;
  }
  shared_->spawn_wanted.notify_one();
}

void SubprocessCommandRunner::Shutdown() {
  std::vector<std::shared_ptr<Child>> live;
  {
    std::lock_guard lock(shared_->mu);
    shared_->shut_down = true;
    for (const auto& [key, weak] : shared_->live) {
      if (auto child = weak.lock()) live.push_back(std::move(child));
    }
  }
  for (const auto& child : live) child->KillGroup();
}

}  // namespace bplace::lsf
