// The description of a procedural tileset (`tilegen paint DESCRIPTION.toml`): terrains with their
// palettes, texture styles and variants, the transition pairs (upper terrain drawn over lower
// terrain), the rules files to write, and object sprites (trees, rocks) for a sprite sheet. Parsed
// from TOML text; every problem is a Diagnostic with the line and column of the offending key or
// value. Unknown keys are errors. Defaults and ranges of every field are documented beside it.
//
// TOML layout (see tilesets/overworld/paint.toml for a complete example):
//   tile_size, columns, seed, symmetric           top-level
//   [error]                                       the red error tile
//   [[rules]] path, terrains                      rules files to write (also a single [rules]
//   table)
//   [[terrain]] name, symbol, height, style, palette, density, weight, draws_as, own_rims, group,
//               bridge, ruts
//   [[terrain.variant]] name, weight, decoration, count, colors
//   [[pair]] upper, lower, set, rim_depth, wobble, wobble_period, corner_radius, upper_lines,
//   lower_lines,
//            shadow, blend, face, face_depth, face_palette
//   [objects] image, sprite_width, sprite_height, columns           the sprite sheet
//   (objects.png/.toml)
//   [[sprite]] name, shape, footprint, palette, trunk, accents, outline, shadow, size
// A colour is "#rrggbb", or "TERRAIN.N": entry N (0 = darkest) of that terrain's palette.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/diagnostic.hpp"
#include "core/image.hpp"

