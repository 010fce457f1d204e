#include "rma/transfer.hpp"

#include <string>
#include <vector>

#include "src/error.hpp"

namespace mpix {

namespace {

TypeShape type_shape(MPI_Datatype type, const char* argument) {
  if (type == MPI_DATATYPE_NULL) throw Error(MPI_ERR_TYPE, std::string(argument) + " is MPI_DATATYPE_NULL");
  TypeShape s;
  MPI_Aint lb = 0, true_lb = 0, true_extent = 0;
  mpi_check(MPI_Type_size_x(type, &s.size), "MPI_Type_size_x");
  mpi_check(MPI_Type_get_extent(type, &lb, &s.extent), "MPI_Type_get_extent");
  mpi_check(MPI_Type_get_true_extent(type, &true_lb, &true_extent), "MPI_Type_get_true_extent");
  s.contiguous = lb == 0 && true_lb == 0 && s.size == s.extent && s.size == true_extent;
  return s;
}

struct KnownType {
  MPI_Datatype type;
  TypeShape shape;
};

std::vector<KnownType> query_predefined_shapes() {
  std::vector<KnownType> known;
  for (MPI_Datatype t :
       {MPI_BYTE, MPI_CHAR, MPI_DOUBLE, MPI_INT, MPI_FLOAT, MPI_LONG, MPI_LONG_LONG, MPI_UNSIGNED, MPI_UNSIGNED_LONG,
        MPI_UNSIGNED_LONG_LONG, MPI_SHORT, MPI_UNSIGNED_SHORT, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_INT8_T,
        MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T, MPI_C_BOOL,
        MPI_AINT, MPI_C_DOUBLE_COMPLEX, MPI_C_FLOAT_COMPLEX})
    known.push_back({t, type_shape(t, "predefined type")});
  return known;
}

// Predefined types are never freed and never change, so their shapes are
// asked of MPI once per process: an operation on one of them (nearly every
// operation) then costs no datatype query.
const TypeShape* predefined_shape(MPI_Datatype type) {
  static const std::vector<KnownType> known = query_predefined_shapes();
  for (const KnownType& k : known)
    if (k.type == type) return &k.shape;
  return nullptr;
}

// The shape of type, and whether it is predefined.
TypeShape shape_of_type(MPI_Datatype type, const char* argument, bool& predefined) {
  const TypeShape* known = predefined_shape(type);
  predefined = known != nullptr;
  return known != nullptr ? *known : type_shape(type, argument);
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
  const TypeShape origin = shape_of_type(t.origin_type, "origin_datatype", origin_predefined);
  const TypeShape target = shape_of_type(t.target_type, "target_datatype", target_predefined);
  if (origin_predefined && target_predefined)
    last_transfer_types = {true, t.origin_type, t.target_type, origin, target};
  return shape_from(t, origin, target);
}

}  // namespace mpix
