// `tilegen paint DESCRIPTION.toml [-o DIR]`: paints a tileset from a procedural description.
// Writes DIR/tileset.png, DIR/tileset.toml, the rules files of [[rules]], and with [objects] the
// sprite sheet DIR/objects.png (or [objects] image) and DIR/objects.toml.
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "io/files.hpp"
#include "io/png.hpp"
#include "paint/description.hpp"
#include "paint/emit.hpp"
#include "paint/painter.hpp"
#include "paint/sprites.hpp"

namespace tilegen::app {

namespace {

namespace fs = std::filesystem;

} // namespace

// Every command's table and opening share this shape (app/options.hpp): one design, not a copy.
CommandSpec paint_spec() {
    CommandSpec s;
    s.name = "paint";
    s.summary = "Paint a tileset (PNG + manifest) from a procedural description.";
    s.operands = "DESCRIPTION.toml";
    s.min_operands = 1;
    s.operand_noun = "description";
    s.about =
        R"(Paints a tileset from a procedural description (terrains, palettes, transition pairs; see
tilesets/overworld/paint.toml) and writes:
  DIR/tileset.png    the tiles, 16 per row (the description's 'columns')
  DIR/tileset.toml   the manifest: image, tile size and [tiles] name = index
  rules files        for each [[rules]] path = "..." (terrains = [...] for a subset): descriptor
                     rules using the tiles, the path relative to the description's folder (with
                     -o: DIR/<its file name>)
  DIR/objects.png    with [objects] and [[sprite]]: the sprite sheet (trees, rocks), and
  DIR/objects.toml   its manifest: sprite size and [sprites] name = { index, footprint }
)";
    s.options = {{{"-o", "--output"},
                  "DIR",
                  "where to write (default: the description's folder); created if missing",
                  non_empty("a directory"),
                  false,
                  true}};
    s.epilogue = "Exit codes: 0 success, 1 bad description or unwritable output, 2 bad command "
                 "line.\n";
    return s;
}

int run_paint(const Args& args) {
    const CommandSpec spec = paint_spec();
    const Parsed parsed = parse_command_line(spec, args);
    if (!parsed.line) return parsed.exit;
    const std::optional<std::string> description_arg = parsed.line->operands.front();
    const std::optional<std::string> output_arg = parsed.line->text("-o");

    Diagnostics diags;
    const fs::path description_path = *description_arg;
    auto text = io::read_file(description_path, diags);
    if (!text) {
        print_diagnostics(diags);
        return kExitInput;
    }
    auto description = paint::parse_description(*text, description_path.string(), diags);
    if (!description) {
        print_diagnostics(diags);
        return kExitInput;
    }

    const fs::path description_dir =
        description_path.has_parent_path() ? description_path.parent_path() : fs::path(".");
    const fs::path out_dir = output_arg ? fs::path(*output_arg) : description_dir;
    std::error_code ec;
    fs::create_directories(out_dir, ec);
    if (ec) {
        diags.push_back(
            error_at(out_dir.string(), 0, 0, "cannot create directory: " + ec.message()));
        print_diagnostics(diags);
        return kExitInput;
    }

    const paint::PaintedTileset tileset = paint::paint_tileset(*description);
    const std::string source = description_path.lexically_normal().generic_string();
    bool ok = io::save_png(out_dir / "tileset.png", tileset.image, diags);
    ok =
        ok && io::write_file_atomic(out_dir / "tileset.toml",
                                    paint::tileset_manifest(tileset, "tileset.png", source), diags);
    std::vector<fs::path> written = {out_dir / "tileset.png", out_dir / "tileset.toml"};
    for (const auto& rules : description->rules) {
        if (!ok) break;
        const fs::path relative = rules.path;
        const fs::path rules_path =
            (output_arg ? out_dir / relative.filename() : description_dir / relative)
                .lexically_normal();
        if (rules_path.has_parent_path()) fs::create_directories(rules_path.parent_path(), ec);
        ok = io::write_file_atomic(rules_path, paint::rules_text(*description, rules, source),
                                   diags);
        written.push_back(rules_path);
    }
    int sprites = 0;
    if (ok && description->objects) {
        const auto& objects = *description->objects;
        ok = io::save_png(out_dir / objects.image, paint::paint_objects(*description), diags);
        ok = ok && io::write_file_atomic(out_dir / "objects.toml",
                                         paint::objects_manifest(*description, source), diags);
        written.push_back(out_dir / objects.image);
        written.push_back(out_dir / "objects.toml");
        sprites = static_cast<int>(description->sprites.size());
    }
    if (!ok) {
        print_diagnostics(diags);
        return kExitInput;
    }
    std::cout << "painted " << tileset.tile_count() << " tiles";
    if (description->objects) std::cout << " and " << sprites << " sprites";
    std::cout << ":";
    for (std::size_t i = 0; i < written.size(); ++i)
        std::cout << (i ? ", " : " ") << written[i].string();
    std::cout << '\n';
    return kExitOk;
}

} // namespace tilegen::app
