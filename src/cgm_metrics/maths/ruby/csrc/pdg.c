/* RUBY's program graph (pdg.py: program_graph), its per-node walks compiled.
 *
 * Reads a flat tree of CodeBLEU's engine (a batch's tree, walked from tree-sitter's tree in
 * C) and computes what the three Python walks of pdg.py compute: the statements with their
 * enclosing statement and region (_find_statements), each statement's variable occurrences
 * with their roles (_own_parts), and the graph's nodes, labels (syntax.node_parts) and
 * structural edges. The reaching definitions over statements (a small walk) stay in Python
 * (pdg._DataFlow), which joins them into def-use edges. pdg.py stays the specification; the
 * tests compare both on every snippet they build. */
#include <string.h>

#include "../../codebleu/csrc/engine.h"

/* flags of a node-type name */
enum {
  PDG_CLAUSE = 1,       /* PdgSpec.clauses */
  PDG_STATEMENT = 2,    /* a statement-like suffix or PdgSpec.extra_statements */
  PDG_CONTAINER = 4,
  PDG_COMMENT = 8,      /* the language's comment types */
  PDG_LITERAL = 16,     /* the language's string types */
  PDG_VARIABLE = 32,
  PDG_PATTERN = 64,
  PDG_ASSIGN_OP = 128,  /* PdgSpec.assignments_with_operator */
  PDG_TRANSPARENT = 256
};
/* the role of a (parent name, field) position: pdg._child_role's tables */
enum { POS_NONE = 0, POS_DEF = 1, POS_DEFUSE = 2, POS_SKIP = 3, POS_USE = 4 };
enum { OCC_DEF = 1, OCC_READ = 2 };
#define CONTROL INT32_MIN /* the role of a governed child (Python: None) */

typedef struct {
  int32_t n_names, n_fields;   /* field ids 0 .. n_fields - 1, 0: no field */
  const int32_t *name_flags;   /* per name: PDG_* */
  const uint8_t *body_field;   /* per field: in PdgSpec.body_fields */
  const int8_t *position;      /* n_names * n_fields: POS_* */
  int32_t left_field, operator_field, equals_name; /* -1: none */
  const uint8_t *name_text;    /* the names' UTF-8 end to end */
  const int64_t *name_start;   /* n_names + 1 */
  const uint8_t *kept_text;    /* per name: syntax._kept of it ("" when dropped) */
  const int64_t *kept_start;   /* n_names + 1 */
  int32_t max_depth;
} PdgTables;

typedef struct {
  Workspace w;
  I32Vec first_child, next_sibling, n_children, statement_of, graph_of;
  I32Vec owner, region, depth;
  U8Vec expanded, is_def;
  I32Vec stack, scratch;
  /* results */
  I32Vec statements;  /* 4 a statement: node, parent statement, region, name */
  I32Vec occurrences; /* 5 each: statement, graph node, OCC_*, start byte, end byte */
  I32Vec edges;       /* 3 each: source, target, role (CONTROL, field id > 0, -1 - position) */
  U8Vec labels;       /* the graph nodes' labels end to end (UTF-8) */
  I32Vec label_bytes, label_chars; /* n + 1 offsets each */
} PdgScratch;

CGM_API PdgScratch *cgm_pdg_new(void) { return calloc(1, sizeof(PdgScratch)); }

CGM_API void cgm_pdg_free(PdgScratch *s) {
  if (s == NULL) return;
  I32Vec *vecs[] = {&s->first_child, &s->next_sibling, &s->n_children, &s->statement_of,
                    &s->graph_of, &s->owner, &s->region, &s->depth, &s->stack, &s->scratch,
                    &s->statements, &s->occurrences, &s->edges, &s->label_bytes,
                    &s->label_chars};
  for (size_t k = 0; k < sizeof(vecs) / sizeof(vecs[0]); k++) VEC_FREE(vecs[k]);
  VEC_FREE(&s->expanded);
  VEC_FREE(&s->is_def);
  VEC_FREE(&s->labels);
  free(s);
}

