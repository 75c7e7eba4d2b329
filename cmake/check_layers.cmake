# The layers of src/, bottom to top: a file may include headers of its own
# layer's directories and of lower layers', never of a higher one. Run as
#   cmake -DSOURCE_DIR=<repository> [-DSTAMP=<file>] -P cmake/check_layers.cmake
# It fails naming each include that runs back up; the build runs it before
# compiling any library (CMakeLists.txt, slotguard_layers), so such an
# include fails to build. docs/architecture.md says what each layer is.
set(SLOTGUARD_LAYERS
  "util"                                        # 0
  "family registry scenario"                    # 1 the model
  "kernels writers reference invariants findings"  # 2 the kernels' and the oracle's
  "plan backend plugin setup"                   # 3 execution: scenario plans, backends, user kernels, their assembly
  "runner suppressions"                         # 4
  "fuzzing"                                     # 5
  "prove"                                       # 6 bounded proofs over the campaign
  "report"                                      # 7
  "bench"                                       # 8
  "cli"                                         # 9
)
set(layer 0)
foreach(dirs ${SLOTGUARD_LAYERS})
  string(REPLACE " " ";" dirs "${dirs}")
  foreach(dir ${dirs})
    set(LAYER_${dir} ${layer})
  endforeach()
  math(EXPR layer "${layer} + 1")
endforeach()

file(GLOB_RECURSE files RELATIVE ${SOURCE_DIR}/src
  ${SOURCE_DIR}/src/*.h ${SOURCE_DIR}/src/*.cc ${SOURCE_DIR}/src/*.cu ${SOURCE_DIR}/src/*.cuh ${SOURCE_DIR}/src/*.def)
set(problems "")
foreach(file ${files})
  string(REGEX MATCH "^[^/]+" dir "${file}")
  if(NOT DEFINED LAYER_${dir})
    string(APPEND problems "src/${file}: its directory ${dir}/ is in no layer (cmake/check_layers.cmake)\n")
    continue()
  endif()
  file(STRINGS ${SOURCE_DIR}/src/${file} includes REGEX "^[ \t]*#[ \t]*include[ \t]+\"[^\"]+/")
  foreach(line ${includes})
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]+\"([^\"/]+)/.*" "\\1" target "${line}")
    if(DEFINED LAYER_${target} AND LAYER_${target} GREATER LAYER_${dir})
      string(APPEND problems "src/${file} (layer ${LAYER_${dir}}, ${dir}/) includes a header of ${target}/ (layer ${LAYER_${target}}): an include that runs back up\n")
    endif()
  endforeach()
endforeach()
if(problems)
  message(FATAL_ERROR "slotguard layers:\n${problems}")
endif()
if(STAMP)
  file(WRITE ${STAMP} "layers hold\n")
endif()
