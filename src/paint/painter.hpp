// The procedural tile painter: base textures, variants, the error tile and the rim tiles of every
// pair (46 blob cases, or the 15 tiles of a "basic" set), packed into one tileset image. Pure: a
// Description in, images out; all randomness is position hashing (hash of seed, stream and pixel
// position inside the tile), so the same description gives the same bytes.
//
// Seamlessness:
//  * Base textures are functions on the torus (every noise lattice and mark placement wraps at the
//  tile
//    size), so a base tile tiles with itself; variants differ from their base only 2+ px inside the
//    border.
//  * A rim tile samples the upper and lower base textures at the same pixel, so its textures
//  continue into
//    neighbouring tiles. Its boundary is the zero set of one field h(p) over the cell (rim_field
//    below): h = min over lower edges of (distance to that edge - R_side(position along the edge)),
//    over counted diagonals of (distance to that corner - rim_depth), with outer corners rounded.
//    Each side's depth profile R_side = rim_depth + wobble * u_side is periodic with wobble_period
//    (which divides the tile size) and equals rim_depth at the tile corners. So h is continuous
//    across the edge between two upper cells, and rims and their lines (which depend on h only
//    within a few px of the boundary) meet exactly. All pairs of one upper terrain share the
//    profiles (they are hashed from the upper terrain's name), so rims of different lower terrains
//    meet too.
//  * Faces (the vertical side of a raised terrain, drawn where the lower terrain lies to the south)
//  are the upper
//    region extruded downwards: a pixel of the upper terrain is a face pixel when a rim pixel lies
//    at most face_depth px straight below it. Faces need straight rims (wobble 0); then the rim
//    pixels in the top rows of the cell below are known from the mask alone (its east or west
//    strip, when the south-east or south-west diagonal is lower), so faces continue exactly across
//    cells.
//  * Symmetric descriptions: base textures are invariant under quarter turns and every side has the
//  same even
//    profile; a rim tile is painted for the smallest mask among its quarter turns and turned, so
//    the turned tiles are exact quarter turns of each other.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/grid.hpp"
#include "core/image.hpp"
#include "paint/blob.hpp"
#include "paint/description.hpp"

namespace tilegen::paint {

// The painted tile image and its slot names, before it is written as tileset.png + tileset.toml.
// Not core's Tileset (a manifest loaded with its image, indexed by name for the atlas): that is
// what `tilegen generate` reads back from these files.
struct PaintedTileset {
    Image image; // columns x rows tiles, transparent in unused slots
    int tile_size = 16;
    int columns = 16;
    std::vector<std::string> names; // per slot, row-major; "" for unused slots
    int tile_count() const;         // named slots
};

// What a pixel of a rim tile shows.
enum class Material : std::uint8_t {
    upper,      // the upper terrain's texture
    upper_line, // one of the pair's upper_lines
    lower,      // the lower terrain's texture
    lower_line, // one of the pair's lower_lines
    face, // the upper terrain's face (its vertical side), face_depth px above a boundary to the
          // south
};

// The seamless base texture of terrain `terrain` (index into d.terrains): tile_size x tile_size.
Image paint_base(const Description& d, int terrain);
// Base texture plus the variant's decorations.
Image paint_variant(const Description& d, int terrain, int variant);
// Solid colour with an X.
Image paint_error(const Description& d);

// The rim field of a pair for a reduced mask at a point of the cell (0..tile_size on both axes):
// >= 0 on the upper terrain, < 0 on the rim. Exposed for tests.
double rim_field(const Description& d, const Pair& pair, BlobMask reduced, double x, double y);
// Per-pixel material of the rim tile of `pair` for a reduced mask (0 gives all upper). In symmetric
// descriptions, the turned materials of the mask's canonical turn (see paint_transition).
Grid<Material> rim_materials(const Description& d, const Pair& pair, BlobMask reduced);
// A corner set's field (RimSet::corner) at a point of the tile (0..size on both axes) for a 4-bit
// quadrant mask (bit 3 top-left .. bit 0 bottom-right, 1 = upper): the signed distance in px to
// the boundary, >= 0 on the upper terrain (+-infinity for masks 15 and 0). Exposed for tests.
double corner_field(int size, int quadrants, double x, double y);
// The rim tile of `pair` for a reduced, non-zero mask (a corner set: the quadrant mask).
Image paint_transition(const Description& d, const Pair& pair, BlobMask reduced);

// A bridge tile (see Terrain::bridge): a wooden deck from the terrain's palette, rails along two
// sides, an end (sill and posts) where the tile says; north-south tiles are the east-west ones
// turned a quarter clockwise.
Image paint_bridge(const Description& d, int terrain, const BridgeTile& tile);

// A terrain's rut tile (Terrain::ruts): its base texture with two wheel ruts running north-south
// (or east-west), the same at every position along them.
Image paint_ruts(const Description& d, int terrain, bool north_south);

// A quarter turn clockwise of a mask (n -> e -> s -> w) and of a square image.
BlobMask turn_mask(BlobMask m);
Image turn_image(const Image& img);

// Everything, laid out as: first row(s) the base tiles, each followed by its variants, then the
// error tile (unless excluded); then each pair's rim tiles in rim_tiles() order, starting a fresh
// row unless they all fit in the rest of the current one. That is group 0 (Terrain::group); the
// terrains of group 1 (by default the overlays, draws_as) and the pairs whose higher group is 1
// are laid out the same way after it, starting on a fresh row, then group 2, and so on: adding a
// group to a description keeps every other tile's slot. A bridge's 8 tiles stand in for its base.
PaintedTileset paint_tileset(const Description& d);

} // namespace tilegen::paint
