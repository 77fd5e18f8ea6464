#include "cli/bsub_args.h"

#include <charconv>
#include <optional>
#include <string_view>

#include "api/bsub_request.h"
#include "api/job_request_decoder.h"
#include "lsf_adapter/bsub_command.h"

namespace bplace::cli {
namespace {

using nlohmann::json;

// The body field a bsub option fills, from the decoder's field table (its
// `bsub` column): one table for the daemon, the docs and this command.
std::optional<api::JobRequestField> FieldForOption(std::string_view option) {
  for (const api::JobRequestField& field : api::JobRequestFields()) {
    if (field.bsub == option) return field;
  }
  return std::nullopt;
}

std::optional<std::int64_t> WholeNumber(const std::string& text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The state of one parse: the body so far and where the words are.
class Parser {
 public:
  explicit Parser(const std::vector<std::string>& args) : args_(args) {}

  Result<SubmitRequest> Run() {
    if (IsHostWord()) {
      SetHost(args_[0], "HOST");
      ++i_;
    }
    while (i_ < args_.size() && error_.empty()) {
      const std::string& word = args_[i_];
      if (word == "--") {
        ++i_;
        break;
      }
      if (word.size() < 2 || word[0] != '-') break;  // the COMMAND starts here
      ++i_;
      Option(word);
    }
    if (!error_.empty()) return Fail(ErrorCode::kInvalidArgument, error_);
    std::vector<std::string> command(args_.begin() + static_cast<std::ptrdiff_t>(i_), args_.end());
    if (command.empty()) {
      return Fail(ErrorCode::kInvalidArgument,
                  "no COMMAND given (bplace submit [HOST] [bsub options] COMMAND...)");
    }
    if (command.size() == 1) {
      request_.body["command"] = command[0];
    } else {
      request_.body["argv"] = command;
    }
    if (!extra_.empty()) request_.body["extra_args"] = extra_;
    if (!queues_.empty()) request_.body["queues"] = queues_;
    if (!labels_.empty()) request_.body["labels"] = labels_;
    return request_;
  }

 private:
  // Whether the first word is the seed's HOST: not an option, not a path
  // (host names hold no '/'), and not the only word (a lone word is the
  // COMMAND: `bplace submit ./job.sh`).
  bool IsHostWord() const {
    return args_.size() > 1 && !args_[0].empty() && args_[0][0] != '-' &&
           args_[0].find('/') == std::string::npos;
  }

  std::optional<std::string> Value(const std::string& option) {
    if (i_ >= args_.size()) {
      error_ = option + ": needs a value after it";
      return std::nullopt;
    }
    return args_[i_++];
  }

  void SetHost(const std::string& host, const std::string& source) {
    if (request_.body.contains("host")) {
      error_ = source + " " + host + ": the host is already given (" +
               request_.body["host"].get<std::string>() + ")";
      return;
    }
    request_.body["host"] = host;
  }

  void Option(const std::string& option) {
    if (option == "--host" || option == "-m") {
      if (auto value = Value(option)) SetHost(*value, option);
    } else if (option == "-q") {
      if (auto value = Value(option)) {
        std::vector<std::string> named = api::SplitQueueList(*value);
        if (named.empty()) {
          error_ = kNoQueueNamed;
          return;
        }
        for (std::string& queue : named) queues_.push_back(std::move(queue));
      }
    } else if (option == "--label") {
      if (auto value = Value(option)) Label(*value);
    } else if (option == "--ib" || option == "--no-ib") {
      request_.body["require_ib"] = option == "--ib";
    } else if (option == "--idempotency-key") {
      if (auto value = Value(option)) request_.idempotency_key = *value;
    } else if (const auto field = FieldForOption(option)) {
      FieldOption(option, *field);
    } else if (const auto takes_value = lsf::ExtraArgTakesValue(option)) {
      extra_.push_back(option);
      if (*takes_value) {
        if (auto value = Value(option)) extra_.push_back(*value);
      }
    } else {
      error_ = option +
               ": not a bsub option bplaced passes on (interactive and waiting options such as "
               "-I, -Is, -K, and -Jd, which bplace sets, are refused; see `bplace submit --help`)";
    }
  }

  void FieldOption(const std::string& option, const api::JobRequestField& field) {
    const std::string name(field.name);
    // -J "name[1-10]" fills `array` too (and may leave `job_name` out).
    if (request_.body.contains(name) || (name == "job_name" && request_.body.contains("array"))) {
      error_ = option + ": given twice";
      return;
    }
    const auto value = Value(option);
    if (!value) return;
    if (field.type == "integer") {
      const auto number = WholeNumber(*value);
      if (!number) {
        error_ = option + ": expected a whole number, got \"" + *value + "\"";
        return;
      }
      request_.body[name] = *number;
    } else if (name == "job_name") {
      // bsub -J "name[1-10]": a job array, as LSF reads it (`array`).
      if (auto put = api::PutJobName(*value, request_.body); !put) error_ = put.error().message;
    } else {
      request_.body[name] = *value;
    }
  }

  void Label(const std::string& value) {
    const auto equals = value.find('=');
    if (equals == std::string::npos || equals == 0) {
      error_ = "--label " + value + ": expected KEY=VALUE";
      return;
    }
    labels_[value.substr(0, equals)] = value.substr(equals + 1);
  }

  const std::vector<std::string>& args_;
  std::size_t i_ = 0;
  SubmitRequest request_{json::object(), ""};
  std::vector<std::string> queues_;
  std::vector<std::string> extra_;
  json labels_ = json::object();
  std::string error_;
};

}  // namespace

Result<SubmitRequest> ParseSubmitArgs(const std::vector<std::string>& args) {
  return Parser(args).Run();
}

}  // namespace bplace::cli
