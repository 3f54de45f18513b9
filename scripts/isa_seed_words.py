"""Valid instruction words from code the compiler emits: our SASS corpus (src/sass/corpus/*.cu)
compiled for one arch, and optionally a built binary's cubins (its probes: wgmma's BGMMA and the
like, which the corpus does not compile), each kernel's .text read out of the cubin. The enumerator starts from these
as well as from random words: some opcodes (texture fetches) are valid only with several fields
set at once, which random backgrounds rarely hit.
"""
from __future__ import annotations

import os
import shutil
import struct
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor


def text_words(cubin: bytes) -> list[tuple[int, int]]:
    """The 128-bit words of every .text.* section of an ELF64 cubin."""
    if cubin[:4] != b"\x7fELF" or cubin[4] != 2:
        raise ValueError("not an ELF64 cubin")
    shoff, = struct.unpack_from("<Q", cubin, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * shentsize) for i in range(shnum)]
    names_at = headers[shstrndx][4]

    def name(h) -> str:
        start = names_at + h[0]
        return cubin[start:cubin.index(b"\0", start)].decode()

    words = []
    for h in headers:
        if name(h).startswith(".text."):
            offset, size = h[4], h[5]
            for at in range(offset, offset + size - 15, 16):
                words.append(struct.unpack_from("<QQ", cubin, at))
    return words


def compile_corpus(corpus_dir: str, arch: str, jobs: int = 2) -> list[tuple[int, int]]:
    """Every word of the corpus compiled for `arch` ([] when nvcc is missing); files that do
    not build are skipped."""
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not os.access(nvcc, os.X_OK) or not os.path.isdir(corpus_dir):
        return []
    sources = sorted(os.path.join(corpus_dir, f) for f in os.listdir(corpus_dir) if f.endswith(".cu"))
    n = arch[3:]
    with tempfile.TemporaryDirectory() as tmp:
        def build(src: str) -> list[tuple[int, int]]:
            out = os.path.join(tmp, os.path.basename(src) + ".cubin")
            r = subprocess.run(["nice", "-n", "19", nvcc, "-cubin", "-O3", "-gencode",
                                f"arch=compute_{n},code=sm_{n}", "-o", out, src], capture_output=True)
            if r.returncode != 0:
                return []
            with open(out, "rb") as f:
                return text_words(f.read())

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            return [w for words in pool.map(build, sources) for w in words]


def binary_words(binary: str, arch: str, cuobjdump: str) -> list[tuple[int, int]]:
    """Every distinct word of the cubins for `arch` that `cuobjdump -xelf all` extracts from a
    binary (named <unit>.<arch>.cubin)."""
    words: set[tuple[int, int]] = set()
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run(["nice", "-n", "19", cuobjdump, "-xelf", "all", os.path.abspath(binary)],
                           cwd=tmp, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"cuobjdump -xelf {binary}: {r.stderr.strip()[:300]}")
        for name in os.listdir(tmp):
            if name.endswith(f".{arch}.cubin"):
                with open(os.path.join(tmp, name), "rb") as f:
                    words.update(text_words(f.read()))
    return sorted(words)
