#include "lsf_adapter/subprocess_command_runner.h"

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>

#include "common/unique_fd.h"
#include "lsf_adapter/spawn.h"

namespace bplace::lsf {
namespace {

using Clock = std::chrono::steady_clock;
using Strand = boost::asio::strand<boost::asio::any_io_executor>;

constexpr std::size_t kReadChunkBytes = 64 * 1024;
constexpr std::chrono::milliseconds kFirstPollInterval{1};
constexpr std::chrono::milliseconds kMaxPollInterval{100};

}  // namespace

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

// One command from Run to callback. Its state lives on `strand_`, except the
// pid fields under `pid_mu_` (KillGroup comes from any thread) and the spawn
// outcome, written by the spawn thread before it posts OnSpawned.
class SubprocessCommandRunner::Child : public std::enable_shared_from_this<Child> {
 public:
  Child(Strand strand, CommandSpec spec, Callback done, const SubprocessRunnerOptions& options,
        std::shared_ptr<Shared> shared)
      : strand_(std::move(strand)),
        spec_(std::move(spec)),
        options_(options),
        shared_(std::move(shared)),
        start_(Clock::now()),
        done_(std::move(done)),
        out_(strand_, result_.out),
        err_(strand_, result_.err),
        stdin_(strand_),
        pidfd_(strand_),
        timeout_timer_(strand_),
        grace_timer_(strand_),
        poll_timer_(strand_) {}

