/* Dataflow graphs as the package extracts them (dataflow.py), from one generic walker that
 * reads the language's rules (tables.py) as data.
 *
 * The walker follows dataflow.py function by function: one variable state changed in place
 * with an undo journal (branches walk from the state before the statement and merge their
 * states), loops walked twice and their entries merged per (name, position, relation),
 * parent names merged in CPython's set order at PYTHONHASHSEED=0 (or source order). Where the
 * package raises (a missing field or child), the tree's graph is empty. Two kinds of tree are
 * left to the reference walker (status 1): loops nested more than `loop_nesting_limit` deep
 * (it remembers loop results; walked here they would double the work per level), and trees
 * deeper than `depth_limit` (the walk here recurses once per level, and a thread's C stack
 * can be small).
 *
 * Runs of positions and names live in one pool (indices, never pointers, since it grows). */
#include <stdlib.h>
#include <string.h>

#include "engine.h"

#define COMES 0
#define COMPUTED 1

typedef struct {
  Workspace *w;
  const Language *lang;
  const FlatTrees *t;
  const TreeTokens *k;
  FlowScratch *s;
  int set_order; /* 0: the package's, 1: source order */
} Walker;

/* ---------------------------------------------------------------- pool and state */

static int64_t pool_alloc(Walker *x, int64_t n) {
  I64Vec *pool = &x->s->pool;
  VEC_RESERVE(x->w, pool, n);
  int64_t start = pool->size;
  pool->size += n;
  return start;
}

static void set_state(Walker *x, int32_t name, int64_t start, int64_t length) {
  FlowScratch *s = x->s;
  StateChange change = {name, s->state_start.data[name], s->state_length.data[name]};
  if (s->journal.size + 1 > s->journal.capacity)
    s->journal.data = ws_grow(x->w, s->journal.data, &s->journal.capacity, s->journal.size + 1,
                              sizeof(StateChange));
  s->journal.data[s->journal.size++] = change;
  s->state_start.data[name] = start;
  s->state_length.data[name] = length;
}

static void set_one(Walker *x, int32_t name, int64_t position) {
  int64_t run = pool_alloc(x, 1);
  x->s->pool.data[run] = position;
  set_state(x, name, run, 1);
}

static void undo(FlowScratch *s, int64_t mark) {
  while (s->journal.size > mark) {
    StateChange change = s->journal.data[--s->journal.size];
    s->state_start.data[change.name] = change.start;
    s->state_length.data[change.name] = change.length;
  }
}

/* Pushes the names changed since `mark` (first appearance) with their current runs onto the
 * snapshot stack; returns where the segment starts (it ends at the stack's top). */
static int64_t snapshot(Walker *x, int64_t mark) {
  FlowScratch *s = x->s;
  int64_t first = s->snapshots.size;
  int64_t stamp = ++s->stamp_counter;
  for (int64_t j = mark; j < s->journal.size; j++) {
    int32_t name = s->journal.data[j].name;
    if (s->stamp.data[name] == stamp) continue;
    s->stamp.data[name] = stamp;
    StateChange change = {name, s->state_start.data[name], s->state_length.data[name]};
    if (s->snapshots.size + 1 > s->snapshots.capacity)
      s->snapshots.data = ws_grow(x->w, s->snapshots.data, &s->snapshots.capacity,
                                  s->snapshots.size + 1, sizeof(StateChange));
    s->snapshots.data[s->snapshots.size++] = change;
  }
  return first;
}

static void add_entry(Walker *x, int32_t name, int32_t position, int32_t relation,
                      int64_t names, int64_t n_names, int64_t positions, int64_t n_positions) {
  FlowEntryVec *entries = &x->s->entries;
  FlowEntry e = {name, position, relation, names, n_names, positions, n_positions};
  if (entries->size + 1 > entries->capacity)
    entries->data = ws_grow(x->w, entries->data, &entries->capacity, entries->size + 1,
                            sizeof(FlowEntry));
  entries->data[entries->size++] = e;
}

/* ---------------------------------------------------------------- tree access */

static bool token_like(const Walker *x, int64_t node) {
  int32_t name = x->t->name.data[node];
  return (!x->k->has_children.data[node] || (x->lang->flags[name] & NAME_ATOMIC)) &&
         !(x->lang->flags[name] & NAME_COMMENT_TYPE);
}

static bool opaque(const Walker *x, int64_t node) {
  return (x->lang->flags[x->t->name.data[node]] & NAME_OPAQUE) != 0;
}

static int64_t subtree_end(const Walker *x, int64_t node) { return x->k->subtree_end.data[node]; }

/* The first child of `node` with field `field` (tree.py: child_by_field), -1 for none. */
static int64_t field_child(Walker *x, int64_t node, int64_t field) {
  if (node < 0) {
    x->s->bad = 1;
    return -1;
  }
  for (int64_t c = node + 1; c < subtree_end(x, node); c = subtree_end(x, c))
    if (x->t->field.data[c] == field) return c;
  return -1;
}

static int64_t last_child(const Walker *x, int64_t node) {
  int64_t last = -1;
  for (int64_t c = node + 1; c < subtree_end(x, node); c = subtree_end(x, c)) last = c;
  return last;
}

