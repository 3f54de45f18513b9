#!/usr/bin/env python3
"""Enumerates the SASS instruction set of one arch by asking the disassembler (issue 29).

  nice -n 19 .venv/bin/python scripts/isa_enumerate.py --arch sm_100a --out data/isa/sm_100a.json.gz

0. Seeds: every word of our SASS corpus (src/sass/corpus) compiled for the arch, and with
   --from-binary every word of a built binary's cubins for it (build/gpudissect: its probes).
1. Opcode field: every value of bits 0..11 over a few backgrounds (all zero, and random bits
   12..104/126..127) finds the encoding classes: (base opcode, opcode-field value) pairs.
2. Per class, each non-control bit of a few valid seed words is flipped alone and the text
   compared (scripts/isa_classify.py): opcode, modifier, operand-kind, operand, guard, reserved
   and ignored bits. A flip that lands on an opcode not seen yet adds a class.
3. After a first pass of step 4, words of up to 4 other forms of each class seed the flips again
   and step 4 runs again (a bit that matters only under another modifier, like BAR's reduction
   op under .RED, looks ignored from the first seed).
4. Per class, the modifier and operand-kind bits are enumerated: all combinations when there are
   at most --exhaustive-bits of them, else every value of each field alone plus random
   combinations (the class records which).
5. Every word the disassembler accepts joins a form (the dotted mnemonic) and a variant (form plus
   operand-kind signature); a variant's encoding is the bits its instances all share among the
   class's opcode, modifier, kind and reserved bits, and its fields are the rest.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import isa_classify as ic  # noqa: E402
from isa_nvdisasm import ARCH_FLAGS, Decoder, operand_kind, signature  # noqa: E402
from isa_seed_words import binary_words, compile_corpus  # noqa: E402

OPCODE_BITS = list(range(12))
FLIP_BITS = [b for b in range(12, 128) if b not in ic.CONTROL_BITS]


def backgrounds(count: int, rng: random.Random) -> list[tuple[int, int]]:
    """Bits 12 and up of the words the opcode field is tried on: zero, then random."""
    out = [(0, 0)]
    for _ in range(count):
        out.append((rng.getrandbits(64) & ~0xFFF, rng.getrandbits(64)))
    return out


class Enumerator:
    def __init__(self, decoder: Decoder, rng: random.Random, seeds_per_class: int,
                 exhaustive_bits: int, random_combos: int, log):
        self.d, self.rng, self.log = decoder, rng, log
        self.seeds_per_class = seeds_per_class
        self.exhaustive_bits, self.random_combos = exhaustive_bits, random_combos
        self.seeds: dict[tuple[str, int], list[tuple[int, int]]] = {}
        self.maps: dict[tuple[str, int], ic.BitMap] = {}
        self.exhaustive: dict[tuple[str, int], bool] = {}
        self.modifier_values: dict[tuple[str, int], list[dict]] = {}
        self.valid: dict[tuple[int, int], object] = {}  # every accepted word -> Statement
        self.words_decoded = 0
        self.compiled_opcodes: set[str] = set()

    def decode(self, words):
        self.words_decoded += len(words)
        sts = self.d.decode(words)
        for w, st in zip(words, sts):
            if ic.is_valid(st):
                self.valid[self.d_word(w)] = st
        return sts

    @staticmethod
    def d_word(w):
        from isa_nvdisasm import with_control
        return with_control(w)

    def note_seed(self, word, st) -> bool:
        key = (st.opcode, word[0] & 0xFFF)
        seeds = self.seeds.setdefault(key, [])
        if len(seeds) < self.seeds_per_class:
            seeds.append(self.d_word(word))
        return len(seeds) == 1

    def add_seed_words(self, words) -> None:
        """Words the compiler emitted: valid on every field at once, the best seeds there are."""
        words = sorted(set(words))
        for w, st in zip(words, self.decode(words)):
            if ic.is_valid(st):
                self.note_seed(w, st)
                self.compiled_opcodes.add(st.opcode)
        self.log(f"compiled code: {len(words)} distinct words, {len(self.seeds)} classes, "
                 f"{len({k[0] for k in self.seeds})} opcodes")

    def find_classes(self, n_backgrounds: int) -> None:
        words = [(bg[0] | op, bg[1]) for bg in backgrounds(n_backgrounds, self.rng) for op in range(4096)]
        for w, st in zip(words, self.decode(words)):
            if ic.is_valid(st):
                self.note_seed(w, st)
        self.log(f"opcode field: {len(words)} words, {len(self.seeds)} classes, "
                 f"{len({k[0] for k in self.seeds})} opcodes")

    def classify(self, keys) -> list[tuple[str, int]]:
        """Bit maps of these classes; returns the classes their flips discovered."""
        jobs = [(k, s) for k in keys for s in self.seeds[k]]
        words = [ic.flip(s, b) for _, s in jobs for b in FLIP_BITS]
        sts = self.decode(words + [s for _, s in jobs])
        base = sts[len(words):]
        per_class: dict = {}
        fresh = []
        for j, (key, seed) in enumerate(jobs):
            flips = sts[j * len(FLIP_BITS):(j + 1) * len(FLIP_BITS)]
            row = [("x", -1)] * 128
            for b, st in zip(FLIP_BITS, flips):
                row[b] = ic.classify_flip(base[j], st, operand_kind)
                if ic.is_valid(st) and (st.opcode, ic.flip(seed, b)[0] & 0xFFF) not in self.seeds:
                    if self.note_seed(ic.flip(seed, b), st):
                        fresh.append((st.opcode, ic.flip(seed, b)[0] & 0xFFF))
            per_class.setdefault(key, []).append(row)
        for key, rows in per_class.items():
            self.maps[key] = ic.combine(rows, set(OPCODE_BITS))
        return fresh

    def combos(self, key) -> list[tuple[int, int]]:
        """Words that vary a class's modifier and operand-kind bits from its first seed."""
        bm, seed = self.maps[key], self.seeds[key][0]
        bits = bm.bits("m") + bm.bits("k")
        if len(bits) <= self.exhaustive_bits:
            self.exhaustive[key] = True
            return [ic.set_bits(seed, bits, v) for v in range(1 << len(bits))]
        self.exhaustive[key] = False
        out = [ic.set_bits(seed, bits, self.rng.getrandbits(len(bits))) for _ in range(self.random_combos)]
        for f in ic.fields(bm, "mk"):
            values = range(1 << f.width) if f.width <= 8 else [self.rng.getrandbits(f.width) for _ in range(256)]
            out += [ic.set_bits(seed, f.bits, v) for v in values]
        return out

    def enumerate_forms(self) -> None:
        keys = sorted(self.maps)
        words = [w for k in keys for w in self.combos(k)]
        self.decode(words)
        self.log(f"forms: {len(words)} modifier combinations over {len(keys)} classes")
        for k in keys:
            self.modifier_values[k] = self.field_values(k)

    def add_form_seeds(self, per_class: int) -> list:
        """Words of other forms of each class as more seeds: a bit that only matters under another
        modifier (BAR's reduction op exists only with .RED) is seen ignored from the first seed."""
        by_class: dict = {}
        for w, st in self.valid.items():
            key = (st.opcode, w[0] & 0xFFF)
            if key in self.maps:
                by_class.setdefault(key, {}).setdefault(st.mnemonic, w)
        grown = []
        for key, forms in sorted(by_class.items()):
            known = {self.valid[s].mnemonic for s in self.seeds[key] if s in self.valid}
            extra = [w for m, w in sorted(forms.items()) if m not in known]
            if extra:
                picks = self.rng.sample(extra, min(per_class, len(extra)))
                self.seeds[key] = self.seeds[key] + picks
                grown.append(key)
        return grown

    def field_values(self, key) -> list[dict]:
        """Per modifier field of a class: the mnemonic suffix each value prints, others at the seed."""
        bm, seed = self.maps[key], self.seeds[key][0]
        out = []
        for f in ic.fields(bm, "mk"):
            if f.width > 8:
                out.append({"shift": f.shift, "width": f.width, "class": f.cls, "values": "too wide to list"})
                continue
            values = {}
            for v in range(1 << f.width):
                st = self.valid.get(self.d_word(ic.set_bits(seed, f.bits, v)))
                if st is None:
                    values[str(v)] = None
                else:
                    values[str(v)] = st.mnemonic[len(st.opcode):] if f.cls == "m" else signature(st)
            out.append({"shift": f.shift, "width": f.width, "class": f.cls, "values": values})
        return out


