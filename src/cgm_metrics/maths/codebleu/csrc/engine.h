/* The compiled CodeBLEU engine: shared types and the functions the stages export.
 *
 * The engine is a plain C library (no Python headers) loaded with ctypes by
 * cgm_metrics/codebleu/engine.py. It computes exactly what the pure-Python reference computes
 * (tree.py, dataflow.py, ngrams.py, preprocess.py, setorder.py); the reference stays the
 * specification and the tests keep both equal.
 *
 * One file per stage of the metric:
 *   workspace.c  growable arrays, the intern table, the one place that allocates
 *   comments.c   comment removal (Python's tokenize rules; a scanner of comment styles as data)
 *   ngrams.c     the two n-gram components
 *   treewalk.c   flat trees: from tree-sitter's trees (compiled walk) or from a Python walk
 *   tokens.c     the package's token list and token texts
 *   syntax.c     subtree keys (S-expression equality) and the syntax match
 *   setorder.c   CPython's string hash and set order at PYTHONHASHSEED=0
 *   dataflow.c   the generic dataflow walker, its merges and the dataflow match
 *   batch.c      languages, batches and the exported entry points
 */
#ifndef CGM_ENGINE_H
#define CGM_ENGINE_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#if defined(_WIN32)
#define CGM_API __declspec(dllexport)
#else
#define CGM_API __attribute__((visibility("default")))
#endif

/* Bumped whenever an exported signature changes; engine.py checks it. */
#define CGM_ENGINE_ABI 2

/* Status codes of the exported functions (negative: failure). */
#define CGM_OK 0
#define CGM_NO_MEMORY (-1)
#define CGM_BAD_INPUT (-2)
#define CGM_UNSUPPORTED_TREE (-3)

/* ---------------------------------------------------------------- growable arrays */

typedef struct { int32_t *data; int64_t size, capacity; } I32Vec;
typedef struct { int64_t *data; int64_t size, capacity; } I64Vec;
typedef struct { uint8_t *data; int64_t size, capacity; } U8Vec;

/* Where allocation failures go: every exported function that allocates sets `failure` with
 * setjmp; an allocation that fails jumps back there and the function returns CGM_NO_MEMORY.
 * All memory belongs to arrays owned by the caller's structures, so nothing leaks. */
typedef struct {
  jmp_buf failure;
} Workspace;

void *ws_grow(Workspace *w, void *data, int64_t *capacity, int64_t needed, size_t item);
#define VEC_RESERVE(w, vec, n)                                                              \
  do {                                                                                      \
    if ((vec)->size + (n) > (vec)->capacity)                                                \
      (vec)->data = ws_grow((w), (vec)->data, &(vec)->capacity, (vec)->size + (n),         \
                            sizeof(*(vec)->data));                                          \
  } while (0)
#define VEC_PUSH(w, vec, value)                                                             \
  do {                                                                                      \
    VEC_RESERVE((w), (vec), 1);                                                             \
    (vec)->data[(vec)->size++] = (value);                                                   \
  } while (0)
/* Make `vec` hold `n` items (contents unspecified). */
#define VEC_RESIZE(w, vec, n)                                                               \
  do {                                                                                      \
    (vec)->size = 0;                                                                        \
    VEC_RESERVE((w), (vec), (n));                                                           \
    (vec)->size = (n);                                                                      \
  } while (0)
#define VEC_FREE(vec)                                                                       \
  do {                                                                                      \
    free((vec)->data);                                                                      \
    (vec)->data = NULL;                                                                     \
    (vec)->size = (vec)->capacity = 0;                                                      \
  } while (0)
void ws_fill_i32(I32Vec *vec, int32_t value);

/* ---------------------------------------------------------------- intern table */

/* Equal int32 sequences get equal ids, numbered from 0 in order of first appearance; exact,
 * collisions are resolved by comparing the stored sequences. */
typedef struct {
  I32Vec pool;   /* the sequences end to end */
  I64Vec start;  /* start[id] in pool; start[count] == pool.size */
  I32Vec slots;  /* open addressing over ids, -1 empty; a power of two, at most half full */
  int32_t count;
} Interner;

void interner_clear(Workspace *w, Interner *t, int64_t expected);
int32_t intern(Workspace *w, Interner *t, const int32_t *sequence, int64_t n);
void interner_free(Interner *t);

/* ---------------------------------------------------------------- int64 -> int32 map */

/* Emptied in O(1) by a new stamp; sized by keymap_reset for `expected` keys. */
typedef struct {
  I64Vec keys, stamps;
  I32Vec values;
  int64_t stamp;
  int32_t count;
} KeyMap;

