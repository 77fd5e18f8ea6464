#include "lsf_adapter/subprocess_child.h"

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include <boost/asio/buffer.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

namespace bplace::lsf {
namespace {

constexpr std::size_t kReadChunkBytes = 64 * 1024;
constexpr std::chrono::milliseconds kFirstPollInterval{1};
constexpr std::chrono::milliseconds kMaxPollInterval{100};

}  // namespace

SubprocessCommandRunner::Child::OutputStream::OutputStream(const Strand& strand,
                                                           std::string& sink_string)
    : pipe(strand), buffer(kReadChunkBytes), sink(sink_string) {}

SubprocessCommandRunner::Child::Child(Strand strand, CommandSpec spec, Callback done,
                                      const SubprocessRunnerOptions& options, Forget forget)
    : strand_(std::move(strand)),
      spec_(std::move(spec)),
      options_(options),
      forget_(std::move(forget)),
      start_(Clock::now()),
      done_(std::move(done)),
      out_(strand_, result_.out),
      err_(strand_, result_.err),
      stdin_(strand_),
      pidfd_(strand_),
      timeout_timer_(strand_),
      grace_timer_(strand_),
      poll_timer_(strand_),
      poll_interval_(kFirstPollInterval) {}

SubprocessCommandRunner::Child::~Child() {
  // The last chance to avoid a zombie (see the header).
  if (pid_ > 0 && !Reaped()) {
    ::kill(-pid_, SIGKILL);
    while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  forget_(this);
}

void SubprocessCommandRunner::Child::Start() {
  boost::asio::post(strand_, [self = shared_from_this()] {
    if (self->phase_ == Phase::kFinished) return;
    self->timeout_timer_.expires_at(self->start_ + self->spec_.timeout);
    self->timeout_timer_.async_wait(
        [self](const boost::system::error_code& ec) { self->OnTimeout(ec); });
  });
}

void SubprocessCommandRunner::Child::Refuse(Error error) {
  boost::asio::post(strand_, [self = shared_from_this(), error = std::move(error)]() mutable {
    self->start_error_ = std::move(error);
    self->Finish();
  });
}

Result<SpawnedChild> SubprocessCommandRunner::Child::SpawnUnlessKilled() {
  bool killed = false;
  {
    std::lock_guard lock(mu_);
    killed = kill_requested_;
  }
  if (killed) {
    // Shutdown() or the timeout came first. After a timeout the callback
    // has been delivered already, so this message is only seen on shutdown.
    return Fail(ErrorCode::kCommandFailed, spec_.argv.empty()
                                               ? std::string("not started: runner shut down")
                                               : spec_.argv[0] + ": not started: runner shut down");
  }
  return SpawnChild(spec_, options_.use_pidfd);
}

void SubprocessCommandRunner::Child::Spawn() {
  Result<SpawnedChild> spawned = SpawnUnlessKilled();
  if (spawned) {
    std::lock_guard lock(mu_);
    pid_ = spawned->pid;
    // Shutdown() or the timeout may have come while SpawnChild ran.
    if (kill_requested_) ::kill(-pid_, SIGKILL);
  }
  if (spawned && spec_.on_spawned) spec_.on_spawned(spawned->pid);
  boost::asio::post(strand_, [self = shared_from_this(), spawned = std::move(spawned)]() mutable {
    self->OnSpawned(std::move(spawned));
  });
}

void SubprocessCommandRunner::Child::KillGroup() {
  std::lock_guard lock(mu_);
  kill_requested_ = true;
  // The group id is the child's pid. Unreaped, that pid cannot be reused;
  // reaped, it stays taken as long as any member of the group lives. After
  // the call finished the group is left alone.
  if (pid_ > 0 && phase_ != Phase::kFinished) ::kill(-pid_, SIGKILL);
}

void SubprocessCommandRunner::Child::SetPhase(Phase phase) {
  std::lock_guard lock(mu_);
  phase_ = phase;
}

void SubprocessCommandRunner::Child::OnSpawned(Result<SpawnedChild> spawned) {
  if (!spawned) {
    start_error_ = std::move(spawned.error());
    Finish();  // there is no process to wait for
    return;
  }
  SetPhase(Phase::kRunning);
  Open(out_, std::move(spawned->out));
  Open(err_, std::move(spawned->err));
  if (spawned->in.Valid()) WriteStdin(std::move(spawned->in));
  if (spawned->pidfd.Valid()) {
    // On failure the pidfd closes with `spawned` and WatchExit polls.
    boost::system::error_code ec;
    pidfd_.assign(spawned->pidfd.Get(), ec);
    if (!ec) spawned->pidfd.Release();
  }
  WatchExit();
}

// Registers `fd` with the reactor and starts draining it.
void SubprocessCommandRunner::Child::Open(OutputStream& stream, UniqueFd fd) {
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

void SubprocessCommandRunner::Child::WriteStdin(UniqueFd fd) {
  boost::system::error_code ec;
  stdin_.assign(boost::asio::local::stream_protocol(), fd.Get(), ec);
  if (ec) {
    FailAfterSpawn("registering stdin", ec);
    return;
  }
  fd.Release();
  boost::asio::async_write(
      stdin_, boost::asio::buffer(*spec_.stdin_data),
      [self = shared_from_this()](const boost::system::error_code&, std::size_t) {
        // Done, or EPIPE/ECONNRESET because the child stopped reading:
        // either way closing gives the child EOF, and what it did with its
        // input shows in its exit status.
        boost::system::error_code ignored;
        self->stdin_.close(ignored);
      });
}

// The child runs but we cannot watch it: kill it and report an error once
// it is reaped.
void SubprocessCommandRunner::Child::FailAfterSpawn(const std::string& what,
                                                    const boost::system::error_code& ec) {
  if (!start_error_) start_error_ = Error{ErrorCode::kCommandFailed, what + ": " + ec.message()};
  KillGroup();
}

void SubprocessCommandRunner::Child::Read(OutputStream& stream) {
  stream.pipe.async_read_some(
      boost::asio::buffer(stream.buffer),
      [self = shared_from_this(), &stream](const boost::system::error_code& ec, std::size_t n) {
        self->OnRead(stream, ec, n);
      });
}

void SubprocessCommandRunner::Child::OnRead(OutputStream& stream,
                                            const boost::system::error_code& ec, std::size_t n) {
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

void SubprocessCommandRunner::Child::WatchExit() {
  if (pidfd_.is_open()) {
    pidfd_.async_wait(boost::asio::posix::stream_descriptor::wait_read,
                      [self = shared_from_this()](const boost::system::error_code& ec) {
                        if (ec || self->phase_ != Phase::kRunning) return;
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

void SubprocessCommandRunner::Child::Poll() {
  poll_timer_.expires_after(poll_interval_);
  poll_interval_ = std::min(poll_interval_ * 2, kMaxPollInterval);
  poll_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (ec || self->phase_ != Phase::kRunning) return;
    if (!self->CheckExited()) self->Poll();
  });
}

// Reaps the child if it has exited; true if it has (now or before). Only
// from kRunning on: before it there is no pid.
bool SubprocessCommandRunner::Child::CheckExited() {
  if (Reaped()) return true;
  int status = 0;
  bool status_known = true;
  {
    std::lock_guard lock(mu_);
    pid_t reaped;
    do {
      reaped = ::waitpid(pid_, &status, WNOHANG);
    } while (reaped < 0 && errno == EINTR);
    if (reaped == 0) return false;
    // ECHILD: someone else reaped it (SIGCHLD set to SIG_IGN, or a
    // waitpid(-1) elsewhere in the process). It is gone; its status is
    // lost, so exit_code stays -1 and term_signal 0.
    status_known = reaped > 0;
    phase_ = Phase::kReaped;
  }
  OnReaped(status_known, status);
  return true;
}

void SubprocessCommandRunner::Child::OnReaped(bool status_known, int status) {
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

void SubprocessCommandRunner::Child::OnTimeout(const boost::system::error_code& ec) {
  if (ec || !done_ || Reaped()) return;
  // It may have exited on its own just now: then it did not time out.
  if (phase_ == Phase::kRunning && CheckExited()) return;
  result_.timed_out = true;
  KillGroup();
  if (phase_ == Phase::kQueued) {
    // SpawnChild has not returned (exec from a hung filesystem?). The
    // caller gets its answer now; the child, if it still starts, is killed
    // at once and reaped by OnSpawned's machinery with nobody listening.
    result_.elapsed = Elapsed();
    Deliver(result_);
  }
}

void SubprocessCommandRunner::Child::OnGrace(const boost::system::error_code& ec) {
  if (ec || phase_ != Phase::kReaped || !(out_.open || err_.open)) return;
  // The child is reaped but someone still holds its pipes: a grandchild in
  // its group (killed here) or one that left the group (setsid), which we
  // stop listening to. The pending reads then end with operation_aborted.
  KillGroup();
  boost::system::error_code ignored;
  out_.pipe.close(ignored);
  err_.pipe.close(ignored);
}

void SubprocessCommandRunner::Child::MaybeFinish() {
  if (phase_ != Phase::kReaped || out_.open || err_.open) return;
  Finish();
}

void SubprocessCommandRunner::Child::Finish() {
  SetPhase(Phase::kFinished);
  timeout_timer_.cancel();
  grace_timer_.cancel();
  poll_timer_.cancel();
  boost::system::error_code ignored;
  stdin_.close(ignored);
  pidfd_.close(ignored);
  if (!done_) return;  // answered at the timeout already
  result_.elapsed = Elapsed();
  if (start_error_) {
    Deliver(tl::unexpected(std::move(*start_error_)));
  } else {
    Deliver(std::move(result_));
  }
}

void SubprocessCommandRunner::Child::Deliver(Result<CommandResult> result) {
  Callback done = std::exchange(done_, nullptr);
  done(std::move(result));
}

std::chrono::milliseconds SubprocessCommandRunner::Child::Elapsed() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_);
}

}  // namespace bplace::lsf