static int32_t child_role(const PdgTables *t, const int32_t *name, const int32_t *field,
                          const PdgScratch *s, int32_t parent, int32_t child_field,
                          int32_t role) {
  int32_t kind = name[parent];
  int8_t position = POS_NONE;
  if (child_field >= 0 && child_field < t->n_fields)
    position = t->position[(int64_t)kind * t->n_fields + child_field];
  if (position == POS_DEF) {
    if ((t->name_flags[kind] & PDG_ASSIGN_OP) && child_field == t->left_field &&
        t->left_field > 0) {
      for (int32_t c = s->first_child.data[parent]; c >= 0; c = s->next_sibling.data[c]) {
        if (field[c] == t->operator_field && t->operator_field > 0) {
          if (name[c] != t->equals_name) return POS_DEFUSE;
          break;
        }
      }
    }
    return POS_DEF;
  }
  if (position != POS_NONE) return position;
  if ((role == POS_DEF || role == POS_DEFUSE || role == POS_SKIP) &&
      (t->name_flags[kind] & PDG_PATTERN))
    return role;
  return POS_USE;
}

static void push_bytes(Workspace *w, U8Vec *out, const uint8_t *bytes, int64_t n) {
  VEC_RESERVE(w, out, n);
  if (n > 0) memcpy(out->data + out->size, bytes, (size_t)n);
  out->size += n;
}

/* Builds tree `tree` of `batch` into `s`: 0, 1 when statements nest deeper than max_depth,
 * or < 0 on failure. */