def encoding_mask(bm: ic.BitMap | None) -> int:
    if bm is None:
        return ic.mask_of(OPCODE_BITS)
    return ic.mask_of(b for b in range(128) if bm.classes[b] in "omkr")


def build_variants(en: Enumerator) -> dict[tuple[str, str], ic.Variant]:
    variants: dict[tuple[str, str], ic.Variant] = {}
    for w in sorted(en.valid):
        st = en.valid[w]
        key = (st.mnemonic, signature(st))
        word = ic.word_int(w)
        if key in variants:
            variants[key].add(word)
        else:
            bm = en.maps.get((st.opcode, w[0] & 0xFFF))
            variants[key] = ic.new_variant(st.mnemonic, key[1], word, st.text, encoding_mask(bm))
    return variants


def hex128(v: int) -> str:
    return f"0x{v:032x}"


def class_json(en: Enumerator, key) -> dict:
    bm = en.maps[key]
    return {"opcode": key[0], "opcode_field": f"0x{key[1]:03x}", "bits": bm.text(),
            "seed": hex128(ic.word_int(en.seeds[key][0])),
            "example": en.valid[en.seeds[key][0]].text if en.seeds[key][0] in en.valid else None,
            "forms_exhaustive": en.exhaustive.get(key, False),
            "modifier_fields": en.modifier_values.get(key, []),
            "operand_fields": [{"operand": f.operand, "shift": f.shift, "width": f.width, "class": f.cls}
                               for f in ic.fields(bm, "fg")]}


