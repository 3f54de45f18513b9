"""scripts/isa_enumerate.py and isa_classify.py on a synthetic decoder whose encoding is known.

The fake ISA: bits 0..11 opcode (0x001 ADD, 0x002 MOV), 12..14 guard predicate, 15 its negation,
16..23 destination register, 24..31 source register, 40 .SAT (ADD only), 41..42 rounding (value 3
reserved, printed INVALID3), 44 .HI (only under .SAT), 50 source is a uniform register, 60
ignored, 70 must be zero.
"""
import importlib.util
import pathlib
import random
import sys

SCRIPTS = pathlib.Path(__file__).resolve().parents[2] / "scripts"
sys.path.insert(0, str(SCRIPTS))
import isa_classify as ic  # noqa: E402
import isa_enumerate as ie  # noqa: E402
import isa_nvdisasm as nd  # noqa: E402


def fake_text(word):
    lo, hi = word
    op = {0x001: "ADD", 0x002: "MOV"}.get(lo & 0xFFF)
    if op is None or (hi >> 6) & 1:
        return None
    guard = f"@{'!' if (lo >> 15) & 1 else ''}P{(lo >> 12) & 7} "
    src = f"{'UR' if (lo >> 50) & 1 else 'R'}{(lo >> 24) & 0xFF}"
    mods = ""
    if op == "ADD":
        sat = (lo >> 40) & 1
        mods = (".SAT" if sat else "") + (".HI" if sat and (lo >> 44) & 1 else "")
        mods += ["", ".RM", ".RP", ".INVALID3"][(lo >> 41) & 3]
    return f"{guard}{op}{mods} R{(lo >> 16) & 0xFF}, {src}"


class FakeDecoder:
    version, calls = "fake", 0

    def decode(self, words):
        self.calls += 1
        return [nd.parse_statement(t) if (t := fake_text(nd.with_control(w))) else None for w in words]


def enumerated():
    en = ie.Enumerator(FakeDecoder(), random.Random(1), seeds_per_class=2, exhaustive_bits=10,
                       random_combos=16, log=lambda _: None)
    en.find_classes(0)
    en.classify(sorted(en.seeds))
    en.enumerate_forms()
    return en


def test_classify_flip_names_what_changed():
    base = nd.parse_statement("@P0 ADD R1, R2")
    k = nd.operand_kind
    assert ic.classify_flip(base, None, k) == ("r", -1)
    assert ic.classify_flip(base, nd.parse_statement("@P0 ADD.INVALID3 R1, R2"), k) == ("r", -1)
    assert ic.classify_flip(base, nd.parse_statement("@P0 ADD R1, R2"), k) == ("x", -1)
    assert ic.classify_flip(base, nd.parse_statement("@P0 MOV R1, R2"), k) == ("o", -1)
    assert ic.classify_flip(base, nd.parse_statement("@P0 ADD.SAT R1, R2"), k) == ("m", -1)
    assert ic.classify_flip(base, nd.parse_statement("@P0 ADD R1, UR2"), k) == ("k", -1)
    assert ic.classify_flip(base, nd.parse_statement("@P0 ADD R1, R3"), k) == ("f", 1)
    assert ic.classify_flip(base, nd.parse_statement("@!P0 ADD R1, R2"), k) == ("g", -1)


def test_every_bit_of_the_fake_encoding_is_classed():
    en = enumerated()
    assert set(en.maps) == {("ADD", 0x001), ("MOV", 0x002)}
    add = en.maps[("ADD", 0x001)].classes
    assert add[0:12] == ["o"] * 12
    assert add[12:16] == ["g"] * 4
    assert add[16:24] == ["f"] * 8 and add[24:32] == ["f"] * 8
    assert add[40:43] == ["m"] * 3
    assert add[50] == "k" and add[60] == "x" and add[70] == "r"
    assert all(c == "c" for c in add[105:126])
    mov = en.maps[("MOV", 0x002)].classes
    assert mov[40:43] == ["x"] * 3  # MOV prints no modifiers


def test_fields_split_operands_by_index():
    bm = enumerated().maps[("ADD", 0x001)]
    got = [(f.cls, f.shift, f.width, f.operand) for f in ic.fields(bm, "fgmk")]
    assert got == [("g", 12, 4, -1), ("f", 16, 8, 0), ("f", 24, 8, 1), ("m", 40, 3, -1), ("k", 50, 1, -1)]


def test_forms_and_variants_exclude_reserved_values():
    en = enumerated()
    variants = ie.build_variants(en)
    forms = {f for f, _ in variants}
    assert forms == {"ADD", "ADD.SAT", "ADD.RM", "ADD.RP", "ADD.SAT.RM", "ADD.SAT.RP", "MOV"}
    assert ("ADD.SAT.RP", "R, UR") in variants and ("MOV", "R, UR") in variants
    assert en.exhaustive[("ADD", 0x001)]


