/* Flat trees: every node a tree-sitter TreeCursor visits, in pre-order, with the facts the
 * metric needs (node type, field, byte range, parent, MISSING, childless ERROR).
 *
 * walk_tree_sitter_tree reads the tree that py-tree-sitter built, directly: its Python
 * binding exports no C functions, so the walk follows tree-sitter's own data layout
 * (tree-sitter 0.25 and 0.26: a tree's root subtree and language, inline and heap
 * subtrees, the language's alias sequences and field maps) and its cursor's rules (hidden
 * nodes are transparent, a node's field comes from its parent's production or through hidden
 * wrappers). engine.py enables it only for those tree-sitter versions, only when the tree's
 * language pointer is the grammar's own, and only after a probe tree of every language walks
 * to exactly what the Python cursor walk gives; every tree is also checked against its node
 * count. Otherwise trees are walked in Python (add_walked_tree), at about 0.4 us a node. */
#include <stdlib.h>
#include <string.h>

#include "engine.h"

/* ---------------------------------------------------------------- tree-sitter's layout */

typedef struct { uint32_t row, column; } TsPoint;
typedef struct { uint32_t bytes; TsPoint extent; } TsLength;

/* a small leaf stored inside the Subtree word (little-endian layout) */
typedef struct {
  bool is_inline : 1;
  bool visible : 1;
  bool named : 1;
  bool extra : 1;
  bool has_changes : 1;
  bool is_missing : 1;
  bool is_keyword : 1;
  uint8_t symbol;
  uint16_t parse_state;
  uint8_t padding_columns;
  uint8_t padding_rows : 4;
  uint8_t lookahead_bytes : 4;
  uint8_t padding_bytes;
  uint8_t size_bytes;
} TsInline;

/* every other subtree, its children stored just before it */
typedef struct {
  volatile uint32_t ref_count;
  TsLength padding;
  TsLength size;
  uint32_t lookahead_bytes;
  uint32_t error_cost;
  uint32_t child_count;
  uint16_t symbol;
  uint16_t parse_state;
  bool visible : 1;
  bool named : 1;
  bool extra : 1;
  bool fragile_left : 1;
  bool fragile_right : 1;
  bool has_changes : 1;
  bool has_external_tokens : 1;
  bool has_external_scanner_state_change : 1;
  bool depends_on_column : 1;
  bool is_missing : 1;
  bool is_keyword : 1;
  union {
    struct {
      uint32_t visible_child_count;
      uint32_t named_child_count;
      uint32_t visible_descendant_count;
      int32_t dynamic_precedence;
      uint16_t repeat_depth;
      uint16_t production_id;
      struct { uint16_t symbol; uint16_t parse_state; } first_leaf;
    } node;
    struct {
      union { char *long_data; char short_data[24]; } data;
      uint32_t length;
    } external_scanner_state;
    int32_t lookahead_char;
  } u;
} TsHeap;

typedef union {
  TsInline data;
  const TsHeap *ptr;
} TsSubtree;

typedef struct { uint16_t field_id; uint8_t child_index; bool inherited; } TsFieldMapEntry;
typedef struct { uint16_t index; uint16_t length; } TsMapSlice;

/* the prefix of TSLanguage that has been the same since ABI 13 */
typedef struct {
  uint32_t abi_version;
  uint32_t symbol_count;
  uint32_t alias_count;
  uint32_t token_count;
  uint32_t external_token_count;
  uint32_t state_count;
  uint32_t large_state_count;
  uint32_t production_id_count;
  uint32_t field_count;
  uint16_t max_alias_sequence_length;
  const uint16_t *parse_table;
  const uint16_t *small_parse_table;
  const uint32_t *small_parse_table_map;
  const void *parse_actions;
  const char *const *symbol_names;
  const char *const *field_names;
  const TsMapSlice *field_map_slices;
  const TsFieldMapEntry *field_map_entries;
  const void *symbol_metadata;
  const uint16_t *public_symbol_map;
  const uint16_t *alias_map;
  const uint16_t *alias_sequences;
} TsLanguage;

typedef struct {
  TsSubtree root;
  const TsLanguage *language;
  void *included_ranges;
  unsigned included_range_count;
} TsTree;

static inline bool st_inline(TsSubtree s) { return s.data.is_inline; }
static inline uint16_t st_symbol(TsSubtree s) {
  return st_inline(s) ? s.data.symbol : s.ptr->symbol;
}
static inline bool st_visible(TsSubtree s) {
  return st_inline(s) ? s.data.visible : s.ptr->visible;
}
static inline bool st_extra(TsSubtree s) { return st_inline(s) ? s.data.extra : s.ptr->extra; }
static inline bool st_missing(TsSubtree s) {
  return st_inline(s) ? s.data.is_missing : s.ptr->is_missing;
}
static inline uint32_t st_padding(TsSubtree s) {
  return st_inline(s) ? s.data.padding_bytes : s.ptr->padding.bytes;
}
static inline uint32_t st_size(TsSubtree s) {
  return st_inline(s) ? s.data.size_bytes : s.ptr->size.bytes;
}
static inline uint32_t st_child_count(TsSubtree s) {
  return st_inline(s) ? 0 : s.ptr->child_count;
}
static inline uint32_t st_visible_child_count(TsSubtree s) {
  return st_child_count(s) > 0 ? s.ptr->u.node.visible_child_count : 0;
}
static inline const TsSubtree *st_children(TsSubtree s) {
  return (const TsSubtree *)(const void *)s.ptr - s.ptr->child_count;
}

