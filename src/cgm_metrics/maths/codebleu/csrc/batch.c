/* Languages and batches: the entry points engine.py calls.
 *
 * A batch holds the flat trees of every distinct snippet of a batch of items. Python adds
 * each parsed tree (walked here, or walked in Python), then one call derives tokens, syntax
 * keys and dataflow graphs for all of them, and one call compares (candidate, reference)
 * tree pairs. Every allocation of a call goes through the batch's workspace. */
#include <stdlib.h>
#include <string.h>

#include "engine.h"

#ifndef CGM_BUILD_ID
#define CGM_BUILD_ID 0 /* setup.py defines it: a hash of the C sources */
#endif

CGM_API int cgm_engine_abi(void) { return CGM_ENGINE_ABI; }
CGM_API const char *cgm_rule_names(void) { return RULE_NAMES; }
/* A hash of the C sources the library was built from (setup.py); native.py compares it
 * with the sources of a source checkout, so a stale build is never used silently. */
CGM_API uint64_t cgm_build_id(void) { return (uint64_t)CGM_BUILD_ID; }

/* ---------------------------------------------------------------- languages */

static void *copy_of(const void *data, size_t bytes) {
  void *copy = malloc(bytes > 0 ? bytes : 1);
  if (copy != NULL && bytes > 0) memcpy(copy, data, bytes);
  return copy;
}

CGM_API void cgm_language_free(Language *lang) {
  if (lang == NULL) return;
  free(lang->name_of_kind);
  free(lang->named_of_kind);
  free(lang->name_points);
  free(lang->name_start);
  free(lang->role);
  free(lang->flags);
  free(lang);
}

/* A language's tables: the names of its node types (code points, `name_start` offsets), the
 * name and named flag of each kind id, the name of ERROR, the dataflow role and NAME_* flags
 * of each name, and the rules (RULE_NAMES order). */
CGM_API Language *cgm_language_new(int32_t n_names, const int32_t *name_points,
                                   const int64_t *name_start, int32_t n_kinds,
                                   const int32_t *name_of_kind_table,
                                   const uint8_t *named_of_kind, int32_t error_name,
                                   const int32_t *role, const uint8_t *flags,
                                   const int64_t *rules) {
  Language *lang = calloc(1, sizeof(Language));
  if (lang == NULL) return NULL;
  lang->n_names = n_names;
  lang->n_kinds = n_kinds;
  lang->error_name = error_name;
  lang->name_of_kind = copy_of(name_of_kind_table, (size_t)n_kinds * sizeof(int32_t));
  lang->named_of_kind = copy_of(named_of_kind, (size_t)n_kinds);
  lang->name_points = copy_of(name_points, (size_t)name_start[n_names] * sizeof(int32_t));
  lang->name_start = copy_of(name_start, (size_t)(n_names + 1) * sizeof(int64_t));
  lang->role = copy_of(role, (size_t)n_names * sizeof(int32_t));
  lang->flags = copy_of(flags, (size_t)n_names);
  memcpy(lang->rules, rules, sizeof(lang->rules));
  if (!lang->name_of_kind || !lang->named_of_kind || !lang->name_points || !lang->name_start ||
      !lang->role || !lang->flags) {
    cgm_language_free(lang);
    return NULL;
  }
  return lang;
}

/* ---------------------------------------------------------------- batches */

typedef struct {
  Workspace w;
  const Language *lang;
  int64_t tree_header;            /* where a py-tree-sitter Tree object holds its TSTree */
  const void *expected_language;  /* the grammar's TSLanguage */
  FlatTrees trees;
  TreeTokens tokens;
  SyntaxScratch syntax;
  FlowScratch flow;
  I64Vec tree_pairs, counts;
  int stage; /* 0 trees added, 1 tokens, 2 syntax keys, 3 dataflow */
} Batch;

const FlatTrees *batch_flat_trees(const void *batch) { return &((const Batch *)batch)->trees; }

CGM_API void cgm_batch_free(Batch *b) {
  if (b == NULL) return;
  flat_trees_free(&b->trees);
  tree_tokens_free(&b->tokens);
  syntax_scratch_free(&b->syntax);
  flow_scratch_free(&b->flow);
  VEC_FREE(&b->tree_pairs);
  VEC_FREE(&b->counts);
  free(b);
}

CGM_API int cgm_batch_clear(Batch *b) {
  if (setjmp(b->w.failure)) return CGM_NO_MEMORY;
  flat_trees_clear(&b->w, &b->trees);
  b->stage = 0;
  return CGM_OK;
}

