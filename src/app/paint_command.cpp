// `tilegen paint DESCRIPTION.toml [-o DIR]`: paints a tileset from a procedural description.
// Writes DIR/tileset.png, DIR/tileset.toml and, when the description has [rules] path, the rules file.
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <system_error>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "core/paint/description.hpp"
#include "core/paint/emit.hpp"
#include "core/paint/painter.hpp"
#include "io/files.hpp"
#include "io/png.hpp"

namespace tilegen::app {

namespace {

const char* kPaintHelp = R"(Usage: tilegen paint DESCRIPTION.toml [-o DIR]

Paints a tileset from a procedural description (terrains, palettes, transition pairs; see
tilesets/overworld/paint.toml) and writes:
  DIR/tileset.png    the tiles, 16 per row (the description's 'columns')
  DIR/tileset.toml   the manifest: image, tile size and [tiles] name = index
  the rules file     when the description has [rules] path = "...": descriptor rules using the tiles,
                     the path relative to the description's folder (with -o: DIR/<its file name>)

Options:
  -o, --output DIR   where to write (default: the description's folder); created if missing
  -h, --help         this help

Exit codes: 0 success, 1 bad description or unwritable output, 2 bad command line.
)";

namespace fs = std::filesystem;

} // namespace

int run_paint(const Args& args) {
    ArgReader reader(args);
    std::optional<std::string> description_arg;
    std::optional<std::string> output_arg;
    while (!reader.done()) {
        std::string a = reader.next();
        if (a == "-h" || a == "--help") {
            std::cout << kPaintHelp;
            return kExitOk;
        }
        if (a == "-o" || a == "--output") {
            auto v = reader.value();
            if (!v || v->empty()) return usage_error("paint", "option '" + a + "' needs a directory");
            if (output_arg) return usage_error("paint", "option '" + a + "' given twice");
            output_arg = *v;
            continue;
        }
        if (a.size() > 1 && a[0] == '-') return usage_error("paint", "unknown option '" + a + "'");
        if (description_arg) return usage_error("paint", "more than one description given ('" + a + "')");
        description_arg = a;
    }
    if (!description_arg) return usage_error("paint", "missing DESCRIPTION.toml");

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
        diags.push_back(error_at(out_dir.string(), 0, 0, "cannot create directory: " + ec.message()));
        print_diagnostics(diags);
        return kExitInput;
    }

    const paint::Tileset tileset = paint::paint_tileset(*description);
    const std::string source = description_path.lexically_normal().generic_string();
    bool ok = io::save_png(out_dir / "tileset.png", tileset.image, diags);
    ok = ok && io::write_file_atomic(out_dir / "tileset.toml",
                                     paint::tileset_manifest(tileset, "tileset.png", source), diags);
    fs::path rules_path;
    if (ok && !description->rules_path.empty()) {
        const fs::path relative = description->rules_path;
        rules_path =
            (output_arg ? out_dir / relative.filename() : description_dir / relative).lexically_normal();
        if (rules_path.has_parent_path()) fs::create_directories(rules_path.parent_path(), ec);
        ok = io::write_file_atomic(rules_path, paint::rules_text(*description, source), diags);
    }
    if (!ok) {
        print_diagnostics(diags);
        return kExitInput;
    }
    std::cout << "painted " << tileset.tile_count() << " tiles: " << (out_dir / "tileset.png").string()
              << ", " << (out_dir / "tileset.toml").string();
    if (!rules_path.empty()) std::cout << ", " << rules_path.string();
    std::cout << '\n';
    return kExitOk;
}

} // namespace tilegen::app