static inline uint16_t public_symbol(const TsLanguage *ts, uint16_t symbol) {
  if (symbol == ERROR_KIND) return symbol;
  if (symbol >= ts->symbol_count + ts->alias_count) return symbol; /* never: kept as is */
  return ts->public_symbol_map[symbol];
}

const void *tree_sitter_tree_language(const void *ts_tree) {
  return ((const TsTree *)ts_tree)->language;
}

/* ---------------------------------------------------------------- flat trees */

void flat_trees_clear(Workspace *w, FlatTrees *trees) {
  trees->node_start.size = 0;
  VEC_PUSH(w, &trees->node_start, 0);
  trees->name.size = trees->field.size = trees->start.size = trees->end.size = 0;
  trees->parent.size = trees->flags.size = trees->label.size = 0;
  trees->source.size = 0;
  trees->source_start.size = 0;
  VEC_PUSH(w, &trees->source_start, 0);
}

void flat_trees_free(FlatTrees *trees) {
  VEC_FREE(&trees->node_start);
  VEC_FREE(&trees->name);
  VEC_FREE(&trees->field);
  VEC_FREE(&trees->start);
  VEC_FREE(&trees->end);
  VEC_FREE(&trees->parent);
  VEC_FREE(&trees->flags);
  VEC_FREE(&trees->label);
  VEC_FREE(&trees->source);
  VEC_FREE(&trees->source_start);
  VEC_FREE(&trees->walk_frames);
}

static void push_node(Workspace *w, FlatTrees *t, int32_t name, int32_t field, int32_t start,
                      int32_t end, int32_t parent, uint8_t flags) {
  VEC_PUSH(w, &t->name, name);
  VEC_PUSH(w, &t->field, field);
  VEC_PUSH(w, &t->start, start);
  VEC_PUSH(w, &t->end, end);
  VEC_PUSH(w, &t->parent, parent);
  VEC_PUSH(w, &t->flags, flags);
  VEC_PUSH(w, &t->label, name);
}

/* The tree just added: mark its childless ERROR nodes with content, record its source and
 * close it; returns the number of such ERROR leaves. */
static int64_t finish_tree(Workspace *w, const Language *lang, FlatTrees *t,
                           const uint8_t *source, int64_t length) {
  int64_t first = t->node_start.data[t->node_start.size - 1], last = t->name.size;
  int64_t errors = 0;
  for (int64_t i = first; i < last; i++) {
    bool leaf = i + 1 == last || t->parent.data[i + 1] != (int32_t)(i - first);
    if (leaf && t->name.data[i] == lang->error_name && t->end.data[i] > t->start.data[i]) {
      t->flags.data[i] |= NODE_ERROR_LEAF;
      errors++;
    }
  }
  VEC_PUSH(w, &t->node_start, last);
  VEC_RESERVE(w, &t->source, length);
  if (length > 0) memcpy(t->source.data + t->source.size, source, (size_t)length);
  t->source.size += length;
  VEC_PUSH(w, &t->source_start, t->source.size);
  return errors;
}

static void drop_unfinished_tree(FlatTrees *t) {
  int64_t first = t->node_start.data[t->node_start.size - 1];
  t->name.size = t->field.size = t->start.size = t->end.size = first;
  t->parent.size = t->flags.size = t->label.size = first;
}

int64_t add_walked_tree(Workspace *w, const Language *lang, FlatTrees *t, const int32_t *rows,
                        int64_t n_nodes, const int32_t *missing, int64_t n_missing,
                        const uint8_t *source, int64_t length) {
  int64_t first = t->name.size;
  for (int64_t i = 0; i < n_nodes; i++) {
    const int32_t *row = rows + 5 * i;
    int32_t name = name_of_kind(lang, row[0]);
    bool parent_ok = i == 0 ? row[4] == -1 : row[4] >= 0 && row[4] < i;
    if (name < 0 || !parent_ok || row[2] < 0 || row[3] < row[2] || row[3] > length) {
      drop_unfinished_tree(t);
      return CGM_BAD_INPUT;
    }
    push_node(w, t, name, row[1], row[2], row[3], row[4],
              kind_is_named(lang, row[0]) ? NODE_NAMED : 0);
  }
  for (int64_t k = 0; k < n_missing; k++) {
    if (missing[k] < 0 || missing[k] >= n_nodes) {
      drop_unfinished_tree(t);
      return CGM_BAD_INPUT;
    }
    t->flags.data[first + missing[k]] |= NODE_MISSING;
  }
  return finish_tree(w, lang, t, source, length);
}

/* ---------------------------------------------------------------- the compiled walk */

