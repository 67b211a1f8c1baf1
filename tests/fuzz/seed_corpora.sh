#!/usr/bin/env bash
# Seeds the fuzz corpora from the repository's own files (nothing large is committed):
#   bash tests/fuzz/seed_corpora.sh SOURCE_DIR OUT_DIR [TILEGEN]
# makes OUT_DIR/<target>/ for every fuzz target. With TILEGEN (a built tilegen program), small generated maps
# are added too: TMX files in every layer encoding (plain and infinite), their <data> texts, and PFM heightfields.
set -euo pipefail
src=$(cd "$1" && pwd)
out=$2
tilegen=${3:-}
mkdir -p "$out"
out=$(cd "$out" && pwd)
for t in rule_parser recipe tileset_manifest sprite_sheet class_map_text class_map_png tmx layer_encoding pfm; do
    rm -rf "${out:?}/${t}_fuzz"
    mkdir -p "$out/${t}_fuzz"
done
n=0
# add TARGET FILE: copies FILE into TARGET's corpus under a unique name.
add() { n=$((n + 1)); cp "$2" "$out/$1_fuzz/$n-$(basename "$2")"; }
# text TARGET NAME: stdin into TARGET's corpus.
text() { n=$((n + 1)); cat > "$out/$1_fuzz/$n-$2"; }

shopt -s nullglob
for f in "$src"/rules/*.rules "$src"/tests/data/*/rules.rules; do add rule_parser "$f"; done
for f in "$src"/samples/*.toml; do add recipe "$f"; done
for f in "$src"/tilesets/*/tileset.toml; do add tileset_manifest "$f"; done
for f in "$src"/tilesets/*/objects.toml; do add sprite_sheet "$f"; done
for f in "$src"/tests/data/*/classes.txt; do add class_map_text "$f"; done
# Reproducers of bugs the fuzzers found (tests/fuzz/regressions/<target>/), so they stay fixed.
for d in "$src"/tests/fuzz/regressions/*/; do
    t=$(basename "$d")
    [ -d "$out/$t" ] && for f in "$d"*; do [ -f "$f" ] && cp "$f" "$out/$t/regression-$(basename "$f")"; done
done
# The ```toml examples of the docs: recipes, manifests and sprite sheets alike.
for doc in "$src"/README.md "$src"/docs/*.md; do
    awk -v dir="$out" -v base="$(basename "$doc" .md)" '
        /^```toml/ { on = 1; k++; f = dir "/recipe_fuzz/doc-" base "-" k ".toml"; next }
        /^```/ { on = 0; next }
        on { print > f }' "$doc"
done
for f in "$out"/recipe_fuzz/doc-*.toml; do cp "$f" "$out/tileset_manifest_fuzz/"; cp "$f" "$out/sprite_sheet_fuzz/"; done
# The rule examples of docs/rules.md (plain ``` blocks).
awk -v dir="$out/rule_parser_fuzz" '
    /^```$/ { if (on) { on = 0 } else { on = 1; k++; f = dir "/doc-rules-" k ".rules" } next }
    /^```/ { next }
    on { print > f }' "$src/docs/rules.md" 2>/dev/null || true

# Class map images: 5x4 water/sand/grass in the fuzz recipe's colours (RGB and RGBA PNG), and the tilesets.
base64 -d > "$out/class_map_png_fuzz/classes-rgb.png" <<'B64'
iVBORw0KGgoAAAANSUhEUgAAAAUAAAAECAIAAADJUWIXAAAAIUlEQVR42mMwSDgARBcONACRwwIHBmQOiI/MgfLhHCACAObNHaFBkjb1AAAAAElFTkSuQmCC
B64
base64 -d > "$out/class_map_png_fuzz/classes-rgba.png" <<'B64'
iVBORw0KGgoAAAANSUhEUgAAAAUAAAAECAYAAABGM/VAAAAAJElEQVR42mMwSDjwH4QvHGgAY4cFDv8Z0AXAgugCcEFkARAGAFUCMY3vIe32AAAAAElFTkSuQmCC
B64
for f in "$src"/tilesets/*/*.png; do
    [ "$(stat -c %s "$f")" -le 65536 ] && add class_map_png "$f"
done

# A small hand-written TMX with an inline tileset (terrain properties), and one using the default fuzz.tsx.
text tmx inline.tmx <<'TMX'
<?xml version="1.0" encoding="UTF-8"?>
<map version="1.10" orientation="orthogonal" renderorder="right-down" width="4" height="3" tilewidth="8" tileheight="8" infinite="0">
 <tileset firstgid="1" name="t" tilewidth="8" tileheight="8" tilecount="3" columns="3">
  <tile id="0"><properties><property name="terrain" value="water"/></properties></tile>
  <tile id="1"><properties><property name="terrain" value="s"/></properties></tile>
  <tile id="2"><properties><property name="terrain" value="grass"/></properties></tile>
 </tileset>
 <layer id="1" name="ground" width="4" height="3">
  <data encoding="csv">
1,1,2,3,
1,2,3,3,
2,3,3,2147483651
</data>
 </layer>
</map>
TMX
text tmx external.tmx <<'TMX'
<?xml version="1.0" encoding="UTF-8"?>
<map version="1.10" orientation="orthogonal" width="3" height="2" tilewidth="8" tileheight="8" infinite="0">
 <tileset firstgid="1" source="fuzz.tsx"/>
 <layer id="1" name="ground" width="3" height="2"><data encoding="csv">1,2,3,4,3,1</data></layer>