def test_a_variants_encoding_fixes_opcode_modifier_and_kind_bits():
    v = ie.build_variants(enumerated())[("ADD.SAT.RP", "R, UR")]
    for bit in list(range(12)) + [40, 41, 42, 50, 70]:
        assert (v.fixed_mask >> bit) & 1, bit
    for bit in list(range(12, 32)) + [60]:
        assert not (v.fixed_mask >> bit) & 1, bit
    assert v.fixed_value == 0x001 | (1 << 40) | (2 << 41) | (1 << 50)
    assert ic.variable_fields(v.fixed_mask) == [(12, 28), (43, 7), (51, 19), (71, 34), (126, 2)]


def test_field_values_name_each_modifier_value():
    en = enumerated()
    fields = en.modifier_values[("ADD", 0x001)]
    rounding = next(f for f in fields if f["shift"] == 40)
    assert rounding["values"] == {"0": "", "1": ".SAT", "2": ".RM", "3": ".SAT.RM", "4": ".RP",
                                  "5": ".SAT.RP", "6": None, "7": None}


def test_operand_kinds_abstract_registers_inside_keyword_operands():
    k = nd.operand_kind
    assert [k("R3.SIGN"), k("URZ"), k("PT"), k("c[0x0][0x10]"), k("0x1f"), k("SR_TID.X")] == \
        ["R", "UR", "P", "c", "imm", "SR"]
    assert k("tmem[UR12+0x10]") == "tmem[UR+imm]"


def test_the_decoder_names_illegal_words_and_bisects_unnamed_ones(monkeypatch):
    """nvdisasm names most illegal words by address and some not at all: both end up None."""
    dec = nd.Decoder.__new__(nd.Decoder)
    dec.calls, dec.jobs, dec.batch, dec._cache = 0, 1, 64, {}

    def fake_run(words):
        dec.calls += 1
        errs, out = [], []
        for i, w in enumerate(words):
            if w[0] == 0xBAD:
                errs.append(f"nvdisasm error   : Unrecognized operation at address 0x{16 * i:x}")
            elif w[0] == 0xDEAD:
                errs.append("nvdisasm error   : Illegal instruction found")
            else:
                out.append(f"        /*{16 * i:04x}*/                   NOP ;")
        return (1 if errs else 0), "\n".join(out), "\n".join(errs)

    monkeypatch.setattr(dec, "_run", fake_run)
    words = [(0x7918, 0)] * 5 + [(0xBAD, 0), (0xDEAD, 0)] + [(0x7918, 1)] * 9
    texts = dec._decode_chunk(words)
    assert texts[5] is None and texts[6] is None
    assert all(t == "NOP" for i, t in enumerate(texts) if i not in (5, 6))


def test_combine_keeps_the_strongest_evidence_over_seeds():
    """A bit one seed refuses and another ignores is constrained; one operand bit in any seed wins."""
    quiet, refused, operand = [("x", -1)] * 128, [("r", -1)] * 128, [("f", 2)] * 128
    assert ic.combine([quiet, refused], set()).classes[20] == "r"
    assert ic.combine([refused, operand, quiet], set()).classes[20] == "f"
    assert ic.combine([refused, operand], set()).operand[20] == 2
    bm = ic.combine([quiet], {3})
    assert bm.classes[3] == "o" and bm.classes[110] == "c"


def test_seeds_of_other_forms_find_bits_that_matter_only_under_a_modifier():
    en = enumerated()
    assert en.maps[("ADD", 0x001)].classes[44] == "x"  # the first seed has no .SAT
    grown = en.add_form_seeds(4)
    en.classify(grown)
    assert en.maps[("ADD", 0x001)].classes[44] == "m"
    en.enumerate_forms()
    assert "ADD.SAT.HI.RP" in {f for f, _ in ie.build_variants(en)}


def tiny_cubin(text: bytes) -> bytes:
    """An ELF64 file with a null section, .shstrtab and one .text.k section holding `text`."""
    import struct
    names = b"\0.shstrtab\0.text.k\0"
    body_at = 64
    names_at, text_at = body_at, body_at + len(names)
    shoff = text_at + len(text)
    header = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    header += struct.pack("<HHIQQQIHHHHHH", 2, 190, 1, 0, 0, shoff, 0, 64, 0, 0, 64, 3, 1)
    sections = struct.pack("<IIQQQQIIQQ", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    sections += struct.pack("<IIQQQQIIQQ", 1, 3, 0, 0, names_at, len(names), 0, 0, 1, 0)
    sections += struct.pack("<IIQQQQIIQQ", 11, 1, 6, 0, text_at, len(text), 0, 0, 128, 0)
    return header + names + text + sections


def test_text_words_reads_each_kernels_code_from_a_cubin():
    import struct
    import isa_seed_words as sw
    code = struct.pack("<QQQQ", 0x7918, 0x000FC00000000000, 0xDF00FF017B82, 0x000FE20000000800)
    assert sw.text_words(tiny_cubin(code)) == [(0x7918, 0x000FC00000000000), (0xDF00FF017B82, 0x000FE20000000800)]
    try:
        sw.text_words(b"not an elf")
        raise AssertionError("a non-ELF input was read")
    except ValueError:
        pass
