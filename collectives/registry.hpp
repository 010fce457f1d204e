// The registry: each collective family's algorithms, in the order of its
// registry.def (collectives/<family>/registry.def), kept by the family's
// rows() (collectives/<family>/family.hpp). The only list of algorithms
// there is; this file is what every family's list shares.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mpix {

// A family's rows as their files define them, each with the capabilities
// of its registry.def line, and pointers to them for lookups. Built once,
// in place: the pointers point into it.
template <class Row>
class RegisteredRows {
 public:
  explicit RegisteredRows(std::vector<std::pair<Row, unsigned>> rows) {
    rows_.reserve(rows.size());
    for (auto& [row, capabilities] : rows) {
      rows_.push_back(row);
      rows_.back().capabilities = capabilities;
    }
    for (const Row& row : rows_) pointers_.push_back(&row);
  }
  RegisteredRows(const RegisteredRows&) = delete;
  RegisteredRows& operator=(const RegisteredRows&) = delete;

  const std::vector<const Row*>& pointers() const { return pointers_; }

 private:
  std::vector<Row> rows_;
  std::vector<const Row*> pointers_;
};

// nullptr if no row of the family has that name.
template <class Row>
const Row* find_row(const std::vector<const Row*>& rows, std::string_view name) {
  for (const Row* row : rows)
    if (name == row->name) return row;
  return nullptr;
}
// The rows' names, comma-separated, for messages.
template <class Row>
std::string row_names(const std::vector<const Row*>& rows) {
  std::string names;
  for (const Row* row : rows) {
    if (!names.empty()) names += ", ";
    names += row->name;
  }
  return names;
}

// The names of the capability bits set, comma-separated (mpix_info).
std::string capability_list(unsigned capabilities);

}  // namespace mpix
