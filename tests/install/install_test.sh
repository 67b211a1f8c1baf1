#!/usr/bin/env bash
# The installed package as a game sees it (issue 21), run by ctest (label "install", Release builds):
#   1. cmake --install BUILD into a temporary prefix
#   2. the example of docs/library.md, built with find_package(tilegen) and with pkg-config, runs and
#      writes a map; it links no SFML (ldd)
#   3. examples/endless built against the prefix walks 10 000 cells under Xvfb: mean frame <= 16 ms,
#      resident memory at the end within 10 % of what it was at 10 % of the walk, the view complete
#      (every visible chunk drawn) in at least 90 % of the frames
#   4. the installed tilegen, run from another directory, generates with the installed samples (by
#      name and by path), the same bytes as the build tree's tilegen; its man page is there
#   5. cpack's .deb lists the files; dpkg installs it into a scratch root (apt resolves its
#      dependencies) and tilegen from there generates the same bytes
# Usage: install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

echo "== 1. install"
cmake --build "$build" --target tilegen tilegen_lib tilegen_man > "$tmp/build.log" 2>&1 || {
    cat "$tmp/build.log"
    fail "building the installed targets"
}
cmake --install "$build" --prefix "$prefix" > "$tmp/install.log"
for f in bin/tilegen include/tilegen/tilegen.hpp lib/libtilegen.a lib/cmake/tilegen/tilegenConfig.cmake \
    lib/pkgconfig/tilegen.pc share/man/man1/tilegen.1 share/tilegen/samples/meadows.toml \
    share/tilegen/rules share/tilegen/tilesets/overworld/tileset.png; do
    [ -e "$prefix/$f" ] || fail "not installed: $f"
done
# The public header needs nothing but the standard library.
if grep -E '#include <(toml|tinyxml2|zlib|png|SFML)' "$prefix/include/tilegen/tilegen.hpp"; then
    fail "the public header includes a third-party header"
fi

echo "== 2. the docs/library.md example, with find_package(tilegen) and with pkg-config"
mkdir -p "$tmp/consumer" "$tmp/run"
# The first cpp and cmake blocks of the page.
awk '/^```cpp$/ {on=1; next} on && /^```$/ {exit} on' "$src/docs/library.md" > "$tmp/consumer/main.cpp"
awk '/^```cmake$/ {on=1; next} on && /^```$/ {exit} on' "$src/docs/library.md" > "$tmp/consumer/CMakeLists.txt"
[ "$(wc -l < "$tmp/consumer/main.cpp")" -ge 15 ] || fail "no C++ example found in docs/library.md"
cmake -S "$tmp/consumer" -B "$tmp/consumer/build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" "${launcher[@]}" > "$tmp/consumer.log" 2>&1 &&
    cmake --build "$tmp/consumer/build" >> "$tmp/consumer.log" 2>&1 || {
    cat "$tmp/consumer.log"
    fail "building the consumer with find_package(tilegen)"
}
(cd "$tmp/run" && "$tmp/consumer/build/mygame" "$prefix/share/tilegen/samples/meadows.toml") | tee "$tmp/consumer.out"
grep -q '^cell (10, 20): ' "$tmp/consumer.out" || fail "the consumer printed no cell"
[ -s "$tmp/run/out.tmx" ] && [ -s "$tmp/run/out-tiles.png" ] || fail "the consumer wrote no map"
if ldd "$tmp/consumer/build/mygame" | grep -i sfml; then fail "the consumer links SFML"; fi
echo "consumer links: $(ldd "$tmp/consumer/build/mygame" | awk '{print $1}' | grep -vE 'linux-vdso|ld-linux' | tr '\n' ' ')"
# The same with pkg-config (static libraries: --static adds their dependencies).
PKG_CONFIG_PATH=$prefix/lib/pkgconfig g++ -std=c++20 -O1 "$tmp/consumer/main.cpp" -o "$tmp/consumer/pc" \
    $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs --static tilegen) ||
    fail "building the consumer with pkg-config"
(cd "$tmp/run" && "$tmp/consumer/pc") | grep -q '^cell (10, 20): ' || fail "the pkg-config build does not run"
if ldd "$tmp/consumer/pc" | grep -i sfml; then fail "the pkg-config consumer links SFML"; fi