</map>
TMX
# Layer data: selector byte (encoding), expected tile count (2 bytes, little-endian), then the text.
printf '\000\006\0001,2,3,\n4,5,6\n' > "$out/layer_encoding_fuzz/csv"
printf '\001\002\000AQAAAAIAAIA=' > "$out/layer_encoding_fuzz/base64"
# PFM: 2x2, little-endian.
printf 'Pf\n2 2\n-1.0\n\000\000\000\000\000\000\200\077\000\000\000\077\000\000\200\076' > "$out/pfm_fuzz/2x2.pfm"

if [ -n "$tilegen" ]; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    # quiet COMMAND...: runs it, showing its output only when it fails.
    quiet() { "$@" > "$work/log" 2>&1 || { cat "$work/log" >&2; return 1; }; }
    # A tiny project with the fuzz recipe's classes (tmx_fuzz reads maps with them): 4x4-pixel tiles, two
    # layers, a turned tile; its maps and tilesets stay small, so the fuzzers run fast on them.
    base64 -d > "$work/tiles.png" <<'B64'
iVBORw0KGgoAAAANSUhEUgAAABAAAAAECAYAAACHtL/sAAAAIUlEQVR42mMwSDjwHxlfONCAgh0WOKBghQYDFMww9A0AAIzYlMG0Glw/AAAAAElFTkSuQmCC
B64
    printf 'image = "tiles.png"\ntile_width = 4\ntile_height = 4\n[tiles]\nwater = 0\nsand = 1\ngrass = 2\nflowers = 3\n' \
        > "$work/tiles.toml"
    printf '??? ?w? ???  water\n?w? ?s? ???  sand@r90\n??? ?s? ???  sand\n??? ?g? ???  grass flowers*0.3\n[decor]\nggg ggg ggg  flowers*0.2 @none\n?  @none\n' \
        > "$work/tiny.rules"
    printf '[map]\nwidth = 12\nheight = 8\n[[terrain]]\nname = "water"\nsymbol = "w"\nshare = 0.35\n[[terrain]]\nname = "sand"\nsymbol = "s"\nshare = 0.15\n[[terrain]]\nname = "grass"\nsymbol = "g"\nshare = 0.5\n[rules]\nfiles = ["tiny.rules"]\n[tileset]\npath = "tiles.toml"\n' \
        > "$work/tiny.toml"
    cp "$work/tiny.toml" "$out/recipe_fuzz/tiny.toml"
    cp "$work/tiles.toml" "$out/tileset_manifest_fuzz/tiny.toml"
    cp "$work/tiny.rules" "$out/rule_parser_fuzz/tiny.rules"
    for enc in csv base64 base64+zlib base64+gzip base64+zstd; do
        quiet "$tilegen" generate "$work/tiny.toml" --seed 3 -o "$work/fuzz.tmx" --png none --encoding "$enc"
        { cat "$work/fuzz.tmx"; printf '\000'; cat "$work/fuzz.tsx"; } > "$out/tmx_fuzz/gen-$enc.tmx"
        # The first layer's <data> text, for the layer decoder (12 x 8 = 96 tiles).
        case $enc in csv) sel=0 ;; base64) sel=1 ;; base64+zlib) sel=2 ;; base64+gzip) sel=3 ;; base64+zstd) sel=4 ;; esac
        { printf "\\$(printf '%03o' "$sel")\\140\\000"
          awk '/<data/ { on = 1; sub(/.*<data[^>]*>/, "") } on { if (sub(/<\/data>.*/, "")) { printf "%s", $0; exit } print }' \
              "$work/fuzz.tmx"; } > "$out/layer_encoding_fuzz/gen-$enc"
        quiet "$tilegen" generate "$work/tiny.toml" --seed 4 -o "$work/fuzz.tmx" --png none --encoding "$enc" \
            --infinite --chunk 4
        { cat "$work/fuzz.tmx"; printf '\000'; cat "$work/fuzz.tsx"; } > "$out/tmx_fuzz/gen-infinite-$enc.tmx"
    done
    quiet "$tilegen" generate "$work/tiny.toml" --seed 5 -o "$work/fuzz.tmx" --png none
    cp "$work/fuzz.tmx" "$out/tmx_fuzz/gen-default-tsx.tmx" # uses tmx_fuzz's built-in fuzz.tsx
    quiet "$tilegen" noise "$work/tiny.toml" --size 8x6 -o "$work/h.pfm"
    cp "$work/h.pfm" "$out/pfm_fuzz/gen-8x6.pfm"
    quiet "$tilegen" noise "$work/tiny.toml" --size 3x1 -o "$work/h.pfm"
    cp "$work/h.pfm" "$out/pfm_fuzz/gen-3x1.pfm"
    quiet "$tilegen" generate "$work/tiny.toml" --size 6x5 -o "$work/small.tmx" --png "$work/small.png"
    cp "$work/small.png" "$out/class_map_png_fuzz/gen-preview.png"
fi
for d in "$out"/*_fuzz; do printf '%s: %s seeds\n' "$(basename "$d")" "$(find "$d" -type f | wc -l)"; done
