#include "api/read_answers.h"

#include <string>

#include <boost/beast/http/field.hpp>

#include "api/http/problem.h"

namespace bplace::api {

Response NoSnapshotYet(const ClusterSnapshot& snapshot) {
  std::string detail = "no LSF snapshot yet";
  if (!snapshot.topology_status.last_error.empty()) {
    detail += "; topology refresh: " + snapshot.topology_status.last_error;
  }
  if (!snapshot.load_status.last_error.empty()) {
    detail += "; load refresh: " + snapshot.load_status.last_error;
  }
  Response response = MakeProblem(Error{ErrorCode::kUnavailable, detail});
  response.set(boost::beast::http::field::retry_after, std::to_string(kSnapshotRetryAfterS));
  return response;
}

Response WithSnapshot(const Services& services,
                      const std::function<Response(const ClusterSnapshot& snapshot)>& read) {
  const std::shared_ptr<const ClusterSnapshot> snapshot = services.cache.Current();
  if (!snapshot->complete()) return NoSnapshotYet(*snapshot);
  return read(*snapshot);
}

Response NotFound(std::string_view kind, std::string_view name, std::string_view why) {
  std::string detail(kind);
  detail.append(" ").append(name).append(" ").append(why);
  return MakeProblem(Error{ErrorCode::kNotFound, detail});
}

}  // namespace bplace::api
