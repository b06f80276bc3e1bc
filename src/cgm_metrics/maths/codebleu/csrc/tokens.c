/* Tree shape and the package's tokens (tree.py: code_tokens, token_texts).
 *
 * Tokens are the leaves of a tree in order (the language's atomic types whole, its comment
 * types left out). The package maps a byte range to (token position, text), so nodes with the same
 * range share the entry of the last such token, and a token-like node inside a string
 * literal finds the entry of a token with its range or none (-2: the package's KeyError).
 * Token text is sliced from each line with tree-sitter's byte columns applied to the
 * Python string, as the package does; a token's lines are joined without newlines. */
#include <string.h>

#include "engine.h"

static bool token_like(const Language *lang, const FlatTrees *t, const TreeTokens *k,
                       int64_t node) {
  int32_t name = t->name.data[node];
  return (!k->has_children.data[node] || (lang->flags[name] & NAME_ATOMIC)) &&
         !(lang->flags[name] & NAME_COMMENT_TYPE);
}

/* Subtree ends, children flags and depths of every tree. */
static void tree_shape(Workspace *w, const FlatTrees *t, TreeTokens *k) {
  int64_t n_nodes = t->name.size, n_trees = tree_count(t);
  VEC_RESIZE(w, &k->subtree_end, n_nodes);
  VEC_RESIZE(w, &k->has_children, n_nodes);
  VEC_RESIZE(w, &k->node_depth, n_nodes);
  VEC_RESIZE(w, &k->depth, n_trees);
  memset(k->has_children.data, 0, (size_t)n_nodes);
  for (int64_t tree = 0; tree < n_trees; tree++) {
    int64_t lo = t->node_start.data[tree], hi = t->node_start.data[tree + 1];
    int32_t deepest = 0;
    for (int64_t i = lo; i < hi; i++) {
      k->subtree_end.data[i] = (int32_t)(i + 1);
      if (i == lo) {
        k->node_depth.data[i] = 0;
        continue;
      }
      int64_t parent = lo + t->parent.data[i];
      k->has_children.data[parent] = 1;
      int32_t depth = k->node_depth.data[parent] + 1;
      k->node_depth.data[i] = depth;
      if (depth > deepest) deepest = depth;
    }
    for (int64_t i = hi - 1; i > lo; i--) {
      int64_t parent = lo + t->parent.data[i];
      if (k->subtree_end.data[i] > k->subtree_end.data[parent])
        k->subtree_end.data[parent] = k->subtree_end.data[i];
    }
    k->depth.data[tree] = deepest;
  }
}

static bool is_ascii(const uint8_t *s, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (s[i] >= 0x80) return false;
  return true;
}