void keymap_reset(Workspace *w, KeyMap *m, int64_t expected);
/* The value of `key`, or -1. */
int32_t keymap_get(const KeyMap *m, int64_t key);
void keymap_put(KeyMap *m, int64_t key, int32_t value);
/* The dense id of `key` (0, 1, ... in order of first appearance). */
int32_t keymap_id(KeyMap *m, int64_t key);
void keymap_free(KeyMap *m);

/* ---------------------------------------------------------------- text */

/* The code point at s[*i] (advancing *i); lone surrogates encoded as by Python's
 * "surrogatepass" decode to themselves; a stray byte (never in text Python encoded) to
 * itself. */
static inline uint32_t utf8_next(const uint8_t *s, int64_t n, int64_t *i) {
  uint8_t b = s[*i];
  if (b < 0x80) {
    *i += 1;
    return b;
  }
  int extra = b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : b >= 0xC0 ? 1 : 0;
  if (extra == 0 || *i + extra >= n) {
    *i += 1;
    return b;
  }
  uint32_t c = extra == 3 ? (b & 0x07u) : extra == 2 ? (b & 0x0Fu) : (b & 0x1Fu);
  for (int k = 1; k <= extra; k++) c = (c << 6) | (s[*i + k] & 0x3Fu);
  *i += 1 + extra;
  return c;
}

/* str.isspace() of one code point: the separators of str.split() and str.strip(). */
static inline bool is_python_space(uint32_t c) {
  if (c <= 0x20) return c == 0x20 || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F);
  if (c < 0x85) return false;
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
         c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

/* ---------------------------------------------------------------- comment styles */

/* A comment style as data (tables.CommentStyle; engine.py fills it): the markers are
 * NUL-terminated ASCII strings, at most CGM_MAX_MARKS of each kind. */
#define CGM_MAX_MARKS 4
typedef struct {
  const char *block_open[CGM_MAX_MARKS];
  const char *block_close[CGM_MAX_MARKS];
  const char *line[CGM_MAX_MARKS];
  const char *quote[CGM_MAX_MARKS];
  const char *quote_not_after[CGM_MAX_MARKS]; /* "" for none */
  int32_t quote_escape[CGM_MAX_MARKS];
  int32_t quote_multiline[CGM_MAX_MARKS];
  const char *line_symbols; /* "" for none */
  int32_t n_block, n_line, n_quotes;
  int32_t nested, line_at_word_start, long_brackets, escapes_outside;
} CommentStyle;

/* ---------------------------------------------------------------- language tables */

/* The dataflow rules of a language as integers (see tables.py; engine.py builds them and
 * checks this order against RULE_NAMES). Names are node-type ids, fields tree-sitter field
 * ids; -2 means "none". */
enum {
  RULE_DEFINITION_STYLE,       /* 0 fields, 1 two children, 2 after a keyword */
  RULE_DEFINITION_NAME_FIELD,
  RULE_DEFINITION_VALUE_FIELD,
  RULE_TUPLE_ASSIGNMENT,       /* 1: a, b = x, y paired element by element */
  RULE_BRANCH_STYLE,           /* 0 elif chain, 1 plain, 2 flagged */
  RULE_BRANCH_KEEPS_INPUT,     /* 1: the state before joins every merge */
  RULE_FOR_PATTERN_VALUE,      /* 1: a for-in of pattern/value/body fields */
  RULE_C_FOR_RESTART,          /* name after which a C-style for is walked again */
  RULE_C_FOR_UPDATE_OF,        /* Go: the clause whose update field is walked again */
  RULE_FOREACH_NAME_FIELD,
  RULE_FOREACH_VALUE_FIELD,
  RULE_FOREACH_BODY_FIELD,     /* -2 with RULE_FOREACH_REST */
  RULE_FOREACH_REST,           /* 1: the body is the children after the value */
  RULE_FOREACH_VARIABLE_PAIR,  /* 1: its first two variable names are value and name */
  RULE_HAS_FIRST,
  RULE_HAS_SEPARATORS,         /* 1: sides without fields are found around a separator */
  NAME_COMMA,
  NAME_BLOCK,
  NAME_FOR_IN_CLAUSE,
  NAME_OPERATOR_ASSIGNMENT,
  NAME_ELIF_CLAUSE,
  NAME_ELSE_CLAUSE,
  NAME_VARIABLE_NAME,
  NAME_IDENTIFIER,             /* the leaf type of a name (tables.DataflowRules.identifier) */
  FIELD_LEFT,                  /* an assignment's sides (DataflowRules.left, .right) */
  FIELD_RIGHT,
  FIELD_BODY,
  FIELD_PATTERN,
  FIELD_VALUE,
  FIELD_UPDATE,
  RULE_COUNT
};
#define RULE_NAMES                                                                          \
  "definition_style,definition_name_field,definition_value_field,tuple_assignment,"        \
  "branch_style,branch_keeps_input,for_pattern_value,c_for_restart,c_for_update_of,"                \
  "foreach_name_field,foreach_value_field,foreach_body_field,foreach_rest,foreach_variable_pair,"    \
  "has_first,has_separators,comma,block,for_in_clause,operator_assignment,elif_clause,"    \
  "else_clause,variable_name,identifier,left,right,body,pattern,value,update"

