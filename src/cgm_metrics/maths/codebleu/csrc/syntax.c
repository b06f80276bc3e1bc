/* The syntax match (tree.py: subtree_keys): the package compares subtrees by their
 * S-expressions, str(node). Each subtree gets an id, equal exactly when the S-expressions
 * are: a node's structure is (label, MISSING, what its children contribute), where a named
 * or missing child contributes (field, its id) and any other child with children what its
 * own children contribute. Subtrees are the root and every node with children. */
#include <string.h>

#include "engine.h"

void syntax_keys(Workspace *w, const FlatTrees *t, const TreeTokens *shape, SyntaxScratch *s) {
  int64_t n_nodes = t->name.size, n_trees = tree_count(t);
  VEC_RESIZE(w, &s->key, n_nodes);
  VEC_RESIZE(w, &s->part_start, n_nodes);
  VEC_RESIZE(w, &s->part_length, n_nodes);
  ws_fill_i32(&s->key, -1);
  s->parts.size = 0;
  interner_clear(w, &s->structures, n_nodes / 2 + 16);
  const int32_t *end = shape->subtree_end.data;
  for (int64_t tree = 0; tree < n_trees; tree++) {
    int64_t lo = t->node_start.data[tree], hi = t->node_start.data[tree + 1];
    /* children before parents: reverse pre-order; a node's parts are a run of s->parts */
    for (int64_t i = hi - 1; i >= lo; i--) {
      bool children = shape->has_children.data[i];
      uint8_t flags = t->flags.data[i];
      bool visible = (flags & (NODE_NAMED | NODE_MISSING)) != 0;
      s->part_start.data[i] = s->parts.size;
      if (!children && !visible && i != lo) {
        s->part_start.data[i] = -1; /* an anonymous token: contributes nothing */
        continue;
      }
      s->sequence.size = 0;
      VEC_PUSH(w, &s->sequence, t->label.data[i]);
      VEC_PUSH(w, &s->sequence, (flags & NODE_MISSING) ? 1 : 0);
      int64_t inner = 0;
      for (int64_t c = i + 1; c < end[i]; c = end[c]) {
        int64_t from = s->part_start.data[c];
        if (from < 0) continue;
        int64_t n = s->part_length.data[c];
        VEC_RESERVE(w, &s->sequence, n);
        memcpy(s->sequence.data + s->sequence.size, s->parts.data + from, (size_t)n * sizeof(int32_t));
        s->sequence.size += n;
        inner += n;
      }
      int32_t id = intern(w, &s->structures, s->sequence.data, s->sequence.size);
      if (visible) {
        VEC_PUSH(w, &s->parts, t->field.data[i]);
        VEC_PUSH(w, &s->parts, id);
        s->part_length.data[i] = 2;
      } else {
        /* invisible with children: its children's parts, passed through */
        VEC_RESERVE(w, &s->parts, inner);
        memcpy(s->parts.data + s->parts.size, s->sequence.data + 2, (size_t)inner * sizeof(int32_t));
        s->parts.size += inner;
        s->part_length.data[i] = inner;
      }
      if (children || i == lo) s->key.data[i] = id;
    }
  }
}

void syntax_match(Workspace *w, const FlatTrees *t, SyntaxScratch *s, const int64_t *pairs,
                  int64_t n_pairs, int64_t *out, int64_t out_stride) {
  VEC_RESIZE(w, &s->seen, s->structures.count);
  ws_fill_i32(&s->seen, -1);
  int32_t *seen = s->seen.data;
  for (int64_t p = 0; p < n_pairs; p++) {
    int64_t candidate = pairs[2 * p], reference = pairs[2 * p + 1];
    int32_t stamp = (int32_t)p;
    for (int64_t i = t->node_start.data[candidate]; i < t->node_start.data[candidate + 1]; i++)
      if (s->key.data[i] >= 0) seen[s->key.data[i]] = stamp;
    int64_t matched = 0, total = 0;
    for (int64_t i = t->node_start.data[reference]; i < t->node_start.data[reference + 1]; i++) {
      int32_t key = s->key.data[i];
      if (key < 0) continue;
      total++;
      if (seen[key] == stamp) matched++;
    }
    out[p * out_stride] = matched;
    out[p * out_stride + 1] = total;
  }
}

void syntax_scratch_free(SyntaxScratch *s) {
  VEC_FREE(&s->key);
  VEC_FREE(&s->parts);
  VEC_FREE(&s->part_start);
  VEC_FREE(&s->part_length);
  VEC_FREE(&s->sequence);
  VEC_FREE(&s->seen);
  interner_free(&s->structures);
}
