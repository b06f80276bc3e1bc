/* The two n-gram components as per-item statistics (ngrams.py): columns 0-18 of a row.
 *
 * Tokens are str.split() of each text; n-grams of a snippet never cross into the next.
 * ngram_match: clipped counts with the maximum over the references, totals floored at 1.
 * weighted_ngram_match: the recall variant, unigrams weighted 1 (keyword) or 0.2 and summed
 * in each reference's order of first appearance, as the package's Counter does. */
#include <stdlib.h>
#include <string.h>

#include "engine.h"

#define ORDER 4

/* Token texts (their UTF-8 bytes) numbered in order of first appearance. */
typedef struct {
  U8Vec pool;
  I64Vec start; /* start[id]; start[count] is the pool's size */
  I32Vec slots;
  int32_t count;
} Words;

static uint64_t hash_bytes(const uint8_t *s, int64_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ (uint64_t)n;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x;
    memcpy(&x, s + i, 8);
    h = (h ^ x) * 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 31;
  }
  uint64_t x = 0;
  if (n > i) memcpy(&x, s + i, (size_t)(n - i));
  h = (h ^ x) * 0x94D049BB133111EBULL;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 32;
  return h;
}

static void words_rehash(Workspace *w, Words *t, int64_t slots) {
  VEC_RESIZE(w, &t->slots, slots);
  ws_fill_i32(&t->slots, -1);
  uint64_t mask = (uint64_t)slots - 1;
  for (int32_t id = 0; id < t->count; id++) {
    int64_t a = t->start.data[id];
    uint64_t slot = hash_bytes(t->pool.data + a, t->start.data[id + 1] - a) & mask;
    while (t->slots.data[slot] >= 0) slot = (slot + 1) & mask;
    t->slots.data[slot] = id;
  }
}

static void words_clear(Workspace *w, Words *t, int64_t expected) {
  t->count = 0;
  t->pool.size = 0;
  t->start.size = 0;
  VEC_PUSH(w, &t->start, 0);
  int64_t slots = 16;
  while (slots < 2 * expected + 2) slots *= 2;
  words_rehash(w, t, slots);
}

static int32_t word_id(Workspace *w, Words *t, const uint8_t *text, int64_t n) {
  uint64_t mask = (uint64_t)t->slots.size - 1;
  uint64_t slot = hash_bytes(text, n) & mask;
  for (;;) {
    int32_t id = t->slots.data[slot];
    if (id < 0) break;
    int64_t a = t->start.data[id];
    if (t->start.data[id + 1] - a == n && memcmp(t->pool.data + a, text, (size_t)n) == 0)
      return id;
    slot = (slot + 1) & mask;
  }
  int32_t id = t->count;
  VEC_RESERVE(w, &t->pool, n);
  memcpy(t->pool.data + t->pool.size, text, (size_t)n);
  t->pool.size += n;
  VEC_PUSH(w, &t->start, t->pool.size);
  t->slots.data[slot] = id;
  t->count = id + 1;
  if (2 * (int64_t)t->count >= t->slots.size) words_rehash(w, t, 2 * t->slots.size);
  return id;
}

typedef struct {
  Words tokens;      /* keywords first */
  I32Vec token_ids;  /* every token of the call, segment after segment */
  I64Vec token_start;/* per segment */
  I32Vec grams;      /* per order, per token of the item: its n-gram id (-1 none) */
  I32Vec hyp, best, counted;
  KeyMap dense;
} NgramScratch;

static void ngram_scratch_free(NgramScratch *s) {
  VEC_FREE(&s->tokens.pool);
  VEC_FREE(&s->tokens.start);
  VEC_FREE(&s->tokens.slots);
  VEC_FREE(&s->token_ids);
  VEC_FREE(&s->token_start);
  VEC_FREE(&s->grams);
  VEC_FREE(&s->hyp);
  VEC_FREE(&s->best);
  VEC_FREE(&s->counted);
  keymap_free(&s->dense);
}

