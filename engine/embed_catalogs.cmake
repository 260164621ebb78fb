# Writes the catalogs as C++ string constants (cmake -P, run at build time).
file(READ ${CHIPS} chips)
file(READ ${MODELS} models)
file(READ ${FORMATS} formats)
file(WRITE ${OUT} "// Generated from data/*.json at build time. Do not edit.\nnamespace scalelab {\n")
file(APPEND ${OUT} "extern const char* const kChipsJson;\nextern const char* const kModelsJson;\nextern const char* const kFormatsJson;\n")
file(APPEND ${OUT} "const char* const kChipsJson = R\"scalelab_json(${chips})scalelab_json\";\n")
file(APPEND ${OUT} "const char* const kModelsJson = R\"scalelab_json(${models})scalelab_json\";\n")
file(APPEND ${OUT} "const char* const kFormatsJson = R\"scalelab_json(${formats})scalelab_json\";\n}\n")
