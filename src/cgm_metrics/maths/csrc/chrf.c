/* chrF's character n-gram matches (maths/chrf.py: _char_matches), compiled.
 *
 * For every (hypothesis, reference) pair and every order n = 1..order: the clipped matches
 * sum over n-grams g of min(count in hypothesis, count in reference), as sacrebleu counts
 * them. Every distinct n-gram of the hypothesis gets a number: the n-gram starting at i of
 * order n is the pair (number of its prefix of order n - 1, character i + n - 1), looked up in
 * an open-addressing table of those pairs, so no n-gram is ever compared character by
 * character. A reference n-gram whose prefix is not in the hypothesis cannot be either, so
 * the extension from a start position stops at the first miss. Counts are exact integers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(_WIN32)
#define CGM_API __declspec(dllexport)
#else
#define CGM_API __attribute__((visibility("default")))
#endif

typedef struct {
  uint64_t *keys;    /* (prefix number + 2) << 32 | character (never 0: 0 = empty) */
  int32_t *numbers;  /* the n-gram number of each key */
  int64_t capacity;  /* the slots in use for the current hypothesis: a power of two */
  int64_t allocated; /* the slots allocated (the largest capacity so far) */
  int32_t *hyp_count;
  int32_t *ref_count;
  int64_t count_capacity;
} Table;

/* Room for `entries` n-grams. The slots in use are sized to this hypothesis, not to the
 * largest one so far: each hypothesis clears only its own slots (one long text early in a
 * large call would otherwise make every later pair clear its table). */
static int reserve(Table *table, int64_t entries) {
  int64_t capacity = 64;
  while (capacity < 2 * entries) capacity <<= 1;
  if (capacity > table->allocated) {
    free(table->keys);
    free(table->numbers);
    table->keys = malloc((size_t)capacity * sizeof(uint64_t));
    table->numbers = malloc((size_t)capacity * sizeof(int32_t));
    table->allocated = capacity;
    if (table->keys == NULL || table->numbers == NULL) return -1;
  }
  table->capacity = capacity;
  if (entries + 1 > table->count_capacity) {
    free(table->hyp_count);
    free(table->ref_count);
    table->hyp_count = malloc((size_t)(entries + 1) * sizeof(int32_t));
    table->ref_count = malloc((size_t)(entries + 1) * sizeof(int32_t));
    table->count_capacity = entries + 1;
    if (table->hyp_count == NULL || table->ref_count == NULL) return -1;
  }
  return 0;
}

/* Fibonacci hashing: the top bits of the product, which every bit of the key moves. */
static inline uint64_t slot_of(uint64_t key, int shift) {
  return (key * 0x9E3779B97F4A7C15ULL) >> shift;
}

/* matches[p * order + n - 1] for every pair p: the hypothesis hyp[hyp_start[owner[p]] ...
 * + hyp_length[owner[p]]) against the reference ref[ref_start[p] ... + ref_length[p]).
 * Texts are code points. 0 on success, -1 out of memory. */
CGM_API int cgm_chrf_char_matches(const uint32_t *hyp, const int64_t *hyp_start,
                                  const int64_t *hyp_length, const uint32_t *ref,
                                  const int64_t *ref_start, const int64_t *ref_length,
                                  const int64_t *owner, int64_t n_pairs, int32_t order,
                                  double *matches) {
  Table table = {0};
  int status = 0;
  int64_t built_for = -1, n_numbers = 0, mask = 0;
  int shift = 64;
  for (int64_t p = 0; p < n_pairs; p++) {
    double *out = matches + p * order;
    for (int32_t n = 0; n < order; n++) out[n] = 0.0;
    int64_t h = owner[p];
    const uint32_t *text = hyp + hyp_start[h];
    int64_t length = hyp_length[h];
    if (h != built_for) {
      if (reserve(&table, length * order) != 0) {
        status = -1;
        break;
      }
      mask = table.capacity - 1;
      shift = 64;
      for (int64_t c = table.capacity; c > 1; c >>= 1) shift--;
      memset(table.keys, 0, (size_t)table.capacity * sizeof(uint64_t));
      n_numbers = 0;
      for (int64_t i = 0; i < length; i++) {
        int64_t prefix = -1;
        for (int32_t n = 0; n < order && i + n < length; n++) {
          uint64_t key = ((uint64_t)(prefix + 2) << 32) | text[i + n];
          uint64_t slot = slot_of(key, shift);
          while (table.keys[slot] != 0 && table.keys[slot] != key) slot = (slot + 1) & mask;
          if (table.keys[slot] == 0) {
            table.keys[slot] = key;
            table.numbers[slot] = (int32_t)n_numbers;
            table.hyp_count[n_numbers++] = 0;
          }
          prefix = table.numbers[slot];
          table.hyp_count[prefix]++;
        }
      }
      built_for = h;
    }
    if (n_numbers) memset(table.ref_count, 0, (size_t)n_numbers * sizeof(int32_t));
    const uint32_t *other = ref + ref_start[p];
    int64_t other_length = ref_length[p];
    for (int64_t i = 0; i < other_length && n_numbers; i++) {
      int64_t prefix = -1;
      for (int32_t n = 0; n < order && i + n < other_length; n++) {
        uint64_t key = ((uint64_t)(prefix + 2) << 32) | other[i + n];
        uint64_t slot = slot_of(key, shift);
        while (table.keys[slot] != 0 && table.keys[slot] != key) slot = (slot + 1) & mask;
        if (table.keys[slot] == 0) break; /* no longer n-gram from i is in the hypothesis */
        prefix = table.numbers[slot];
        if (table.ref_count[prefix] < table.hyp_count[prefix]) {
          table.ref_count[prefix]++;
          out[n] += 1.0;
        }
      }
    }
  }
  free(table.keys);
  free(table.numbers);
  free(table.hyp_count);
  free(table.ref_count);
  return status;
}