/* The children of `node` other than `skip_name` into a pool run; node < 0 is invalid. */
static int64_t children_run(Walker *x, int64_t node, int64_t skip_name, int64_t *count) {
  *count = 0;
  if (node < 0) {
    x->s->bad = 1;
    return 0;
  }
  for (int64_t c = node + 1; c < subtree_end(x, node); c = subtree_end(x, c))
    if (x->t->name.data[c] != skip_name) (*count)++;
  int64_t run = pool_alloc(x, *count), k = 0;
  for (int64_t c = node + 1; c < subtree_end(x, node); c = subtree_end(x, c))
    if (x->t->name.data[c] != skip_name) x->s->pool.data[run + k++] = c;
  return run;
}

/* dataflow.py's _split: the children just before and after the first separator child of
 * `node`; false if it has none, or none on either side. */
static bool split(Walker *x, int64_t node, int64_t *first, int64_t *second) {
  int64_t previous = -1, end = subtree_end(x, node);
  for (int64_t c = node + 1; c < end; c = subtree_end(x, c)) {
    if (x->lang->flags[x->t->name.data[c]] & NAME_SEPARATOR) {
      int64_t next = subtree_end(x, c);
      if (previous < 0 || next >= end) return false;
      *first = previous;
      *second = next;
      return true;
    }
    previous = c;
  }
  return false;
}

/* dataflow.py's _sides: the children of two fields; without the first, where the language
 * has separators, the children around the first separator. False: walk the node as any
 * other (it has neither). */
static bool sides_of(Walker *x, int64_t node, int64_t first_field, int64_t second_field,
                     int64_t *first, int64_t *second) {
  *first = field_child(x, node, first_field);
  if (*first < 0 && x->lang->rules[RULE_HAS_SEPARATORS]) return split(x, node, first, second);
  *second = field_child(x, node, second_field);
  return true;
}

static int64_t one(Walker *x, int64_t value) {
  int64_t run = pool_alloc(x, 1);
  x->s->pool.data[run] = value;
  return run;
}

/* dataflow.py's variables(): the token leaves under `node` whose text differs from their
 * type, as a pool run of nodes. */
static int64_t variables(Walker *x, int64_t node, int64_t *count) {
  *count = 0;
  if (node < 0) {
    x->s->bad = 1;
    return 0;
  }
  const int32_t *position = x->k->position.data, *text = x->k->text.data;
  const int32_t *name = x->t->name.data;
  for (int64_t j = node; j < subtree_end(x, node);) {
    if (opaque(x, j)) {
      j = subtree_end(x, j);
    } else if (token_like(x, j)) {
      if (position[j] == -2) {
        x->s->bad = 1;
        return 0;
      }
      if (text[j] != name[j]) (*count)++;
      j = subtree_end(x, j);
    } else {
      j++;
    }
  }
  int64_t run = pool_alloc(x, *count), k = 0;
  for (int64_t j = node; j < subtree_end(x, node);) {
    if (opaque(x, j)) {
      j = subtree_end(x, j);
    } else if (token_like(x, j)) {
      if (text[j] != name[j]) x->s->pool.data[run + k++] = j;
      j = subtree_end(x, j);
    } else {
      j++;
    }
  }
  return run;
}

/* ---------------------------------------------------------------- merges */

static uint64_t name_hash(Walker *x, int32_t name) {
  FlowScratch *s = x->s;
  if (!s->hashed.data[name]) {
    const Interner *texts = &x->k->texts;
    int64_t a = texts->start.data[name];
    s->hashes.data[name] = (int64_t)python_string_hash(texts->pool.data + a,
                                                       texts->start.data[name + 1] - a);
    s->hashed.data[name] = 1;
  }
  return (uint64_t)s->hashes.data[name];
}

/* Parent names a and b merged: list(set(a + b)) in the package's order, or first
 * appearance; returns the new run's start and sets *length. */
static int64_t union_names(Walker *x, int64_t a, int64_t a_length, int64_t b, int64_t b_length,
                           int64_t *length) {
  FlowScratch *s = x->s;
  int64_t n = a_length + b_length;
  int64_t both = pool_alloc(x, n);
  int64_t *pool = s->pool.data;
  for (int64_t i = 0; i < a_length; i++) pool[both + i] = pool[a + i];
  for (int64_t i = 0; i < b_length; i++) pool[both + a_length + i] = pool[b + i];
  if (x->set_order == 0) {
    VEC_RESIZE(x->w, &s->item_hashes, n);
    for (int64_t i = 0; i < n; i++)
      s->item_hashes.data[i] = (int64_t)name_hash(x, (int32_t)s->pool.data[both + i]);
    int64_t out = pool_alloc(x, n);
    pool = s->pool.data;
    *length = python_set_order(x->w, pool + both, n, (const uint64_t *)s->item_hashes.data,
                               pool + out, &s->set_table);
    return out;
  }
  int64_t stamp = ++s->stamp_counter, m = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t name = pool[both + i];
    if (s->stamp.data[name] == stamp) continue;
    s->stamp.data[name] = stamp;
    pool[both + m++] = name;
  }
  *length = m;
  return both;
}