/* str.split() of text[a:b], tokens interned (their UTF-8 bytes as the sequence). */
static void split_tokens(Workspace *w, NgramScratch *s, const uint8_t *text, int64_t a,
                         int64_t b) {
  int64_t i = a;
  while (i < b) {
    int64_t token = i, next = i;
    if (is_python_space(utf8_next(text, b, &next))) {
      i = next;
      continue;
    }
    int64_t end = next;
    while (end < b) {
      int64_t after = end;
      if (is_python_space(utf8_next(text, b, &after))) break;
      end = after;
    }
    VEC_PUSH(w, &s->token_ids, word_id(w, &s->tokens, text + token, end - token));
    i = end;
  }
}

static void item_row(Workspace *w, NgramScratch *s, int64_t first_segment,
                     int64_t end_segment, int32_t n_keywords, double *row) {
  const int64_t *seg = s->token_start.data;
  int64_t lo = seg[first_segment], length = seg[end_segment] - lo;
  int64_t n_refs = end_segment - first_segment - 1;
  const int32_t *ids = s->token_ids.data + lo;
  /* n-gram ids per order over the item's tokens, dense from 0 (-1: no n-gram there) */
  VEC_RESIZE(w, &s->grams, ORDER * (length + 1));
  int32_t *grams = s->grams.data;
  keymap_reset(w, &s->dense, length);
  for (int64_t k = 0; k < length; k++) grams[k] = keymap_id(&s->dense, ids[k]);
  int32_t n_unigrams = s->dense.count;
  int32_t n_dense[ORDER];
  n_dense[0] = n_unigrams;
  for (int n = 1; n < ORDER; n++) {
    keymap_reset(w, &s->dense, length);
    int32_t *previous = grams + (n - 1) * length, *current = grams + n * length;
    for (int64_t k = 0; k < length; k++) current[k] = -1;
    for (int64_t g = first_segment; g < end_segment; g++) {
      for (int64_t k = seg[g] - lo; k + n < seg[g + 1] - lo; k++) {
        int64_t key = (int64_t)previous[k] * (int64_t)(n_unigrams + 1) + grams[k + n];
        current[k] = keymap_id(&s->dense, key);
      }
    }
    n_dense[n] = s->dense.count;
  }
  int64_t most = length + 1;
  VEC_RESIZE(w, &s->hyp, most);
  VEC_RESIZE(w, &s->best, most);
  VEC_RESIZE(w, &s->counted, most);
  int32_t *hyp = s->hyp.data, *best = s->best.data, *count = s->counted.data;
  double clipped[ORDER], totals[ORDER], recall_clipped[ORDER] = {0}, recall_total[ORDER] = {0};
  int64_t hyp_a = seg[first_segment] - lo, hyp_b = seg[first_segment + 1] - lo;
  for (int n = 0; n < ORDER; n++) {
    const int32_t *gram = grams + n * length;
    memset(hyp, 0, (size_t)n_dense[n] * sizeof(int32_t));
    memset(best, 0, (size_t)n_dense[n] * sizeof(int32_t));
    memset(count, 0, (size_t)n_dense[n] * sizeof(int32_t));
    int64_t hyp_total = 0;
    for (int64_t k = hyp_a; k + n < hyp_b; k++) {
      hyp[gram[k]]++;
      hyp_total++;
    }
    for (int64_t r = first_segment + 1; r < end_segment; r++) {
      int64_t a = seg[r] - lo, b = seg[r + 1] - lo;
      int64_t matched = 0, ref_total = 0;
      for (int64_t k = a; k + n < b; k++) {
        count[gram[k]]++;
        ref_total++;
      }
      for (int64_t k = a; k + n < b; k++) {
        int32_t g = gram[k], c = count[g];
        if (c == 0) continue; /* already taken */
        matched += c < hyp[g] ? c : hyp[g];
        if (c > best[g]) best[g] = c;
        count[g] = 0;
      }
      if (n > 0) {
        recall_clipped[n] += (double)matched; /* one reference: the BLEU count, below */
        recall_total[n] += (double)(ref_total > 1 ? ref_total : 1);
      }
    }
    int64_t clip = 0;
    for (int64_t k = hyp_a; k + n < hyp_b; k++) {
      int32_t g = gram[k];
      if (hyp[g] == 0) continue;
      clip += hyp[g] < best[g] ? hyp[g] : best[g];
      hyp[g] = 0;
    }
    clipped[n] = (double)clip;
    totals[n] = (double)(hyp_total > 1 ? hyp_total : 1);
    if (n > 0 && n_refs == 1) recall_clipped[n] = clipped[n]; /* min is symmetric */
  }
  /* weighted unigrams, each reference summed in its order of first appearance */
  const int32_t *unigram = grams;
  memset(hyp, 0, (size_t)n_unigrams * sizeof(int32_t));
  for (int64_t k = hyp_a; k < hyp_b; k++) hyp[unigram[k]]++;
  for (int64_t r = first_segment + 1; r < end_segment; r++) {
    int64_t a = seg[r] - lo, b = seg[r + 1] - lo;
    for (int64_t k = a; k < b; k++) count[unigram[k]]++;
    double matched = 0.0, total = 0.0;
    for (int64_t k = a; k < b; k++) {
      int32_t g = unigram[k], c = count[g];
      if (c == 0) continue;
      double weight = ids[k] < n_keywords ? 1.0 : 0.2;
      matched += (double)(c < hyp[g] ? c : hyp[g]) * weight;
      total += (double)c * weight;
      count[g] = 0;
    }
    recall_clipped[0] += matched;
    recall_total[0] += total > 1.0 ? total : 1.0;
  }
  /* the closest reference length, ties to the shorter */
  int64_t hyp_length = hyp_b - hyp_a, closest = -1;
  for (int64_t r = first_segment + 1; r < end_segment; r++) {
    int64_t ref_length = seg[r + 1] - seg[r];
    if (closest < 0) {
      closest = ref_length;
    } else {
      int64_t d_new = llabs(ref_length - hyp_length), d_old = llabs(closest - hyp_length);
      if (d_new < d_old || (d_new == d_old && ref_length < closest)) closest = ref_length;
    }
  }
  for (int n = 0; n < ORDER; n++) {
    row[n] = clipped[n];
    row[4 + n] = totals[n];
    row[10 + n] = recall_clipped[n];
    row[14 + n] = recall_total[n];
  }
  row[8] = (double)hyp_length;
  row[9] = (double)closest;
  row[18] = 2.0;
}

