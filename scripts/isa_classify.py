"""Bit classification for the ISA enumerator: what flipping one bit of a valid word does to its text.

Pure logic over Statements (scripts/isa_nvdisasm.py), so tests drive it with synthetic decoders.
Classes, in the order a bit's evidence over several seed words is combined (the first wins):
  o  opcode       the base opcode changes (or the word becomes another instruction)
  m  modifier     the dotted mnemonic changes ("IMAD" -> "IMAD.WIDE")
  k  operand kind an operand's kind changes ("R" -> "UR"), the mnemonic stays
  f  operand      one operand's text changes, its kind stays (a register number, an immediate)
  g  guard        only the guard predicate changes ("@P0" -> "@!P0")
  r  reserved     the disassembler refuses the word, or prints a reserved value (INVALID, ???)
  x  ignored      the text stays the same
  c  control      the scheduling control word (bits 105..125), never varied
"""
from __future__ import annotations

from dataclasses import dataclass, field

CONTROL_BITS = range(105, 126)
PRIORITY = "omkfgrx"


def is_valid(st) -> bool:
    """Decoded, and without a reserved value (the disassembler prints those as INVALID<n> or ???<n>)."""
    return st is not None and "INVALID" not in st.text and "???" not in st.text


def flip(word: tuple[int, int], bit: int) -> tuple[int, int]:
    lo, hi = word
    return (lo ^ (1 << bit), hi) if bit < 64 else (lo, hi ^ (1 << (bit - 64)))


def get_bit(word: tuple[int, int], bit: int) -> int:
    return (word[0] >> bit) & 1 if bit < 64 else (word[1] >> (bit - 64)) & 1


def set_bits(word: tuple[int, int], bits: list[int], value: int) -> tuple[int, int]:
    """`word` with bits[i] set to bit i of `value`."""
    lo, hi = word
    for i, b in enumerate(bits):
        v = (value >> i) & 1
        if b < 64:
            lo = (lo & ~(1 << b)) | (v << b)
        else:
            hi = (hi & ~(1 << (b - 64))) | (v << (b - 64))
    return lo, hi


def kinds(st, kind_of) -> list[str]:
    return [kind_of(o) for o in st.operands]


def classify_flip(base, flipped, kind_of) -> tuple[str, int]:
    """Class of one flip and, for an operand bit, the operand's index (else -1)."""
    if not is_valid(flipped):
        return "r", -1
    if flipped.text == base.text:
        return "x", -1
    if flipped.opcode != base.opcode:
        return "o", -1
    if flipped.mnemonic != base.mnemonic:
        return "m", -1
    if kinds(flipped, kind_of) != kinds(base, kind_of):
        return "k", -1
    if flipped.operands == base.operands:
        return "g", -1
    changed = [i for i, (a, b) in enumerate(zip(base.operands, flipped.operands)) if a != b]
    return "f", changed[0] if changed else -1


@dataclass
class BitMap:
    """Per instruction bit: its class and, for operand bits, the operand index."""
    classes: list[str] = field(default_factory=lambda: ["x"] * 128)
    operand: list[int] = field(default_factory=lambda: [-1] * 128)

    def text(self) -> str:
        """128 characters, bit 127 first (reads like the hex word)."""
        return "".join(reversed(self.classes))

    def bits(self, cls: str) -> list[int]:
        return [i for i, c in enumerate(self.classes) if c == cls]


def combine(per_seed: list[list[tuple[str, int]]], fixed: set[int]) -> BitMap:
    """One BitMap from each seed's flips: per bit the strongest class any seed saw. `fixed` bits
    (the opcode field every seed shares) are 'o' without evidence; control bits are 'c'."""
    out = BitMap()
    for bit in range(128):
        if bit in CONTROL_BITS:
            out.classes[bit] = "c"
            continue
        if bit in fixed:
            out.classes[bit] = "o"
            continue
        seen = [s[bit] for s in per_seed if bit < len(s)]
        if not seen:
            continue
        best = min(seen, key=lambda cs: PRIORITY.index(cs[0]))
        out.classes[bit], out.operand[bit] = best
    return out


@dataclass
class Field:
    cls: str
    bits: list[int]  # ascending, contiguous
    operand: int = -1

    @property
    def shift(self) -> int:
        return self.bits[0]

    @property
    def width(self) -> int:
        return len(self.bits)


def fields(bm: BitMap, classes: str) -> list[Field]:
    """Maximal runs of adjacent bits of one class (and one operand, for operand bits)."""
    out: list[Field] = []
    for bit in range(128):
        c = bm.classes[bit]
        if c not in classes:
            continue
        last = out[-1] if out else None
        if last and last.cls == c and last.bits[-1] == bit - 1 and last.operand == bm.operand[bit]:
            last.bits.append(bit)
        else:
            out.append(Field(c, [bit], bm.operand[bit]))
    return out


def mask_of(bits) -> int:
    m = 0
    for b in bits:
        m |= 1 << b
    return m


def word_int(word: tuple[int, int]) -> int:
    return word[0] | (word[1] << 64)


def int_word(v: int) -> tuple[int, int]:
    return v & ((1 << 64) - 1), v >> 64


@dataclass
class Variant:
    """A form with one operand-kind signature: the bits all its instances share, and its fields."""
    form: str
    signature: str
    fixed_mask: int
    fixed_value: int
    example: str
    example_word: int
    count: int = 1

    def add(self, word: int) -> None:
        self.fixed_mask &= ~(word ^ self.fixed_value)
        self.fixed_value &= self.fixed_mask
        self.count += 1


def new_variant(form: str, sig: str, word: int, text: str, encoding_mask: int) -> Variant:
    """`encoding_mask`: the bits of the class that are not operands, guard, ignored or control."""
    return Variant(form, sig, encoding_mask, word & encoding_mask, text, word)


def variable_fields(mask: int) -> list[tuple[int, int]]:
    """[shift, width] runs of the bits a variant does not fix, outside the control word."""
    out, bit = [], 0
    while bit < 128:
        if (mask >> bit) & 1 or bit in CONTROL_BITS:
            bit += 1
            continue
        start = bit
        while bit < 128 and not (mask >> bit) & 1 and bit not in CONTROL_BITS:
            bit += 1
        out.append((start, bit - start))
    return out