FORMAT = ("forms: {form: [[signature index, class index (-1: none), instances, fixed value, "
          "differ, example word]]}. A variant's fixed mask is its class's encoding mask (the bits "
          "classed o, m, k or r) less `differ` (the bits its instances do not share); its fields "
          "are the runs of the other bits outside the control word. Words are 128-bit hex, bit 0 "
          "the lowest; a class's `bits` string lists bit 127 first.")


def to_json(en: Enumerator, variants, args, seconds: float) -> dict:
    keys = sorted(en.maps)
    class_index = {k: i for i, k in enumerate(keys)}
    sigs = sorted({sig for _, sig in variants})
    sig_index = {s: i for i, s in enumerate(sigs)}
    forms: dict[str, list] = {}
    for (form, sig), v in sorted(variants.items()):
        key = (form.split(".", 1)[0], v.example_word & 0xFFF)
        cls = class_index.get(key, -1)
        mask = encoding_mask(en.maps.get(key))
        forms.setdefault(form, []).append(
            [sig_index[sig], cls, v.count, f"{v.fixed_value:x}", f"{mask & ~v.fixed_mask:x}", f"{v.example_word:x}"])
    opcodes = sorted({f.split(".", 1)[0] for f in forms})
    return {
        "arch": args.arch,
        "source": "enumerated from the disassembler (scripts/isa_enumerate.py)",
        "command": f"nice -n 19 .venv/bin/python scripts/isa_enumerate.py --arch {args.arch} "
                   f"--seed {args.seed} --backgrounds {args.backgrounds}"
                   + (f" --from-binary {args.seed_binary}" if args.seed_binary else "") + f" --out {args.out}",
        "nvdisasm": en.d.version,
        "seconds": round(seconds, 1),
        "nvdisasm_calls": en.d.calls,
        "words_decoded": en.words_decoded,
        "bit_classes": [l.strip() for l in ic.__doc__.strip().splitlines()[3:11]],
        "format": FORMAT,
        "counts": {"opcodes": len(opcodes), "encoding_classes": len(keys), "forms": len(forms),
                   "encoding_variants": len(variants), "class_signatures": class_signatures(en),
                   "valid_words": len(en.valid)},
        "opcodes": opcodes,
        # Opcodes of the corpus compiled for the arch: what a compiled-code survey can see.
        "compiled_opcodes": sorted(en.compiled_opcodes),
        "signatures": sigs,
        "classes": [class_json(en, k) for k in keys],
        "forms": forms,
    }


