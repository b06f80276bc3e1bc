/* The tree edit distance kernels of RUBY (ted.py: _zhang_shasha) and TSED, compiled. */
#include <stdint.h>
#include <stdlib.h>

#if defined(_WIN32)
#define CGM_API __declspec(dllexport)
#else
#define CGM_API __attribute__((visibility("default")))
#endif

/* Zhang and Shasha's dynamic programme over the key roots of both trees in post-order, with
 * the cost type T: deleting a node of the first tree costs `delete_cost`, inserting one of the
 * second `insert_cost`, relabelling `relabel`. Written once, instantiated for RUBY (int32,
 * unit costs) and TSED (double, its weights). The distance, or -1 when the tables cannot be
 * allocated. */
#define CGM_TED_BODY(T)                                                                        \
  if (n1 == 0 || n2 == 0) return (T)n1 * delete_cost + (T)n2 * insert_cost;                   \
  int64_t width = n2 + 1;                                                                      \
  T *td = calloc((size_t)(n1 * n2), sizeof(T));                                                \
  T *fd = calloc((size_t)((n1 + 1) * width), sizeof(T));                                       \
  if (td == NULL || fd == NULL) {                                                              \
    free(td);                                                                                  \
    free(fd);                                                                                  \
    return (T)-1;                                                                              \
  }                                                                                            \
  for (int64_t ki = 0; ki < n_keys1; ki++) {                                                   \
    int64_t i = keys1[ki], li = left1[i], rows = i - li + 2;                                   \
    for (int64_t kj = 0; kj < n_keys2; kj++) {                                                 \
      int64_t j = keys2[kj], lj = left2[j], cols = j - lj + 2;                                 \
      fd[0] = 0;                                                                               \
      for (int64_t a = 1; a < rows; a++) fd[a * width] = fd[(a - 1) * width] + delete_cost;    \
      for (int64_t b = 1; b < cols; b++) fd[b] = fd[b - 1] + insert_cost;                      \
      for (int64_t a = 1; a < rows; a++) {                                                     \
        int64_t x = li + a - 1, lx = left1[x];                                                 \
        int on_path1 = lx == li;                                                               \
        int32_t label = lab1[x];                                                               \
        T *row = fd + a * width, *above = fd + (a - 1) * width;                                \
        for (int64_t b = 1; b < cols; b++) {                                                   \
          int64_t y = lj + b - 1, ly = left2[y];                                               \
          T best = above[b] + delete_cost, inserted = row[b - 1] + insert_cost;                \
          if (inserted < best) best = inserted;                                                \
          if (on_path1 && ly == lj) {                                                          \
            T match = above[b - 1] + (label != lab2[y] ? relabel : (T)0);                      \
            if (match < best) best = match;                                                    \
            row[b] = best;                                                                     \
            td[x * n2 + y] = best;                                                             \
          } else {                                                                             \
            T match = fd[(lx - li) * width + (ly - lj)] + td[x * n2 + y];                      \
            if (match < best) best = match;                                                    \
            row[b] = best;                                                                     \
          }                                                                                    \
        }                                                                                      \
      }                                                                                        \
    }                                                                                          \
  }                                                                                            \
  T distance = td[(n1 - 1) * n2 + (n2 - 1)];                                                   \
  free(td);                                                                                    \
  free(fd);                                                                                    \
  return distance;

/* RUBY (ted.py: _zhang_shasha): labels, leftmost leaves and key roots of both trees
 * (post-order indices), unit deletion and insertion, a relabel cost. */
CGM_API int64_t cgm_tree_edit_distance(const int32_t *lab1, const int32_t *left1,
                                       const int32_t *keys1, int64_t n1, int64_t n_keys1,
                                       const int32_t *lab2, const int32_t *left2,
                                       const int32_t *keys2, int64_t n2, int64_t n_keys2,
                                       int32_t relabel) {
  const int32_t delete_cost = 1, insert_cost = 1;
  CGM_TED_BODY(int32_t)
}

/* TSED (deletion 1.0, insertion 0.8, rename 1.0), in double precision. */
CGM_API double cgm_tree_edit_distance_weighted(const int32_t *lab1, const int32_t *left1,
                                               const int32_t *keys1, int64_t n1,
                                               int64_t n_keys1, const int32_t *lab2,
                                               const int32_t *left2, const int32_t *keys2,
                                               int64_t n2, int64_t n_keys2, double delete_cost,
                                               double insert_cost, double relabel) {
  CGM_TED_BODY(double)
}