CGM_API int64_t cgm_pdg_build(PdgScratch *s, const void *batch, int64_t tree,
                              const PdgTables *t) {
  const FlatTrees *trees = batch_flat_trees(batch);
  if (tree < 0 || tree >= tree_count(trees)) return CGM_BAD_INPUT;
  Workspace *w = &s->w;
  if (setjmp(w->failure)) return CGM_NO_MEMORY;
  int64_t first = trees->node_start.data[tree];
  int32_t n = (int32_t)(trees->node_start.data[tree + 1] - first);
  const int32_t *name = trees->name.data + first, *field = trees->field.data + first;
  const int32_t *start = trees->start.data + first, *end = trees->end.data + first;
  const int32_t *parent = trees->parent.data + first;
  const uint8_t *flags = trees->flags.data + first;
  const uint8_t *source = trees->source.data + trees->source_start.data[tree];
  const int32_t *nf = t->name_flags;
  s->statements.size = s->occurrences.size = s->edges.size = s->labels.size = 0;
  s->label_bytes.size = s->label_chars.size = 0;
  VEC_PUSH(w, &s->label_bytes, 0);
  VEC_PUSH(w, &s->label_chars, 0);
  if (n <= 0) return CGM_BAD_INPUT;
  for (int32_t i = 0; i < n; i++)
    if (name[i] < 0 || name[i] >= t->n_names) return CGM_BAD_INPUT;
  VEC_RESIZE(w, &s->first_child, n);
  VEC_RESIZE(w, &s->next_sibling, n);
  VEC_RESIZE(w, &s->n_children, n);
  VEC_RESIZE(w, &s->statement_of, n);
  VEC_RESIZE(w, &s->graph_of, n);
  VEC_RESIZE(w, &s->owner, n);
  VEC_RESIZE(w, &s->region, n);
  VEC_RESIZE(w, &s->depth, n);
  VEC_RESIZE(w, &s->expanded, n);
  VEC_RESIZE(w, &s->is_def, n);
  int32_t *first_child = s->first_child.data, *next = s->next_sibling.data;
  int32_t *n_children = s->n_children.data, *statement_of = s->statement_of.data;
  int32_t *graph_of = s->graph_of.data;
  for (int32_t i = 0; i < n; i++) {
    first_child[i] = next[i] = statement_of[i] = graph_of[i] = -1;
    n_children[i] = 0;
    s->is_def.data[i] = 0;
  }
  for (int32_t i = n - 1; i > 0; i--) { /* children in source order */
    int32_t p = parent[i];
    next[i] = first_child[p];
    first_child[p] = i;
    n_children[p]++;
  }

  /* _find_statements: the visited nodes in pre-order are the tree's order restricted to
   * them; a node is visited when its parent was expanded and it is named (the root always),
   * expanded when visited and not a comment */
  for (int32_t i = 0; i < n; i++) {
    bool visited = i == 0 || (s->expanded.data[parent[i]] && (flags[i] & NODE_NAMED));
    s->expanded.data[i] = 0;
    if (!visited || (nf[name[i]] & PDG_COMMENT)) continue;
    s->expanded.data[i] = 1;
    int32_t owner = -1, region = -1, depth = 0;
    if (i > 0) {
      int32_t p = parent[i];
      owner = s->owner.data[p];
      depth = s->depth.data[p];
      region = statement_of[p] >= 0 ? start[i] : s->region.data[p];
    }
    s->region.data[i] = region;
    bool statement = false;
    if (flags[i] & NODE_NAMED) {
      if (nf[name[i]] & PDG_CLAUSE) {
        statement = true;
      } else if ((nf[name[i]] & PDG_STATEMENT) && i > 0) {
        int32_t f = field[i];
        statement = (nf[name[parent[i]]] & PDG_CONTAINER) ||
                    (f > 0 && f < t->n_fields && t->body_field[f]);
      }
    }
    if (statement) {
      if (depth >= t->max_depth) return 1;
      int32_t index = (int32_t)(s->statements.size / 4);
      VEC_PUSH(w, &s->statements, i);
      VEC_PUSH(w, &s->statements, owner);
      VEC_PUSH(w, &s->statements, region);
      VEC_PUSH(w, &s->statements, name[i]);
      statement_of[i] = index;
      owner = index;
      depth += 1;
    }
    s->owner.data[i] = owner;
    s->depth.data[i] = depth;
  }

  /* _own_parts: each statement's variable occurrences, in pre-order, with their roles */
  int64_t n_statements = s->statements.size / 4;
  for (int64_t k = 0; k < n_statements; k++) {
    int32_t root = s->statements.data[4 * k];
    s->stack.size = 0;
    VEC_PUSH(w, &s->stack, root);
    VEC_PUSH(w, &s->stack, POS_USE);
    while (s->stack.size > 0) {
      int32_t role = s->stack.data[--s->stack.size];
      int32_t node = s->stack.data[--s->stack.size];
      if (nf[name[node]] & PDG_COMMENT) continue;
      if (n_children[node] == 0) {
        if (nf[name[node]] & PDG_VARIABLE) {
          int32_t mark = (role == POS_DEF || role == POS_DEFUSE ? OCC_DEF : 0) |
                         (role == POS_USE || role == POS_DEFUSE ? OCC_READ : 0);
          if (mark) {
            int32_t row[5] = {(int32_t)k, node, mark, start[node], end[node]};
            VEC_RESERVE(w, &s->occurrences, 5);
            memcpy(s->occurrences.data + s->occurrences.size, row, sizeof(row));
            s->occurrences.size += 5;
            if (mark & OCC_DEF) s->is_def.data[node] = 1;
          }
        }
        continue;
      }
      /* children pushed last first, so that they pop in source order */
      s->scratch.size = 0;
      for (int32_t c = first_child[node]; c >= 0; c = next[c]) {
        if (statement_of[c] >= 0) continue;
        VEC_PUSH(w, &s->scratch, c);
      }
      for (int64_t m = s->scratch.size - 1; m >= 0; m--) {
        int32_t c = s->scratch.data[m];
        VEC_PUSH(w, &s->stack, c);
        VEC_PUSH(w, &s->stack, child_role(t, name, field, s, node, field[c], role));
      }
    }
  }

  /* program_graph's walk: nodes, labels and structural edges */
  s->stack.size = 0;
  VEC_PUSH(w, &s->stack, 0);
  VEC_PUSH(w, &s->stack, -1);
  VEC_PUSH(w, &s->stack, CONTROL);
  int32_t count = 0;
  while (s->stack.size > 0) {
    int32_t role = s->stack.data[--s->stack.size];
    int32_t graph_parent = s->stack.data[--s->stack.size];
    int32_t node = s->stack.data[--s->stack.size];
    int32_t kind = name[node];
    /* syntax.node_parts: named children (not comments), none for a literal */
    s->scratch.size = 0;
    bool has_named = false;
    if (!(nf[kind] & PDG_LITERAL) && n_children[node] > 0) {
      for (int32_t c = first_child[node]; c >= 0; c = next[c]) {
        if ((flags[c] & NODE_NAMED) && !(nf[name[c]] & PDG_COMMENT)) {
          VEC_PUSH(w, &s->scratch, c);
          has_named = true;
        }
      }
    }
    bool governs = statement_of[node] >= 0 || (nf[kind] & PDG_CONTAINER) || role == CONTROL;
    if ((nf[kind] & PDG_TRANSPARENT) || node == 0) {
      int32_t passed = governs ? CONTROL : role;
      for (int64_t m = s->scratch.size - 1; m >= 0; m--) {
        VEC_PUSH(w, &s->stack, s->scratch.data[m]);
        VEC_PUSH(w, &s->stack, graph_parent);
        VEC_PUSH(w, &s->stack, passed);
      }
      continue;
    }
    int32_t here = count++;
    graph_of[node] = here;
    /* the label */
    push_bytes(w, &s->labels, t->name_text + t->name_start[kind],
               t->name_start[kind + 1] - t->name_start[kind]);
    if (has_named) {
      for (int32_t c = first_child[node]; c >= 0; c = next[c]) {
        if (flags[c] & NODE_NAMED) continue;
        int32_t token = name[c];
        int64_t length = t->kept_start[token + 1] - t->kept_start[token];
        if (length == 0) continue;
        VEC_PUSH(w, &s->labels, (uint8_t)' ');
        push_bytes(w, &s->labels, t->kept_text + t->kept_start[token], length);
      }
    } else {
      VEC_PUSH(w, &s->labels, (uint8_t)':');
      int64_t from = s->labels.size;
      push_bytes(w, &s->labels, source + start[node], end[node] - start[node]);
      if (nf[kind] & PDG_LITERAL) {
        for (int64_t b = from; b < s->labels.size; b++)
          if (s->labels.data[b] == '\'' || s->labels.data[b] == '"') s->labels.data[b] = '`';
      }
    }
    int32_t bytes_before = s->label_bytes.data[s->label_bytes.size - 1];
    int32_t chars = s->label_chars.data[s->label_chars.size - 1];
    for (int64_t b = bytes_before; b < s->labels.size; b++)
      chars += (s->labels.data[b] & 0xC0) != 0x80;
    VEC_PUSH(w, &s->label_bytes, (int32_t)s->labels.size);
    VEC_PUSH(w, &s->label_chars, chars);
    /* the edge to the node it hangs from */
    if (graph_parent >= 0) {
      int32_t edge[3];
      if (governs) {
        edge[0] = graph_parent, edge[1] = here, edge[2] = CONTROL;
      } else if (s->is_def.data[node]) {
        edge[0] = graph_parent, edge[1] = here, edge[2] = role;
      } else {
        edge[0] = here, edge[1] = graph_parent, edge[2] = role;
      }
      VEC_RESERVE(w, &s->edges, 3);
      memcpy(s->edges.data + s->edges.size, edge, sizeof(edge));
      s->edges.size += 3;
    }
    /* its children: governed statements, or operands with their roles */
    int64_t base = s->stack.size;
    VEC_RESERVE(w, &s->stack, 3 * s->scratch.size);
    s->stack.size += 3 * s->scratch.size;
    int32_t position = 0;
    for (int64_t m = 0; m < s->scratch.size; m++) {
      int32_t c = s->scratch.data[m];
      int32_t child_role_code;
      if (statement_of[c] >= 0) {
        child_role_code = CONTROL;
      } else if (field[c] > 0) {
        child_role_code = field[c];
      } else {
        child_role_code = -1 - position;
        position++;
      }
      int32_t *slot = s->stack.data + base + 3 * (s->scratch.size - 1 - m);
      slot[0] = c, slot[1] = here, slot[2] = child_role_code;
    }
  }

  /* each occurrence's graph node: itself or the nearest ancestor that is one */
  for (int64_t k = 0; k < s->occurrences.size; k += 5) {
    int32_t node = s->occurrences.data[k + 1];
    while (node >= 0 && graph_of[node] < 0) node = node == 0 ? -1 : parent[node];
    s->occurrences.data[k + 1] = node >= 0 ? graph_of[node] : -1;
  }
  return 0;
}

/* The results of the last build: sizes (statements, occurrences, edges, graph nodes, label
 * bytes) and the arrays' addresses. */
CGM_API void cgm_pdg_results(const PdgScratch *s, int64_t *sizes, const void **arrays) {
  sizes[0] = s->statements.size / 4;
  sizes[1] = s->occurrences.size / 5;
  sizes[2] = s->edges.size / 3;
  sizes[3] = s->label_bytes.size - 1;
  sizes[4] = s->labels.size;
  arrays[0] = s->statements.data;
  arrays[1] = s->occurrences.data;
  arrays[2] = s->edges.data;
  arrays[3] = s->labels.data;
  arrays[4] = s->label_bytes.data;
  arrays[5] = s->label_chars.data;
}
