/* Text helpers: UTF-8 as Python encodes it (with "surrogatepass"), Python's whitespace. */
#include "engine.h"

uint32_t utf8_next(const uint8_t *s, int64_t n, int64_t *i) {
  uint8_t b = s[*i];
  if (b < 0x80) {
    *i += 1;
    return b;
  }
  int extra = b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : b >= 0xC0 ? 1 : 0;
  if (extra == 0 || *i + extra >= n) {
    *i += 1; /* a stray byte (never in text encoded by Python): itself */
    return b;
  }
  uint32_t c = extra == 3 ? (b & 0x07u) : extra == 2 ? (b & 0x0Fu) : (b & 0x1Fu);
  for (int k = 1; k <= extra; k++) c = (c << 6) | (s[*i + k] & 0x3Fu);
  *i += 1 + extra;
  return c;
}

bool is_python_space(uint32_t c) {
  if (c <= 0x20) return c == 0x20 || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F);
  if (c < 0x85) return false;
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
         c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}
