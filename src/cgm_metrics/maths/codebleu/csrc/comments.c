/* Comment removal as the package does it before the syntax and dataflow components
 * (preprocess.py): Python by its tokenize rules, every other language by a scanner of its
 * comment style (the C family's is the package's regular expression). Both work on UTF-8
 * bytes: every character they look for is ASCII, and no byte of a multi-byte character is. */
#include <string.h>

#include "engine.h"

#define UNSURE (-1) /* the caller runs Python's tokenize */
#define KEEP (-2)   /* tokenize would raise: the text is kept as it is */

/* Keeps the lines of out[0:length] that have a character other than whitespace, joined
 * by newlines (preprocess._non_blank_lines); returns the new length. */
static int64_t keep_non_blank_lines(uint8_t *out, int64_t length) {
  int64_t written = 0, line = 0;
  bool kept_any = false;
  while (line <= length) {
    int64_t end = line;
    while (end < length && out[end] != '\n') end++;
    bool blank = true;
    for (int64_t i = line; i < end && blank;) {
      if (!is_python_space(utf8_next(out, end, &i))) blank = false;
    }
    if (!blank) {
      if (kept_any) out[written++] = '\n';
      memmove(out + written, out + line, (size_t)(end - line));
      written += end - line;
      kept_any = true;
    }
    line = end + 1;
  }
  return written;
}

/* ---------------------------------------------------------------- Python */