  ~Child() {
    // Only when the executor dropped our handlers unrun (its io_context was
    // destroyed) is the child still unreaped here. SIGKILL ends it promptly,
    // so waiting is short, and it is the last chance to avoid a zombie.
    if (pid_ > 0 && !reaped_) {
      ::kill(-pid_, SIGKILL);
      while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
    shared_->Remove(this);
  }

  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  // Any thread, before the child is queued for spawning: arms the timeout.
  void Start() {
    boost::asio::post(strand_, [self = shared_from_this()] {
      if (self->finished_) return;
      self->timeout_timer_.expires_at(self->start_ + self->spec_.timeout);
      self->timeout_timer_.async_wait(
          [self](const boost::system::error_code& ec) { self->OnTimeout(ec); });
    });
  }

  // Any thread, instead of Start: delivers `error` without running anything.
  void Refuse(Error error) {
    boost::asio::post(strand_, [self = shared_from_this(), error = std::move(error)] {
      self->spawned_ = true;
      self->exited_ = true;
      self->start_error_ = error;
      self->MaybeFinish();
    });
  }

  // Spawn thread only.
  void Spawn() {
    bool cancelled = false;
    {
      std::lock_guard lock(pid_mu_);
      cancelled = kill_requested_;
    }
    if (cancelled) {
      // Shutdown() or the timeout came first. After a timeout the callback
      // has been delivered already, so this message is only seen on shutdown.
      spawn_error_ = Error{ErrorCode::kCommandFailed,
                           spec_.argv.empty() ? std::string("not started: runner shut down")
                                              : spec_.argv[0] + ": not started: runner shut down"};
    } else {
      Result<SpawnedChild> spawned = SpawnChild(spec_, options_.use_pidfd);
      if (!spawned) {
        spawn_error_ = spawned.error();
      } else {
        std::lock_guard lock(pid_mu_);
        pid_ = spawned->pid;
        group_may_exist_ = true;
        // Shutdown() or the timeout may have come while posix_spawn ran.
        if (kill_requested_) ::kill(-pid_, SIGKILL);
        fds_ = std::move(*spawned);
      }
    }
    boost::asio::post(strand_, [self = shared_from_this()] { self->OnSpawned(); });
  }

  // Any thread: SIGKILL to the child's process group, now if it runs, or as
  // soon as it is spawned; a child not yet spawned is not started at all.
  void KillGroup() {
    std::lock_guard lock(pid_mu_);
    kill_requested_ = true;
    // The group id is the child's pid. Unreaped, that pid cannot be reused;
    // reaped, it stays taken as long as any member of the group lives. After
    // completion the group is left alone (group_may_exist_ is cleared).
    if (pid_ > 0 && group_may_exist_) ::kill(-pid_, SIGKILL);
  }

 private:
  // One of the child's output pipes and where its bytes go.
  struct OutputStream {
    OutputStream(const Strand& strand, std::string& sink_string)
        : pipe(strand), buffer(kReadChunkBytes), sink(sink_string) {}
    boost::asio::posix::stream_descriptor pipe;
    std::vector<char> buffer;
    std::string& sink;
    bool open = false;
  };

  void OnSpawned() {
    spawned_ = true;
    if (spawn_error_) {
      exited_ = true;  // there is no child to wait for
      start_error_ = std::move(spawn_error_);
      MaybeFinish();
      return;
    }
    Open(out_, std::move(fds_.out));
    Open(err_, std::move(fds_.err));
    if (fds_.in.Valid()) {
      boost::system::error_code ec;
      stdin_.assign(boost::asio::local::stream_protocol(), fds_.in.Get(), ec);
      if (ec) {
        FailAfterSpawn("registering stdin", ec);
      } else {
        fds_.in.Release();
        boost::asio::async_write(
            stdin_, boost::asio::buffer(*spec_.stdin_data),
            [self = shared_from_this()](const boost::system::error_code&, std::size_t) {
              // Done, or EPIPE/ECONNRESET because the child stopped reading:
              // either way closing gives the child EOF, and what it did with
              // its input shows in its exit status.
              boost::system::error_code ignored;
              self->stdin_.close(ignored);
            });
      }
    }
    if (fds_.pidfd.Valid()) {
      boost::system::error_code ec;
      pidfd_.assign(fds_.pidfd.Get(), ec);
      if (!ec) fds_.pidfd.Release();
      fds_.pidfd.Reset(-1);
    }
    WatchExit();
  }

  // Registers `fd` with the reactor and starts draining it.
  void Open(OutputStream& stream, UniqueFd fd) {
    boost::system::error_code ec;
    stream.pipe.assign(fd.Get(), ec);
    if (ec) {
      FailAfterSpawn("registering an output pipe", ec);
      return;
    }
    fd.Release();
    stream.open = true;
    Read(stream);
  }

  // The child runs but we cannot watch it: kill it and report an error once
  // it is reaped.
  void FailAfterSpawn(const std::string& what, const boost::system::error_code& ec) {
    if (!start_error_) start_error_ = Error{ErrorCode::kCommandFailed, what + ": " + ec.message()};
    KillGroup();
  }

  void Read(OutputStream& stream) {
    stream.pipe.async_read_some(
        boost::asio::buffer(stream.buffer),
        [self = shared_from_this(), &stream](const boost::system::error_code& ec, std::size_t n) {
          self->OnRead(stream, ec, n);
        });
  }

  void OnRead(OutputStream& stream, const boost::system::error_code& ec, std::size_t n) {
    const std::size_t limit = options_.output_limit_bytes;
    const std::size_t room = limit - std::min(limit, stream.sink.size());
    const std::size_t kept = std::min(n, room);
    stream.sink.append(stream.buffer.data(), kept);
    // Past the limit we keep reading and discarding: a child blocked on a
    // full pipe would never exit.
    if (kept < n) result_.output_truncated = true;
    if (ec) {  // eof, or operation_aborted after OnGrace closed the pipe
      stream.open = false;
      boost::system::error_code ignored;
      stream.pipe.close(ignored);
      MaybeFinish();
      return;
    }
    Read(stream);
  }

  void WatchExit() {
    if (pidfd_.is_open()) {
      pidfd_.async_wait(boost::asio::posix::stream_descriptor::wait_read,
                        [self = shared_from_this()](const boost::system::error_code& ec) {
                          if (ec || self->exited_) return;
                          // Readable means exited; should waitpid disagree,
                          // polling is the safe way on (see below).
                          if (!self->CheckExited()) self->Poll();
                        });
    }
    // Asio registers descriptors edge-triggered and does not remember an edge
    // that came before the wait was queued, so an exit between pidfd_open and
    // async_wait would be lost. The wait is queued now: an exit from here on
    // wakes it, and an earlier one is found by this check.
    if (CheckExited()) return;
    if (!pidfd_.is_open()) Poll();
  }

  void Poll() {
    poll_timer_.expires_after(poll_interval_);
    poll_interval_ = std::min(poll_interval_ * 2, kMaxPollInterval);
    poll_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (ec || self->exited_) return;
      if (!self->CheckExited()) self->Poll();
    });
  }

  // Reaps the child if it has exited; true if it has (now or before).
  bool CheckExited() {
    if (exited_) return true;
    int status = 0;
    bool status_known = true;
    {
      std::lock_guard lock(pid_mu_);
      pid_t reaped;
      do {
        reaped = ::waitpid(pid_, &status, WNOHANG);
      } while (reaped < 0 && errno == EINTR);
      if (reaped == 0) return false;
      // ECHILD: someone else reaped it (SIGCHLD set to SIG_IGN, or a
      // waitpid(-1) elsewhere in the process). It is gone; its status is
      // lost, so exit_code stays -1 and term_signal 0.
      status_known = reaped > 0;
      reaped_ = true;
    }
    OnExited(status_known, status);
    return true;
  }