/* What the dataflow walker does with a node type (dataflow.py's kinds). */
enum {
  ROLE_DEFAULT, ROLE_DEFINITION, ROLE_ASSIGNMENT, ROLE_INCREMENT, ROLE_BRANCH,
  ROLE_FOR_IN, ROLE_C_FOR, ROLE_FOREACH, ROLE_LOOP
};
/* Flags of a node type: kept whole as a token, walked first, a branch, "else" in its name,
 * a separator, opaque (neither walked nor read for variables), a comment. */
enum { NAME_ATOMIC = 1, NAME_FIRST = 2, NAME_BRANCH = 4, NAME_HAS_ELSE = 8,
       NAME_SEPARATOR = 16, NAME_OPAQUE = 32, NAME_COMMENT_TYPE = 64 };

#define ERROR_KIND 65535

typedef struct {
  int32_t n_names;       /* distinct node-type names */
  int32_t n_kinds;       /* grammar kind ids 0..n_kinds-1; ERROR_KIND is mapped to error_name */
  int32_t *name_of_kind; /* kind id -> name id (-1: no such kind) */
  uint8_t *named_of_kind;
  int32_t error_name;
  int32_t *name_points;  /* the names' code points end to end (interned first, as ids 0..) */
  int64_t *name_start;   /* n_names + 1 offsets */
  int32_t *role;         /* per name */
  uint8_t *flags;        /* per name: NAME_* */
  int64_t rules[RULE_COUNT];
} Language;

static inline int32_t name_of_kind(const Language *lang, int32_t kind) {
  if (kind >= 0 && kind < lang->n_kinds) return lang->name_of_kind[kind];
  return kind == ERROR_KIND ? lang->error_name : -1;
}
static inline bool kind_is_named(const Language *lang, int32_t kind) {
  if (kind >= 0 && kind < lang->n_kinds) return lang->named_of_kind[kind];
  return kind == ERROR_KIND;
}

/* ---------------------------------------------------------------- flat trees */

enum { NODE_MISSING = 1, NODE_ERROR_LEAF = 2, NODE_NAMED = 4 };

/* the explicit stack of the compiled walk (frames defined in treewalk.c) */
typedef struct { void *data; int64_t size, capacity; } WalkFrames;

/* Every tree of a batch, in pre-order, node 0 of a tree its root; arrays over all nodes. */
typedef struct {
  I64Vec node_start;   /* n_trees + 1: first node of each tree */
  I32Vec name;         /* node-type name id */
  I32Vec field;        /* tree-sitter field id, 0 for none */
  I32Vec start, end;   /* byte range in the tree's source */
  I32Vec parent;       /* index of the parent within its tree, -1 for the root */
  U8Vec flags;         /* NODE_* */
  I32Vec label;        /* the syntax label: the name, or an id naming an ERROR leaf's text */
  U8Vec source;        /* every tree's source (UTF-8) end to end */
  I64Vec source_start; /* n_trees + 1 */
  WalkFrames walk_frames;
} FlatTrees;

static inline int64_t tree_count(const FlatTrees *trees) { return trees->node_start.size - 1; }

/* ---------------------------------------------------------------- derived tree data */

typedef struct {
  I32Vec subtree_end;   /* global index one past each node's subtree */
  U8Vec has_children;
  I32Vec node_depth;    /* the root's is 0 */
  I32Vec depth;         /* per tree: its deepest node's depth */
  I32Vec position;      /* per node: its token position, -1 not token-like, -2 no entry */
  I32Vec token_nodes;   /* the token nodes of every tree, tree after tree */
  I64Vec token_start;   /* n_trees + 1 */
  I32Vec text;          /* per node with a token position: its token's text id */
  Interner texts;       /* token texts (code points); the names are ids 0..n_names-1 */
  /* scratch */
  KeyMap by_range;
  I32Vec token_text, points, sequence;
  I64Vec line_byte, line_point;
} TreeTokens;

/* ---------------------------------------------------------------- stage functions */