/* A batch for trees of `lang`; `tree_header` and `expected_language` serve the compiled
 * walk (cgm_batch_add_tree). */
CGM_API Batch *cgm_batch_new(const Language *lang, int64_t tree_header,
                             const void *expected_language) {
  Batch *b = calloc(1, sizeof(Batch));
  if (b == NULL) return NULL;
  b->lang = lang;
  b->tree_header = tree_header;
  b->expected_language = expected_language;
  if (cgm_batch_clear(b) != CGM_OK) {
    cgm_batch_free(b);
    return NULL;
  }
  return b;
}

/* The language of a tree-sitter tree, read through the py-tree-sitter Tree object at
 * `tree_object` (its TSTree pointer `header` bytes in): engine.py compares it with the
 * grammar's own pointer before it trusts the compiled walk. */
CGM_API const void *cgm_tree_language(const void *tree_object, int64_t header) {
  const void *ts_tree = *(const void *const *)((const char *)tree_object + header);
  return ts_tree == NULL ? NULL : tree_sitter_tree_language(ts_tree);
}

/* Adds the tree of the py-tree-sitter Tree object at `tree_object`, walked here (see
 * treewalk.c); returns its number of ERROR leaves, or CGM_UNSUPPORTED_TREE (nothing added)
 * when it is not a tree of the batch's grammar with `expected_nodes` nodes. */
CGM_API int64_t cgm_batch_add_tree(Batch *b, const void *tree_object, int64_t expected_nodes,
                                   const uint8_t *source, int64_t length) {
  if (setjmp(b->w.failure)) return CGM_NO_MEMORY;
  const void *ts_tree = *(const void *const *)((const char *)tree_object + b->tree_header);
  if (ts_tree == NULL || b->expected_language == NULL || length >= INT32_MAX)
    return CGM_UNSUPPORTED_TREE;
  b->stage = 0;
  return walk_tree_sitter_tree(&b->w, b->lang, &b->trees, ts_tree, b->expected_language,
                               expected_nodes, source, length);
}

/* Adds a tree walked in Python: rows of (kind id, field id, start, end, parent index) and
 * the indices of its MISSING nodes; returns its number of ERROR leaves or < 0. */
CGM_API int64_t cgm_batch_add_walked_tree(Batch *b, const int32_t *rows, int64_t n_nodes,
                                          const int32_t *missing, int64_t n_missing,
                                          const uint8_t *source, int64_t length) {
  if (setjmp(b->w.failure)) return CGM_NO_MEMORY;
  if (n_nodes < 1 || length >= INT32_MAX) return CGM_BAD_INPUT;
  b->stage = 0;
  return add_walked_tree(&b->w, b->lang, &b->trees, rows, n_nodes, missing, n_missing, source,
                         length);
}

/* The indices (within the tree) of the ERROR leaves of `tree`; returns their count. */
CGM_API int64_t cgm_batch_error_leaves(Batch *b, int64_t tree, int32_t *out, int64_t capacity) {
  if (tree < 0 || tree >= tree_count(&b->trees)) return CGM_BAD_INPUT;
  int64_t lo = b->trees.node_start.data[tree], hi = b->trees.node_start.data[tree + 1], n = 0;
  for (int64_t i = lo; i < hi; i++) {
    if (!(b->trees.flags.data[i] & NODE_ERROR_LEAF)) continue;
    if (n < capacity) out[n] = (int32_t)(i - lo);
    n++;
  }
  return n;
}

/* The syntax label of an ERROR leaf: an id (>= the language's name count) that stands for
 * its S-expression, equal for equal texts. */
CGM_API int cgm_batch_set_label(Batch *b, int64_t tree, int64_t node, int32_t label) {
  if (tree < 0 || tree >= tree_count(&b->trees)) return CGM_BAD_INPUT;
  int64_t index = b->trees.node_start.data[tree] + node;
  if (node < 0 || index >= b->trees.node_start.data[tree + 1] || label < b->lang->n_names)
    return CGM_BAD_INPUT;
  b->trees.label.data[index] = label;
  return CGM_OK;
}

/* The package's tokens and token texts of every tree (first of the three analysis steps). */
CGM_API int cgm_batch_tokens(Batch *b) {
  if (setjmp(b->w.failure)) return CGM_NO_MEMORY;
  tree_tokens_build(&b->w, b->lang, &b->trees, &b->tokens);
  b->stage = 1;
  return CGM_OK;
}

