/* The order of CPython 3.11's list(set(names)) at PYTHONHASHSEED=0 (setorder.py): SipHash-1-3
 * with a zero key over the string's internal representation (1, 2 or 4 bytes a character),
 * then the set's open addressing (linear probes, then perturbation). */
#include "engine.h"

#define ROTATE(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIP_ROUND(v0, v1, v2, v3)                                                          \
  do {                                                                                     \
    v0 += v1;                                                                              \
    v2 += v3;                                                                              \
    v1 = ROTATE(v1, 13) ^ v0;                                                              \
    v3 = ROTATE(v3, 16) ^ v2;                                                              \
    v0 = ROTATE(v0, 32);                                                                   \
    v2 += v1;                                                                              \
    v0 += v3;                                                                              \
    v1 = ROTATE(v1, 17) ^ v2;                                                              \
    v3 = ROTATE(v3, 21) ^ v0;                                                              \
    v2 = ROTATE(v2, 32);                                                                   \
  } while (0)

uint64_t python_string_hash(const int32_t *points, int64_t n) {
  if (n == 0) return 0;
  int32_t widest = 0;
  for (int64_t i = 0; i < n; i++)
    if (points[i] > widest) widest = points[i];
  int width = widest < 0x100 ? 1 : widest < 0x10000 ? 2 : 4;
  int64_t length = n * width;
  uint64_t v0 = 0x736F6D6570736575ULL, v1 = 0x646F72616E646F6DULL;
  uint64_t v2 = 0x6C7967656E657261ULL, v3 = 0x7465646279746573ULL;
  uint64_t word = 0;
  int filled = 0;
  for (int64_t i = 0; i < n; i++) {
    uint32_t c = (uint32_t)points[i];
    for (int b = 0; b < width; b++) {
      word |= (uint64_t)((c >> (8 * b)) & 0xFFu) << (8 * filled);
      if (++filled == 8) {
        v3 ^= word;
        SIP_ROUND(v0, v1, v2, v3);
        v0 ^= word;
        word = 0;
        filled = 0;
      }
    }
  }
  uint64_t last = ((uint64_t)(length & 0xFF) << 56) | word;
  v3 ^= last;
  SIP_ROUND(v0, v1, v2, v3);
  v0 ^= last;
  v2 ^= 0xFF;
  for (int r = 0; r < 3; r++) SIP_ROUND(v0, v1, v2, v3);
  uint64_t value = v0 ^ v1 ^ v2 ^ v3;
  return value == UINT64_MAX ? UINT64_MAX - 1 : value; /* -1 is reserved by CPython */
}

#define LINEAR_PROBES 9
#define PERTURB_SHIFT 5

static void insert_clean(int64_t *keys, uint64_t *hashes, uint64_t mask, int64_t key,
                         uint64_t hash) {
  uint64_t perturb = hash, index = hash & mask;
  for (;;) {
    if (keys[index] < 0) {
      keys[index] = key;
      hashes[index] = hash;
      return;
    }
    if (index + LINEAR_PROBES <= mask) {
      for (int step = 1; step <= LINEAR_PROBES; step++) {
        if (keys[index + step] < 0) {
          keys[index + step] = key;
          hashes[index + step] = hash;
          return;
        }
      }
    }
    perturb >>= PERTURB_SHIFT;
    index = (index * 5 + 1 + perturb) & mask;
  }
}

/* list(set(items[:n])) in CPython's order: writes `out`, returns the count. `hashes[k]` is
 * the string hash of items[k]; `table` is scratch (keys, then hashes). */
int64_t python_set_order(Workspace *w, const int64_t *items, int64_t n, const uint64_t *hashes,
                         int64_t *out, I64Vec *table) {
  int64_t size = 8;
  int64_t most = 8;
  while (most <= 4 * n + 8) most <<= 1;
  VEC_RESIZE(w, table, 4 * most); /* two tables of keys and hashes, old and new */
  int64_t *keys = table->data, *other_keys = table->data + 2 * most;
  uint64_t *key_hashes = (uint64_t *)(table->data + most);
  uint64_t *other_hashes = (uint64_t *)(table->data + 3 * most);
  for (int64_t s = 0; s < size; s++) keys[s] = -1;
  uint64_t mask = (uint64_t)size - 1;
  int64_t fill = 0;
  for (int64_t k = 0; k < n; k++) {
    int64_t key = items[k];
    uint64_t hash = hashes[k], perturb = hash, index = hash & mask, slot = index;
    bool found = false;
    for (;;) {
      int probes = index + LINEAR_PROBES <= mask ? LINEAR_PROBES : 0;
      bool placed = false;
      slot = index;
      for (int p = 0; p <= probes; p++) {
        if (keys[slot] < 0) {
          placed = true;
          break;
        }
        if (key_hashes[slot] == hash && keys[slot] == key) {
          found = true;
          break;
        }
        slot++;
      }
      if (placed || found) break;
      perturb >>= PERTURB_SHIFT;
      index = (index * 5 + 1 + perturb) & mask;
    }
    if (found) continue;
    keys[slot] = key;
    key_hashes[slot] = hash;
    fill++;
    if (fill * 5 >= (int64_t)mask * 3) {
      int64_t new_size = 8;
      while (new_size <= fill * 4) new_size <<= 1;
      for (int64_t s = 0; s < new_size; s++) other_keys[s] = -1;
      for (int64_t s = 0; s < size; s++)
        if (keys[s] >= 0)
          insert_clean(other_keys, other_hashes, (uint64_t)new_size - 1, keys[s],
                       key_hashes[s]);
      int64_t *swap_keys = keys;
      uint64_t *swap_hashes = key_hashes;
      keys = other_keys;
      key_hashes = other_hashes;
      other_keys = swap_keys;
      other_hashes = swap_hashes;
      size = new_size;
      mask = (uint64_t)size - 1;
    }
  }
  int64_t count = 0;
  for (int64_t s = 0; s < size; s++)
    if (keys[s] >= 0) out[count++] = keys[s];
  return count;
}

/* Exported for the tests: the hash of each string (code points) and the set order. */
CGM_API void cgm_string_hashes(const int32_t *points, const int64_t *start, int64_t n,
                               uint64_t *out) {
  for (int64_t k = 0; k < n; k++) out[k] = python_string_hash(points + start[k], start[k + 1] - start[k]);
}

CGM_API int64_t cgm_set_order(const int64_t *items, int64_t n, const uint64_t *hashes,
                              int64_t *out) {
  Workspace w;
  I64Vec table = {0};
  if (setjmp(w.failure)) {
    VEC_FREE(&table);
    return CGM_NO_MEMORY;
  }
  int64_t count = python_set_order(&w, items, n, hashes, out, &table);
  VEC_FREE(&table);
  return count;
}
