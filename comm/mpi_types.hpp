#pragma once
// The MPI datatype of a C++ arithmetic type.
#include <mpi.h>

#include <cstdint>
#include <type_traits>

namespace tessera::comm {

template <class T>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, char>) return MPI_CHAR;
  else if constexpr (std::is_same_v<T, signed char> || std::is_same_v<T, std::int8_t>) return MPI_INT8_T;
  else if constexpr (std::is_same_v<T, unsigned char> || std::is_same_v<T, std::uint8_t>) return MPI_UINT8_T;
  else if constexpr (std::is_same_v<T, std::int16_t>) return MPI_INT16_T;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return MPI_UINT16_T;
  else if constexpr (std::is_same_v<T, std::int32_t>) return MPI_INT32_T;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return MPI_UINT32_T;
  else if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, long long>) return MPI_INT64_T;
  else if constexpr (std::is_same_v<T, std::uint64_t> || std::is_same_v<T, unsigned long long>) return MPI_UINT64_T;
  else if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
  else if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
  else if constexpr (std::is_same_v<T, bool>) return MPI_CXX_BOOL;
  else static_assert(sizeof(T) == 0, "no MPI datatype for this type");
}

}  // namespace tessera::comm