/* The subtree keys of every tree. */
CGM_API int cgm_batch_syntax(Batch *b) {
  if (setjmp(b->w.failure)) return CGM_NO_MEMORY;
  if (b->stage < 1) return CGM_BAD_INPUT;
  syntax_keys(&b->w, &b->trees, &b->tokens, &b->syntax);
  b->stage = 2;
  return CGM_OK;
}

/* The dataflow graph of every tree (see dataflow.c for the limits). `status[tree]` is 1 where
 * the reference walker must give the graph (cgm_batch_set_graph). */
CGM_API int cgm_batch_dataflow(Batch *b, int set_order, int64_t max_depth,
                               int64_t loop_nesting_limit, int64_t depth_limit, uint8_t *status) {
  if (setjmp(b->w.failure)) return CGM_NO_MEMORY;
  if (b->stage < 2 || (set_order != 0 && set_order != 1)) return CGM_BAD_INPUT;
  dataflow_trees(&b->w, b->lang, &b->trees, &b->tokens, set_order, max_depth,
                 loop_nesting_limit, depth_limit, &b->flow);
  int64_t n_trees = tree_count(&b->trees);
  if (n_trees > 0) memcpy(status, b->flow.status.data, (size_t)n_trees);
  b->stage = 3;
  return CGM_OK;
}

/* The normalised graph of `tree` from the reference walker: entries of (name, relation,
 * parent names...) ints, entry_start[n_entries + 1] offsets. */
CGM_API int cgm_batch_set_graph(Batch *b, int64_t tree, const int32_t *data,
                                const int64_t *entry_start, int64_t n_entries) {
  if (setjmp(b->w.failure)) return CGM_NO_MEMORY;
  if (b->stage < 3 || tree < 0 || tree >= tree_count(&b->trees)) return CGM_BAD_INPUT;
  dataflow_set_tree(&b->w, &b->flow, tree, data, entry_start, n_entries);
  return CGM_OK;
}

/* For each (item, candidate tree, reference tree): adds the syntax matches, syntax total,
 * dataflow matches and dataflow total to rows[item * stride + column ...]. */
CGM_API int cgm_batch_compare(Batch *b, const int64_t *pairs, int64_t n_pairs, double *rows,
                              int64_t stride, int64_t column) {
  if (setjmp(b->w.failure)) return CGM_NO_MEMORY;
  if (b->stage < 3) return CGM_BAD_INPUT;
  int64_t n_trees = tree_count(&b->trees);
  VEC_RESIZE(&b->w, &b->tree_pairs, 2 * n_pairs);
  VEC_RESIZE(&b->w, &b->counts, 4 * n_pairs);
  for (int64_t p = 0; p < n_pairs; p++) {
    for (int k = 1; k <= 2; k++) {
      if (pairs[3 * p + k] < 0 || pairs[3 * p + k] >= n_trees) return CGM_BAD_INPUT;
      b->tree_pairs.data[2 * p + k - 1] = pairs[3 * p + k];
    }
  }
  syntax_match(&b->w, &b->trees, &b->syntax, b->tree_pairs.data, n_pairs, b->counts.data, 4);
  dataflow_match(&b->w, &b->flow, b->tree_pairs.data, n_pairs, b->counts.data + 2, 4);
  for (int64_t p = 0; p < n_pairs; p++) {
    double *row = rows + pairs[3 * p] * stride + column;
    for (int k = 0; k < 4; k++) row[k] += (double)b->counts.data[4 * p + k];
  }
  return CGM_OK;
}

/* The flat rows of `tree` (name id, field, start, end, parent, flags: 6 ints a node) into
 * `out`; returns its node count (for the tests and the walk check of engine.py). */
CGM_API int64_t cgm_batch_tree_rows(Batch *b, int64_t tree, int32_t *out, int64_t capacity) {
  if (tree < 0 || tree >= tree_count(&b->trees)) return CGM_BAD_INPUT;
  const FlatTrees *t = &b->trees;
  int64_t lo = t->node_start.data[tree], hi = t->node_start.data[tree + 1];
  for (int64_t i = lo; i < hi && i - lo < capacity; i++) {
    int32_t *row = out + 6 * (i - lo);
    row[0] = t->name.data[i];
    row[1] = t->field.data[i];
    row[2] = t->start.data[i];
    row[3] = t->end.data[i];
    row[4] = t->parent.data[i];
    row[5] = t->flags.data[i];
  }
  return hi - lo;
}
