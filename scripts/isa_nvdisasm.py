"""Decodes raw 128-bit SASS instruction words with nvdisasm's raw-binary mode, thousands per call.

nvdisasm refuses a whole input when any word is illegal. Most illegal words it names by address
("Unrecognized operation ... at address 0x40"); those are swapped for a NOP and the batch run
again. A few it reports without an address ("Illegal instruction found" alone): the batch is then
halved until each such word stands alone. Results are cached per arch and nvdisasm build, so a
second enumeration replays from disk.
"""
from __future__ import annotations

import os
import pickle
import re
import shutil
import struct
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

# Instruction bits 105..125 hold the scheduling control word (src/sass/control.hpp); the
# disassembler's raw mode does not print them, so every word carries the same idle value.
CONTROL_MASK_HI = ((1 << 21) - 1) << 41
IDLE_CONTROL_HI = 0x000FC00000000000  # what ptxas writes on padding NOPs
NOP_WORD = (0x7918, IDLE_CONTROL_HI)  # NOP on Volta and later

ARCH_FLAGS = {"sm_90a": "SM90a", "sm_100a": "SM100a", "sm_120a": "SM120a"}

_ADDRESS_RE = re.compile(r"at address 0x([0-9a-fA-F]+)")
_REGISTER_RE = re.compile(r"(?<![A-Za-z0-9_.])(UR|UP|R|P|B)(?:\d+|Z|T)\b")
_NUMBER_RE = re.compile(r"(?<![A-Za-z0-9_])(?:0x[0-9a-fA-F]+|\d+(?:\.\d+)?(?:e[+-]?\d+)?)")
_LINE_RE = re.compile(r"^\s*/\*([0-9a-fA-F]+)\*/\s*(.*?)\s*;?\s*$")


def find_nvdisasm() -> str:
    """$GPUDISSECT_NVDISASM, PATH, the toolkit, then the nvidia-cuda-nvdisasm wheel."""
    env = os.environ.get("GPUDISSECT_NVDISASM")
    if env:
        return env
    for cand in (shutil.which("nvdisasm"), "/usr/local/cuda/bin/nvdisasm"):
        if cand and os.access(cand, os.X_OK):
            return cand
    for root in wheel_roots():
        for sub in ("cu13", "cuda_nvdisasm"):
            cand = os.path.join(root, sub, "bin", "nvdisasm")
            if os.access(cand, os.X_OK):
                return cand
    raise FileNotFoundError("nvdisasm not found: install the CUDA toolkit or set GPUDISSECT_NVDISASM")


def wheel_roots() -> list[str]:
    """The nvidia/ package folders of this Python and of python3 on PATH (the wheels may live in
    either: a venv without them still finds the system's)."""
    roots = []
    try:
        import nvidia
        roots += list(nvidia.__path__)
    except ImportError:
        pass
    r = subprocess.run(["python3", "-c", "import nvidia; print('\\n'.join(nvidia.__path__))"],
                       capture_output=True, text=True)
    return roots + r.stdout.split()


def nvdisasm_version(nvdisasm: str) -> str:
    out = subprocess.run([nvdisasm, "--version"], capture_output=True, text=True).stdout
    lines = [l for l in out.splitlines() if "release" in l or l.startswith("Build")]
    return "; ".join(lines)


def with_control(word: tuple[int, int]) -> tuple[int, int]:
    lo, hi = word
    return lo, (hi & ~CONTROL_MASK_HI) | (IDLE_CONTROL_HI & CONTROL_MASK_HI)


@dataclass
class Statement:
    """One decoded instruction: '@!P0 IMAD.WIDE.U32 R2, R3, 0x4, R4'."""
    text: str
    guard: str
    mnemonic: str  # with modifiers
    operands: list[str]

    @property
    def opcode(self) -> str:
        return self.mnemonic.split(".", 1)[0]


def split_operands(text: str) -> list[str]:
    """Commas at bracket depth 0 separate operands (src/sass/disasm.cpp splits the same way)."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[({":
            depth += 1
        elif ch in "])}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def parse_statement(text: str) -> Statement:
    text = text.strip().rstrip(";").strip()
    guard = ""
    if text.startswith("@"):
        guard, _, text = text.partition(" ")
        text = text.strip()
    mnemonic, _, rest = text.partition(" ")
    return Statement(text=(guard + " " + text).strip(), guard=guard, mnemonic=mnemonic,
                     operands=split_operands(rest))


def operand_kind(op: str) -> str:
    """The kind of one operand, as src/sass/isa.cpp's operand_kind names it."""
    o = op.lstrip("-!|~")
    if not o:
        return "?"
    if o.startswith("desc["):
        return "desc"
    if o.startswith("c[") or o.startswith("cx["):
        return "c"
    if o[0] == "[":
        return "mem"
    for prefix, kind in (("SR_", "SR"), ("UR", "UR"), ("UP", "UP")):
        if o.startswith(prefix):
            return kind
    if o[0] == "R" and (len(o) == 1 or o[1].isdigit() or o.startswith("RZ")):
        return "R"
    if o[0] == "P" and len(o) > 1 and (o[1].isdigit() or o[1] == "T"):
        return "P"
    if o[0] == "B" and len(o) > 1 and o[1].isdigit():
        return "B"
    if o[0] in "`+" or o.startswith("0x") or o[0].isdigit() or "INF" in o or "NAN" in o:
        return "imm"
    # A keyword operand (a LUT name, a mode, "tmem[UR4+0x10]") is part of the form, with its
    # registers and numbers abstracted as the other kinds are.
    o = _REGISTER_RE.sub(lambda m: m.group(1), o)
    return _NUMBER_RE.sub("imm", o)