  void OnExited(bool status_known, int status) {
    exited_ = true;
    if (status_known && WIFEXITED(status)) {
      result_.exit_code = WEXITSTATUS(status);
    } else if (status_known && WIFSIGNALED(status)) {
      result_.exit_code = -1;
      result_.term_signal = WTERMSIG(status);
    }
    timeout_timer_.cancel();
    poll_timer_.cancel();
    boost::system::error_code ignored;
    pidfd_.close(ignored);
    if (out_.open || err_.open) {
      grace_timer_.expires_after(options_.pipe_grace);
      grace_timer_.async_wait(
          [self = shared_from_this()](const boost::system::error_code& ec) { self->OnGrace(ec); });
    }
    MaybeFinish();
  }

  void OnTimeout(const boost::system::error_code& ec) {
    if (ec || delivered_ || exited_) return;
    // It may have exited on its own just now: then it did not time out.
    if (spawned_ && CheckExited()) return;
    result_.timed_out = true;
    KillGroup();
    if (!spawned_) {
      // posix_spawn has not returned (exec from a hung filesystem?). The
      // caller gets its answer now; the child, if it still starts, is killed
      // at once and reaped by OnSpawned's machinery with nobody listening.
      result_.elapsed = Elapsed();
      Deliver(result_);
    }
  }

  void OnGrace(const boost::system::error_code& ec) {
    if (ec || finished_ || !(out_.open || err_.open)) return;
    // The child is reaped but someone still holds its pipes: a grandchild in
    // its group (killed here) or one that left the group (setsid), which we
    // stop listening to. The pending reads then end with operation_aborted.
    KillGroup();
    boost::system::error_code ignored;
    out_.pipe.close(ignored);
    err_.pipe.close(ignored);
  }

  void MaybeFinish() {
    if (finished_ || !spawned_ || !exited_ || out_.open || err_.open) return;
    finished_ = true;
    timeout_timer_.cancel();
    grace_timer_.cancel();
    poll_timer_.cancel();
    boost::system::error_code ignored;
    stdin_.close(ignored);
    pidfd_.close(ignored);
    {
      std::lock_guard lock(pid_mu_);
      group_may_exist_ = false;
    }
    if (delivered_) return;
    result_.elapsed = Elapsed();
    if (start_error_) {
      Deliver(tl::unexpected(std::move(*start_error_)));
    } else {
      Deliver(std::move(result_));
    }
  }

  void Deliver(Result<CommandResult> result) {
    delivered_ = true;
    Callback done = std::move(done_);
    done_ = nullptr;
    done(std::move(result));
  }

  std::chrono::milliseconds Elapsed() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_);
  }

  // Set at construction; read by the spawn thread and on the strand.
  const Strand strand_;
  const CommandSpec spec_;
  const SubprocessRunnerOptions options_;
  const std::shared_ptr<Shared> shared_;
  const Clock::time_point start_;

  // Written by the spawn thread before it posts OnSpawned; then strand only.
  std::optional<Error> spawn_error_;
  SpawnedChild fds_;

  // Shared with KillGroup callers on any thread.
  std::mutex pid_mu_;
  pid_t pid_ = 0;                 // 0 until spawned
  bool kill_requested_ = false;   // KillGroup was called
  bool reaped_ = false;           // waitpid succeeded (or said ECHILD)
  bool group_may_exist_ = false;  // from spawn until the call completed

  // Strand only.
  Callback done_;
  CommandResult result_;
  OutputStream out_;
  OutputStream err_;
  boost::asio::local::stream_protocol::socket stdin_;
  boost::asio::posix::stream_descriptor pidfd_;
  boost::asio::steady_timer timeout_timer_;
  boost::asio::steady_timer grace_timer_;
  boost::asio::steady_timer poll_timer_;
  std::chrono::milliseconds poll_interval_ = kFirstPollInterval;
  std::optional<Error> start_error_;
  bool spawned_ = false;    // OnSpawned ran (or the call was refused)
  bool exited_ = false;     // reaped, or nothing was started
  bool finished_ = false;   // everything closed; nothing more will happen
  bool delivered_ = false;  // the callback ran
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
  auto child = std::make_shared<Child>(boost::asio::make_strand(executor_), std::move(spec),
                                       std::move(done), options_, shared_);
  std::optional<Error> refusal;
  {
    std::lock_guard lock(shared_->mu);
    if (shared_->shut_down) {
      refusal = Error{ErrorCode::kCommandFailed, "the command runner is shut down"};
    } else if (!spawner_.joinable()) {
      // Started lazily so that the constructor cannot fail.
      try {
        spawner_ = std::thread([shared = shared_] { shared->SpawnLoop(); });
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
