/* Growable arrays and the intern table: the one place where the engine allocates. */
#include <stdlib.h>
#include <string.h>

#include "engine.h"

void *ws_grow(Workspace *w, void *data, int64_t *capacity, int64_t needed, size_t item) {
  int64_t size = *capacity > 0 ? *capacity : 16;
  while (size < needed) size *= 2;
  if ((uint64_t)size > (uint64_t)SIZE_MAX / item) longjmp(w->failure, 1);
  void *grown = realloc(data, (size_t)size * item);
  if (grown == NULL) longjmp(w->failure, 1);
  *capacity = size;
  return grown;
}

void ws_fill_i32(I32Vec *vec, int32_t value) {
  for (int64_t i = 0; i < vec->size; i++) vec->data[i] = value;
}

/* ---------------------------------------------------------------- intern table */

/* Only slot positions depend on this hash (ids are numbered in order of first appearance),
 * so any mixing is exact; two independent chains over pairs of items keep the multiplies'
 * latency off the critical path. */
static uint64_t hash_sequence(const int32_t *sequence, int64_t n) {
  uint64_t a = 0x9E3779B97F4A7C15ULL ^ (uint64_t)n, b = 0xD6E8FEB86659FD93ULL;
  int64_t i = 0;
  for (; i + 3 < n; i += 4) {
    uint64_t x = (uint64_t)(uint32_t)sequence[i] | ((uint64_t)(uint32_t)sequence[i + 1] << 32);
    uint64_t y = (uint64_t)(uint32_t)sequence[i + 2] | ((uint64_t)(uint32_t)sequence[i + 3] << 32);
    a = (a ^ x) * 0xBF58476D1CE4E5B9ULL;
    b = (b ^ y) * 0x94D049BB133111EBULL;
    a ^= a >> 31;
    b ^= b >> 29;
  }
  for (; i < n; i++) {
    a = (a ^ (uint32_t)sequence[i]) * 0xBF58476D1CE4E5B9ULL;
    a ^= a >> 31;
  }
  uint64_t h = a ^ (b * 0xFF51AFD7ED558CCDULL);
  h ^= h >> 29;
  h *= 0x94D049BB133111EBULL;
  h ^= h >> 32;
  return h;
}

static void resize_slots(Workspace *w, Interner *t, int64_t slots) {
  VEC_RESIZE(w, &t->slots, slots);
  ws_fill_i32(&t->slots, -1);
  uint64_t mask = (uint64_t)slots - 1;
  for (int32_t id = 0; id < t->count; id++) {
    int64_t start = t->start.data[id];
    uint64_t slot = hash_sequence(t->pool.data + start, t->start.data[id + 1] - start) & mask;
    while (t->slots.data[slot] >= 0) slot = (slot + 1) & mask;
    t->slots.data[slot] = id;
  }
}

void interner_clear(Workspace *w, Interner *t, int64_t expected) {
  t->count = 0;
  t->pool.size = 0;
  t->start.size = 0;
  VEC_PUSH(w, &t->start, 0);
  int64_t slots = 16;
  while (slots < 2 * expected + 2) slots *= 2;
  VEC_RESIZE(w, &t->slots, slots);
  ws_fill_i32(&t->slots, -1);
}

int32_t intern(Workspace *w, Interner *t, const int32_t *sequence, int64_t n) {
  uint64_t mask = (uint64_t)t->slots.size - 1;
  uint64_t slot = hash_sequence(sequence, n) & mask;
  for (;;) {
    int32_t id = t->slots.data[slot];
    if (id < 0) break;
    int64_t start = t->start.data[id];
    if (t->start.data[id + 1] - start == n &&
        (n == 0 || memcmp(t->pool.data + start, sequence, (size_t)n * sizeof(int32_t)) == 0))
      return id;
    slot = (slot + 1) & mask;
  }
  int32_t id = t->count;
  VEC_RESERVE(w, &t->pool, n);
  if (n > 0) memcpy(t->pool.data + t->pool.size, sequence, (size_t)n * sizeof(int32_t));
  t->pool.size += n;
  VEC_PUSH(w, &t->start, t->pool.size);
  t->slots.data[slot] = id;
  t->count = id + 1;
  if (2 * (int64_t)t->count >= t->slots.size) resize_slots(w, t, 2 * t->slots.size);
  return id;
}

void interner_free(Interner *t) {
  VEC_FREE(&t->pool);
  VEC_FREE(&t->start);
  VEC_FREE(&t->slots);
  t->count = 0;
}

/* ---------------------------------------------------------------- int64 -> int32 map */

void keymap_reset(Workspace *w, KeyMap *m, int64_t expected) {
  int64_t size = 16;
  while (size < 2 * expected + 2) size *= 2;
  if (m->keys.size < size) {
    VEC_RESIZE(w, &m->keys, size);
    VEC_RESIZE(w, &m->values, size);
    VEC_RESIZE(w, &m->stamps, size);
    memset(m->stamps.data, 0, (size_t)size * sizeof(int64_t));
    m->stamp = 0;
  }
  m->stamp++;
  m->count = 0;
}

static uint64_t keymap_slot(const KeyMap *m, int64_t key) {
  uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ULL;
  return (h ^ (h >> 29)) & ((uint64_t)m->keys.size - 1);
}

int32_t keymap_get(const KeyMap *m, int64_t key) {
  uint64_t mask = (uint64_t)m->keys.size - 1;
  for (uint64_t slot = keymap_slot(m, key); m->stamps.data[slot] == m->stamp;
       slot = (slot + 1) & mask)
    if (m->keys.data[slot] == key) return m->values.data[slot];
  return -1;
}

/* The slot of `key`, claimed for it when new (*fresh set). */
static uint64_t keymap_claim(KeyMap *m, int64_t key, bool *fresh) {
  uint64_t mask = (uint64_t)m->keys.size - 1, slot = keymap_slot(m, key);
  while (m->stamps.data[slot] == m->stamp) {
    if (m->keys.data[slot] == key) {
      *fresh = false;
      return slot;
    }
    slot = (slot + 1) & mask;
  }
  m->stamps.data[slot] = m->stamp;
  m->keys.data[slot] = key;
  *fresh = true;
  return slot;
}

void keymap_put(KeyMap *m, int64_t key, int32_t value) {
  bool fresh;
  uint64_t slot = keymap_claim(m, key, &fresh);
  if (fresh) m->count++;
  m->values.data[slot] = value;
}

int32_t keymap_id(KeyMap *m, int64_t key) {
  bool fresh;
  uint64_t slot = keymap_claim(m, key, &fresh);
  if (fresh) m->values.data[slot] = m->count++;
  return m->values.data[slot];
}

void keymap_free(KeyMap *m) {
  VEC_FREE(&m->keys);
  VEC_FREE(&m->stamps);
  VEC_FREE(&m->values);
}
