"""The bitmap font of pictures moved to ``tictacgo.games.bitmap_font`` (the games draw themselves); kept here
so that old imports keep working."""

from tictacgo.games.bitmap_font import GLYPH_HEIGHT, GLYPH_WIDTH, draw_text, text_mask

__all__ = ["GLYPH_HEIGHT", "GLYPH_WIDTH", "draw_text", "text_mask"]