static int compare_int64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Sorts pool[start:start+n] and drops repeats (tuple(sorted(set(...)))); the new length. */
static int64_t sorted_unique(int64_t *values, int64_t n) {
  if (n > 1) qsort(values, (size_t)n, sizeof(int64_t), compare_int64);
  int64_t m = 0;
  for (int64_t i = 0; i < n; i++)
    if (m == 0 || values[i] != values[m - 1]) values[m++] = values[i];
  return m;
}

/* dataflow.py's _merge_loop: the entries since `mark`, one per (name, position, relation),
 * parent names merged, parent positions sorted and unique. */
static void merge_loop(Walker *x, int64_t mark) {
  FlowScratch *s = x->s;
  int64_t end = s->entries.size, out = mark;
  keymap_reset(x->w, &s->merge_map, end - mark);
  for (int64_t i = mark; i < end; i++) {
    FlowEntry e = s->entries.data[i];
    int64_t key = (int64_t)(((uint64_t)e.position << 33) | ((uint64_t)e.name << 1) |
                            (uint64_t)e.relation);
    int32_t j = keymap_get(&s->merge_map, key);
    if (j < 0) {
      keymap_put(&s->merge_map, key, (int32_t)out);
      s->entries.data[out++] = e;
      continue;
    }
    FlowEntry *found = &s->entries.data[j];
    int64_t n_names, names = union_names(x, found->names, found->n_names, e.names, e.n_names,
                                         &n_names);
    int64_t n = found->n_positions + e.n_positions;
    int64_t positions = pool_alloc(x, n);
    int64_t *pool = s->pool.data;
    found = &s->entries.data[j];
    for (int64_t i2 = 0; i2 < found->n_positions; i2++)
      pool[positions + i2] = pool[found->positions + i2];
    for (int64_t i2 = 0; i2 < e.n_positions; i2++)
      pool[positions + found->n_positions + i2] = pool[e.positions + i2];
    found->names = names;
    found->n_names = n_names;
    found->positions = positions;
    found->n_positions = sorted_unique(pool + positions, n);
  }
  s->entries.size = out;
}

/* ---------------------------------------------------------------- the walk */

static void walk(Walker *x, int64_t node);
static void walk_default(Walker *x, int64_t node);

/* Each variable of `names` comes from / is computed from each variable of `values`. */
static void pairwise(Walker *x, int64_t names, int64_t n_names, int64_t values,
                     int64_t n_values, int relation) {
  const int32_t *text = x->k->text.data, *position = x->k->position.data;
  for (int64_t a = 0; a < n_names; a++) {
    int64_t leaf = x->s->pool.data[names + a];
    for (int64_t b = 0; b < n_values; b++) {
      int64_t value = x->s->pool.data[values + b];
      int64_t name_run = one(x, text[value]);
      int64_t position_run = one(x, position[value]);
      add_entry(x, text[leaf], position[leaf], relation, name_run, 1, position_run, 1);
    }
    set_one(x, text[leaf], position[leaf]);
  }
}

static void leaf(Walker *x, int64_t node) {
  FlowScratch *s = x->s;
  int32_t position = x->k->position.data[node];
  if (position == -2) {
    s->bad = 1;
    return;
  }
  int32_t text = x->k->text.data[node], name = x->t->name.data[node];
  if (text == name) return; /* its text is its type: a keyword or an operator */
  if (s->state_length.data[text] >= 0) {
    add_entry(x, text, position, COMES, one(x, text), 1, s->state_start.data[text],
              s->state_length.data[text]);
    return;
  }
  if (name == x->lang->rules[NAME_IDENTIFIER]) set_one(x, text, position);
  add_entry(x, text, position, COMES, 0, 0, 0, 0);
}

static void walk_default(Walker *x, int64_t node) {
  const uint8_t *flags = x->lang->flags;
  const int32_t *name = x->t->name.data;
  if (x->lang->rules[RULE_HAS_FIRST]) {
    for (int64_t c = node + 1; c < subtree_end(x, node) && !x->s->bad; c = subtree_end(x, c))
      if (flags[name[c]] & NAME_FIRST) walk(x, c);
  }
  for (int64_t c = node + 1; c < subtree_end(x, node) && !x->s->bad; c = subtree_end(x, c))
    if (!(flags[name[c]] & NAME_FIRST)) walk(x, c);
}

static void walk_definition(Walker *x, int64_t node) {
  const int64_t *rules = x->lang->rules;
  int64_t target, value;
  if (rules[RULE_DEFINITION_STYLE] == 0) {
    if (!sides_of(x, node, rules[RULE_DEFINITION_NAME_FIELD], rules[RULE_DEFINITION_VALUE_FIELD],
                  &target, &value)) {
      walk_default(x, node);
      return;
    }
  } else {
    int64_t count, kids = children_run(x, node, -7, &count);
    const int64_t *pool = x->s->pool.data;
    if (rules[RULE_DEFINITION_STYLE] == 1) { /* two children: the name, then the value if two */
      if (count == 0) {
        x->s->bad = 1;
        return;
      }
      target = pool[kids];
      value = count == 2 ? pool[kids + 1] : -1;
    } else { /* after a keyword: the keyword, the name, then the value */
      if (count < 2) {
        x->s->bad = 1;
        return;
      }
      target = pool[kids + 1];
      value = count >= 3 ? pool[kids + 2] : -1;
    }
  }
  if (x->s->bad) return;
  if (value < 0) {
    int64_t n, vars = variables(x, target, &n);
    for (int64_t i = 0; i < n && !x->s->bad; i++) {
      int64_t leaf_node = x->s->pool.data[vars + i];
      int32_t text = x->k->text.data[leaf_node], position = x->k->position.data[leaf_node];
      add_entry(x, text, position, COMES, 0, 0, 0, 0);
      set_one(x, text, position);
    }
    return;
  }
  int64_t n_names, names = variables(x, target, &n_names);
  int64_t n_values, values = variables(x, value, &n_values);
  if (x->s->bad) return;
  walk(x, value);
  if (x->s->bad) return;
  pairwise(x, names, n_names, values, n_values, COMES);
}

