// bplace: the command line of bplaced (docs/cli.md). Thin
// main: the command line's grammar and help; the commands are in
// commands.cc.

#include <csignal>
#include <cstdio>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/bsub_args.h"
#include "cli/commands.h"
#include "cli/exit_code.h"
#include "client/endpoint.h"
#include "common/version.h"

namespace {

using bplace::cli::ExitCode;

constexpr char kIntro[] =
    "bplace: ask bplaced (the LSF placement service of this login node) where a job would go, "
    "submit it to the least busy queue that takes it, and follow it.\n"
    "bplaced is reached on its Unix socket (unix:/run/bplace/bplace.sock) unless --url or "
    "$BPLACE_URL says http://HOST:PORT; over TCP the bearer token comes from $BPLACE_TOKEN or "
    "the first line of ~/.config/bplace/token ($XDG_CONFIG_HOME/bplace/token), which must not "
    "be readable by group or others (chmod 600).";

constexpr char kFooter[] =
    "Examples:\n"
    "  bplace hosts node007                 which queues admit node007, and why\n"
    "  bplace place --host node007 -n 4     where a 4-slot job on node007 would go\n"
    "  bplace submit node007 -n 4 -W 60 ./run.sh input.dat\n"
    "  bplace jobs                          my jobs submitted through bplace\n"
    "  bplace status                        ages of the cached LSF data, errors, sick hosts\n"
    "  bplace --json queues | jq .          the daemon's JSON, for scripts\n"
    "Tables fit the terminal ($COLUMNS when not a terminal, else 80); cut cells end in \"…\".\n";

int Code(ExitCode code) { return static_cast<int>(code); }

using bplace::cli::GlobalOptions;

// The words of the command line, filled by CLI11.
struct Words {
  std::string host, queues, user, status, cursor, id, queue_name;
  bool names_only = false;
  std::optional<int> slots, limit, wait_s;
  std::optional<bool> require_ib;
  std::vector<std::string> labels, ids;
};

// What the chosen command does once the line is parsed.
using Runner = std::function<int()>;

// Each Add* below adds one command with its options, help and examples, and
// sets `run` when the command line names it.

void AddGlobalOptions(CLI::App& app, GlobalOptions& global) {
  app.footer(std::string(kFooter) + bplace::cli::kExitCodesHelp);
  app.set_version_flag("-V,--version", std::string("bplace ") + bplace::kVersion,
                       "print the version (the same as `bplaced --version`) and exit");
  app.add_option("--url", global.url,
                 "unix:/PATH or http://HOST:PORT of bplaced (default $BPLACE_URL, else " +
                     std::string(bplace::client::kDefaultUrl) + ")");
  app.add_option("--timeout", global.timeout_s,
                 "seconds one request may take, connecting included (default 30; submit 120: "
                 "it waits for bsub)")
      ->check(CLI::Range(0.001, 86400.0));
  app.add_flag("--json", global.json, "print the daemon's JSON answer instead of a table");
  app.require_subcommand(1);
  app.fallthrough();
}

void AddHosts(CLI::App& app, const GlobalOptions& global, Words& w, Runner& run) {
  auto* hosts = app.add_subcommand(
      "hosts",
      "with HOST: the queues whose HOSTS admit HOST, how (directly, through which host group, "
      "all, others) and the queues that exclude it; without: every host of bhosts");
  hosts->add_option("HOST", w.host, "a host name as bhosts prints it (compared exactly)");
  hosts->add_flag("--names", w.names_only, "only the host names, one a line (no HOST)");
  hosts->footer("Examples:\n  bplace hosts node007\n  bplace hosts\n  bplace hosts --names");
  hosts->callback([&] {
    run = [&] {
      if (w.names_only && !w.host.empty()) {
        std::fprintf(stderr, "bplace: hosts --names lists every host; give no HOST\n");
        return Code(ExitCode::kUsage);
      }
      return bplace::cli::RunHosts(global, w.host, w.names_only);
    };
  });
}

void AddPlace(CLI::App& app, const GlobalOptions& global, Words& w, Runner& run) {
  auto* place = app.add_subcommand(
      "place",
      "dry run: the queues a job could go to, best first, and every other queue with the reason "
      "it is left out (nothing is submitted; exit 1 when no queue can take the job)");
  place->add_option("--host,-m", w.host, "the host the job must run on (bsub -m)");
  place
      ->add_option("-q,--queues", w.queues, "candidate queues, blank- or comma-separated (\"a b\")")
      ->check(CLI::Validator(
          [](const std::string& text) {
            return text.find_first_not_of(" \t,") == std::string::npos
                       ? std::string(bplace::cli::kNoQueueNamed)
                       : std::string();
          },
          "QUEUES", "queues"));
  place->add_option("-n,--slots", w.slots, "slots of the job (bsub -n), default 1")
      ->check(CLI::Validator(
          [](const std::string& text) {
            const bool digits =
                !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
            if (digits && text.size() > 9) return "-n " + text + ": too many slots";
            return digits && std::stoi(text) >= 1
                       ? std::string()
                       : "expected a whole number of slots, 1 or more (bsub -n), got " + text;
          },
          "SLOTS", "slots"));
  place->add_flag(
      "--ib,!--no-ib", w.require_ib,
      "keep hosts with unhealthy InfiniBand out (default: the daemon's [ib] require_ib)");
  place->add_option("--user,-u", w.user, "rank for another user (needs the admin scope)");
  place->footer(
      "Examples:\n  bplace place --host node007\n  bplace place -q \"short normal\" -n 8\n"
      "  bplace place --host node007 --no-ib");
  place->callback([&] {
    run = [&] {
      return bplace::cli::RunPlace(global, w.host, w.queues, w.slots, w.require_ib, w.user);
    };
  });
}

void AddSubmit(CLI::App& app, const GlobalOptions& global, Runner& run) {
  auto* submit = app.add_subcommand(
      "submit",
      "submit a job to the best queue that takes it (as bsub would, with the job's bsub options)");
  // Every word after `submit` is the job's (bsub options, the command): none
  // goes to bplace's own options, which come before `submit`.
  submit->prefix_command();
  submit->allow_extras();
  submit->fallthrough(false);
  submit->footer(
      "Usage: bplace submit HOST [bsub options] COMMAND...\n"
      "       bplace submit [--host HOST] [bsub options] COMMAND...\n"
      "HOST, when given first, is where the job must run (bsub -m); without it any host of the "
      "chosen queue will do. The first word is HOST only when more words follow and it has no "
      "'/': a lone word is the COMMAND (bplace submit job.sh); write -- before a COMMAND whose "
      "first word would be taken for a HOST (bplace submit -- sleep 5).\n"
      "bsub options: -J NAME -n SLOTS -R RES_REQ -o FILE -e FILE -cwd DIR -W [HOURS:]MINUTES "
      "-M MEMORY -P PROJECT -app PROFILE, -q \"a b c\" (the candidate queues; bplace picks one), "
      "and the other options bplaced passes on to bsub (-G -B -N -E -x -sla -g ...; docs/api.md "
      "\"POST /v1/jobs\", extra_args). Interactive and waiting options (-I, -Is, -K, ...) are "
      "refused: bplaced submits in the background.\n"
      "bplace's own: --label KEY=VALUE (repeatable), --ib / --no-ib, --idempotency-key KEY "
      "(default: a random one; a connection that breaks after the request was sent is retried "
      "once with it, so the job is never submitted twice). `--` ends the options.\n"
      "COMMAND: one word is a shell command string, as bsub takes it (\"sleep 60; date\"); "
      "several are kept word by word.\n"
      "Prints bsub's line: Job <1234> is submitted to queue <normal>.\n"
      "Examples:\n"
      "  bplace submit node007 -n 4 -W 2:00 -o out.%J ./run.sh input.dat\n"
      "  bplace submit -q \"short normal\" -J align -R \"rusage[mem=4000]\" ./align.sh\n"
      "  bplace submit --host node007 --label workflow=wf17 'sleep 60; date'");
  submit->callback([&, submit] {
    run = [&, submit] { return bplace::cli::RunSubmit(global, submit->remaining()); };
  });
}

void AddQueues(CLI::App& app, const GlobalOptions& global, Words& w, Runner& run) {
  auto* queues = app.add_subcommand(
      "queues", "the queues in bqueues order: status, limits, counters, hosts usable/admitted");
  queues->add_option("QUEUE", w.queue_name, "only this queue");
  queues->add_flag("--names", w.names_only, "only the queue names, one a line");
  queues->footer("Examples:\n  bplace queues\n  bplace queues normal\n  bplace queues --names");
  queues->callback(
      [&] { run = [&] { return bplace::cli::RunQueues(global, w.queue_name, w.names_only); }; });
}

void AddJobCommands(CLI::App& app, const GlobalOptions& global, Words& w, Runner& run) {
  auto* jobs = app.add_subcommand("jobs", "jobs submitted through bplace, newest first");
  jobs->add_option("--user,-u", w.user, "another user's jobs, or `all` (needs the admin scope)");
  jobs->add_option("--status,-s", w.status, "only these states, comma-separated (RUN,PEND)");
  jobs->add_option("--label,-l", w.labels, "only jobs with this label KEY=VALUE (repeatable)");
  jobs->add_option("--limit", w.limit, "at most this many (1..1000, default 100)");
  jobs->add_option("--cursor", w.cursor, "the next page (as the previous page printed)");
  jobs->footer(
      "Examples:\n  bplace jobs\n  bplace jobs -s RUN,PEND --label workflow=wf17\n"
      "  bplace jobs -u all --limit 20");
  jobs->callback([&] {
    run = [&] {
      return bplace::cli::RunJobs(global, w.user, w.status, w.labels, w.limit, w.cursor);
    };
  });

  auto* job = app.add_subcommand("job", "one job's state, as the last bjobs refresh saw it");
  job->add_option("ID", w.id, "the job id (1234, or 1234[7] for an array element)")->required();
  job->add_option("--wait", w.wait_s,
                  "answer after the next jobs refresh, waiting at most this many seconds (1..60)");
  job->footer(
      "Examples:\n  bplace job 1234\n  bplace job 1234 --wait 30\n  bplace --json job 1234");
  job->callback([&] { run = [&] { return bplace::cli::RunJob(global, w.id, w.wait_s); }; });

  auto* kill = app.add_subcommand(
      "kill", "cancel jobs (bkill as you); a job already finished is not an error");
  kill->add_option("ID", w.ids, "job ids")->required();
  kill->footer("Examples:\n  bplace kill 1234\n  bplace kill 1234 1235 1236");
  kill->callback([&] { run = [&] { return bplace::cli::RunKill(global, w.ids); }; });
}

void AddStatus(CLI::App& app, const GlobalOptions& global, Runner& run) {
  auto* status = app.add_subcommand(
      "status",
      "the cluster, the age and last error of each refresh tier, topology warnings, and the sick "
      "hosts (taking no new work, or InfiniBand unhealthy)");
  status->footer("Examples:\n  bplace status\n  bplace --json status");
  status->callback([&] { run = [&] { return bplace::cli::RunStatus(global); }; });
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);  // a closed pipe (| head) is an error return, not a signal
  GlobalOptions global;
  Words words;
  Runner run = [] { return Code(ExitCode::kUsage); };
  CLI::App app{kIntro, "bplace"};
  AddGlobalOptions(app, global);
  AddHosts(app, global, words, run);
  AddPlace(app, global, words, run);
  AddSubmit(app, global, run);
  AddQueues(app, global, words, run);
  AddJobCommands(app, global, words, run);
  AddStatus(app, global, run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int printed = app.exit(e);  // help and --version are "errors" that exit 0
    return printed == 0 ? 0 : Code(ExitCode::kUsage);
  }
  try {
    return run();
  } catch (const std::exception& e) {
    // Not expected (network trouble is a return value): say so, never abort.
    std::fprintf(stderr, "bplace: internal error: %s\n", e.what());
    return Code(ExitCode::kRefused);
  }
}