/* the last line (of `rows` starting at line_byte) that starts at or before byte `at` */
static int64_t row_of(const int64_t *line_byte, int64_t rows, int64_t at) {
  int64_t lo = 0, hi = rows; /* line_byte[0] == 0 <= at */
  while (hi - lo > 1) {
    int64_t mid = (lo + hi) / 2;
    if (line_byte[mid] <= at) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* Appends to k->sequence the characters [from, to) of line `row` (clamped like a slice). */
static void append_line_slice(Workspace *w, TreeTokens *k, int64_t row, int64_t from, int64_t to) {
  int64_t begin = k->line_point.data[row];
  int64_t length = k->line_point.data[row + 1] - begin - 1; /* without its newline */
  if (from > length) from = length;
  if (to > length) to = length;
  if (to <= from) return;
  VEC_RESERVE(w, &k->sequence, to - from);
  memcpy(k->sequence.data + k->sequence.size, k->points.data + begin + from,
         (size_t)(to - from) * sizeof(int32_t));
  k->sequence.size += to - from;
}

/* Text ids of the tokens of one tree (k->token_text, in token order). */
static void token_texts(Workspace *w, const FlatTrees *t, TreeTokens *k, int64_t tree) {
  const uint8_t *source = t->source.data + t->source_start.data[tree];
  int64_t length = t->source_start.data[tree + 1] - t->source_start.data[tree];
  int64_t first = k->token_start.data[tree], last = k->token_start.data[tree + 1];
  if (is_ascii(source, length)) {
    for (int64_t r = first; r < last; r++) {
      int32_t node = k->token_nodes.data[r];
      int64_t a = t->start.data[node], b = t->end.data[node];
      k->sequence.size = 0;
      VEC_RESERVE(w, &k->sequence, b - a);
      for (int64_t i = a; i < b; i++)
        if (source[i] != '\n') k->sequence.data[k->sequence.size++] = source[i];
      k->token_text.data[r] = intern(w, &k->texts, k->sequence.data, k->sequence.size);
    }
    return;
  }
  /* the text's characters, and where each line starts in bytes and in characters (a final
   * entry one past the end, as if the text ended with a newline) */
  k->points.size = k->line_byte.size = k->line_point.size = 0;
  VEC_PUSH(w, &k->line_byte, 0);
  VEC_PUSH(w, &k->line_point, 0);
  for (int64_t i = 0; i < length;) {
    uint32_t c = utf8_next(source, length, &i);
    VEC_PUSH(w, &k->points, (int32_t)c);
    if (c == '\n') {
      VEC_PUSH(w, &k->line_byte, i);
      VEC_PUSH(w, &k->line_point, k->points.size);
    }
  }
  int64_t rows = k->line_byte.size;
  VEC_PUSH(w, &k->line_point, k->points.size + 1);
  for (int64_t r = first; r < last; r++) {
    int32_t node = k->token_nodes.data[r];
    int64_t a = t->start.data[node], b = t->end.data[node];
    int64_t start_row = row_of(k->line_byte.data, rows, a);
    int64_t end_row = row_of(k->line_byte.data, rows, b);
    int64_t start_col = a - k->line_byte.data[start_row];
    int64_t end_col = b - k->line_byte.data[end_row];
    k->sequence.size = 0;
    if (start_row == end_row) {
      append_line_slice(w, k, start_row, start_col, end_col);
    } else {
      append_line_slice(w, k, start_row, start_col, INT64_MAX);
      for (int64_t row = start_row + 1; row < end_row; row++)
        append_line_slice(w, k, row, 0, INT64_MAX);
      append_line_slice(w, k, end_row, 0, end_col);
    }
    k->token_text.data[r] = intern(w, &k->texts, k->sequence.data, k->sequence.size);
  }
}

void tree_tokens_build(Workspace *w, const Language *lang, const FlatTrees *t, TreeTokens *k) {
  int64_t n_nodes = t->name.size, n_trees = tree_count(t);
  tree_shape(w, t, k);
  VEC_RESIZE(w, &k->position, n_nodes);
  VEC_RESIZE(w, &k->text, n_nodes);
  ws_fill_i32(&k->position, -1);
  ws_fill_i32(&k->text, -1);
  k->token_nodes.size = 0;
  k->token_start.size = 0;
  VEC_PUSH(w, &k->token_start, 0);
  interner_clear(w, &k->texts, lang->n_names + n_nodes / 2);
  for (int32_t name = 0; name < lang->n_names; name++) {
    int64_t a = lang->name_start[name];
    intern(w, &k->texts, lang->name_points + a, lang->name_start[name + 1] - a);
  }
  for (int64_t tree = 0; tree < n_trees; tree++) {
    int64_t lo = t->node_start.data[tree], hi = t->node_start.data[tree + 1];
    int64_t first = k->token_nodes.size;
    for (int64_t i = lo; i < hi;) {
      if (token_like(lang, t, k, i)) {
        VEC_PUSH(w, &k->token_nodes, (int32_t)i);
        i = k->subtree_end.data[i];
      } else {
        i++;
      }
    }
    VEC_PUSH(w, &k->token_start, k->token_nodes.size);
    int64_t count = k->token_nodes.size - first;
    /* each byte range's entry: the last token with that range */
    keymap_reset(w, &k->by_range, count);
    for (int64_t r = first; r < first + count; r++) {
      int32_t node = k->token_nodes.data[r];
      keymap_put(&k->by_range, ((int64_t)t->start.data[node] << 32) | (uint32_t)t->end.data[node],
                 (int32_t)(r - first));
    }
    VEC_RESIZE(w, &k->token_text, k->token_nodes.size);
    token_texts(w, t, k, tree);
    for (int64_t i = lo; i < hi; i++) {
      if (!token_like(lang, t, k, i)) continue;
      int64_t key = ((int64_t)t->start.data[i] << 32) | (uint32_t)t->end.data[i];
      int32_t position = keymap_get(&k->by_range, key);
      k->position.data[i] = position < 0 ? -2 : position;
      if (position >= 0) k->text.data[i] = k->token_text.data[first + position];
    }
  }
}

void tree_tokens_free(TreeTokens *k) {
  VEC_FREE(&k->subtree_end);
  VEC_FREE(&k->has_children);
  VEC_FREE(&k->node_depth);
  VEC_FREE(&k->depth);
  VEC_FREE(&k->position);
  VEC_FREE(&k->token_nodes);
  VEC_FREE(&k->token_start);
  VEC_FREE(&k->text);
  interner_free(&k->texts);
  keymap_free(&k->by_range);
  VEC_FREE(&k->token_text);
  VEC_FREE(&k->points);
  VEC_FREE(&k->sequence);
  VEC_FREE(&k->line_byte);
  VEC_FREE(&k->line_point);
}