/* Left and right sides of a tuple-style assignment or a Python for loop (_pairs). */
static void sides(Walker *x, int64_t left, int64_t right, int64_t *lefts, int64_t *n_lefts,
                  int64_t *rights, int64_t *n_rights) {
  int64_t comma = x->lang->rules[NAME_COMMA];
  *lefts = children_run(x, left, comma, n_lefts);
  *rights = children_run(x, right, comma, n_rights);
  if (x->s->bad) return;
  if (*n_rights != *n_lefts) {
    *lefts = one(x, left);
    *n_lefts = 1;
    *rights = one(x, right);
    *n_rights = 1;
  }
  if (*n_lefts == 0) {
    *lefts = one(x, left);
    *n_lefts = 1;
  }
  if (*n_rights == 0) {
    *rights = one(x, right);
    *n_rights = 1;
  }
}

/* Walk the right sides, then each left variable is computed from its right side (_bind). */
static void bind(Walker *x, int64_t lefts, int64_t n_lefts, int64_t rights, int64_t n_rights) {
  for (int64_t i = 0; i < n_rights && !x->s->bad; i++) walk(x, x->s->pool.data[rights + i]);
  const int32_t *text = x->k->text.data, *position = x->k->position.data;
  for (int64_t i = 0; i < n_lefts && i < n_rights && !x->s->bad; i++) {
    int64_t n_sources, sources = variables(x, x->s->pool.data[rights + i], &n_sources);
    if (x->s->bad) return;
    int64_t names = pool_alloc(x, n_sources), positions = pool_alloc(x, n_sources);
    int64_t *pool = x->s->pool.data;
    for (int64_t m = 0; m < n_sources; m++) {
      pool[names + m] = text[pool[sources + m]];
      pool[positions + m] = position[pool[sources + m]];
    }
    int64_t n_vars, vars = variables(x, pool[lefts + i], &n_vars);
    for (int64_t m = 0; m < n_vars && !x->s->bad; m++) {
      int64_t leaf_node = x->s->pool.data[vars + m];
      add_entry(x, text[leaf_node], position[leaf_node], COMPUTED, names, n_sources, positions,
                n_sources);
      set_one(x, text[leaf_node], position[leaf_node]);
    }
  }
}

static void walk_assignment(Walker *x, int64_t node) {
  const int64_t *rules = x->lang->rules;
  int32_t name = x->t->name.data[node];
  int64_t left, right;
  if (!sides_of(x, node, rules[FIELD_LEFT], rules[FIELD_RIGHT], &left, &right)) {
    walk_default(x, node);
    return;
  }
  if (!rules[RULE_TUPLE_ASSIGNMENT]) {
    walk(x, right);
    if (x->s->bad) return;
    int64_t n_names, names = variables(x, left, &n_names);
    int64_t n_values, values = variables(x, right, &n_values);
    if (x->s->bad) return;
    pairwise(x, names, n_names, values, n_values, COMPUTED);
    return;
  }
  int64_t lefts, n_lefts, rights, n_rights;
  if (name == rules[NAME_FOR_IN_CLAUSE]) {
    int64_t last = last_child(x, node);
    if (last < 0) {
      x->s->bad = 1;
      return;
    }
    lefts = one(x, left);
    rights = one(x, last);
    n_lefts = n_rights = 1;
  } else {
    if (right < 0 && !rules[RULE_FOR_PATTERN_VALUE]) return;
    sides(x, left, right, &lefts, &n_lefts, &rights, &n_rights);
    if (x->s->bad) return;
    if (name == rules[NAME_OPERATOR_ASSIGNMENT]) {
      lefts = one(x, node + 1);
      rights = one(x, last_child(x, node));
      n_lefts = n_rights = 1;
    }
  }
  bind(x, lefts, n_lefts, rights, n_rights);
}

static void walk_increment(Walker *x, int64_t node) {
  int64_t n, vars = variables(x, node, &n);
  if (x->s->bad) return;
  pairwise(x, vars, n, vars, n, COMPUTED);
}

