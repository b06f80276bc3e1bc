/* RUBY's tree edit distance kernel (ted.py: _zhang_shasha), compiled: the same dynamic
 * programme over the key roots of both trees in post-order, on int32 arrays. */
#include <stdint.h>
#include <stdlib.h>

#if defined(_WIN32)
#define CGM_API __declspec(dllexport)
#else
#define CGM_API __attribute__((visibility("default")))
#endif

/* labels, leftmost leaves and key roots of both trees (post-order indices); the distance,
 * or -1 when the tables cannot be allocated. */
CGM_API int64_t cgm_tree_edit_distance(const int32_t *lab1, const int32_t *left1,
                                       const int32_t *keys1, int64_t n1, int64_t n_keys1,
                                       const int32_t *lab2, const int32_t *left2,
                                       const int32_t *keys2, int64_t n2, int64_t n_keys2,
                                       int32_t relabel) {
  if (n1 == 0 || n2 == 0) return n1 + n2;
  int64_t width = n2 + 1;
  int32_t *td = calloc((size_t)(n1 * n2), sizeof(int32_t));
  int32_t *fd = calloc((size_t)((n1 + 1) * width), sizeof(int32_t));
  if (td == NULL || fd == NULL) {
    free(td);
    free(fd);
    return -1;
  }
  for (int64_t ki = 0; ki < n_keys1; ki++) {
    int64_t i = keys1[ki], li = left1[i], rows = i - li + 2;
    for (int64_t kj = 0; kj < n_keys2; kj++) {
      int64_t j = keys2[kj], lj = left2[j], cols = j - lj + 2;
      for (int64_t a = 0; a < rows; a++) fd[a * width] = (int32_t)a;
      for (int64_t b = 0; b < cols; b++) fd[b] = (int32_t)b;
      for (int64_t a = 1; a < rows; a++) {
        int64_t x = li + a - 1, lx = left1[x];
        int on_path1 = lx == li;
        int32_t label = lab1[x];
        int32_t *row = fd + a * width, *above = fd + (a - 1) * width;
        for (int64_t b = 1; b < cols; b++) {
          int64_t y = lj + b - 1, ly = left2[y];
          int32_t best = above[b] + 1, insert = row[b - 1] + 1;
          if (insert < best) best = insert;
          if (on_path1 && ly == lj) {
            int32_t match = above[b - 1] + (label != lab2[y] ? relabel : 0);
            if (match < best) best = match;
            row[b] = best;
            td[x * n2 + y] = best;
          } else {
            int32_t match = fd[(lx - li) * width + (ly - lj)] + td[x * n2 + y];
            if (match < best) best = match;
            row[b] = best;
          }
        }
      }
    }
  }
  int64_t distance = td[(n1 - 1) * n2 + (n2 - 1)];
  free(td);
  free(fd);
  return distance;
}

/* The same programme with a cost per operation (TSED: deletion 1.0, insertion 0.8, rename
 * 1.0), in double precision: deleting a node of the first tree costs `delete`, inserting one
 * of the second `insert`, relabelling `relabel`. The distance, or -1 when the tables cannot
 * be allocated. */
CGM_API double cgm_tree_edit_distance_weighted(const int32_t *lab1, const int32_t *left1,
                                               const int32_t *keys1, int64_t n1,
                                               int64_t n_keys1, const int32_t *lab2,
                                               const int32_t *left2, const int32_t *keys2,
                                               int64_t n2, int64_t n_keys2, double delete_cost,
                                               double insert_cost, double relabel) {
  if (n1 == 0 || n2 == 0) return (double)n1 * delete_cost + (double)n2 * insert_cost;
  int64_t width = n2 + 1;
  double *td = calloc((size_t)(n1 * n2), sizeof(double));
  double *fd = calloc((size_t)((n1 + 1) * width), sizeof(double));
  if (td == NULL || fd == NULL) {
    free(td);
    free(fd);
    return -1.0;
  }
  for (int64_t ki = 0; ki < n_keys1; ki++) {
    int64_t i = keys1[ki], li = left1[i], rows = i - li + 2;
    for (int64_t kj = 0; kj < n_keys2; kj++) {
      int64_t j = keys2[kj], lj = left2[j], cols = j - lj + 2;
      fd[0] = 0.0;
      for (int64_t a = 1; a < rows; a++) fd[a * width] = fd[(a - 1) * width] + delete_cost;
      for (int64_t b = 1; b < cols; b++) fd[b] = fd[b - 1] + insert_cost;
      for (int64_t a = 1; a < rows; a++) {
        int64_t x = li + a - 1, lx = left1[x];
        int on_path1 = lx == li;
        int32_t label = lab1[x];
        double *row = fd + a * width, *above = fd + (a - 1) * width;
        for (int64_t b = 1; b < cols; b++) {
          int64_t y = lj + b - 1, ly = left2[y];
          double best = above[b] + delete_cost, inserted = row[b - 1] + insert_cost;
          if (inserted < best) best = inserted;
          if (on_path1 && ly == lj) {
            double match = above[b - 1] + (label != lab2[y] ? relabel : 0.0);
            if (match < best) best = match;
            row[b] = best;
            td[x * n2 + y] = best;
          } else {
            double match = fd[(lx - li) * width + (ly - lj)] + td[x * n2 + y];
            if (match < best) best = match;
            row[b] = best;
          }
        }
      }
    }
  }
  double distance = td[(n1 - 1) * n2 + (n2 - 1)];
  free(td);
  free(fd);
  return distance;
}
