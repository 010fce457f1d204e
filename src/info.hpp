// Hints for one request (MPIX_Info). Unknown keys are kept and ignored, as
// MPI does with info keys it does not understand.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace mpix {

class Info {
 public:
  void set(const char* key, const char* value);  // throws MPI_ERR_INFO_KEY / _VALUE
  std::optional<std::string> get(const std::string& key) const;

 private:
  std::map<std::string, std::string> entries_;
};

}  // namespace mpix
