# cmake -DROOT=<source dir> -P check_env_readers.cmake
# Every TESSERA_* environment variable the code reads (core, comm, io, app, solvers) goes
# through core/env.hpp and is declared in core/env_registry.cpp with the type its getter reads.
# This catches, without running it, a reader in code the CPU build never executes (.cu files,
# #if defined(TESSERA_HAVE_CUDA) blocks, benchmarks), where the std::logic_error of an
# undeclared name would only show on a GPU machine.
file(READ ${ROOT}/core/env_registry.cpp registry)
string(REGEX MATCHALL "\\.name = \"TESSERA_[A-Z0-9_]+\", \\.type = [a-z]+" declarations "${registry}")
foreach(d IN LISTS declarations)
  string(REGEX REPLACE "^\\.name = \"([A-Z0-9_]+)\", \\.type = ([a-z]+)$" "\\1;\\2" pair "${d}")
  list(GET pair 0 name)
  list(GET pair 1 type)
  set(type_of_${name} ${type})
endforeach()
list(LENGTH declarations count)
if(count LESS 10)
  message(FATAL_ERROR "found only ${count} declarations in core/env_registry.cpp: has its format changed?")
endif()

set(problems "")
file(GLOB_RECURSE sources RELATIVE ${ROOT} ${ROOT}/core/*.cpp ${ROOT}/core/*.hpp ${ROOT}/comm/*.cpp ${ROOT}/comm/*.hpp
     ${ROOT}/io/*.cpp ${ROOT}/io/*.hpp ${ROOT}/app/*.cpp ${ROOT}/app/*.hpp ${ROOT}/solvers/*.cpp ${ROOT}/solvers/*.hpp
     ${ROOT}/solvers/*.cu ${ROOT}/solvers/*.cuh ${ROOT}/comm/*.cu ${ROOT}/core/*.cu)
set(readers 0)
foreach(f IN LISTS sources)
  if(f STREQUAL "core/env_registry.cpp")
    continue()
  endif()
  file(READ ${ROOT}/${f} text)
  if(text MATCHES "getenv\\(\"TESSERA_")
    string(APPEND problems "\n  ${f}: reads a TESSERA_* variable with getenv (use env::get_* from core/env.hpp)")
  endif()
  # Every literal that is exactly a variable name is declared ...
  string(REGEX MATCHALL "\"TESSERA_[A-Z0-9_]+\"" literals "${text}")
  foreach(l IN LISTS literals)
    string(REPLACE "\"" "" name "${l}")
    math(EXPR readers "${readers} + 1")
    if(NOT DEFINED type_of_${name})
      string(APPEND problems "\n  ${f}: ${name} is not declared in core/env_registry.cpp")
    endif()
  endforeach()
  # ... and read with the getter of its type.
  string(REGEX MATCHALL "get_[a-z]+\\(\"TESSERA_[A-Z0-9_]+\"" calls "${text}")
  foreach(c IN LISTS calls)
    string(REGEX REPLACE "^get_([a-z]+)\\(\"([A-Z0-9_]+)\"$" "\\1;\\2" pair "${c}")
    list(GET pair 0 getter)
    list(GET pair 1 name)
    if(DEFINED type_of_${name} AND NOT getter STREQUAL type_of_${name})
      string(APPEND problems "\n  ${f}: ${name} is declared ${type_of_${name}} but read with get_${getter}")
    endif()
  endforeach()
endforeach()
if(problems)
  message(FATAL_ERROR "environment variables outside the registry:${problems}")
endif()
message("${readers} reads of ${count} declared variables checked")