static bool is_word(uint8_t c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool is_prefix(uint8_t c) {
  return c == 'r' || c == 'R' || c == 'b' || c == 'B' || c == 'f' || c == 'F' || c == 'u' ||
         c == 'U';
}

/* End of a string token starting at i (prefix included); -1 if none starts there, -2 for
 * an unclosed triple-quoted string. */
static int64_t string_end(const uint8_t *s, int64_t n, int64_t i) {
  int64_t q = i;
  uint8_t c = s[i];
  if (c != '\'' && c != '"') {
    if (!is_prefix(c)) return -1;
    if (i + 1 < n && (s[i + 1] == '\'' || s[i + 1] == '"')) {
      q = i + 1;
    } else if (i + 2 < n && (s[i + 2] == '\'' || s[i + 2] == '"')) {
      uint8_t a = s[i], b = s[i + 1];
      bool raw_a = a == 'r' || a == 'R', raw_b = b == 'r' || b == 'R';
      bool bytes_a = a == 'b' || a == 'B' || a == 'f' || a == 'F';
      bool bytes_b = b == 'b' || b == 'B' || b == 'f' || b == 'F';
      if (!((raw_a && bytes_b) || (bytes_a && raw_b))) return -1;
      q = i + 2;
    } else {
      return -1;
    }
  }
  uint8_t quote = s[q];
  if (q + 2 < n && s[q + 1] == quote && s[q + 2] == quote) {
    for (int64_t j = q + 3; j < n;) {
      if (s[j] == '\\') {
        if (j + 1 >= n) return -2;
        j += 2;
      } else if (s[j] == quote && j + 2 < n && s[j + 1] == quote && s[j + 2] == quote) {
        return j + 3;
      } else {
        j++;
      }
    }
    return -2;
  }
  for (int64_t j = q + 1; j < n;) {
    if (s[j] == '\\') {
      if (j + 1 >= n) return -1;
      j += 2;
    } else if (s[j] == '\n') {
      return -1;
    } else if (s[j] == quote) {
      return j + 1;
    } else {
      j++;
    }
  }
  return -1;
}

enum { TOKEN_STRING = 1, TOKEN_COMMENT, TOKEN_NEWLINE, TOKEN_SPACE, TOKEN_OPEN, TOKEN_CLOSE,
       TOKEN_WORD, TOKEN_OTHER };
/* The token before, as far as docstrings are concerned. */
enum { AFTER_INDENT, AFTER_NEWLINE, AFTER_OTHER };

/* preprocess._strip_tokenize_fast over UTF-8 bytes: the length written to `out`, UNSURE or
 * KEEP. `removed` is scratch of n + 1 pairs, `indents` of n + 2.
 *
 * Beyond _strip_tokenize_fast it follows tokenize in two more cases: an unclosed triple-quoted
 * string (tokenize raises, so the text is kept) and a backslash continuation (tokenize
 * yields no token for it, so the text from the end of the line's last token through the
 * newline is not rebuilt). */
static int64_t strip_tokenize(const uint8_t *s, int64_t n, uint8_t *out, int64_t *removed,
                            int64_t *indents, bool quote_errors) {
  /* whitespace other than space and newline goes to tokenize */
  for (int64_t i = 0; i < n;) {
    uint32_t c = utf8_next(s, n, &i);
    if (c != ' ' && c != '\n' && is_python_space(c)) return UNSURE;
  }
  int64_t n_removed = 0, n_indents = 1, depth = 0, line_start = 0, pos = 0;
  int64_t token_end = 0, continued_at = -1;
  int previous = AFTER_INDENT;
  bool logical_start = true, went_negative = false;
  indents[0] = 0;
  while (pos < n) {
    uint8_t c = s[pos];
    int kind;
    int64_t end = pos + 1;
    int64_t stop = string_end(s, n, pos);
    if (stop == -2) return KEEP; /* tokenize: "EOF in multi-line string" */
    if (stop >= 0) {
      kind = TOKEN_STRING;
      end = stop;
    } else if (c == '#') {
      kind = TOKEN_COMMENT;
      while (end < n && s[end] != '\n') end++;
    } else if (c == '\n') {
      kind = TOKEN_NEWLINE;
    } else if (c == ' ') {
      kind = TOKEN_SPACE;
      while (end < n && s[end] == ' ') end++;
    } else if (c == '(' || c == '[' || c == '{') {
      kind = TOKEN_OPEN;
    } else if (c == ')' || c == ']' || c == '}') {
      kind = TOKEN_CLOSE;
    } else if (is_word(c)) {
      kind = TOKEN_WORD;
      while (end < n && is_word(s[end])) end++;
    } else if (c == '\\' && pos + 1 < n && s[pos + 1] == '\n' && !(logical_start && depth == 0)) {
      /* a line continuation: no token; the text from the last token on is not rebuilt */
      int64_t from = token_end > line_start ? token_end : line_start;
      removed[2 * n_removed] = from;
      removed[2 * n_removed + 1] = pos + 2;
      n_removed++;
      line_start = pos + 2;
      continued_at = pos + 2;
      pos += 2;
      continue;
    } else if ((c == '\'' || c == '"') && quote_errors) {
      /* an unterminated string: tokenize before Python 3.12 yields the quote alone as an
       * ERRORTOKEN and goes on; a backslash on the rest of the line could continue it */
      for (end = pos + 1; end < n && s[end] != '\n'; end++)
        if (s[end] == '\\') return UNSURE;
      end = pos + 1;
      kind = TOKEN_OTHER;
    } else if (c == '\'' || c == '"' || c == '\\') {
      return UNSURE; /* an unterminated string, or a backslash tokenize would reject */
    } else {
      kind = TOKEN_OTHER;
    }
    if (kind == TOKEN_SPACE) {
      pos = end;
      continue;
    }
    continued_at = -1;
    if (kind == TOKEN_NEWLINE) {
      if (depth == 0 && !logical_start) {
        previous = AFTER_NEWLINE;
        logical_start = true;
      } else {
        previous = AFTER_OTHER;
      }
      line_start = end;
      pos = end;
      continue;
    }
    int64_t column = pos - line_start;
    if (logical_start && depth == 0) {
      if (kind == TOKEN_COMMENT) {
        removed[2 * n_removed] = pos;
        removed[2 * n_removed + 1] = end;
        n_removed++;
        previous = AFTER_OTHER;
        pos = end;
        continue;
      }
      if (column > indents[n_indents - 1]) {
        indents[n_indents++] = column;
        previous = AFTER_INDENT;
      } else if (column < indents[n_indents - 1]) {
        while (column < indents[n_indents - 1]) n_indents--;
        if (column != indents[n_indents - 1]) /* IndentationError */
          return went_negative ? UNSURE : KEEP;
        previous = AFTER_OTHER;
      }
      logical_start = false;
    }
    if (kind == TOKEN_COMMENT ||
        (kind == TOKEN_STRING &&
         (previous == AFTER_INDENT || previous == AFTER_NEWLINE || column == 0))) {
      removed[2 * n_removed] = pos;
      removed[2 * n_removed + 1] = end;
      n_removed++;
    } else if (kind == TOKEN_OPEN) {
      depth++;
    } else if (kind == TOKEN_CLOSE) {
      /* tokenize lets the bracket depth go negative; from there on the lines are
       * continuation lines, so only "EOF in multi-line statement" is certain */
      if (--depth < 0) went_negative = true;
    }
    previous = AFTER_OTHER;
    token_end = end;
    if (kind == TOKEN_STRING) {
      for (int64_t k = end - 1; k >= pos; k--) {
        if (s[k] == '\n') {
          line_start = k + 1;
          break;
        }
      }
    }
    pos = end;
  }
  if (depth != 0 || continued_at == n) return KEEP; /* "EOF in multi-line statement" */
  if (continued_at >= 0 || went_negative) return UNSURE; /* only spaces after a
                                                           * continuation; depth back at 0 */
  int64_t written = 0, from = 0;
  for (int64_t r = 0; r < n_removed; r++) {
    memcpy(out + written, s + from, (size_t)(removed[2 * r] - from));
    written += removed[2 * r] - from;
    from = removed[2 * r + 1];
  }
  memcpy(out + written, s + from, (size_t)(n - from));
  written += n - from;
  return keep_non_blank_lines(out, written);
}

/* ---------------------------------------------------------------- comment styles */

static bool starts_with(const uint8_t *s, int64_t n, int64_t at, const char *marker) {
  size_t length = strlen(marker);
  return at + (int64_t)length <= n && memcmp(s + at, marker, length) == 0;
}

static bool in_set(uint8_t c, const char *set) { return c != 0 && strchr(set, c) != NULL; }

/* End of the Lua long bracket [==[ ... ]==] opening at `at`; -1 if none opens there or it
 * is not closed (preprocess._long_end). */
static int64_t long_end(const uint8_t *s, int64_t n, int64_t at) {
  if (at >= n || s[at] != '[') return -1;
  int64_t level = 0, k = at + 1;
  while (k < n && s[k] == '=') {
    level++;
    k++;
  }
  if (k >= n || s[k] != '[') return -1;
  for (int64_t j = k + 1; j + level + 1 < n; j++) {
    if (s[j] != ']' || s[j + level + 1] != ']') continue;
    bool equals = true;
    for (int64_t e = 1; e <= level && equals; e++) equals = s[j + e] == '=';
    if (equals) return j + level + 2;
  }
  return -1;
}

/* End of the block comment opening at `at`; -1 if it is not closed (_block_end). */
static int64_t block_end(const uint8_t *s, int64_t n, int64_t at, const char *open,
                         const char *close, bool nested) {
  int64_t open_length = (int64_t)strlen(open), close_length = (int64_t)strlen(close);
  int64_t k = at + open_length;
  if (!nested) {
    for (; k < n; k++)
      if (starts_with(s, n, k, close)) return k + close_length;
    return -1;
  }
  int64_t depth = 1;
  while (k < n) {
    if (starts_with(s, n, k, close)) {
      k += close_length;
      if (--depth == 0) return k;
    } else if (starts_with(s, n, k, open)) {
      depth++;
      k += open_length;
    } else {
      k++;
    }
  }
  return -1;
}

static bool is_line_comment(const uint8_t *s, int64_t n, int64_t at, const char *opener,
                            const CommentStyle *style) {
  if (style->line_at_word_start && at > 0 && !in_set(s[at - 1], " \t\n\r\f\v;|&()<>"))
    return false;
  if (style->line_symbols[0]) {
    if (at > 0 && in_set(s[at - 1], style->line_symbols)) return false;
    size_t length = strlen(opener);
    int64_t after = at + (int64_t)length;
    while (after < n && s[after] == (uint8_t)opener[length - 1]) after++;
    if (after < n && in_set(s[after], style->line_symbols)) return false;
  }
  return true;
}

/* End of quote q's literal opening at `at`; -1 if it is not closed (_quote_end). */
static int64_t quote_end(const uint8_t *s, int64_t n, int64_t at, const CommentStyle *style,
                         int q) {
  const char *delimiter = style->quote[q], *not_after = style->quote_not_after[q];
  if (not_after[0] && at > 0 && (in_set(s[at - 1], not_after) || s[at - 1] > 127)) return -1;
  for (int64_t k = at + (int64_t)strlen(delimiter); k < n;) {
    if (s[k] == '\\' && style->quote_escape[q]) {
      if (k + 1 >= n) return -1;
      k += 2;
    } else if (starts_with(s, n, k, delimiter)) {
      return k + (int64_t)strlen(delimiter);
    } else if (s[k] == '\n' && !style->quote_multiline[q]) {
      return -1;
    } else {
      k++;
    }
  }
  return -1;
}

/* What starts at `at` (_comment_or_literal): the end of a comment (*comment set) or of a
 * string or escape kept as it is; -1 for nothing. */
static int64_t comment_or_literal(const uint8_t *s, int64_t n, int64_t at,
                                  const CommentStyle *style, bool *comment) {
  *comment = true;
  if (style->long_brackets) {
    for (int i = 0; i < style->n_line; i++) {
      if (!starts_with(s, n, at, style->line[i])) continue;
      int64_t end = long_end(s, n, at + (int64_t)strlen(style->line[i]));
      if (end >= 0) return end;
    }
  }
  for (int i = 0; i < style->n_block; i++) {
    if (!starts_with(s, n, at, style->block_open[i])) continue;
    int64_t end = block_end(s, n, at, style->block_open[i], style->block_close[i],
                            style->nested);
    if (end >= 0) return end;
  }
  for (int i = 0; i < style->n_line; i++) {
    if (!starts_with(s, n, at, style->line[i]) || !is_line_comment(s, n, at, style->line[i], style))
      continue;
    int64_t end = at;
    while (end < n && s[end] != '\n') end++;
    return end;
  }
  *comment = false;
  if (style->long_brackets && s[at] == '[') {
    int64_t end = long_end(s, n, at);
    if (end >= 0) return end;
  }
  for (int q = 0; q < style->n_quotes; q++) {
    if (!starts_with(s, n, at, style->quote[q])) continue;
    int64_t end = quote_end(s, n, at, style, q);
    if (end >= 0) return end;
  }
  if (style->escapes_outside && s[at] == '\\' && at + 1 < n) return at + 2;
  return -1;
}

/* preprocess._strip_scanned: each comment replaced by a space, strings and escapes kept,
 * then the non-blank lines. For the C-family style this is the package's re.sub of
 * //.*?$ | /\*.*?\*\/ | '(\\.|[^\\'])*' | "(\\.|[^\\"])*" (DOTALL, MULTILINE). */
static int64_t strip_scanned(const uint8_t *s, int64_t n, uint8_t *out,
                             const CommentStyle *style) {
  bool first[256] = {false};
  for (int i = 0; i < style->n_block; i++) first[(uint8_t)style->block_open[i][0]] = true;
  for (int i = 0; i < style->n_line; i++) first[(uint8_t)style->line[i][0]] = true;
  for (int q = 0; q < style->n_quotes; q++) first[(uint8_t)style->quote[q][0]] = true;
  if (style->long_brackets) first['['] = true;
  if (style->escapes_outside) first['\\'] = true;
  int64_t written = 0, pos = 0;
  while (pos < n) {
    if (first[s[pos]]) {
      bool comment;
      int64_t end = comment_or_literal(s, n, pos, style, &comment);
      if (end >= 0) {
        if (comment) {
          out[written++] = ' ';
        } else {
          memcpy(out + written, s + pos, (size_t)(end - pos));
          written += end - pos;
        }
        pos = end;
        continue;
      }
    }
    out[written++] = s[pos++];
  }
  return keep_non_blank_lines(out, written);
}

/* ---------------------------------------------------------------- exported */

/* Comments removed from each text[start[k]:start[k+1]] in `style` (1 Python, 3 Python
 * whose tokenize yields an unterminated quote as an error token, 2 the comment style
 * `scanned`): the result is written at out[start[k]:] and its length to length[k], or
 * UNSURE / KEEP (Python). `out` has as many bytes as `text` (a comment is never shorter than
 * the space that replaces it). */
CGM_API int cgm_strip_comments(int style, const CommentStyle *scanned, const uint8_t *text,
                               const int64_t *start, int64_t n_texts, uint8_t *out,
                               int64_t *length) {
  Workspace w;
  I64Vec removed = {0}, indents = {0};
  if (setjmp(w.failure)) {
    VEC_FREE(&removed);
    VEC_FREE(&indents);
    return CGM_NO_MEMORY;
  }
  for (int64_t k = 0; k < n_texts; k++) {
    const uint8_t *s = text + start[k];
    int64_t n = start[k + 1] - start[k];
    if (style == 1 || style == 3) {
      VEC_RESIZE(&w, &removed, 2 * n + 2);
      VEC_RESIZE(&w, &indents, n + 2);
      length[k] = strip_tokenize(s, n, out + start[k], removed.data, indents.data, style == 3);
    } else if (style == 2 && scanned != NULL) {
      length[k] = strip_scanned(s, n, out + start[k], scanned);
    } else {
      return CGM_BAD_INPUT;
    }
  }
  VEC_FREE(&removed);
  VEC_FREE(&indents);
  return CGM_OK;
}
