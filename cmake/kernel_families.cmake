# The built-in kernels' families, from the one list (src/registry/families.def):
# the header that includes every kernels/NAME_slot.h (kernels/family_slots.h)
# and one CUDA launcher file per family (kernels/NAME_kernels.cu), written
# under the build folder, and the list of hand references to compile
# (src/reference/NAME_ref.cc, SLOTGUARD_HAND_REFERENCES). A family added to
# families.def is picked up here.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/src/registry/families.def ${PROJECT_SOURCE_DIR}/cmake/family_kernels.cu.in)
file(STRINGS ${PROJECT_SOURCE_DIR}/src/registry/families.def sg_family_lines REGEX "^SG_FAMILY\\(")
set(SLOTGUARD_KERNEL_CU)
set(SLOTGUARD_HAND_REFERENCES)
set(sg_slots "// Generated from src/registry/families.def by cmake/kernel_families.cmake: do not edit.\n")
string(APPEND sg_slots "// Every built-in kernel's per-token math.\n#ifndef SLOTGUARD_KERNELS_FAMILY_SLOTS_H_\n")
string(APPEND sg_slots "#define SLOTGUARD_KERNELS_FAMILY_SLOTS_H_\n\n")
foreach(line ${sg_family_lines})
  if(NOT line MATCHES "^SG_FAMILY\\(([A-Za-z0-9]+), \"([a-z0-9_]+)\"\\)")
    message(FATAL_ERROR "families.def: cannot read '${line}'")
  endif()
  set(SG_ID ${CMAKE_MATCH_1})
  set(SG_NAME ${CMAKE_MATCH_2})
  string(APPEND sg_slots "#include \"kernels/${SG_NAME}_slot.h\"\n")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/family_kernels.cu.in
                 ${PROJECT_BINARY_DIR}/generated/kernels/${SG_NAME}_kernels.cu @ONLY)
  list(APPEND SLOTGUARD_KERNEL_CU ${PROJECT_BINARY_DIR}/generated/kernels/${SG_NAME}_kernels.cu)
  list(APPEND SLOTGUARD_HAND_REFERENCES ${PROJECT_SOURCE_DIR}/src/reference/${SG_NAME}_ref.cc)
endforeach()
string(APPEND sg_slots "\n#endif  // SLOTGUARD_KERNELS_FAMILY_SLOTS_H_\n")
set(sg_slots_file ${PROJECT_BINARY_DIR}/generated/kernels/family_slots.h)
if(EXISTS ${sg_slots_file})
  file(READ ${sg_slots_file} sg_old)
else()
  set(sg_old "")
endif()
if(NOT sg_old STREQUAL sg_slots)
  file(WRITE ${sg_slots_file} "${sg_slots}")
endif()