static void walk_branch(Walker *x, int64_t node) {
  FlowScratch *s = x->s;
  const int64_t *rules = x->lang->rules;
  const uint8_t *flags = x->lang->flags;
  const int32_t *name = x->t->name.data;
  int64_t base = s->journal.size, snapshot_base = s->snapshots.size;
  /* the branches' saved states: (start, end) of their segments on the snapshot stack */
  int64_t n_children = 0;
  for (int64_t c = node + 1; c < subtree_end(x, node); c = subtree_end(x, c)) n_children++;
  int64_t segments = pool_alloc(x, 2 * (n_children + 1)), n_segments = 0;
  bool branched = false, has_else = (flags[name[node]] & NAME_HAS_ELSE) != 0;
  for (int64_t c = node + 1; c < subtree_end(x, node) && !s->bad; c = subtree_end(x, c)) {
    int32_t child = name[c];
    if (flags[child] & NAME_HAS_ELSE) has_else = true;
    bool same_path;
    if (rules[RULE_BRANCH_STYLE] == 0)
      same_path = child != rules[NAME_ELIF_CLAUSE] && child != rules[NAME_ELSE_CLAUSE];
    else if (rules[RULE_BRANCH_STYLE] == 1)
      same_path = !(flags[child] & NAME_BRANCH);
    else
      same_path = !(flags[child] & NAME_BRANCH) && !branched;
    if (same_path) {
      walk(x, c);
      continue;
    }
    branched = true;
    /* walk this branch from the state before the statement, then restore the path */
    int64_t current = snapshot(x, base), current_end = s->snapshots.size;
    undo(s, base);
    walk(x, c);
    if (s->bad) return;
    s->pool.data[segments + 2 * n_segments] = snapshot(x, base);
    s->pool.data[segments + 2 * n_segments + 1] = s->snapshots.size;
    n_segments++;
    undo(s, base);
    for (int64_t i = current; i < current_end; i++) {
      StateChange change = s->snapshots.data[i];
      set_state(x, change.name, change.start, change.length);
    }
  }
  if (s->bad) return;
  s->pool.data[segments + 2 * n_segments] = snapshot(x, base);
  s->pool.data[segments + 2 * n_segments + 1] = s->snapshots.size;
  n_segments++;
  undo(s, base);
  bool keep_input = rules[RULE_BRANCH_KEEPS_INPUT] == 1 || !has_else;
  int64_t stamp = ++s->stamp_counter, n_touched = 0;
  int64_t touched = pool_alloc(x, s->snapshots.size - snapshot_base);
  for (int64_t g = 0; g < n_segments; g++) {
    int64_t from = s->pool.data[segments + 2 * g], to = s->pool.data[segments + 2 * g + 1];
    for (int64_t i = from; i < to; i++) {
      int32_t changed = s->snapshots.data[i].name;
      if (s->stamp.data[changed] == stamp) continue;
      s->stamp.data[changed] = stamp;
      s->pool.data[touched + n_touched++] = changed;
    }
  }
  /* every merged value first (from the state before the statement), then set them */
  int64_t merged = pool_alloc(x, 2 * n_touched);
  for (int64_t t = 0; t < n_touched; t++) {
    int32_t var = (int32_t)s->pool.data[touched + t];
    int64_t before = s->state_start.data[var], before_length = s->state_length.data[var];
    int64_t size = 0;
    for (int pass = 0; pass < 2; pass++) {
      int64_t run = pass == 0 ? 0 : pool_alloc(x, size), written = 0;
      for (int64_t g = 0; g < n_segments; g++) {
        int64_t from = s->pool.data[segments + 2 * g], to = s->pool.data[segments + 2 * g + 1];
        int64_t got_start = before, got_length = before_length;
        for (int64_t i = from; i < to; i++) {
          if (s->snapshots.data[i].name == var) {
            got_start = s->snapshots.data[i].start;
            got_length = s->snapshots.data[i].length;
            break;
          }
        }
        if (got_length < 0) continue;
        if (pass == 0) {
          size += got_length;
        } else {
          for (int64_t m = 0; m < got_length; m++)
            s->pool.data[run + written++] = s->pool.data[got_start + m];
        }
      }
      if (keep_input && before_length >= 0) {
        if (pass == 0) {
          size += before_length;
        } else {
          for (int64_t m = 0; m < before_length; m++)
            s->pool.data[run + written++] = s->pool.data[before + m];
        }
      }
      if (pass == 1) {
        s->pool.data[merged + 2 * t] = run;
        s->pool.data[merged + 2 * t + 1] = sorted_unique(s->pool.data + run, size);
      }
    }
  }
  s->snapshots.size = snapshot_base;
  for (int64_t t = 0; t < n_touched; t++)
    set_state(x, (int32_t)s->pool.data[touched + t], s->pool.data[merged + 2 * t],
              s->pool.data[merged + 2 * t + 1]);
}

static void walk_for_in(Walker *x, int64_t node) {
  const int64_t *rules = x->lang->rules;
  int64_t mark = x->s->entries.size;
  for (int iteration = 0; iteration < 2 && !x->s->bad; iteration++) {
    int64_t lefts, n_lefts, rights, n_rights;
    if (rules[RULE_FOR_PATTERN_VALUE]) {
      lefts = one(x, field_child(x, node, rules[FIELD_PATTERN]));
      rights = one(x, field_child(x, node, rules[FIELD_VALUE]));
      n_lefts = n_rights = 1;
    } else {
      int64_t right = field_child(x, node, rules[FIELD_RIGHT]);
      int64_t left = field_child(x, node, rules[FIELD_LEFT]);
      sides(x, left, right, &lefts, &n_lefts, &rights, &n_rights);
    }
    if (x->s->bad) return;
    bind(x, lefts, n_lefts, rights, n_rights);
    if (x->s->bad) return;
    if (rules[RULE_FOR_PATTERN_VALUE]) {
      walk(x, field_child(x, node, rules[FIELD_BODY]));
    } else {
      int64_t last = last_child(x, node);
      if (last < 0) {
        x->s->bad = 1;
        return;
      }
      if (x->t->name.data[last] == rules[NAME_BLOCK]) walk(x, last);
    }
  }
  if (!x->s->bad) merge_loop(x, mark);
}