namespace tilegen::paint {

// How a terrain's base texture is drawn (all styles are seamless: they tile with themselves).
enum class Style {
    blades, // grass: mottled light/dark patches and small dark blade marks
    grain,  // sand, dirt: patches of shade and scattered grains with a light top
    waves,  // water: deeper patches and light wave crests
    flags,  // stone flags: courses of stones with dark joints, lit top-left edges, shaded stones
    void_,  // a pit: near black, darker towards nothing, a few faint specks ("void")
    rocky,  // rock tops: lumpy patches, small boulders with light tops, cracks
    leafy,  // forest floor: dark mottled ground with small leaf clusters
    flow,   // river water: soft light and dark currents and many thin light streaks, brighter
            // than "waves" (no dark troughs)
    falls,  // a waterfall: vertical streaks of foam and water falling down the tile (seamless
            // top to bottom, so a column of cells reads as one fall)
};

// A decoration drawn on a variant tile, kept 2 px away from the tile border (so borders equal the
// base tile).
enum class Decoration {
    none,
    flowers,   // small four-petal flowers; colors = [petal, centre, ...more petal colours]
    tuft,      // a clump of tall grass blades; colors = [dark, light, mid]
    pebbles,   // small round stones; colors = [shadow, stone, highlight]
    sparkle,   // light glints on water; colors = [glint, bright]
    cracks,    // a jagged crack with a lit lower lip; colors = [crack, lip]
    leaves,    // fallen leaves; colors = [dark, leaf, light leaf]
    mushrooms, // small mushrooms; colors = [cap, spots, stem]
    ripples,   // ring ripples on water; colors = [light, dark]
    lilypad,   // a lily pad with a notch; colors = [dark, pad, light, flower]
    crests,    // extra wave crests; colors = [crest, bright, trough]
    reseed, // no marks: the base texture from another seed inside the border (breaks up repetition
            // in large plain areas; for noisy styles, not "flags"); colors unused
};

// How a pair draws the face (the vertical side) of the upper terrain where the lower lies to the
// south.
enum class Face {
    none,
    cliff,  // rock strata: vertical cracks, a lit lip at the top, darker towards the foot
    bricks, // courses of bricks with dark joints, lit top edges
};

// Which rim tiles a pair paints (the pair's `set` key).
enum class RimSet {
    blob,  // the 46 non-plain blob cases, named UPPER-LOWER-SIDES (e.g. grass-sand-n-e)
    basic, // 15 tiles for two-terrain sets: UPPER-edge-n/e/s/w, UPPER-corner-ne/se/sw/nw (lower on
           // two adjacent sides), UPPER-inner-ne/se/sw/nw (lower on that diagonal only),
           // UPPER-band-ns (lower north and south), UPPER-band-ew (lower east and west),
           // UPPER-island (lower on all four sides)
    // The 14 mixed marching-squares cases of a corner layer (docs/rules.md, corner layers): a
    // tile centred on the corner of four cells, named UPPER-LOWER-corner-ABCD, A..D the top-left,
    // top-right, bottom-left and bottom-right cells, each `u` (upper) or `l` (lower), e.g.
    // grass-water-corner-uulu; the all-upper and all-lower cases are the base tiles. The boundary
    // is straight between the midpoints of the tile's sides (a 45-degree line through one corner's
    // quadrant, a horizontal or vertical line through the middle), so 45-degree diagonals of the
    // class map are straight lines; a diagonal pair (`ullu`) keeps the two upper corners apart.
    corner,
    // As corner, but the lower terrain's side is transparent (its lower_lines are still drawn):
    // tiles for stacked corner layers, one per terrain, each drawn over the layers below.
    corner_layer,
};

struct Variant {
    std::string name;    // tile name: [A-Za-z0-9_-]+, unique in the tileset; required
    double weight = 1.0; // rule weight relative to the base tile; range (0, 1000]
    Decoration decoration = Decoration::none; // see Decoration; required
    int count = 2;                            // decorations per tile; range 1..8
    std::vector<Rgba> colors; // decoration colours; default per decoration (see above); 0..4
};

struct Terrain {
    std::string name; // base tile name: [A-Za-z0-9_-]+; required
    // Class symbol used in rules: one printable ASCII character a recipe accepts as a terrain
    // symbol (not whitespace nor ? ! [ ] @ * # / \), e.g. "g" or "~"; unique; required.
    char symbol = '?';
    int height = 0; // layering: higher terrains draw lower ones as rims; unique; range -1000..1000
    Style style = Style::grain; // "blades", "grain", "waves", "flags", "void", "rocky", "leafy",
                                // "flow", "falls"; required (not for a bridge)
    std::vector<Rgba> palette;  // 3..5 shades, darkest first; required
    double density = 0.5; // how many marks (blades, grains, crests) the texture has; range 0..1
    double weight = 1.0;  // rule weight of the base tile among its variants; range (0, 1000]
    std::vector<Variant> variants; // [[terrain.variant]]; 0..8
    // `draws_as = "NAME"`: an overlay terrain (river, lake, waterfall) that the other terrains draw
    // like terrain NAME (index here; -1 = none, the default). Its height must lie above NAME's and
    // below every terrain without draws_as that is above NAME (e.g. water 0, lake 1, river 2,
    // waterfall 3, sand 4), so the layering the other terrains see is unchanged: they draw their
    // NAME rims next to it (grass beside a lake draws its water bank, foam and all), and its own
    // pairs draw what lies below it (a river mouth blending into the sea, foam at a waterfall's
    // foot). NAME must not itself have draws_as. The overlays' tiles (base, variants, and the
    // rims of every pair with an overlay as upper or lower terrain) come after all other tiles in
    // the image, so adding overlays keeps every other tile's index.
    int draws_as = -1;
    // `own_rims = true` (needs draws_as; default false): every [[pair]] of a terrain without
    // draws_as over NAME is repeated over this overlay (same rim geometry and lines, this
    // overlay's texture; Pair::derived_from) unless the description declares that pair itself,
    // so the overlay's water runs on into the banks the land draws (grass-river-n beside
    // grass-water-n). Without it the banks show NAME's texture: fine for an overlay of NAME's
    // colours. Each such overlay adds a distinct lower texture to the rules: more tiles, and more
    // cases for `tilegen check` to enumerate.
    bool own_rims = false;
    // `group = N`: the tile layout group (range 0..8; default 0, or 1 with draws_as). The tiles of
    // group 0 (terrains, their variants, the error tile, then the pairs' rims) come first, then
    // those of group 1 on a fresh row, and so on; a pair's rims belong to the higher group of its
    // two terrains. Terrains added to a finished tileset take a new group, so every existing tile
    // keeps its index (the road and bridge of the overworld are group 2, after the rivers).
    int group = 0;
    // `bridge = ["water", "river", ...]`: this terrain is a bridge (a wooden deck with rails) over
    // the named terrains (the spanned terrains; indices here; empty = not a bridge, the default).
    // A bridge has no base texture (`style` is optional and unused), no variants, no draws_as and
    // no pairs, and must be the highest terrain, so every other terrain sees it as its own level
    // and draws no rim against it. Its cells pick one of 8 tiles from their 4 neighbours (see
    // bridge_tiles): the deck runs east-west (rails along the north and south edges) when more of
    // its east and west neighbours than of its north and south ones are not spanned (land, a road,
    // the bridge), north-south when fewer; on a tie it follows the neighbouring bridge cells
    // (east-west when at least as many bridge cells lie east and west as north and south). An end
    // (posts and a sill) is drawn on a side whose neighbour is neither spanned nor the bridge.
    std::vector<int> bridge;
    // `ruts = true` (default false; needs a [[pair]] with this terrain as upper, so it has blob
    // rules): two more tiles, NAME-ruts-ns and NAME-ruts-ew (after its variants): the base texture
    // with two wheel ruts running the length of the tile. A plain cell (no lower neighbour) whose
    // north and south neighbours are this terrain or a bridge and whose east and west ones are
    // neither shows NAME-ruts-ns (turned: -ew), so a straight road shows continuous ruts; bends,
    // junctions and ends show the plain tile and its variants.
    bool ruts = false;
};

struct Pair {
    int upper = 0; // index into terrains: the terrain whose cells draw the rim; required (by name)
    int lower = 0; // index into terrains: the texture of the rim; required (by name)
    RimSet set = RimSet::blob; // "blob" (default), "basic", "corner" or "corner-layer"
    // The rim geometry; pairs of the same upper terrain must agree on these four (their rims meet).
    double rim_depth = 4.5; // mean rim width in px from the cell edge; range 1..tile_size/2-1
    double wobble =
        1.0; // max deviation of the rim width from rim_depth in px; range 0..rim_depth-1,
             // rim_depth + wobble <= tile_size/2 - 1 and wobble <= wobble_period / 8
    int wobble_period = 16;     // px; must divide tile_size; range 4..tile_size
    double corner_radius = 3.0; // rounding of outer corners in px; range 0..tile_size/2 - 1
    std::vector<Rgba>
        upper_lines; // 1-px lines on the upper side of the boundary, outermost first; 0..3
    std::vector<Rgba>
        lower_lines; // 1-px lines on the lower side of the boundary, nearest first; 0..3
    // Extra width (px) of the lower lines where the upper terrain lies to the north (a cast
    // shadow); 0..2.
    double shadow = 1.0;
    // Half-width (px) of a checkerboard dither between the two textures at the boundary (soft
    // edges, e.g. shallow over deep water); used only when the pair has no lines on that side;
    // range 0..2, default 0.
    double blend = 0.0;
    // The face: where the lower terrain lies to the south, the upper terrain's vertical side is
    // drawn as a band face_depth px tall above the boundary (the upper terrain extruded downwards,
    // as in a 3/4 view). Needs wobble = 0 (straight rims) so faces continue exactly across cells.
    // face_depth range 0..tile_size, and face_depth + rim_depth + corner_radius <= tile_size.
    Face face = Face::none;         // "none" (default), "cliff", "bricks"
    int face_depth = 0;             // px; > 0 when face is not "none"
    std::vector<Rgba> face_palette; // 3..5 shades, darkest first; required with a face
    // -1 for a pair of the description; else the index of the pair this one repeats over an
    // overlay terrain (see Terrain::draws_as). Not a key.
    int derived_from = -1;
};

struct ErrorTile {
    bool include = true; // false: the tileset has no error tile (tilegen's built-in one is used)
    std::string name = "error";   // tile name; [A-Za-z0-9_-]+
    Rgba color{216, 32, 32, 255}; // fill; default "#d82020"
    Rgba mark{64, 0, 0, 255};     // the X; default "#400000"
};

// One rules file to write.
struct RulesOutput {
    std::string path; // relative to the description's folder; required
    std::vector<int>
        terrains; // indices of the terrains the rules are for (a recipe's classes); empty = all
};

// The shape a sprite is painted as.
enum class Shape {
    oak,        // a round leafy crown of clumps on a short trunk with roots
    pine,       // stacked jagged cone tiers on a short trunk
    rock,       // a faceted boulder with a crack
    bush,       // a low round clump of leaves, optional berries
    stalagmite, // a tapering cone of banded rock
    crystal,    // a cluster of prismatic crystals with glints
    // Places (issue 17). palette = roof (tent: canvas, cave: rock) shades, trunk = walls (tent:
    // poles), accents = [door and window dark, window light] (tent: [flag]).
    town,    // three houses with hipped roofs, doors and windows, the nearest in front
    village, // a house and a small hut
    cave,    // a dungeon entrance: a crag of rock with a dark arched mouth at its foot
    tent,    // a start: a canvas tent on poles with a pennant
};

struct Sprite {
    std::string name;          // [A-Za-z0-9_-]+, unique among sprites; required
    Shape shape = Shape::rock; // required
    int footprint_w =
        1; // map cells covered at the base; 1..8, footprint * tile_size within the cell
    int footprint_h = 1;
    std::vector<Rgba> palette; // the body (foliage, stone): 3..5 shades, darkest first; required
    std::vector<Rgba> trunk;   // trunk shades for trees (3..5, darkest first); default browns
    std::vector<Rgba> accents; // berries, glints: 0..4 colours
    Rgba outline{24, 20, 28, 255}; // the 1-px dark outline; default "#18141c"
    double shadow = 0.45;          // opacity of the contact shadow; range 0..1
    double size = 1.0;             // scale of the shape within its cell; range 0.5..1.2
};

struct Objects {
    std::string image = "objects.png"; // file name, written beside tileset.png
    int sprite_width = 32;             // px per sprite cell; 8..256
    int sprite_height = 48;
    int columns = 8; // cells per row of the image; 1..64
};

struct Description {
    int tile_size = 16;     // px, square tiles; range 8..64, a multiple of 8
    int columns = 16;       // tiles per row of the image; range 1..64
    std::uint64_t seed = 1; // seed of all position hashes; range 0..2^63-1
    // true: base textures are symmetric under quarter turns and rims have the same profile on every
    // side, and rotated rim tiles are exact quarter turns of each other (for rule files using
    // `rotate` and @r90); needs shadow = 0 and no face. Default false.
    bool symmetric = false;
    ErrorTile error;                // [error]
    std::vector<RulesOutput> rules; // [[rules]] (or one [rules]); 0..8; only with "blob" pairs
    std::vector<Terrain> terrains;  // [[terrain]]; 1..16
    std::vector<Pair> pairs;        // [[pair]]; 0..32; each (upper, lower) at most once
    std::optional<Objects> objects; // [objects]; required with [[sprite]]
    std::vector<Sprite> sprites;    // [[sprite]]; 0..64
};

// Parses a description. `path` is only used in diagnostics. Returns nullopt (and appends at least
// one error) when the text is not valid TOML or does not describe a valid tileset.
std::optional<Description> parse_description(std::string_view text, const std::string& path,
                                             Diagnostics& diags);

// "#rrggbb" -> colour (opaque); nullopt when malformed.
std::optional<Rgba> parse_hex_color(std::string_view s);

// True for [A-Za-z0-9_-]+ (valid as a bare TOML key and as a rule target).
bool is_valid_tile_name(std::string_view s);

// The tile names of a pair's rim tiles, in painting order, with the reduced blob mask each shows
// (corner sets: the 4-bit quadrant mask, RimSet::corner, masks 1 to 14 in order).
struct RimTile {
    std::string name;
    std::uint8_t mask = 0;
};
std::vector<RimTile> rim_tiles(const Description& d, const Pair& pair);

// The 8 tiles of a bridge terrain, in painting order: NAME-ew, NAME-ew-w, NAME-ew-e, NAME-ew-w-e
// (deck running east-west; ends where the bridge meets land on the west, east or both sides), then
// NAME-ns, NAME-ns-n, NAME-ns-s, NAME-ns-n-s (each the east-west tile turned a quarter
// clockwise: its west end becomes the north end).
struct BridgeTile {
    std::string name;
    bool north_south = false; // the deck runs north-south
    bool end_a = false;       // an end on the west (north-south: north) side
    bool end_b = false;       // an end on the east (north-south: south) side
};
std::vector<BridgeTile> bridge_tiles(const Terrain& bridge);

// The bridge tile of a cell from its 4 neighbours, each 0 = spanned (water), 1 = the bridge,
// 2 = anything else (land, road): the rule Terrain::bridge describes; index into bridge_tiles().
int bridge_tile_for(int n, int e, int s, int w);

} // namespace tilegen::paint
