// endless: walk a character through an endless world that tilegen makes chunk by chunk
// (endless_game.hpp). A game built against the installed package: find_package(tilegen) and SFML.
//
//   endless [RECIPE] [--seed N] [--frames N] [--walk CELLS] [--screenshot OUT.png]
//
// Without RECIPE, the installed samples/meadows.toml. With --frames N the character walks east by
// itself for N frames (CELLS in all, default 10000), then the program prints the frame times,
// memory and chunk figures and exits.
#include "endless_game.hpp"

#include <iostream>
#include <optional>
#include <string>

int main(int argc, char** argv) {
    std::string recipe = std::string(TILEGEN_DATA_DIR) + "/samples/meadows.toml";
    std::optional<std::uint64_t> seed;
    tilegen_endless::Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--frames" && i + 1 < argc)
            options.frames = std::stol(argv[++i]);
        else if (arg == "--walk" && i + 1 < argc)
            options.walk_cells = std::stod(argv[++i]);
        else if (arg == "--screenshot" && i + 1 < argc)
            options.screenshot = argv[++i];
        else if (arg == "--seed" && i + 1 < argc)
            seed = std::stoull(argv[++i]);
        else if (!arg.empty() && arg[0] != '-')
            recipe = arg;
        else {
            std::cerr << "usage: endless [RECIPE] [--seed N] [--frames N] [--walk CELLS] "
                         "[--screenshot OUT.png]\n";
            return 2;
        }
    }
    tilegen::api::Diagnostics diags;
    auto generator = tilegen::api::Generator::from_file(recipe, diags);
    std::optional<tilegen::api::World> world;
    if (generator) {
        if (seed) generator->set_seed(*seed);
        world = generator->world(diags);
    }
    for (const auto& d : diags)
        std::cerr << d.text() << '\n';
    if (!world) return 1;
    return tilegen_endless::run(*world, options);
}
