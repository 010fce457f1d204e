#include "rma/transfer.hpp"

#include <string>
#include <vector>

#include "src/error.hpp"

namespace mpix {

namespace {

struct KnownType {
  MPI_Datatype type;
  DatatypeLayout layout;
};

std::vector<KnownType> query_predefined_layouts() {
  std::vector<KnownType> known;
  for (MPI_Datatype t :
       {MPI_BYTE, MPI_CHAR, MPI_DOUBLE, MPI_INT, MPI_FLOAT, MPI_LONG, MPI_LONG_LONG, MPI_UNSIGNED, MPI_UNSIGNED_LONG,
        MPI_UNSIGNED_LONG_LONG, MPI_SHORT, MPI_UNSIGNED_SHORT, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_INT8_T,
        MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T, MPI_C_BOOL,
        MPI_AINT, MPI_C_DOUBLE_COMPLEX, MPI_C_FLOAT_COMPLEX})
    known.push_back({t, DatatypeLayout::of(t, "predefined type")});
  return known;
}

// Predefined types are never freed and never change, so their layouts are
// asked of MPI once per process: an operation on one of them (nearly every
// operation) then costs no datatype query.
const DatatypeLayout* predefined_layout(MPI_Datatype type) {
  static const std::vector<KnownType> known = query_predefined_layouts();
  for (const KnownType& k : known)
    if (k.type == type) return &k.layout;
  return nullptr;
}

// The layout of type, and whether it is predefined.
DatatypeLayout layout_of_type(MPI_Datatype type, const char* argument, bool& predefined) {
  const DatatypeLayout* known = predefined_layout(type);
  predefined = known != nullptr;
  return known != nullptr ? *known : DatatypeLayout::of(type, argument);
}

}  // namespace

void throw_shape_error(const Transfer& t, MPI_Count origin_bytes, MPI_Count target_bytes) {
  if (t.origin_count < 0) throw Error(MPI_ERR_COUNT, "origin_count = " + std::to_string(t.origin_count) + " is negative");
  if (t.target_count < 0) throw Error(MPI_ERR_COUNT, "target_count = " + std::to_string(t.target_count) + " is negative");
  throw Error(MPI_ERR_TYPE, "origin moves " + std::to_string(origin_bytes) + " bytes but the target side describes " +
                                std::to_string(target_bytes));
}

__thread LastTransferTypes last_transfer_types;

TransferShape shape_of_new_types(const Transfer& t) {
  if (t.origin_count < 0 || t.target_count < 0) throw_shape_error(t, 0, 0);
  bool origin_predefined = false, target_predefined = false;
  const DatatypeLayout origin = layout_of_type(t.origin_type, "origin_datatype", origin_predefined);
  const DatatypeLayout target = layout_of_type(t.target_type, "target_datatype", target_predefined);
  if (origin_predefined && target_predefined)
    last_transfer_types = {true, t.origin_type, t.target_type, origin, target};
  return shape_from(t, origin, target);
}

}  // namespace mpix
