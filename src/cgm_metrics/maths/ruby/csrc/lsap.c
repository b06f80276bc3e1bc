/* The linear sum assignment of RUBY's graph matching (ged.py: node_assignment), compiled.
 *
 * Shortest augmenting paths with dual variables, one row at a time (Crouse, "On implementing
 * 2D rectangular assignment algorithms", IEEE TAES 52(4), 2016), in the order of operations
 * and with the tie rules of scipy.optimize.linear_sum_assignment, so that it returns the same
 * assignment, not only one of equal cost: the columns still to scan are kept in a list that
 * starts in reverse order and is compacted by moving its last entry into the gap; among
 * columns of equal reduced cost the first one scanned wins unless a later one is free; a
 * matrix with more rows than columns is solved transposed and its pairs sorted by row.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#if defined(_WIN32)
#define CGM_API __declspec(dllexport)
#else
#define CGM_API __attribute__((visibility("default")))
#endif

/* One augmenting path from `row` on the `rows` x `cols` matrix `cost` (rows <= cols): the
 * free column it ends at (-1 when every column left is at an infinite cost), with `*reach`
 * the length of the shortest path. */
static int64_t augment_from(int64_t cols, const double *cost, const double *u, const double *v,
                            int64_t *path, const int64_t *row_of, double *reach_cost,
                            int64_t row, char *seen_row, char *seen_col, int64_t *left,
                            double *reach) {
  double shortest = 0.0;
  int64_t n_left = cols, sink = -1;
  for (int64_t k = 0; k < cols; k++) {
    left[k] = cols - k - 1;
    seen_col[k] = 0;
    reach_cost[k] = INFINITY;
  }
  while (sink == -1) {
    int64_t best = -1;
    double lowest = INFINITY;
    seen_row[row] = 1;
    const double *line = cost + row * cols;
    for (int64_t k = 0; k < n_left; k++) {
      int64_t j = left[k];
      double r = shortest + line[j] - u[row] - v[j];
      if (r < reach_cost[j]) {
        path[j] = row;
        reach_cost[j] = r;
      }
      if (reach_cost[j] < lowest || (reach_cost[j] == lowest && row_of[j] == -1)) {
        lowest = reach_cost[j];
        best = k;
      }
    }
    shortest = lowest;
    if (shortest == INFINITY) return -1;
    int64_t j = left[best];
    if (row_of[j] == -1)
      sink = j;
    else
      row = row_of[j];
    seen_col[j] = 1;
    left[best] = left[--n_left];
  }
  *reach = shortest;
  return sink;
}

/* The assignment of `cost` (n_rows x n_cols, row-major, no NaN and no -inf): `out_rows` and
 * `out_cols` (min(n_rows, n_cols) entries each) receive the pairs, rows ascending. Returns 0,
 * -1 when no memory, -2 for an invalid entry (NaN or -inf), -3 when no finite assignment
 * exists. */
CGM_API int cgm_linear_sum_assignment(const double *cost, int64_t n_rows, int64_t n_cols,
                                      int64_t *out_rows, int64_t *out_cols) {
  if (n_rows == 0 || n_cols == 0) return 0;
  int transposed = n_cols < n_rows;
  int64_t rows = transposed ? n_cols : n_rows, cols = transposed ? n_rows : n_cols;
  size_t cells = (size_t)rows * (size_t)cols;
  double *c = malloc(cells * sizeof(double));
  double *u = calloc((size_t)rows, sizeof(double));
  double *v = calloc((size_t)cols, sizeof(double));
  double *reach_cost = malloc((size_t)cols * sizeof(double));
  int64_t *path = malloc((size_t)cols * sizeof(int64_t));
  int64_t *col_of = malloc((size_t)rows * sizeof(int64_t));
  int64_t *row_of = malloc((size_t)cols * sizeof(int64_t));
  int64_t *left = malloc((size_t)cols * sizeof(int64_t));
  char *seen_row = malloc((size_t)rows);
  char *seen_col = malloc((size_t)cols);
  int status = 0;
  if (!c || !u || !v || !reach_cost || !path || !col_of || !row_of || !left || !seen_row ||
      !seen_col) {
    status = -1;
    goto done;
  }
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++) {
      double x = transposed ? cost[j * n_cols + i] : cost[i * n_cols + j];
      if (x != x || x == -INFINITY) {
        status = -2;
        goto done;
      }
      c[i * cols + j] = x;
    }
  for (int64_t j = 0; j < cols; j++) {
    path[j] = -1;
    row_of[j] = -1;
  }
  for (int64_t i = 0; i < rows; i++) col_of[i] = -1;
  for (int64_t current = 0; current < rows; current++) {
    double shortest = 0.0;
    for (int64_t i = 0; i < rows; i++) seen_row[i] = 0;
    int64_t sink = augment_from(cols, c, u, v, path, row_of, reach_cost, current, seen_row,
                                seen_col, left, &shortest);
    if (sink < 0) {
      status = -3;
      goto done;
    }
    u[current] += shortest;  /* the duals */
    for (int64_t i = 0; i < rows; i++)
      if (seen_row[i] && i != current) u[i] += shortest - reach_cost[col_of[i]];
    for (int64_t j = 0; j < cols; j++)
      if (seen_col[j]) v[j] -= shortest - reach_cost[j];
    int64_t j = sink;  /* the path, flipped */
    for (;;) {
      int64_t i = path[j];
      row_of[j] = i;
      int64_t previous = col_of[i];
      col_of[i] = j;
      j = previous;
      if (i == current) break;
    }
  }
  if (!transposed) {
    for (int64_t i = 0; i < rows; i++) {
      out_rows[i] = i;
      out_cols[i] = col_of[i];
    }
  } else {
    /* pairs (col_of[i], i) of the transposed problem, sorted by col_of[i] (all distinct):
     * row_of of the original columns, read in order */
    int64_t k = 0;
    for (int64_t j = 0; j < cols; j++) row_of[j] = -1;
    for (int64_t i = 0; i < rows; i++) row_of[col_of[i]] = i;
    for (int64_t j = 0; j < cols; j++)
      if (row_of[j] >= 0) {
        out_rows[k] = j;
        out_cols[k] = row_of[j];
        k++;
      }
  }
done:
  free(c);
  free(u);
  free(v);
  free(reach_cost);
  free(path);
  free(col_of);
  free(row_of);
  free(left);
  free(seen_row);
  free(seen_col);
  return status;
}