static void walk_c_for(Walker *x, int64_t node) {
  const int64_t *rules = x->lang->rules;
  const int32_t *name = x->t->name.data;
  int64_t mark = x->s->entries.size;
  for (int64_t c = node + 1; c < subtree_end(x, node) && !x->s->bad; c = subtree_end(x, c))
    walk(x, c);
  bool again = false;
  for (int64_t c = node + 1; c < subtree_end(x, node) && !x->s->bad; c = subtree_end(x, c)) {
    if (again) {
      walk(x, c);
    } else if (rules[RULE_C_FOR_UPDATE_OF] >= 0 && name[c] == rules[RULE_C_FOR_UPDATE_OF]) {
      int64_t update = field_child(x, c, rules[FIELD_UPDATE]);
      if (update >= 0) walk(x, update);
      again = true;
    } else if (name[c] == rules[RULE_C_FOR_RESTART]) {
      again = true;
    }
  }
  if (!x->s->bad) merge_loop(x, mark);
}

static void walk_foreach(Walker *x, int64_t node) {
  const int64_t *rules = x->lang->rules;
  const int32_t *name = x->t->name.data;
  int64_t target = -1, value = -1;
  if (rules[RULE_FOREACH_VARIABLE_PAIR]) { /* the two variable_name children are value and name */
    for (int64_t c = node + 1; c < subtree_end(x, node); c = subtree_end(x, c)) {
      if (name[c] != rules[NAME_VARIABLE_NAME]) continue;
      if (value < 0) {
        value = c;
      } else if (target < 0) {
        target = c;
        break;
      }
    }
  } else if (!sides_of(x, node, rules[RULE_FOREACH_NAME_FIELD], rules[RULE_FOREACH_VALUE_FIELD],
                       &target, &value)) {
    walk_default(x, node);
    return;
  }
  /* the body: a field's child, or the children after the value */
  int64_t body = -1, rest = -1, rest_end = -1;
  if (rules[RULE_FOREACH_REST]) {
    if (value >= 0) {
      rest = subtree_end(x, value);
      rest_end = subtree_end(x, node);
    }
  } else {
    body = field_child(x, node, rules[RULE_FOREACH_BODY_FIELD]);
  }
  int64_t mark = x->s->entries.size;
  for (int iteration = 0; iteration < 2 && !x->s->bad; iteration++) {
    walk(x, value);
    if (x->s->bad) return;
    int64_t n_names, names = variables(x, target, &n_names);
    int64_t n_values, values = variables(x, value, &n_values);
    if (x->s->bad) return;
    pairwise(x, names, n_names, values, n_values, COMPUTED);
    if (rules[RULE_FOREACH_REST]) {
      for (int64_t c = rest; c >= 0 && c < rest_end && !x->s->bad; c = subtree_end(x, c))
        walk(x, c);
    } else {
      walk(x, body);
    }
  }
  if (!x->s->bad) merge_loop(x, mark);
}

static void walk_loop(Walker *x, int64_t node) {
  int64_t mark = x->s->entries.size;
  for (int iteration = 0; iteration < 2; iteration++)
    for (int64_t c = node + 1; c < subtree_end(x, node) && !x->s->bad; c = subtree_end(x, c))
      walk(x, c);
  if (!x->s->bad) merge_loop(x, mark);
}

static void walk(Walker *x, int64_t node) {
  if (x->s->bad) return;
  if (node < 0) {
    x->s->bad = 1;
    return;
  }
  if (opaque(x, node)) return;
  if (token_like(x, node)) {
    leaf(x, node);
    return;
  }
  switch (x->lang->role[x->t->name.data[node]]) {
    case ROLE_DEFINITION: walk_definition(x, node); break;
    case ROLE_ASSIGNMENT: walk_assignment(x, node); break;
    case ROLE_INCREMENT: walk_increment(x, node); break;
    case ROLE_BRANCH: walk_branch(x, node); break;
    case ROLE_FOR_IN: walk_for_in(x, node); break;
    case ROLE_C_FOR: walk_c_for(x, node); break;
    case ROLE_FOREACH: walk_foreach(x, node); break;
    case ROLE_LOOP: walk_loop(x, node); break;
    default: walk_default(x, node); break;
  }
}

/* ---------------------------------------------------------------- per tree */

/* How deeply loops nest in the tree (each loop node counts for its descendants). */
static int32_t loop_nesting(Walker *x, int64_t lo, int64_t hi) {
  FlowScratch *s = x->s;
  VEC_RESIZE(x->w, &s->loop_depth, hi - lo);
  int32_t deepest = 0;
  s->loop_depth.data[0] = 0;
  for (int64_t i = lo; i < hi; i++) {
    int32_t depth = s->loop_depth.data[i - lo];
    if (depth > deepest) deepest = depth;
    int32_t inner = depth + (x->lang->role[x->t->name.data[i]] >= ROLE_FOR_IN ? 1 : 0);
    for (int64_t c = i + 1; c < subtree_end(x, i); c = subtree_end(x, c))
      s->loop_depth.data[c - lo] = inner;
  }
  return deepest;
}

