# pat_registry_algs(<var>): auto and every algorithm name of the registry
# (algorithms/registry.c), so tests that loop over algorithms need no edit
# when one is added.
function(pat_registry_algs var)
  file(STRINGS ${CMAKE_SOURCE_DIR}/algorithms/registry.c lines REGEX "^ *\\[PAT_ALG_[A-Z0-9_]+\\] = {\"")
  set(algs auto)
  foreach(line ${lines})
    string(REGEX REPLACE "^.*= {\"([a-z0-9_]+)\".*$" "\\1" name "${line}")
    list(APPEND algs ${name})
  endforeach()
  set(${var} ${algs} PARENT_SCOPE)
endfunction()
