# Writes OUTPUT, a C++ file that holds every scopes/*.json of the source tree
# as text (prove/builtin_scopes.h), in name order: the presets of
# `slotguard prove --scope`. Run at build time (cmake -P), so an edited
# preset is compiled in by the next build.
#   cmake -DSOURCE_DIR=... -DOUTPUT=... -P builtin_scopes.cmake
file(GLOB files RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/scopes/*.json)
list(SORT files)
set(body "// Generated from scopes/*.json by cmake/builtin_scopes.cmake: do not edit.\n")
string(APPEND body "#include \"prove/builtin_scopes.h\"\n\nnamespace slotguard {\n\n")
set(count 0)
set(table "")
foreach(f ${files})
  file(READ ${SOURCE_DIR}/${f} hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(APPEND body "static const unsigned char kText${count}[] = {${bytes} 0};\n")
  string(APPEND table "    {\"${f}\", kText${count}},\n")
  math(EXPR count "${count} + 1")
endforeach()
string(APPEND body "\nconst BuiltinScopeFile kBuiltinScopeFiles[] = {\n${table}};\n")
string(APPEND body "const int kBuiltinScopeFileCount = ${count};\n\n}  // namespace slotguard\n")
file(WRITE ${OUTPUT} "${body}")
