// BitmapFont: the viewer's text, drawn with a 5x8 pixel font defined as data in bitmap_font.cpp
// (made for tilegen; no system font files are read). Input: ASCII text (characters outside 32..126
// draw as '?'), a position, a color and an integer scale. Output: textured quads appended to an
// sf::VertexArray (primitive sf::Quads) over texture(); draw the array with that texture.
// Invariants: every glyph advances kAdvance pixels (times the scale); a line is kLineHeight pixels
// tall; glyph rows 0..6 hold capitals and digits (baseline under row 6), row 7 holds descenders.
#pragma once

#include <SFML/Graphics/Color.hpp>
#include <SFML/Graphics/Texture.hpp>
#include <SFML/Graphics/VertexArray.hpp>
#include <SFML/System/Vector2.hpp>
#include <array>
#include <string_view>

namespace tilegen::viewer {

class BitmapFont {
  public:
    static constexpr int kGlyphWidth = 5;
    static constexpr int kGlyphHeight = 8;
    static constexpr int kAdvance = 6;     // glyph width + 1 pixel of spacing
    static constexpr int kLineHeight = 10; // glyph height + 2 pixels of spacing
    static constexpr int kFirst = 32, kLast = 126;

    // The rows of a glyph as text, '#' = ink, '.' = none; nullptr rows never occur for
    // kFirst..kLast.
    static const std::array<const char*, kGlyphHeight>& glyph(char c);

    // Builds the glyph texture (call once a graphics context exists). Returns false when it cannot
    // be created.
    bool load();
    const sf::Texture& texture() const { return texture_; }

    // Appends the quads of `text` (one line; '\n' starts a new line at x) with its top-left at
    // `pos`.
    void add_text(sf::VertexArray& quads, std::string_view text, sf::Vector2f pos, sf::Color color,
                  int scale) const;
    // Width and height in pixels of `text` drawn at `scale` (the longest line; lines count).
    static float text_width(std::string_view text, int scale);
    static float text_height(std::string_view text, int scale);

  private:
    sf::Texture texture_;
};

// Appends a solid rectangle (a quad with texture coordinates on the font texture's blank texel), so
// panels and text go into one vertex array and one draw call.
void add_rect(sf::VertexArray& quads, sf::Vector2f pos, sf::Vector2f size, sf::Color color);

} // namespace tilegen::viewer