/* data_flow's end: entries sorted by position (stable), kept where an edge touches the
 * position, merged per position; then normalize(): names renamed by first appearance. */
static void finish_graph(Walker *x, int64_t n_tokens) {
  FlowScratch *s = x->s;
  int64_t n_entries = s->entries.size;
  /* counting sort by position */
  VEC_RESIZE(x->w, &s->slot_of_position, n_tokens + 1);
  ws_fill_i32(&s->slot_of_position, 0);
  for (int64_t e = 0; e < n_entries; e++) s->slot_of_position.data[s->entries.data[e].position + 1]++;
  for (int64_t p = 0; p < n_tokens; p++)
    s->slot_of_position.data[p + 1] += s->slot_of_position.data[p];
  VEC_RESIZE(x->w, &s->sort_index, n_entries);
  for (int64_t e = 0; e < n_entries; e++)
    s->sort_index.data[s->slot_of_position.data[s->entries.data[e].position]++] = e;
  VEC_RESIZE(x->w, &s->keep, n_tokens);
  memset(s->keep.data, 0, (size_t)n_tokens);
  for (int64_t e = 0; e < n_entries; e++) {
    FlowEntry *entry = &s->entries.data[e];
    if (entry->n_positions > 0) s->keep.data[entry->position] = 1;
    for (int64_t m = 0; m < entry->n_positions; m++)
      s->keep.data[s->pool.data[entry->positions + m]] = 1;
  }
  /* merged per position, in order; a later entry of a position gives name and relation */
  VEC_RESIZE(x->w, &s->slot_of_position, n_tokens);
  ws_fill_i32(&s->slot_of_position, -1);
  s->merged.size = 0;
  for (int64_t k = 0; k < n_entries; k++) {
    FlowEntry e = s->entries.data[s->sort_index.data[k]];
    if (!s->keep.data[e.position]) continue;
    int32_t slot = s->slot_of_position.data[e.position];
    if (slot < 0) {
      s->slot_of_position.data[e.position] = (int32_t)s->merged.size;
      if (s->merged.size + 1 > s->merged.capacity)
        s->merged.data = ws_grow(x->w, s->merged.data, &s->merged.capacity, s->merged.size + 1,
                                 sizeof(FlowEntry));
      s->merged.data[s->merged.size++] = e;
      continue;
    }
    FlowEntry *found = &s->merged.data[slot];
    int64_t n_names, names = union_names(x, found->names, found->n_names, e.names, e.n_names,
                                         &n_names);
    found = &s->merged.data[slot];
    found->name = e.name;
    found->relation = e.relation;
    found->names = names;
    found->n_names = n_names;
  }
  /* renamed by first appearance, parents before the child */
  int32_t next = 0;
  for (int64_t j = 0; j < s->merged.size; j++) {
    FlowEntry *e = &s->merged.data[j];
    for (int64_t m = 0; m < e->n_names; m++) {
      int64_t parent = s->pool.data[e->names + m];
      if (s->rename.data[parent] < 0) s->rename.data[parent] = next++;
    }
    if (s->rename.data[e->name] < 0) s->rename.data[e->name] = next++;
    VEC_PUSH(x->w, &s->data, s->rename.data[e->name]);
    VEC_PUSH(x->w, &s->data, e->relation);
    for (int64_t m = 0; m < e->n_names; m++)
      VEC_PUSH(x->w, &s->data, s->rename.data[s->pool.data[e->names + m]]);
    VEC_PUSH(x->w, &s->entry_start, s->data.size);
  }
  for (int64_t j = 0; j < s->merged.size; j++) {
    FlowEntry *e = &s->merged.data[j];
    s->rename.data[e->name] = -1;
    for (int64_t m = 0; m < e->n_names; m++) s->rename.data[s->pool.data[e->names + m]] = -1;
  }
}

