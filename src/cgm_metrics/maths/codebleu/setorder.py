"""The order in which CPython 3.11 iterates a small set of strings, with hashing fixed.

The package merges dataflow parent names with ``list(set(names))``. That order depends on the
process's string hashes (PYTHONHASHSEED) and it feeds the variable renaming, so the package's
dataflow score changes from process to process. To give one fixed answer that is also one of
the package's answers, this module computes the order the package produces under
``PYTHONHASHSEED=0`` (hash randomisation off): SipHash-1-3 with a zero key over the string's
internal representation, and CPython's open-addressing set insertion (linear probes, then
perturbation). No process hash is ever used, so our output never depends on the seed.
"""

from __future__ import annotations

from functools import lru_cache

_MASK64 = (1 << 64) - 1
_LINEAR_PROBES = 9
_PERTURB_SHIFT = 5
_MIN_SIZE = 8


def _rotate(value: int, bits: int) -> int:
    return ((value << bits) | (value >> (64 - bits))) & _MASK64


def _round(v0: int, v1: int, v2: int, v3: int) -> tuple[int, int, int, int]:
    v0 = (v0 + v1) & _MASK64
    v2 = (v2 + v3) & _MASK64
    v1 = _rotate(v1, 13) ^ v0
    v3 = _rotate(v3, 16) ^ v2
    v0 = _rotate(v0, 32)
    v2 = (v2 + v1) & _MASK64
    v0 = (v0 + v3) & _MASK64
    v1 = _rotate(v1, 17) ^ v2
    v3 = _rotate(v3, 21) ^ v0
    v2 = _rotate(v2, 32)
    return v0, v1, v2, v3


def _siphash13(data: bytes) -> int:
    v0, v1, v2, v3 = 0x736F6D6570736575, 0x646F72616E646F6D, 0x6C7967656E657261, 0x7465646279746573
    length = len(data)
    full = length - length % 8
    for offset in range(0, full, 8):
        word = int.from_bytes(data[offset : offset + 8], "little")
        v3 ^= word
        v0, v1, v2, v3 = _round(v0, v1, v2, v3)
        v0 ^= word
    last = ((length & 0xFF) << 56) | int.from_bytes(data[full:], "little")
    v3 ^= last
    v0, v1, v2, v3 = _round(v0, v1, v2, v3)
    v0 ^= last
    v2 ^= 0xFF
    for _ in range(3):
        v0, v1, v2, v3 = _round(v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


@lru_cache(maxsize=65536)
def string_hash(text: str) -> int:
    """``hash(text)`` of CPython 3.11 under PYTHONHASHSEED=0, as an unsigned 64-bit value."""
    if not text:
        return 0
    widest = max(map(ord, text))
    if widest < 0x100:
        data = text.encode("latin-1")
    elif widest < 0x10000:
        data = text.encode("utf-16-le", errors="surrogatepass")
    else:
        data = text.encode("utf-32-le", errors="surrogatepass")
    value = _siphash13(data)
    if value == _MASK64:  # -1 is reserved for errors; CPython uses -2
        value = _MASK64 - 1
    return value


def _insert_clean(table: list, mask: int, key: str, hashed: int) -> None:
    perturb = hashed
    index = hashed & mask
    while True:
        if table[index] is None:
            table[index] = (key, hashed)
            return
        if index + _LINEAR_PROBES <= mask:
            for step in range(1, _LINEAR_PROBES + 1):
                if table[index + step] is None:
                    table[index + step] = (key, hashed)
                    return
        perturb >>= _PERTURB_SHIFT
        index = (index * 5 + 1 + perturb) & mask


def set_order(items: tuple[str, ...] | list[str]) -> list[str]:
    """``list(set(items))`` as CPython 3.11 orders it with PYTHONHASHSEED=0."""
    mask = _MIN_SIZE - 1
    table: list = [None] * _MIN_SIZE
    fill = 0
    for key in items:
        hashed = string_hash(key)
        perturb = hashed
        index = hashed & mask
        found = False
        while True:
            probes = _LINEAR_PROBES if index + _LINEAR_PROBES <= mask else 0
            slot = index
            placed = False
            for _ in range(probes + 1):
                entry = table[slot]
                if entry is None:
                    placed = True
                    break
                if entry[1] == hashed and entry[0] == key:
                    found = True
                    break
                slot += 1
            if placed or found:
                break
            perturb >>= _PERTURB_SHIFT
            index = (index * 5 + 1 + perturb) & mask
        if found:
            continue
        table[slot] = (key, hashed)
        fill += 1
        if fill * 5 >= mask * 3:
            new_size = _MIN_SIZE
            while new_size <= fill * 4:
                new_size <<= 1
            new_table: list = [None] * new_size
            for entry in table:
                if entry is not None:
                    _insert_clean(new_table, new_size - 1, entry[0], entry[1])
            table, mask = new_table, new_size - 1
    return [entry[0] for entry in table if entry is not None]
