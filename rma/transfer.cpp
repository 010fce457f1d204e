#include "rma/transfer.hpp"

#include <string>
#include <vector>

#include "src/error.hpp"

namespace mpix {

namespace {

struct TypeShape {
  MPI_Count size = 0;
  MPI_Aint extent = 0;
  bool contiguous = false;
};

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

// Predefined types are never freed and never change, so their shapes are
// asked of MPI once per process: an operation on one of them (nearly every
// operation) then costs no datatype query.
const TypeShape* predefined_shape(MPI_Datatype type) {
  struct Known {
    MPI_Datatype type;
    TypeShape shape;
  };
  static const std::vector<Known> known = [] {
    std::vector<Known> k;
    for (MPI_Datatype t :
         {MPI_BYTE, MPI_CHAR, MPI_DOUBLE, MPI_INT, MPI_FLOAT, MPI_LONG, MPI_LONG_LONG, MPI_UNSIGNED,
          MPI_UNSIGNED_LONG, MPI_UNSIGNED_LONG_LONG, MPI_SHORT, MPI_UNSIGNED_SHORT, MPI_SIGNED_CHAR,
          MPI_UNSIGNED_CHAR, MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T,
          MPI_UINT32_T, MPI_UINT64_T, MPI_C_BOOL, MPI_AINT, MPI_C_DOUBLE_COMPLEX, MPI_C_FLOAT_COMPLEX})
      k.push_back({t, type_shape(t, "predefined type")});
    return k;
  }();
  for (const Known& k : known)
    if (k.type == type) return &k.shape;
  return nullptr;
}

TypeShape shape_of_type(MPI_Datatype type, const char* argument) {
  const TypeShape* predefined = predefined_shape(type);
  return predefined != nullptr ? *predefined : type_shape(type, argument);
}

}  // namespace

TransferShape shape_of(const Transfer& t) {
  if (t.origin_count < 0) throw Error(MPI_ERR_COUNT, "origin_count = " + std::to_string(t.origin_count) + " is negative");
  if (t.target_count < 0) throw Error(MPI_ERR_COUNT, "target_count = " + std::to_string(t.target_count) + " is negative");
  const TypeShape origin = shape_of_type(t.origin_type, "origin_datatype");
  const TypeShape target = shape_of_type(t.target_type, "target_datatype");
  if (origin.size * t.origin_count != target.size * t.target_count)
    throw Error(MPI_ERR_TYPE, "origin moves " + std::to_string(origin.size * t.origin_count) +
                                  " bytes but the target side describes " +
                                  std::to_string(target.size * t.target_count));
  TransferShape s;
  s.bytes = static_cast<std::size_t>(target.size * t.target_count);
  s.span = t.target_count * target.extent;
  s.contiguous = origin.contiguous && target.contiguous;
  return s;
}

}  // namespace mpix