def signature(st: Statement) -> str:
    return ", ".join(operand_kind(o) for o in st.operands)


class Decoder:
    """Decodes words for one arch; decode() returns a Statement or None (illegal) per word."""

    def __init__(self, arch: str, nvdisasm: str | None = None, jobs: int = 2, batch: int = 4096,
                 cache_dir: str | None = None):
        if arch not in ARCH_FLAGS:
            raise ValueError(f"unknown arch {arch!r} (known: {', '.join(ARCH_FLAGS)})")
        self.arch, self.flag = arch, ARCH_FLAGS[arch]
        self.nvdisasm = nvdisasm or find_nvdisasm()
        self.version = nvdisasm_version(self.nvdisasm)
        self.jobs, self.batch = jobs, batch
        self.calls = 0
        self._cache: dict[tuple[int, int], str | None] = {}
        self._cache_path = None
        if cache_dir:
            key = re.sub(r"[^A-Za-z0-9]+", "_", self.version)[-60:]
            self._cache_path = os.path.join(cache_dir, f"isa-enum-{arch}-{key}.pickle")
            if os.path.exists(self._cache_path):
                with open(self._cache_path, "rb") as f:
                    self._cache = pickle.load(f)

    def save_cache(self) -> None:
        if self._cache_path:
            os.makedirs(os.path.dirname(self._cache_path), exist_ok=True)
            tmp = self._cache_path + ".tmp"
            with open(tmp, "wb") as f:
                pickle.dump(self._cache, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, self._cache_path)

    def decode(self, words: list[tuple[int, int]]) -> list[Statement | None]:
        words = [with_control(w) for w in words]
        todo = sorted({w for w in words if w not in self._cache})
        chunks = [todo[i:i + self.batch] for i in range(0, len(todo), self.batch)]
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            for chunk, texts in zip(chunks, pool.map(self._decode_chunk, chunks)):
                self._cache.update(zip(chunk, texts))
        return [parse_statement(t) if (t := self._cache[w]) is not None else None for w in words]

    def _run(self, words: list[tuple[int, int]]) -> tuple[int, str, str]:
        with tempfile.NamedTemporaryFile(suffix=".bin", delete=False) as f:
            f.write(b"".join(struct.pack("<QQ", lo, hi) for lo, hi in words))
            path = f.name
        try:
            self.calls += 1
            r = subprocess.run(["nice", "-n", "19", self.nvdisasm, "-b", self.flag, "-ndf", path],
                               capture_output=True, text=True)
            return r.returncode, r.stdout, r.stderr
        finally:
            os.unlink(path)

    def _decode_chunk(self, words: list[tuple[int, int]]) -> list[str | None]:
        """Texts of one chunk; None for the words nvdisasm refuses."""
        out: list[str | None] = [None] * len(words)
        live = list(range(len(words)))  # indices still to decode
        current = list(words)
        while live:
            rc, stdout, stderr = self._run(current)
            alive = set(live)
            if rc == 0:
                for index, text in parse_listing(stdout).items():
                    if index in alive:
                        out[index] = text
                return out
            named = {int(a, 16) // 16 for a in _ADDRESS_RE.findall(stderr)} & alive
            if not named:
                return self._bisect(words, live, out)
            for i in named:
                current[i] = NOP_WORD
            live = [i for i in live if i not in named]
        return out

    def _bisect(self, words, live, out):
        """Halves a batch whose illegal word nvdisasm would not name, until it stands alone."""
        if len(live) == 1:
            return out
        half = len(live) // 2
        for part in (live[:half], live[half:]):
            texts = self._decode_chunk([words[i] for i in part])
            for i, t in zip(part, texts):
                out[i] = t
        return out


def parse_listing(stdout: str) -> dict[int, str]:
    """nvdisasm -b output: instruction index (address / 16) -> statement text."""
    out = {}
    for line in stdout.splitlines():
        m = _LINE_RE.match(line)
        if m and m.group(2):
            out[int(m.group(1), 16) // 16] = m.group(2)
    return out