/* Columns 0-18 of the rows of every item. `text` holds every segment end to end (UTF-8),
 * segment_start[n_segments + 1] their offsets; item i has the segments item_start[i]
 * (its hypothesis) to item_start[i + 1] - 1 (its references). Rows are `row_stride`
 * doubles apart. */
CGM_API int cgm_ngram_rows(const uint8_t *text, const int64_t *segment_start,
                           const int64_t *item_start, int64_t n_items,
                           const uint8_t *keywords, const int64_t *keyword_start,
                           int64_t n_keywords, double *rows, int64_t row_stride) {
  Workspace w;
  NgramScratch s;
  memset(&s, 0, sizeof(s));
  if (setjmp(w.failure)) {
    ngram_scratch_free(&s);
    return CGM_NO_MEMORY;
  }
  int64_t n_segments = item_start[n_items];
  words_clear(&w, &s.tokens, n_keywords + 1024);
  for (int64_t k = 0; k < n_keywords; k++) {
    int64_t a = keyword_start[k], b = keyword_start[k + 1];
    word_id(&w, &s.tokens, keywords + a, b - a);
  }
  int32_t distinct_keywords = s.tokens.count;
  VEC_PUSH(&w, &s.token_start, 0);
  for (int64_t g = 0; g < n_segments; g++) {
    split_tokens(&w, &s, text, segment_start[g], segment_start[g + 1]);
    VEC_PUSH(&w, &s.token_start, s.token_ids.size);
  }
  for (int64_t i = 0; i < n_items; i++) {
    if (item_start[i + 1] - item_start[i] < 2) {
      ngram_scratch_free(&s);
      return CGM_BAD_INPUT; /* every item has a hypothesis and a reference */
    }
    item_row(&w, &s, item_start[i], item_start[i + 1], distinct_keywords,
             rows + i * row_stride);
  }
  ngram_scratch_free(&s);
  return CGM_OK;
}