void flat_trees_clear(Workspace *w, FlatTrees *trees);
void flat_trees_free(FlatTrees *trees);
/* Walks a tree-sitter tree into `trees`; returns the number of ERROR leaves, or < 0. */
int64_t walk_tree_sitter_tree(Workspace *w, const Language *lang, FlatTrees *trees,
                              const void *ts_tree, const void *expected_language,
                              int64_t expected_nodes, const uint8_t *source, int64_t length);
const void *tree_sitter_tree_language(const void *ts_tree);
/* The flat trees of a batch (batch.c), for RUBY's program graphs (ruby/csrc/pdg.c). */
const FlatTrees *batch_flat_trees(const void *batch);
/* Adds a tree walked elsewhere: rows of (kind id, field id, start, end, parent), and the
 * indices of its MISSING nodes; returns the number of ERROR leaves, or < 0. */
int64_t add_walked_tree(Workspace *w, const Language *lang, FlatTrees *trees,
                        const int32_t *rows, int64_t n_nodes, const int32_t *missing,
                        int64_t n_missing, const uint8_t *source, int64_t length);

void tree_tokens_build(Workspace *w, const Language *lang, const FlatTrees *trees,
                       TreeTokens *out);
void tree_tokens_free(TreeTokens *tokens);

typedef struct {
  I32Vec key;        /* per node: its subtree id, -1 for nodes that are not subtrees */
  I32Vec parts;      /* what each node contributes to its parent's S-expression */
  I64Vec part_start; /* per node: its run of parts (-1: nothing) */
  I64Vec part_length;
  I32Vec sequence, seen;
  Interner structures;
} SyntaxScratch;

void syntax_keys(Workspace *w, const FlatTrees *trees, const TreeTokens *tokens,
                 SyntaxScratch *s);
void syntax_match(Workspace *w, const FlatTrees *trees, SyntaxScratch *s, const int64_t *pairs,
                  int64_t n_pairs, int64_t *out, int64_t out_stride);
void syntax_scratch_free(SyntaxScratch *s);

/* One dataflow entry before merging. */
typedef struct {
  int32_t name, position, relation;
  int64_t names, n_names;         /* parent names: a run of the pool */
  int64_t positions, n_positions; /* parent positions: a run of the pool */
} FlowEntry;

typedef struct { FlowEntry *data; int64_t size, capacity; } FlowEntryVec;
typedef struct { int32_t name; int64_t start, length; } StateChange;
typedef struct { StateChange *data; int64_t size, capacity; } StateChangeVec;

typedef struct {
  /* the walker's state: per token text, its current positions (a pool run), -1: unset */
  I64Vec state_start, state_length;
  StateChangeVec journal;   /* (name, previous run) of every change, for undo */
  StateChangeVec snapshots; /* saved (name, run) segments of branches */
  I64Vec pool;              /* runs of positions and names */
  FlowEntryVec entries;
  I64Vec stamp;             /* per token text, marks of set operations */
  int64_t stamp_counter;
  I64Vec hashes;            /* per token text, its string hash (set order), once computed */
  U8Vec hashed;
  I64Vec item_hashes, set_table;
  KeyMap merge_map;
  I32Vec loop_depth;
  I64Vec sort_index;
  I32Vec slot_of_position;
  U8Vec keep;
  I32Vec rename;
  FlowEntryVec merged;
  int bad;                  /* 1: the graph is invalid (empty), as where the package raises */
  /* results: per tree a run of entries (name, relation, parents...) */
  I32Vec data;
  I64Vec entry_start;       /* entries' offsets into data */
  I64Vec tree_entries;      /* 2 per tree: first and end entry */
  U8Vec status;             /* per tree: 1 = the reference walker computes it */
  Interner entry_ids;
  I32Vec entry_id;
  I32Vec available;
} FlowScratch;

void dataflow_trees(Workspace *w, const Language *lang, const FlatTrees *trees,
                    const TreeTokens *tokens, int set_order, int64_t max_depth,
                    int64_t loop_nesting_limit, int64_t depth_limit, FlowScratch *s);
void dataflow_set_tree(Workspace *w, FlowScratch *s, int64_t tree, const int32_t *data,
                       const int64_t *entry_start, int64_t n_entries);
void dataflow_match(Workspace *w, FlowScratch *s, const int64_t *pairs, int64_t n_pairs,
                    int64_t *out, int64_t out_stride);
void flow_scratch_free(FlowScratch *s);

/* set order (setorder.c) */
uint64_t python_string_hash(const int32_t *points, int64_t n);
int64_t python_set_order(Workspace *w, const int64_t *items, int64_t n,
                         const uint64_t *hash_of_item, int64_t *out, I64Vec *table);

#endif