typedef struct {
  const TsSubtree *subtree;      /* whose children are being visited */
  const uint16_t *aliases;       /* its production's alias sequence, or NULL */
  const TsFieldMapEntry *fields, *fields_end;
  uint32_t next_child, structural_index;
  uint32_t position;             /* start byte of the next child (before its padding) */
  int32_t visible_parent;        /* index of the nearest visible ancestor in the tree */
  int32_t chain_field;           /* for a hidden node: the field its hidden chain carries */
} Frame;


static void push_frame(Workspace *w, WalkFrames *frames, Frame frame) {
  if (frames->size + 1 > frames->capacity)
    frames->data = ws_grow(w, frames->data, &frames->capacity, frames->size + 1, sizeof(Frame));
  ((Frame *)frames->data)[frames->size++] = frame;
}

static Frame frame_for(const TsLanguage *ts, const TsSubtree *subtree, uint32_t position,
                       int32_t visible_parent, int32_t chain_field) {
  Frame f;
  uint16_t production = subtree->ptr->u.node.production_id;
  f.subtree = subtree;
  bool known = production < ts->production_id_count;
  f.aliases = production && known
                  ? ts->alias_sequences + (size_t)production * ts->max_alias_sequence_length
                  : NULL;
  f.fields = f.fields_end = NULL;
  if (ts->field_count > 0 && known) {
    TsMapSlice slice = ts->field_map_slices[production];
    f.fields = ts->field_map_entries + slice.index;
    f.fields_end = f.fields + slice.length;
  }
  f.next_child = 0;
  f.structural_index = 0;
  f.position = position;
  f.visible_parent = visible_parent;
  f.chain_field = chain_field;
  return f;
}

int64_t walk_tree_sitter_tree(Workspace *w, const Language *lang, FlatTrees *t,
                              const void *ts_tree, const void *expected_language,
                              int64_t expected_nodes, const uint8_t *source, int64_t length) {
  WalkFrames *frames = &t->walk_frames;
  const TsTree *tree = (const TsTree *)ts_tree;
  const TsLanguage *ts = tree->language;
  if (ts != expected_language || ts->abi_version < 13 || ts->abi_version > 15)
    return CGM_UNSUPPORTED_TREE;
  int64_t first = t->name.size;
  TsSubtree root = tree->root;
  uint32_t root_start = st_padding(root);
  uint16_t root_kind = public_symbol(ts, st_symbol(root));
  int32_t root_name = name_of_kind(lang, root_kind);
  if (root_name < 0 || root_start + st_size(root) > (uint64_t)length) return CGM_UNSUPPORTED_TREE;
  push_node(w, t, root_name, 0, (int32_t)root_start, (int32_t)(root_start + st_size(root)), -1,
            (st_missing(root) ? NODE_MISSING : 0) | (kind_is_named(lang, root_kind) ? NODE_NAMED : 0));
  frames->size = 0;
  if (st_child_count(root) > 0) push_frame(w, frames, frame_for(ts, &tree->root, root_start, 0, 0));
  while (frames->size > 0) {
    Frame *f = (Frame *)frames->data + frames->size - 1;
    TsSubtree parent = *f->subtree;
    if (f->next_child == parent.ptr->child_count) {
      frames->size--;
      continue;
    }
    const TsSubtree *child = &st_children(parent)[f->next_child];
    if (f->next_child > 0) f->position += st_padding(*child);
    uint32_t start = f->position;
    bool extra = st_extra(*child);
    uint16_t alias = 0;
    int32_t field = 0;
    if (!extra) {
      if (f->aliases && f->structural_index < ts->max_alias_sequence_length)
        alias = f->aliases[f->structural_index];
      for (const TsFieldMapEntry *m = f->fields; m < f->fields_end; m++) {
        if (!m->inherited && m->child_index == f->structural_index) {
          field = m->field_id;
          break;
        }
      }
      if (field == 0) field = f->chain_field;
      f->structural_index++;
    }
    f->position += st_size(*child);
    f->next_child++;
    uint32_t end = start + st_size(*child);
    if (end > (uint64_t)length) {
      drop_unfinished_tree(t);
      return CGM_UNSUPPORTED_TREE;
    }
    if (st_visible(*child) || alias) {
      uint16_t kind = public_symbol(ts, alias ? alias : st_symbol(*child));
      int32_t name = name_of_kind(lang, kind);
      if (name < 0) {
        drop_unfinished_tree(t);
        return CGM_UNSUPPORTED_TREE;
      }
      int32_t index = (int32_t)(t->name.size - first);
      push_node(w, t, name, field, (int32_t)start, (int32_t)end, f->visible_parent,
                (st_missing(*child) ? NODE_MISSING : 0) | (kind_is_named(lang, kind) ? NODE_NAMED : 0));
      if (st_child_count(*child) > 0) push_frame(w, frames, frame_for(ts, child, start, index, 0));
    } else if (st_visible_child_count(*child) > 0) {
      push_frame(w, frames, frame_for(ts, child, start, f->visible_parent, field));
    }
  }
  if (t->name.size - first != expected_nodes) {
    drop_unfinished_tree(t);
    return CGM_UNSUPPORTED_TREE;
  }
  return finish_tree(w, lang, t, source, length);
}