echo "== 3. examples/endless under Xvfb"
cmake -S "$src/examples/endless" -B "$tmp/endless" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
    "${launcher[@]}" > "$tmp/endless.log" 2>&1 && cmake --build "$tmp/endless" >> "$tmp/endless.log" 2>&1 || {
    cat "$tmp/endless.log"
    fail "building examples/endless"
}
command -v xvfb-run > /dev/null || fail "xvfb-run is missing (Debian: apt-get install xvfb xauth)"
xvfb-run -a -s "-screen 0 1024x768x24" "$tmp/endless/endless" --frames "${TILEGEN_ENDLESS_FRAMES:-2000}" \
    --walk 10000 > "$tmp/endless.out" 2> "$tmp/endless.err" || {
    cat "$tmp/endless.out" "$tmp/endless.err"
    fail "endless failed"
}
cat "$tmp/endless.out"
awk '
/^frames / { for (i = 1; i <= NF; i++) if ($i == "mean") mean = $(i + 1) }
/^memory / { gsub(",", ""); early = $6; end = $9 }
/^chunks made / { for (i = 1; i <= NF; i++) if ($i == "in") complete = $(i + 1) }
END {
    gsub("%", "", complete)
    ok = 1
    if (mean == "" || mean + 0 > 16) { print "mean frame time " mean " ms > 16 ms"; ok = 0 }
    if (early + 0 <= 0 || end > early * 1.1 || end < early * 0.9) { print "memory not flat: " early " -> " end " MiB"; ok = 0 }
    if (complete + 0 < 90) { print "the view was complete in only " complete "% of the frames"; ok = 0 }
    exit ok ? 0 : 1
}' "$tmp/endless.out" || fail "endless figures out of bounds"

echo "== 4. the installed tilegen, from another directory"
mkdir -p "$tmp/elsewhere"
cd "$tmp/elsewhere"
"$prefix/bin/tilegen" generate meadows --seed 3 --size 40x30 -o by-name.tmx
"$prefix/bin/tilegen" generate "$prefix/share/tilegen/samples/cave.toml" --seed 3 --size 40x30 -o by-path.tmx
"$build/src/tilegen" generate "$src/samples/meadows.toml" --seed 3 --size 40x30 -o tree.tmx 2> /dev/null
cmp by-name-tiles.png tree-tiles.png && cmp by-name.png tree.png || fail "the installed tilegen's outputs differ"
[ -s by-path.tmx ] || fail "no map from the installed cave sample"
MANWIDTH=80 man -l "$prefix/share/man/man1/tilegen.1" 2> /dev/null | grep -q 'tilegen generate' ||
    grep -q 'tilegen generate' "$prefix/share/man/man1/tilegen.1" || fail "the man page lacks the commands"

echo "== 5. the .deb"
(cd "$build" && cpack -G DEB -B "$tmp/deb" > "$tmp/cpack.log" 2>&1) || {
    cat "$tmp/cpack.log"
    fail "cpack"
}
deb=$(ls "$tmp"/deb/tilegen_*.deb)
dpkg-deb -c "$deb" > "$tmp/deb.list"
for f in ./usr/bin/tilegen ./usr/include/tilegen/tilegen.hpp ./usr/share/tilegen/samples/meadows.toml \
    ./usr/share/man/man1/tilegen.1; do
    grep -q " $f\$" "$tmp/deb.list" || fail ".deb lacks $f"
done
grep -q " ./usr/lib/.*/libtilegen.a$\| ./usr/lib/libtilegen.a$" "$tmp/deb.list" || fail ".deb lacks libtilegen.a"
dpkg-deb -f "$deb" Depends
# dpkg installs it into a scratch root (its database empty there, so the dependencies are forced;
# apt resolves them against this machine's packages), and tilegen runs from there.
root=$tmp/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
dpkg --root="$root" --force-depends --force-script-chrootless -i "$deb" > "$tmp/dpkg.log" 2>&1 || {
    cat "$tmp/dpkg.log"
    fail "dpkg -i into a scratch root"
}
dpkg --root="$root" -s tilegen | grep -q '^Status: install ok installed' || fail "dpkg did not install it"
if command -v apt-get > /dev/null; then
    apt-get install -s "$deb" > "$tmp/apt.log" 2>&1 || {
        cat "$tmp/apt.log"
        fail "apt cannot resolve the .deb's dependencies"
    }
fi
"$root/usr/bin/tilegen" generate meadows --seed 3 --size 40x30 -o from-deb.tmx
cmp from-deb-tiles.png tree-tiles.png || fail "tilegen from the .deb differs"
echo "install test passed"
