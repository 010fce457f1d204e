#include "rma/transfer.hpp"

#include <string>

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

}  // namespace

TransferShape shape_of(const Transfer& t) {
  if (t.origin_count < 0) throw Error(MPI_ERR_COUNT, "origin_count = " + std::to_string(t.origin_count) + " is negative");
  if (t.target_count < 0) throw Error(MPI_ERR_COUNT, "target_count = " + std::to_string(t.target_count) + " is negative");
  const TypeShape origin = type_shape(t.origin_type, "origin_datatype");
  const TypeShape target = type_shape(t.target_type, "target_datatype");
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