def class_signatures(en: Enumerator) -> int:
    """(encoding class, operand-kind signature) pairs: modifiers set aside, the closest match to the
    reference's 'encoding variants' (a fixed base plus operand fields)."""
    return len({(st.opcode, w[0] & 0xFFF, signature(st)) for w, st in en.valid.items()})


def write_json(path: str, doc: dict) -> None:
    text = json.dumps(doc, separators=(",", ":"), sort_keys=False) + "\n"
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    if path.endswith(".gz"):
        with gzip.GzipFile(tmp, "wb", mtime=0) as f:  # mtime 0: the same tables, the same bytes
            f.write(text.encode())
    else:
        with open(tmp, "w") as f:
            f.write(text)
    os.replace(tmp, path)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--arch", required=True)
    p.add_argument("--out", required=True, help="output JSON (.json.gz compresses)")
    p.add_argument("--seed", type=int, default=29)
    p.add_argument("--backgrounds", type=int, default=16, help="random backgrounds for the opcode field")
    p.add_argument("--seeds-per-class", type=int, default=3)
    p.add_argument("--form-seeds", type=int, default=4, help="seeds of other forms per class, second pass")
    p.add_argument("--exhaustive-bits", type=int, default=10)
    p.add_argument("--random-combos", type=int, default=1024)
    p.add_argument("--corpus", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "sass", "corpus"),
                   help="folder of .cu files whose compiled words seed the search ('' for none)")
    p.add_argument("--from-binary", "--seed-binary", dest="seed_binary", default="", help="a built binary whose cubins for the arch seed the search too")
    p.add_argument("--jobs", type=int, default=2, help="nvdisasm processes at once")
    p.add_argument("--cache-dir", default=os.path.expanduser("~/.cache/gpudissect"),
                   help="decoded words kept here ('' turns the cache off)")
    args = p.parse_args(argv)
    if args.arch not in ARCH_FLAGS:
        print(f"isa_enumerate: unknown arch {args.arch!r} (known: {', '.join(ARCH_FLAGS)})", file=sys.stderr)
        return 2
    start = time.time()
    log = lambda msg: print(f"[{time.time() - start:6.1f}s] {args.arch} {msg}", file=sys.stderr, flush=True)
    decoder = Decoder(args.arch, jobs=args.jobs, cache_dir=args.cache_dir or None)
    en = Enumerator(decoder, random.Random(args.seed), args.seeds_per_class, args.exhaustive_bits,
                    args.random_combos, log)
    if args.corpus:
        en.add_seed_words(compile_corpus(args.corpus, args.arch, args.jobs))
    if args.seed_binary:
        cuobjdump = os.path.join(os.path.dirname(decoder.nvdisasm), "cuobjdump")
        en.add_seed_words(binary_words(args.seed_binary, args.arch, cuobjdump))
    en.find_classes(args.backgrounds)
    todo = sorted(en.seeds)
    for round_ in range(3):  # flips reach opcodes the opcode field alone did not
        fresh = en.classify(todo)
        log(f"classify round {round_}: {len(todo)} classes, {len(fresh)} new")
        todo = sorted(set(fresh) - set(en.maps))
        if not todo:
            break
    en.enumerate_forms()
    grown = en.add_form_seeds(args.form_seeds)
    en.classify(grown)  # the bit maps again, over the first seeds and these
    en.enumerate_forms()
    log(f"refined {len(grown)} classes with seeds of their other forms")
    decoder.save_cache()
    variants = build_variants(en)
    doc = to_json(en, variants, args, time.time() - start)
    write_json(args.out, doc)
    log(f"wrote {args.out}: {json.dumps(doc['counts'])}, {decoder.calls} nvdisasm calls")
    return 0


if __name__ == "__main__":
    sys.exit(main())
