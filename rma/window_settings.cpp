#include <string>

#include "rma/window_handle.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {
bool parse_choice(const std::string& key, const std::string& value, const char* yes, const char* no) {
  if (value == yes) return true;
  if (value == no) return false;
  throw Error(MPI_ERR_INFO_VALUE, "info key " + key + " = '" + value + "'; accepted: " + yes + "|" + no);
}
}  // namespace

WinSettings apply_win_info(const Info* info, WinSettings base) {
  if (info == nullptr) return base;
  if (auto v = info->get(info_key_scope)) base.thread_scope = parse_choice(info_key_scope, *v, "thread", "process");
  if (auto v = info->get(info_key_order)) base.ordered = parse_choice(info_key_order, *v, "true", "false");
  return base;
}

}  // namespace mpix
