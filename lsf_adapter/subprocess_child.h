#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/system/error_code.hpp>

#include "common/result.h"
#include "common/unique_fd.h"
#include "lsf_adapter/spawn.h"
#include "lsf_adapter/subprocess_command_runner.h"

namespace bplace::lsf {

// The Asio half of SubprocessCommandRunner: one command from Run to its
// callback. The runner's spawn thread starts the process (SpawnChild, which
// blocks); everything after that runs on the child's strand and never
// blocks: draining stdout and stderr up to the output limit, writing
// spec.stdin_data, the timeout that kills the process group, watching for
// the exit (pidfd, else polling waitpid) and reaping, the grace period for
// pipes held open by a grandchild, and the one callback.
//
// Thread-safety: Start, Refuse and KillGroup may be called from any thread;
// Spawn from the spawn thread only. The state lives on the strand, except
// what KillGroup and Spawn share under a mutex (pid, kill request, phase).
class SubprocessCommandRunner::Child : public std::enable_shared_from_this<Child> {
 public:
  using Strand = boost::asio::strand<boost::asio::any_io_executor>;
  // Told when a Child is destroyed (on whichever thread drops it last), so
  // that the runner can drop it from its registry.
  using Forget = std::function<void(const Child*)>;

  // Runs nothing yet. `done` must not be empty; `options` as the runner's.
  Child(Strand strand, CommandSpec spec, Callback done, const SubprocessRunnerOptions& options,
        Forget forget);

  // Only when the executor dropped its handlers unrun (its io_context was
  // destroyed) is the process still unreaped here: then it gets SIGKILL and
  // is reaped with a blocking waitpid, short since SIGKILL ends it promptly.
  ~Child();

  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  // Arms the timeout, measured from construction. Call it once, before the
  // child is queued for Spawn, so that the timeout is armed before the
  // outcome of the spawn arrives on the strand. Any thread; does not block.
  void Start();

  // Instead of Start and Spawn: delivers `error` on the strand without
  // running anything. Any thread; does not block.
  void Refuse(Error error);

  // Spawn thread only: starts the process (blocking until exec; see
  // SpawnChild), unless KillGroup came first, and hands the outcome to the
  // strand.
  void Spawn();

  // SIGKILL to the process group now if the process runs, or as soon as it
  // is spawned; a child not yet spawned is not started at all. Once the
  // call has finished the group is left alone. Any thread; does not block.
  void KillGroup();

 private:
  using Clock = std::chrono::steady_clock;

  // Where the call is. It only moves forward:
  //   kQueued -> kRunning -> kReaped -> kFinished
  //   kQueued -> kFinished   (refused, or the spawn failed: no process)
  // The callback comes at kFinished, or already in kQueued when the timeout
  // passes before the spawn returns (then `done_` is empty from there on).
  enum class Phase {
    kQueued,    // waiting for the spawn thread; the timeout is armed
    kRunning,   // spawned: pipes drained, stdin written, exit watched
    kReaped,    // waited for; its pipes may still be open (grace timer armed)
    kFinished,  // reaped (or never started) and both pipes closed: all done
  };

  // One of the child's output pipes and where its bytes go.
  struct OutputStream {
    OutputStream(const Strand& strand, std::string& sink_string);
    boost::asio::posix::stream_descriptor pipe;
    std::vector<char> buffer;
    std::string& sink;
    bool open = false;
  };

  void SetPhase(Phase phase);
  bool Reaped() const { return phase_ == Phase::kReaped || phase_ == Phase::kFinished; }

  Result<SpawnedChild> SpawnUnlessKilled();
  void OnSpawned(Result<SpawnedChild> spawned);
  void Open(OutputStream& stream, UniqueFd fd);
  void WriteStdin(UniqueFd fd);
  void FailAfterSpawn(const std::string& what, const boost::system::error_code& ec);
  void Read(OutputStream& stream);
  void OnRead(OutputStream& stream, const boost::system::error_code& ec, std::size_t n);
  void WatchExit();
  void Poll();
  bool CheckExited();
  void OnReaped(bool status_known, int status);
  void OnTimeout(const boost::system::error_code& ec);
  void OnGrace(const boost::system::error_code& ec);
  void MaybeFinish();
  void Finish();
  void Deliver(Result<CommandResult> result);
  std::chrono::milliseconds Elapsed() const;

  // Set at construction; read by the spawn thread and on the strand.
  const Strand strand_;
  const CommandSpec spec_;
  const SubprocessRunnerOptions options_;
  const Forget forget_;
  const Clock::time_point start_;

  // Shared with KillGroup callers on any thread and with the spawn thread.
  std::mutex mu_;
  pid_t pid_ = 0;                 // set by Spawn; 0 until spawned
  bool kill_requested_ = false;   // KillGroup was called
  Phase phase_ = Phase::kQueued;  // written on the strand under mu_, read there without it

  // Strand only.
  Callback done_;  // empty once called
  CommandResult result_;
  OutputStream out_;
  OutputStream err_;
  boost::asio::local::stream_protocol::socket stdin_;
  boost::asio::posix::stream_descriptor pidfd_;
  boost::asio::steady_timer timeout_timer_;
  boost::asio::steady_timer grace_timer_;
  boost::asio::steady_timer poll_timer_;
  std::chrono::milliseconds poll_interval_;
  std::optional<Error> start_error_;  // reported instead of result_
};

}  // namespace bplace::lsf
