#include "daemon/options.h"

namespace bplace {

const char* IbSourceName(IbSource source) {
  switch (source) {
    case IbSource::kNone:
      return "none";
    case IbSource::kLsload:
      return "lsload";
    case IbSource::kLocal:
      return "local";
  }
  return "none";
}

}  // namespace bplace
