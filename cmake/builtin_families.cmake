# Writes OUTPUT, a C++ file that holds every families/*.json of the source
# tree as text (registry/builtin_families.h), in name order. Run at build
# time (cmake -P), so an edited description is compiled in by the next build.
#   cmake -DSOURCE_DIR=... -DOUTPUT=... -P builtin_families.cmake
file(GLOB files RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/families/*.json)
list(SORT files)
set(body "// Generated from families/*.json by cmake/builtin_families.cmake: do not edit.\n")
string(APPEND body "#include \"registry/builtin_families.h\"\n\nnamespace slotguard {\n\n")
set(count 0)
set(table "")
foreach(f ${files})
  file(READ ${SOURCE_DIR}/${f} hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(APPEND body "static const unsigned char kText${count}[] = {${bytes} 0};\n")
  string(APPEND table "    {\"${f}\", kText${count}},\n")
  math(EXPR count "${count} + 1")
endforeach()
string(APPEND body "\nconst BuiltinFamilyFile kBuiltinFamilyFiles[] = {\n${table}};\n")
string(APPEND body "const int kBuiltinFamilyFileCount = ${count};\n\n}  // namespace slotguard\n")
file(WRITE ${OUTPUT} "${body}")