void dataflow_trees(Workspace *w, const Language *lang, const FlatTrees *t,
                    const TreeTokens *k, int set_order, int64_t max_depth,
                    int64_t loop_nesting_limit, int64_t depth_limit, FlowScratch *s) {
  Walker x = {w, lang, t, k, s, set_order};
  int64_t n_trees = tree_count(t), n_texts = k->texts.count;
  VEC_RESIZE(w, &s->state_start, n_texts);
  VEC_RESIZE(w, &s->state_length, n_texts);
  VEC_RESIZE(w, &s->stamp, n_texts);
  VEC_RESIZE(w, &s->hashes, n_texts);
  VEC_RESIZE(w, &s->hashed, n_texts);
  VEC_RESIZE(w, &s->rename, n_texts);
  VEC_RESIZE(w, &s->status, n_trees);
  VEC_RESIZE(w, &s->tree_entries, 2 * n_trees);
  memset(s->stamp.data, 0, (size_t)n_texts * sizeof(int64_t));
  memset(s->hashed.data, 0, (size_t)n_texts);
  memset(s->status.data, 0, (size_t)n_trees);
  ws_fill_i32(&s->rename, -1);
  for (int64_t i = 0; i < n_texts; i++) s->state_length.data[i] = -1;
  s->stamp_counter = 0;
  s->data.size = 0;
  s->entry_start.size = 0;
  VEC_PUSH(w, &s->entry_start, 0);
  for (int64_t tree = 0; tree < n_trees; tree++) {
    int64_t lo = t->node_start.data[tree], hi = t->node_start.data[tree + 1];
    int64_t first_entry = s->entry_start.size - 1;
    s->tree_entries.data[2 * tree] = s->tree_entries.data[2 * tree + 1] = first_entry;
    if (k->depth.data[tree] > max_depth) continue; /* the package's RecursionError: no graph */
    if (k->depth.data[tree] > depth_limit || loop_nesting(&x, lo, hi) > loop_nesting_limit) {
      s->status.data[tree] = 1;
      continue;
    }
    for (int64_t i = lo; i < hi; i++)
      if (k->position.data[i] >= 0) s->state_length.data[k->text.data[i]] = -1;
    s->pool.size = 0;
    s->journal.size = 0;
    s->snapshots.size = 0;
    s->entries.size = 0;
    s->bad = 0;
    walk(&x, lo);
    if (!s->bad && s->entries.size > 0)
      finish_graph(&x, k->token_start.data[tree + 1] - k->token_start.data[tree]);
    s->tree_entries.data[2 * tree + 1] = s->entry_start.size - 1;
  }
}

/* The graph of `tree` computed by the reference walker: entries (name, relation, parents...)
 * already normalised. Appended after the others; the tree's range points there. */
void dataflow_set_tree(Workspace *w, FlowScratch *s, int64_t tree, const int32_t *data,
                       const int64_t *entry_start, int64_t n_entries) {
  s->tree_entries.data[2 * tree] = s->entry_start.size - 1;
  for (int64_t e = 0; e < n_entries; e++) {
    for (int64_t i = entry_start[e]; i < entry_start[e + 1]; i++) VEC_PUSH(w, &s->data, data[i]);
    VEC_PUSH(w, &s->entry_start, s->data.size);
  }
  s->tree_entries.data[2 * tree + 1] = s->entry_start.size - 1;
}

/* match_count per pair: reference entries found among the candidate's (each candidate entry
 * used once), and the reference's entry count. */
void dataflow_match(Workspace *w, FlowScratch *s, const int64_t *pairs, int64_t n_pairs,
                    int64_t *out, int64_t out_stride) {
  int64_t n_entries = s->entry_start.size - 1;
  interner_clear(w, &s->entry_ids, n_entries);
  VEC_RESIZE(w, &s->entry_id, n_entries);
  for (int64_t e = 0; e < n_entries; e++) {
    int64_t a = s->entry_start.data[e], b = s->entry_start.data[e + 1];
    s->entry_id.data[e] = intern(w, &s->entry_ids, s->data.data + a, b - a);
  }
  VEC_RESIZE(w, &s->available, s->entry_ids.count);
  ws_fill_i32(&s->available, 0);
  for (int64_t p = 0; p < n_pairs; p++) {
    int64_t candidate = pairs[2 * p], reference = pairs[2 * p + 1];
    int64_t c0 = s->tree_entries.data[2 * candidate], c1 = s->tree_entries.data[2 * candidate + 1];
    int64_t r0 = s->tree_entries.data[2 * reference], r1 = s->tree_entries.data[2 * reference + 1];
    int64_t matched = 0;
    if (r1 > r0) {
      for (int64_t e = c0; e < c1; e++) s->available.data[s->entry_id.data[e]]++;
      for (int64_t e = r0; e < r1; e++) {
        int32_t id = s->entry_id.data[e];
        if (s->available.data[id] > 0) {
          s->available.data[id]--;
          matched++;
        }
      }
      for (int64_t e = c0; e < c1; e++) s->available.data[s->entry_id.data[e]] = 0;
    }
    out[p * out_stride] = matched;
    out[p * out_stride + 1] = r1 - r0;
  }
}

void flow_scratch_free(FlowScratch *s) {
  VEC_FREE(&s->state_start);
  VEC_FREE(&s->state_length);
  VEC_FREE(&s->journal);
  VEC_FREE(&s->snapshots);
  VEC_FREE(&s->pool);
  VEC_FREE(&s->entries);
  VEC_FREE(&s->stamp);
  VEC_FREE(&s->hashes);
  VEC_FREE(&s->hashed);
  VEC_FREE(&s->item_hashes);
  VEC_FREE(&s->set_table);
  VEC_FREE(&s->loop_depth);
  VEC_FREE(&s->sort_index);
  VEC_FREE(&s->slot_of_position);
  VEC_FREE(&s->keep);
  VEC_FREE(&s->rename);
  VEC_FREE(&s->merged);
  keymap_free(&s->merge_map);
  VEC_FREE(&s->data);
  VEC_FREE(&s->entry_start);
  VEC_FREE(&s->tree_entries);
  VEC_FREE(&s->status);
  interner_free(&s->entry_ids);
  VEC_FREE(&s->entry_id);
  VEC_FREE(&s->available);
}
