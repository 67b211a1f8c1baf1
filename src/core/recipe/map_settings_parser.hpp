// Reading one map's settings ([noise] or [maps.NAME], with [[...modifiers]]) from TOML, with
// checked keys per kind.
#pragma once

#include <string>

#include "core/heightfield/heightfield.hpp"
#include "core/toml_reader.hpp"

namespace tilegen {

// Reads `table` (named `prefix` in messages, e.g. "noise" or "maps.moisture") into a map
// definition.
MapDefinition parse_map_definition(TomlReader& reader, const toml::table& table,
                                   const std::string& name, const std::string& prefix);

} // namespace tilegen
