#include "rdma_probe/sysfs_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>

#include "common/text.h"

namespace bplace::rdma {
namespace {

std::string PortDir(const std::string& root, const std::string& device, std::uint32_t port) {
  return root + "/" + device + "/ports/" + std::to_string(port);
}

}  // namespace

Result<std::string> ReadSmallFile(const std::string& path) {
  // read(2) rather than iostreams: sysfs attributes report errors (EINVAL
  // for an unused GID entry) only through read's result.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return Fail(ErrorCode::kNotFound, path + ": " + std::strerror(err));
  }
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      const int err = errno;
      if (err == EINTR) continue;
      ::close(fd);
      return Fail(ErrorCode::kNotFound, path + ": " + std::strerror(err));
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > (1u << 20)) break;
  }
  ::close(fd);
  return out;
}

Result<std::map<std::string, std::uint64_t>> ReadPortCounters(const std::string& root,
                                                              const std::string& device,
                                                              std::uint32_t port) {
  const std::string dir = PortDir(root, device, port) + "/counters";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return Fail(ErrorCode::kNotFound, dir + ": no such directory");
  }
  std::map<std::string, std::uint64_t> values;
  for (const CounterSpec& spec : kJudgedCounters) {
    const std::string path = dir + "/" + spec.name;
    Result<std::string> text = ReadSmallFile(path);
    if (!text) continue;
    const std::string_view digits = Trim(*text);
    std::uint64_t value = 0;
    const auto [end, err] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || err != std::errc() || end != digits.data() + digits.size()) {
      return Fail(ErrorCode::kParseError, path + ": not a number: \"" + std::string(digits) + "\"");
    }
    values[spec.name] = value;
  }
  return values;
}

Result<std::string> ReadPortRateText(const std::string& root, const std::string& device,
                                     std::uint32_t port) {
  Result<std::string> text = ReadSmallFile(PortDir(root, device, port) + "/rate");
  if (!text) return text;
  return std::string(Trim(*text));
}

std::optional<std::uint32_t> FindRoceV2GidIndex(const std::string& root, const std::string& device,
                                                std::uint32_t port, int gid_tbl_len) {
  const std::string dir = PortDir(root, device, port) + "/gid_attrs/types/";
  for (int i = 0; i < gid_tbl_len; ++i) {
    Result<std::string> type = ReadSmallFile(dir + std::to_string(i));
    if (type && Trim(*type) == "RoCE v2") return static_cast<std::uint32_t>(i);
  }
  return std::nullopt;
}

Result<std::string> ReadBootId(const std::string& path) {
  Result<std::string> text = ReadSmallFile(path);
  if (!text) return text;
  const std::string_view id = Trim(*text);
  if (id.empty()) return Fail(ErrorCode::kNotFound, path + ": empty");
  return std::string(id);
}

}  // namespace bplace::rdma
