"""Compiled kernels of CodeBLEU: the per-node work over flattened trees, in numba.

Every kernel here computes exactly what the pure-Python reference computes (``tree.py``,
``dataflow.py``, ``ngrams.py``, ``preprocess.py``, ``setorder.py``); the reference stays the
specification and a test keeps both equal on the golden files. The kernels work on flat
arrays of a whole batch of trees (pre-order, one row per node), so each is called once per
batch rather than once per node or per snippet.

Functions are compiled on first use with ``cache=True``: the machine code is kept on disk
(numba's cache, beside this file or in ``NUMBA_CACHE_DIR``), so later processes only load it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# ---------------------------------------------------------------------------------------
# hash-consing of integer sequences: equal sequences get equal ids (exact, no collisions)
# ---------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _mix(h, x):
    h ^= np.uint64(x & 0xFFFFFFFFFFFF) + np.uint64(0x9E3779B97F4A7C15) + (h << np.uint64(6)) + (
        h >> np.uint64(2)
    )
    return h


@njit(cache=True)
def _intern(buf, n, table, pool, offs, lens, counts):
    """Id of the sequence ``buf[:n]`` (a new id when unseen).

    ``table``: open addressing over ids (-1 empty), its size a power of two, kept at most half
    full by the caller; ``pool``/``offs``/``lens``: the stored sequences; ``counts``: [ids,
    pool used].
    """
    h = np.uint64(1469598103934665603)
    for i in range(n):
        h = _mix(h, buf[i])
    mask = table.size - 1
    slot = np.int64(h & np.uint64(mask))
    while True:
        ident = table[slot]
        if ident < 0:
            break
        if lens[ident] == n:
            start = offs[ident]
            same = True
            for i in range(n):
                if pool[start + i] != buf[i]:
                    same = False
                    break
            if same:
                return ident
        slot = (slot + 1) & mask
    ident = counts[0]
    start = counts[1]
    for i in range(n):
        pool[start + i] = buf[i]
    offs[ident] = start
    lens[ident] = n
    counts[0] = ident + 1
    counts[1] = start + n
    table[slot] = ident
    return ident


# ---------------------------------------------------------------------------------------
# tree structure: subtree ends, tokens (the package's leaves), token positions
# ---------------------------------------------------------------------------------------


@njit(cache=True)
def tree_structure(node_off, parent, starts, ends, name, atomic, comment_name):
    """Per node: the end of its subtree (pre-order), token flag and token position.

    Tokens are the package's ``tokenize_tree`` leaves: childless or atomic nodes that are not
    ``comment`` (the children of atomic nodes are not visited). Positions follow
    ``index_to_code``: nodes with the same byte range share the entry of the last of them.
    Returns (subtree end, token position or -1, token nodes in order, token offsets per tree,
    tree depth).
    """
    total = parent.size
    n_trees = node_off.size - 1
    send = np.empty(total, np.int64)
    has_kids = np.zeros(total, np.bool_)
    depth_of = np.zeros(total, np.int64)
    depth = np.zeros(n_trees, np.int64)
    for t in range(n_trees):
        lo, hi = node_off[t], node_off[t + 1]
        for i in range(lo, hi):
            send[i] = hi
        deepest = 0
        for i in range(lo + 1, hi):
            p = parent[i] + lo
            has_kids[p] = True
            d = depth_of[p] + 1
            depth_of[i] = d
            if d > deepest:
                deepest = d
        depth[t] = deepest
        # the subtree of i ends where the first later node at depth <= depth(i) starts
        stack = np.empty(deepest + 2, np.int64)
        top = 0
        for i in range(lo, hi):
            d = depth_of[i]
            while top > 0 and depth_of[stack[top - 1]] >= d:
                send[stack[top - 1]] = i
                top -= 1
            stack[top] = i
            top += 1
    tpos = np.full(total, -1, np.int64)
    tokens = np.empty(total, np.int64)
    tok_off = np.zeros(n_trees + 1, np.int64)
    count = 0
    for t in range(n_trees):
        lo, hi = node_off[t], node_off[t + 1]
        first = count
        i = lo
        while i < hi:
            if (not has_kids[i] or atomic[name[i]]) and name[i] != comment_name:
                tpos[i] = count - first
                tokens[count] = i
                count += 1
                i = send[i]
            else:
                i += 1
        tok_off[t + 1] = count
        # zero-width tokens with one start share the last one's entry
        for a in range(first, count):
            na = tokens[a]
            if starts[na] != ends[na]:
                continue
            for b in range(a + 1, count):
                nb = tokens[b]
                if starts[nb] == starts[na] and ends[nb] == ends[na]:
                    tpos[na] = tpos[nb]
        # token-like nodes inside atomic ones: the entry of a token with their byte range,
        # -2 when there is none (the package's lookup raises KeyError)
        for i in range(lo, hi):
            if tpos[i] != -1:
                continue
            if (has_kids[i] and not atomic[name[i]]) or name[i] == comment_name:
                continue
            found = -2
            for b in range(first, count):
                nb = tokens[b]
                if starts[nb] == starts[i] and ends[nb] == ends[i]:
                    found = tpos[nb]
            tpos[i] = found
    # depth as the reference counts it: the longest chain of parents (root has none)
    return send, has_kids, tpos, tokens[:count].copy(), tok_off, depth


# ---------------------------------------------------------------------------------------
# syntax match: structural ids of subtrees (the package's S-expression equality)
# ---------------------------------------------------------------------------------------


@njit(cache=True)
def syntax_keys(node_off, parent, has_kids, label, missing, visible, field):
    """Structural id of every node that the package counts as a subtree (root, nodes with
    children), -1 elsewhere; ids are equal exactly when the S-expressions are equal.

    A node's structure is (label, missing, parts of its children), where a visible (named or
    missing) child contributes (field, its id) and an invisible child with children its own
    parts; ``label`` of a childless ERROR node names its unexpected text.
    """
    total = parent.size
    n_trees = node_off.size - 1
    # parts sizes bottom-up (exact pool size)
    nparts = np.zeros(total, np.int64)
    inner = np.zeros(total, np.int64)
    # inner sizes need parents in the same tree: accumulate per tree
    for t in range(n_trees):
        lo, hi = node_off[t], node_off[t + 1]
        for i in range(hi - 1, lo - 1, -1):
            if visible[i]:
                nparts[i] = 1
            elif has_kids[i]:
                nparts[i] = inner[i]
            else:
                nparts[i] = 0
            if i > lo:
                inner[parent[i] + lo] += nparts[i]
    # parts of each node: consecutive (field, id) pairs in part_pool
    part_off = np.zeros(total + 1, np.int64)
    for i in range(total):
        part_off[i + 1] = part_off[i] + 2 * nparts[i]
    part_pool = np.empty(part_off[total], np.int64)
    keys = np.full(total, -1, np.int64)
    longest = 0
    for i in range(total):
        if inner[i] > longest:
            longest = inner[i]
    buf = np.empty(3 + 2 * longest, np.int64)
    table = np.full(_table_size_nb(total), -1, np.int64)
    seq_pool = np.empty(total * 3 + 2 * int(inner.sum()) + 1, np.int64)
    offs = np.empty(total + 1, np.int64)
    lens = np.empty(total + 1, np.int64)
    counts = np.zeros(2, np.int64)
    for t in range(n_trees):
        lo, hi = node_off[t], node_off[t + 1]
        # children lists: next sibling links, built from parents (pre-order)
        first_child = np.full(hi - lo, -1, np.int64)
        next_sib = np.full(hi - lo, -1, np.int64)
        last_child = np.full(hi - lo, -1, np.int64)
        for i in range(lo + 1, hi):
            p = parent[i]
            local = i - lo
            if first_child[p] < 0:
                first_child[p] = local
            else:
                next_sib[last_child[p]] = local
            last_child[p] = local
        for i in range(hi - 1, lo - 1, -1):
            local = i - lo
            kids = has_kids[i]
            if not kids and not visible[i] and i != lo:
                continue
            buf[0] = label[i]
            buf[1] = missing[i]
            n = 2
            c = first_child[local]
            while c >= 0:
                g = c + lo
                start = part_off[g]
                stop = part_off[g + 1]
                for k in range(start, stop):
                    buf[n] = part_pool[k]
                    n += 1
                c = next_sib[c]
            ident = _intern(buf, n, table, seq_pool, offs, lens, counts)
            if visible[i]:
                part_pool[part_off[i]] = field[i]
                part_pool[part_off[i] + 1] = ident
            elif kids:
                for k in range(n - 2):
                    part_pool[part_off[i] + k] = buf[2 + k]
            if kids or i == lo:
                keys[i] = ident
    return keys


@njit(cache=True)
def _table_size_nb(items):
    size = 16
    while size < 2 * items + 2:
        size *= 2
    return size


@njit(cache=True)
def syntax_matches(node_off, keys, pairs, n_ids):
    """For each (candidate tree, reference tree): reference subtrees found among the
    candidate's, and the reference's subtree count."""
    out = np.zeros((pairs.shape[0], 2), np.int64)
    seen = np.full(n_ids, -1, np.int64)
    for k in range(pairs.shape[0]):
        cand, ref = pairs[k, 0], pairs[k, 1]
        for i in range(node_off[cand], node_off[cand + 1]):
            if keys[i] >= 0:
                seen[keys[i]] = k
        matched = 0
        total = 0
        for i in range(node_off[ref], node_off[ref + 1]):
            if keys[i] >= 0:
                total += 1
                if seen[keys[i]] == k:
                    matched += 1
        out[k, 0] = matched
        out[k, 1] = total
    return out


# ---------------------------------------------------------------------------------------
# n-grams: BLEU-4 clipped counts and the weighted recall variant, per item
# ---------------------------------------------------------------------------------------


@njit(cache=True)
def ngram_rows(ids, seg_off, item_off, weights):
    """Columns 0..18 of the statistics rows (see ``ngrams.ngram_rows``).

    ``ids``: token ids of all segments; segment s is ``ids[seg_off[s]:seg_off[s+1]]``; item i
    has segments ``item_off[i]`` (hypothesis) to ``item_off[i+1]`` (its references);
    ``weights[id]``: the unigram weight of a token.
    """
    n_items = item_off.size - 1
    rows = np.zeros((n_items, 19))
    for item in range(n_items):
        s0, s1 = item_off[item], item_off[item + 1]
        lo, hi = seg_off[s0], seg_off[s1]
        length = hi - lo
        # dense ids per n-gram order over the item's tokens
        grams = np.empty((4, length), np.int64)
        local = np.empty(length, np.int64)
        # unigrams: dense by first appearance
        order = np.argsort(ids[lo:hi], kind="mergesort")
        dense = 0
        for k in range(length):
            j = order[k]
            if k > 0 and ids[lo + j] != ids[lo + order[k - 1]]:
                dense += 1
            local[j] = dense
        n_dense = dense + 1 if length > 0 else 0
        for k in range(length):
            grams[0, k] = local[k]
        # higher orders: id of (previous order's id at i, unigram at i+n-1), within segments
        width = n_dense
        for n in range(1, 4):
            keys = np.full(length, -1, np.int64)
            for s in range(s0, s1):
                a, b = seg_off[s] - lo, seg_off[s + 1] - lo
                for k in range(a, b - n):
                    keys[k] = grams[n - 1, k] * n_dense + local[k + n]
            order = np.argsort(keys, kind="mergesort")
            dense = -1
            previous = np.int64(-2)
            _ = width
            for k in range(length):
                j = order[k]
                key = keys[j]
                if key < 0:
                    grams[n, j] = -1
                    continue
                if key != previous:
                    dense += 1
                    previous = key
                grams[n, j] = dense
            width = dense + 1 if dense >= 0 else 1
        # counts per segment and order
        n_segments = s1 - s0
        counts = np.zeros((n_segments, length + 1), np.int64)
        clipped = np.zeros(4)
        totals = np.zeros(4)
        recall_clipped = np.zeros(4)
        recall_total = np.zeros(4)
        n_refs = n_segments - 1
        hyp_len = seg_off[s0 + 1] - seg_off[s0]
        best = np.zeros(length + 1, np.int64)
        for n in range(4):
            counts[:, :] = 0
            for s in range(s0, s1):
                a, b = seg_off[s] - lo, seg_off[s + 1] - lo
                for k in range(a, b - n):
                    counts[s - s0, grams[n, k]] += 1
            best[:] = 0
            for r in range(1, n_segments):
                for g in range(length + 1):
                    if counts[r, g] > best[g]:
                        best[g] = counts[r, g]
            c = 0
            hyp_total = 0
            for g in range(length + 1):
                h = counts[0, g]
                hyp_total += h
                c += h if h < best[g] else best[g]
            clipped[n] = c
            totals[n] = max(1, hyp_total)
            if n == 0:
                continue
            for r in range(1, n_segments):
                m = 0
                ref_total = 0
                for g in range(length + 1):
                    x = counts[r, g]
                    ref_total += x
                    h = counts[0, g]
                    m += x if x < h else h
                recall_clipped[n] += clipped[n] if n_refs == 1 else m
                recall_total[n] += max(1, ref_total)
        # weighted unigrams, summed in each reference's first-appearance order
        counts[:, :] = 0
        for s in range(s0, s1):
            a, b = seg_off[s] - lo, seg_off[s + 1] - lo
            for k in range(a, b):
                counts[s - s0, grams[0, k]] += 1
        seen = np.zeros(length + 1, np.bool_)
        for r in range(1, n_segments):
            a, b = seg_off[s0 + r] - lo, seg_off[s0 + r + 1] - lo
            seen[:] = False
            matched = 0.0
            total = 0.0
            for k in range(a, b):
                g = grams[0, k]
                if seen[g]:
                    continue
                seen[g] = True
                weight = weights[ids[lo + k]]
                count = counts[r, g]
                h = counts[0, g]
                matched += (count if count < h else h) * weight
                total += count * weight
            recall_clipped[0] += matched
            recall_total[0] += max(1.0, total)
        # closest reference length, ties to the shorter
        closest = -1
        for r in range(1, n_segments):
            rl = seg_off[s0 + r + 1] - seg_off[s0 + r]
            if closest < 0:
                closest = rl
            else:
                d_new, d_old = abs(rl - hyp_len), abs(closest - hyp_len)
                if d_new < d_old or (d_new == d_old and rl < closest):
                    closest = rl
        row = rows[item]
        for n in range(4):
            row[n] = clipped[n]
            row[4 + n] = totals[n]
            row[10 + n] = recall_clipped[n]
            row[14 + n] = recall_total[n]
        row[8] = hyp_len
        row[9] = closest
        row[18] = 2.0
    return rows


# ---------------------------------------------------------------------------------------
# Python comment and docstring removal (the tokenize-free scanner of preprocess.py)
# ---------------------------------------------------------------------------------------

_NONE = -1  # unsure: the caller runs the reference (tokenize)
_KEEP = -2  # tokenize would raise: the text is kept as it is


@njit(cache=True, inline="always")
def _is_word(c):
    return (48 <= c <= 57) or (65 <= c <= 90) or (97 <= c <= 122) or c == 95


@njit(cache=True, inline="always")
def _is_prefix(c):
    # r R b B f F u U
    return c == 114 or c == 82 or c == 98 or c == 66 or c == 102 or c == 70 or c == 117 or c == 85


@njit(cache=True)
def _string_at(s, i):
    """End of a string token starting at ``i`` (prefix included), -1 if none starts there,
    -2 for an unclosed triple-quoted string."""
    n = s.size
    q = i
    c = s[i]
    if c != 39 and c != 34:
        if not _is_prefix(c):
            return -1
        if i + 1 < n and (s[i + 1] == 39 or s[i + 1] == 34):
            q = i + 1
        elif i + 2 < n and (s[i + 2] == 39 or s[i + 2] == 34):
            a, b = s[i], s[i + 1]
            two = ((a == 114 or a == 82) and (b == 98 or b == 66 or b == 102 or b == 70)) or (
                (a == 98 or a == 66 or a == 102 or a == 70) and (b == 114 or b == 82)
            )
            if not two:
                return -1
            q = i + 2
        else:
            return -1
    quote = s[q]
    if q + 2 < n and s[q + 1] == quote and s[q + 2] == quote:
        j = q + 3
        while j < n:
            c = s[j]
            if c == 92:
                if j + 1 >= n:
                    return -2
                j += 2
            elif c == quote and j + 2 < n and s[j + 1] == quote and s[j + 2] == quote:
                return j + 3
            else:
                j += 1
        return -2
    j = q + 1
    while j < n:
        c = s[j]
        if c == 92:
            if j + 1 >= n:
                return -1
            j += 2
        elif c == 10:
            return -1
        elif c == quote:
            return j + 1
        else:
            j += 1
    return -1


@njit(cache=True)
def strip_python(s, out):
    """``preprocess._strip_python_fast`` over code points ``s``; writes the result to ``out``.

    Returns its length, or _NONE (unsure: use tokenize) or _KEEP (the text is kept). The
    caller has already sent texts with whitespace other than space and newline to tokenize.
    """
    n = s.size
    rem_start = np.empty(n + 1, np.int64)
    rem_end = np.empty(n + 1, np.int64)
    n_rem = 0
    indents = np.empty(n + 2, np.int64)
    indents[0] = 0
    n_ind = 1
    depth = 0
    # previous token: 0 INDENT, 1 NEWLINE, 2 other (NL, COMMENT, DEDENT, ...)
    previous = 0
    logical_start = True
    line_start = 0
    pos = 0
    while pos < n:
        c = s[pos]
        kind = 0  # 1 string, 2 comment, 3 newline, 4 space, 5 open, 6 close, 7 word, 8 other
        end = pos + 1
        stop = _string_at(s, pos)
        if stop == -2:
            return _NONE
        if stop >= 0:
            kind = 1
            end = stop
        elif c == 35:
            kind = 2
            end = pos + 1
            while end < n and s[end] != 10:
                end += 1
        elif c == 10:
            kind = 3
        elif c == 32:
            kind = 4
            while end < n and s[end] == 32:
                end += 1
        elif c == 40 or c == 91 or c == 123:
            kind = 5
        elif c == 41 or c == 93 or c == 125:
            kind = 6
        elif _is_word(c):
            kind = 7
            while end < n and _is_word(s[end]):
                end += 1
        elif c == 39 or c == 34 or c == 92 or c == 9 or c == 13 or c == 11 or c == 12:
            return _NONE
        else:
            kind = 8
        if kind == 4:
            pos = end
            continue
        if kind == 3:
            if depth == 0 and not logical_start:
                previous = 1
                logical_start = True
            else:
                previous = 2
            line_start = end
            pos = end
            continue
        column = pos - line_start
        if logical_start and depth == 0:
            if kind == 2:
                rem_start[n_rem] = pos
                rem_end[n_rem] = end
                n_rem += 1
                previous = 2
                pos = end
                continue
            if column > indents[n_ind - 1]:
                indents[n_ind] = column
                n_ind += 1
                previous = 0
            elif column < indents[n_ind - 1]:
                while column < indents[n_ind - 1]:
                    n_ind -= 1
                if column != indents[n_ind - 1]:
                    return _KEEP
                previous = 2
            logical_start = False
        if kind == 2:
            rem_start[n_rem] = pos
            rem_end[n_rem] = end
            n_rem += 1
        elif kind == 1:
            if previous == 0 or previous == 1 or column == 0:
                rem_start[n_rem] = pos
                rem_end[n_rem] = end
                n_rem += 1
        elif kind == 5:
            depth += 1
        elif kind == 6:
            depth -= 1
            if depth < 0:
                return _NONE
        previous = 2
        if kind == 1:
            for k in range(end - 1, pos - 1, -1):
                if s[k] == 10:
                    line_start = k + 1
                    break
        pos = end
    if depth != 0:
        return _KEEP
    # the text without the removed pieces, then only the lines with a non-space character
    written = 0
    r = 0
    line_begin = 0
    line_has = False
    first_line = True
    k = 0
    while k <= n:
        if r < n_rem and k == rem_start[r]:
            k = rem_end[r]
            r += 1
            continue
        if k == n or s[k] == 10:
            # close the current line (out[line_begin:written] holds it)
            if line_has:
                if not first_line:
                    # move the line one to the right to insert the separator
                    for m in range(written - 1, line_begin - 1, -1):
                        out[m + 1] = out[m]
                    out[line_begin] = 10
                    written += 1
                first_line = False
            else:
                written = line_begin
            line_begin = written
            line_has = False
            k += 1
            continue
        out[written] = s[k]
        if s[k] != 32:
            line_has = True
        written += 1
        k += 1
    return written


# ---------------------------------------------------------------------------------------
# the order of CPython's ``list(set(names))`` at PYTHONHASHSEED=0 (setorder.py)
# ---------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _rotl(x, b):
    return (x << np.uint64(b)) | (x >> np.uint64(64 - b))


@njit(cache=True, inline="always")
def _sipround(v0, v1, v2, v3):
    v0 = v0 + v1
    v2 = v2 + v3
    v1 = _rotl(v1, 13) ^ v0
    v3 = _rotl(v3, 16) ^ v2
    v0 = _rotl(v0, 32)
    v2 = v2 + v1
    v0 = v0 + v3
    v1 = _rotl(v1, 17) ^ v2
    v3 = _rotl(v3, 21) ^ v0
    v2 = _rotl(v2, 32)
    return v0, v1, v2, v3


@njit(cache=True)
def string_hash(points, lo, hi):
    """``hash(str)`` of CPython 3.11 at PYTHONHASHSEED=0 for the code points points[lo:hi]."""
    if hi == lo:
        return np.uint64(0)
    widest = 0
    for i in range(lo, hi):
        if points[i] > widest:
            widest = points[i]
    width = 1 if widest < 0x100 else (2 if widest < 0x10000 else 4)
    n = (hi - lo) * width
    data = np.empty(n, np.uint8)
    for i in range(hi - lo):
        c = np.uint32(points[lo + i])
        for b in range(width):
            data[i * width + b] = np.uint8((c >> np.uint32(8 * b)) & np.uint32(0xFF))
    v0 = np.uint64(0x736F6D6570736575)
    v1 = np.uint64(0x646F72616E646F6D)
    v2 = np.uint64(0x6C7967656E657261)
    v3 = np.uint64(0x7465646279746573)
    full = n - n % 8
    for off in range(0, full, 8):
        word = np.uint64(0)
        for b in range(8):
            word |= np.uint64(data[off + b]) << np.uint64(8 * b)
        v3 ^= word
        v0, v1, v2, v3 = _sipround(v0, v1, v2, v3)
        v0 ^= word
    last = np.uint64(n & 0xFF) << np.uint64(56)
    for b in range(n - full):
        last |= np.uint64(data[full + b]) << np.uint64(8 * b)
    v3 ^= last
    v0, v1, v2, v3 = _sipround(v0, v1, v2, v3)
    v0 ^= last
    v2 ^= np.uint64(0xFF)
    for _ in range(3):
        v0, v1, v2, v3 = _sipround(v0, v1, v2, v3)
    value = v0 ^ v1 ^ v2 ^ v3
    if value == np.uint64(0xFFFFFFFFFFFFFFFF):
        value = np.uint64(0xFFFFFFFFFFFFFFFE)
    return value


@njit(cache=True)
def _set_insert_clean(tkey, thash, mask, key, hashed):
    perturb = hashed
    index = np.int64(hashed & np.uint64(mask))
    while True:
        if tkey[index] < 0:
            tkey[index] = key
            thash[index] = hashed
            return
        if index + 9 <= mask:
            for step in range(1, 10):
                if tkey[index + step] < 0:
                    tkey[index + step] = key
                    thash[index + step] = hashed
                    return
        perturb >>= np.uint64(5)
        index = np.int64((np.uint64(index) * np.uint64(5) + np.uint64(1) + perturb) & np.uint64(mask))


@njit(cache=True)
def set_order(items, n, hashes, out):
    """``list(set(items[:n]))`` as CPython 3.11 orders it at hash seed 0; writes ``out``,
    returns the count. ``hashes[item]``: the item's string hash."""
    size = 8
    tkey = np.full(size, -1, np.int64)
    thash = np.zeros(size, np.uint64)
    mask = size - 1
    fill = 0
    for k in range(n):
        key = items[k]
        hashed = hashes[key]
        perturb = hashed
        index = np.int64(hashed & np.uint64(mask))
        found = False
        slot = index
        while True:
            probes = 9 if index + 9 <= mask else 0
            slot = index
            placed = False
            for _ in range(probes + 1):
                if tkey[slot] < 0:
                    placed = True
                    break
                if thash[slot] == hashed and tkey[slot] == key:
                    found = True
                    break
                slot += 1
            if placed or found:
                break
            perturb >>= np.uint64(5)
            index = np.int64(
                (np.uint64(index) * np.uint64(5) + np.uint64(1) + perturb) & np.uint64(mask)
            )
        if found:
            continue
        tkey[slot] = key
        thash[slot] = hashed
        fill += 1
        if fill * 5 >= mask * 3:
            new_size = 8
            while new_size <= fill * 4:
                new_size <<= 1
            nkey = np.full(new_size, -1, np.int64)
            nhash = np.zeros(new_size, np.uint64)
            for s in range(size):
                if tkey[s] >= 0:
                    _set_insert_clean(nkey, nhash, new_size - 1, tkey[s], thash[s])
            tkey, thash, size, mask = nkey, nhash, new_size, new_size - 1
    count = 0
    for s in range(size):
        if tkey[s] >= 0:
            out[count] = tkey[s]
            count += 1
    return count


# ---------------------------------------------------------------------------------------
# dataflow: the generic walker of dataflow.py over flat arrays
# ---------------------------------------------------------------------------------------
# R: the language's rules as integers (see flowtables in fast.py for the layout)
R_DEF_STYLE, R_DEF_NAME, R_DEF_VALUE, R_ASSIGN_STYLE, R_BRANCH_STYLE, R_KEEPS_INPUT = 0, 1, 2, 3, 4, 5
R_FOR_IN_STYLE, R_RESTART, R_UPDATE_OF, R_FOREACH_NAME, R_FOREACH_VALUE, R_FOREACH_PHP = (
    6, 7, 8, 9, 10, 11)
R_HAS_FIRST, R_COMMA, R_BLOCK, R_FOR_IN_CLAUSE, R_OPERATOR_ASSIGNMENT = 12, 13, 14, 15, 16
R_ELIF_CLAUSE, R_ELSE_CLAUSE, R_VARIABLE_NAME, R_IDENTIFIER, R_COMMENT = 17, 18, 19, 20, 21
R_F_LEFT, R_F_RIGHT, R_F_BODY, R_F_PATTERN, R_F_VALUE, R_F_UPDATE, R_ORDER = (
    22, 23, 24, 25, 26, 27, 28)
R_SIZE = 29
# roles of node kinds
ROLE_DEFAULT, ROLE_DEFINITION, ROLE_ASSIGNMENT, ROLE_INCREMENT, ROLE_BRANCH = 0, 1, 2, 3, 4
ROLE_FOR_IN, ROLE_C_FOR, ROLE_FOREACH, ROLE_LOOP = 5, 6, 7, 8
COMES, COMPUTED = 0, 1
# counters of the walker state
_P, _J, _E, _SN, _BAD, _STAMP = 0, 1, 2, 3, 4, 5
INVALID, OVERFLOW = 1, 2
LOOP_NESTING_LIMIT = 10  # deeper loop nests go to the reference walker (it remembers loops)


@njit(cache=True)
def _alloc(S, n):
    pool = S[0]
    cnt = S[19]
    off = cnt[_P]
    if off + n > pool.size:
        cnt[_BAD] = OVERFLOW
        return -1
    cnt[_P] = off + n
    return off


@njit(cache=True)
def _set(S, name, off, ln):
    jn, jo, jl = S[1], S[2], S[3]
    st_off, st_len = S[14], S[15]
    cnt = S[19]
    k = cnt[_J]
    if k >= jn.size:
        cnt[_BAD] = OVERFLOW
        return
    jn[k] = name
    jo[k] = st_off[name]
    jl[k] = st_len[name]
    cnt[_J] = k + 1
    st_off[name] = off
    st_len[name] = ln


@njit(cache=True)
def _set1(S, name, pos):
    off = _alloc(S, 1)
    if off < 0:
        return
    S[0][off] = pos
    _set(S, name, off, 1)


@njit(cache=True)
def _entry(S, name, pos, rel, no, nl, po, pl):
    cnt = S[19]
    k = cnt[_E]
    if k >= S[4].size:
        cnt[_BAD] = OVERFLOW
        return
    S[4][k] = name
    S[5][k] = pos
    S[6][k] = rel
    S[7][k] = no
    S[8][k] = nl
    S[9][k] = po
    S[10][k] = pl
    cnt[_E] = k + 1


@njit(cache=True)
def _undo(S, mark):
    jn, jo, jl = S[1], S[2], S[3]
    st_off, st_len = S[14], S[15]
    cnt = S[19]
    k = cnt[_J]
    while k > mark:
        k -= 1
        name = jn[k]
        st_off[name] = jo[k]
        st_len[name] = jl[k]
    cnt[_J] = k


@njit(cache=True)
def _snapshot(S, mark):
    """Push the names changed since ``mark`` (first appearance order) with their current
    values; returns the segment's start on the snapshot stack and its length."""
    jn = S[1]
    sn, so, sl = S[11], S[12], S[13]
    st_off, st_len, stamp = S[14], S[15], S[16]
    cnt = S[19]
    cnt[_STAMP] += 1
    mark_id = cnt[_STAMP]
    start = cnt[_SN]
    top = start
    for k in range(mark, cnt[_J]):
        name = jn[k]
        if stamp[name] == mark_id:
            continue
        stamp[name] = mark_id
        if top >= sn.size:
            cnt[_BAD] = OVERFLOW
            return start, 0
        sn[top] = name
        so[top] = st_off[name]
        sl[top] = st_len[name]
        top += 1
    cnt[_SN] = top
    return start, top - start


@njit(cache=True)
def _hash_of(S, name):
    hashes, done, points, txt_off = S[17], S[18], S[20], S[21]
    if not done[name]:
        hashes[name] = string_hash(points, txt_off[name], txt_off[name + 1])
        done[name] = True
    return hashes[name]


@njit(cache=True)
def _union(S, ao, al, bo, bl, order):
    """Merged parent names (package set order or first appearance); returns (off, len)."""
    pool = S[0]
    cnt = S[19]
    n = al + bl
    tmp = _alloc(S, n)
    if tmp < 0:
        return 0, 0
    for k in range(al):
        pool[tmp + k] = pool[ao + k]
    for k in range(bl):
        pool[tmp + al + k] = pool[bo + k]
    if order == 0:
        hashes = S[17]
        for k in range(n):
            _hash_of(S, pool[tmp + k])
        out = _alloc(S, n)
        if out < 0:
            return 0, 0
        m = set_order(pool[tmp:tmp + n], n, hashes, pool[out:out + n])
        return out, m
    stamp = S[16]
    cnt[_STAMP] += 1
    mark_id = cnt[_STAMP]
    m = 0
    for k in range(n):
        name = pool[tmp + k]
        if stamp[name] != mark_id:
            stamp[name] = mark_id
            pool[tmp + m] = name
            m += 1
    return tmp, m


@njit(cache=True)
def _sorted_unique(pool, off, n):
    """Sort pool[off:off+n] in place and drop repeats; returns the new length."""
    for i in range(1, n):
        x = pool[off + i]
        j = i - 1
        while j >= 0 and pool[off + j] > x:
            pool[off + j + 1] = pool[off + j]
            j -= 1
        pool[off + j + 1] = x
    m = 0
    for i in range(n):
        if m == 0 or pool[off + i] != pool[off + m - 1]:
            pool[off + m] = pool[off + i]
            m += 1
    return m


@njit(cache=True)
def _positions_union(S, ao, al, bo, bl, sort):
    """Parent positions merged: sorted unique (loops) or first appearance (final merge)."""
    pool = S[0]
    n = al + bl
    out = _alloc(S, n)
    if out < 0:
        return 0, 0
    for k in range(al):
        pool[out + k] = pool[ao + k]
    for k in range(bl):
        pool[out + al + k] = pool[bo + k]
    if sort:
        return out, _sorted_unique(pool, out, n)
    m = 0
    for i in range(n):
        x = pool[out + i]
        seen = False
        for j in range(m):
            if pool[out + j] == x:
                seen = True
                break
        if not seen:
            pool[out + m] = x
            m += 1
    return out, m


@njit(cache=True)
def _merge_loop(S, mark, order):
    """One entry per (name, position, relation) of the entries since ``mark``."""
    en, ep, er, eno, enl, epo, epl = S[4], S[5], S[6], S[7], S[8], S[9], S[10]
    cnt = S[19]
    end = cnt[_E]
    out = mark
    for i in range(mark, end):
        found = -1
        for j in range(mark, out):
            if ep[j] == ep[i] and en[j] == en[i] and er[j] == er[i]:
                found = j
                break
        if found < 0:
            en[out], ep[out], er[out] = en[i], ep[i], er[i]
            eno[out], enl[out], epo[out], epl[out] = eno[i], enl[i], epo[i], epl[i]
            out += 1
            continue
        no, nl = _union(S, eno[found], enl[found], eno[i], enl[i], order)
        po, pl = _positions_union(S, epo[found], epl[found], epo[i], epl[i], True)
        if cnt[_BAD] != 0:
            return
        eno[found], enl[found], epo[found], epl[found] = no, nl, po, pl
    cnt[_E] = out


@njit(cache=True)
def _token_like(A, node):
    name, has_kids, atomic, R = A[0], A[3], A[7], A[12]
    nm = name[node]
    return (not has_kids[node] or atomic[nm]) and nm != R[R_COMMENT]


@njit(cache=True)
def _variables(A, S, node):
    """Token nodes under ``node`` whose text differs from their type; returns (off, count)."""
    cnt = S[19]
    if node < 0:
        cnt[_BAD] = INVALID
        return 0, 0
    send, tpos, tskip = A[2], A[4], A[6]
    count = 0
    j = node
    while j < send[node]:
        if _token_like(A, j):
            if tpos[j] == -2:
                cnt[_BAD] = INVALID
                return 0, 0
            if not tskip[j]:
                count += 1
            j = send[j]
        else:
            j += 1
    off = _alloc(S, count)
    if off < 0:
        return 0, 0
    pool = S[0]
    k = 0
    j = node
    while j < send[node]:
        if _token_like(A, j):
            if not tskip[j]:
                pool[off + k] = j
                k += 1
            j = send[j]
        else:
            j += 1
    return off, count


@njit(cache=True)
def _field(A, S, node, field_id):
    if node < 0:
        S[19][_BAD] = INVALID
        return -1
    field, send = A[1], A[2]
    c = node + 1
    while c < send[node]:
        if field[c] == field_id:
            return c
        c = send[c]
    return -1


@njit(cache=True)
def _kids(A, S, node, skip_name):
    """Children of ``node`` (not of type ``skip_name``) into the pool: (off, count)."""
    if node < 0:
        S[19][_BAD] = INVALID
        return 0, 0
    name, send = A[0], A[2]
    count = 0
    c = node + 1
    while c < send[node]:
        if name[c] != skip_name:
            count += 1
        c = send[c]
    off = _alloc(S, count)
    if off < 0:
        return 0, 0
    pool = S[0]
    k = 0
    c = node + 1
    while c < send[node]:
        if name[c] != skip_name:
            pool[off + k] = c
            k += 1
        c = send[c]
    return off, count


@njit(cache=True)
def _one(S, value):
    off = _alloc(S, 1)
    if off >= 0:
        S[0][off] = value
    return off


@njit(cache=True)
def _pairwise(A, S, no, nn, vo, vn, relation):
    """Each variable of the names computed from / comes from each value variable."""
    pool = S[0]
    tpos, ttext = A[4], A[5]
    cnt = S[19]
    for a in range(nn):
        leaf = pool[no + a]
        code, pos = ttext[leaf], tpos[leaf]
        for b in range(vn):
            value = pool[vo + b]
            p1 = _one(S, ttext[value])
            p2 = _one(S, tpos[value])
            if cnt[_BAD] != 0:
                return
            _entry(S, code, pos, relation, p1, 1, p2, 1)
        _set1(S, code, pos)
        if cnt[_BAD] != 0:
            return


@njit(cache=True)
def _sides(A, S, left, right, comma):
    """lefts/rights of a tuple-style assignment or a Python for loop (pool lists)."""
    pool = S[0]
    lo, ln = _kids(A, S, left, comma)
    ro, rn = _kids(A, S, right, comma)
    if S[19][_BAD] != 0:
        return 0, 0, 0, 0
    if rn != ln:
        lo, ln = _one(S, left), 1
        ro, rn = _one(S, right), 1
    if ln == 0:
        lo, ln = _one(S, left), 1
    if rn == 0:
        ro, rn = _one(S, right), 1
    _ = pool
    return lo, ln, ro, rn


@njit(cache=True)
def _last_child(A, node):
    send = A[2]
    c = node + 1
    last = -1
    while c < send[node]:
        last = c
        c = send[c]
    return last


@njit(cache=True)
def _bind_rest(A, S, lo, ln, ro, rn):
    """After the right sides are walked: each left variable computed from its right side."""
    pool = S[0]
    tpos, ttext = A[4], A[5]
    cnt = S[19]
    for k in range(min(ln, rn)):
        so, sn_ = _variables(A, S, pool[ro + k])
        if cnt[_BAD] != 0:
            return
        names = _alloc(S, sn_)
        positions = _alloc(S, sn_)
        if cnt[_BAD] != 0:
            return
        for m in range(sn_):
            leaf = pool[so + m]
            pool[names + m] = ttext[leaf]
            pool[positions + m] = tpos[leaf]
        vo, vn = _variables(A, S, pool[lo + k])
        if cnt[_BAD] != 0:
            return
        for m in range(vn):
            leaf = pool[vo + m]
            _entry(S, ttext[leaf], tpos[leaf], COMPUTED, names, sn_, positions, sn_)
            _set1(S, ttext[leaf], tpos[leaf])
            if cnt[_BAD] != 0:
                return


@njit(cache=True)
def _branch_finish(A, S, node, base, snap_base, segs, n_segs, else_seen):
    """Merge the branches' states (the reference's ``_branch`` after its loop)."""
    R = A[12]
    pool = S[0]
    st_off, st_len = S[14], S[15]
    cnt = S[19]
    bs, bl = _snapshot(S, base)
    pool[segs + 2 * n_segs] = bs
    pool[segs + 2 * n_segs + 1] = bl
    n_segs += 1
    _undo(S, base)
    if cnt[_BAD] != 0:
        return
    keep_input = R[R_KEEPS_INPUT] == 1 or not else_seen
    sn, so, sl = S[11], S[12], S[13]
    stamp = S[16]
    cnt[_STAMP] += 1
    mark_id = cnt[_STAMP]
    n_touched = 0
    for g in range(n_segs):
        s0, s1 = pool[segs + 2 * g], pool[segs + 2 * g + 1]
        for k in range(s0, s0 + s1):
            if stamp[sn[k]] != mark_id:
                stamp[sn[k]] = mark_id
                n_touched += 1
    touched = _alloc(S, 3 * n_touched)
    if touched < 0:
        return
    cnt[_STAMP] += 1
    mark_id = cnt[_STAMP]
    t = 0
    for g in range(n_segs):
        s0, s1 = pool[segs + 2 * g], pool[segs + 2 * g + 1]
        for k in range(s0, s0 + s1):
            if stamp[sn[k]] != mark_id:
                stamp[sn[k]] = mark_id
                pool[touched + 3 * t] = sn[k]
                t += 1
    for t in range(n_touched):
        var = pool[touched + 3 * t]
        before_off, before_len = st_off[var], st_len[var]
        size = 0
        for g in range(n_segs):
            s0, s1 = pool[segs + 2 * g], pool[segs + 2 * g + 1]
            got = -1
            for k in range(s0, s0 + s1):
                if sn[k] == var:
                    got = k
                    break
            if got >= 0:
                size += sl[got]
            elif before_len >= 0:
                size += before_len
        if keep_input and before_len >= 0:
            size += before_len
        merged = _alloc(S, size)
        if merged < 0:
            return
        w = 0
        for g in range(n_segs):
            s0, s1 = pool[segs + 2 * g], pool[segs + 2 * g + 1]
            got = -1
            for k in range(s0, s0 + s1):
                if sn[k] == var:
                    got = k
                    break
            if got >= 0:
                for m in range(sl[got]):
                    pool[merged + w] = pool[so[got] + m]
                    w += 1
            elif before_len >= 0:
                for m in range(before_len):
                    pool[merged + w] = pool[before_off + m]
                    w += 1
        if keep_input and before_len >= 0:
            for m in range(before_len):
                pool[merged + w] = pool[before_off + m]
                w += 1
        pool[touched + 3 * t + 1] = merged
        pool[touched + 3 * t + 2] = _sorted_unique(pool, merged, size)
    cnt[_SN] = snap_base
    for t in range(n_touched):
        _set(S, pool[touched + 3 * t], pool[touched + 3 * t + 1], pool[touched + 3 * t + 2])


# frame columns of the walker's explicit stack
F_NODE, F_PHASE, F_ROLE = 0, 1, 2
F_A, F_B, F_C, F_D, F_E, F_F, F_G, F_H, F_I, F_J = 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
F_SIZE = 13


@njit(cache=True)
def _run(A, S, root, order, frames):
    """The reference's recursive ``walk`` as a loop over an explicit stack of frames.

    A frame is a node being walked and the point where it resumes after a child's walk.
    (numba cannot cache recursive functions, so the recursion is unrolled by hand.)
    """
    name, send, tpos, ttext, tskip = A[0], A[2], A[4], A[5], A[6]
    role, is_first, is_branch, has_else, R = A[8], A[9], A[10], A[11], A[12]
    pool = S[0]
    st_off, st_len = S[14], S[15]
    cnt = S[19]
    frames[0, F_NODE] = root
    frames[0, F_PHASE] = 0
    top = 1
    while top > 0:
        if cnt[_BAD] != 0:
            return
        f = top - 1
        node = frames[f, F_NODE]
        phase = frames[f, F_PHASE]
        if phase == 0:
            if node < 0:
                cnt[_BAD] = INVALID
                return
            nm = name[node]
            if _token_like(A, node):
                top -= 1
                pos = tpos[node]
                if pos == -2:
                    cnt[_BAD] = INVALID
                    return
                if tskip[node]:
                    continue
                code = ttext[node]
                if st_len[code] >= 0:
                    p = _one(S, code)
                    if p >= 0:
                        _entry(S, code, pos, COMES, p, 1, st_off[code], st_len[code])
                    continue
                if nm == R[R_IDENTIFIER]:
                    _set1(S, code, pos)
                _entry(S, code, pos, COMES, 0, 0, 0, 0)
                continue
            frames[f, F_ROLE] = role[nm]
        r = frames[f, F_ROLE]
        nm = name[node]
        end = send[node]
        child = -1  # the node to walk next (pushed below); -1: none
        push = False
        if r == ROLE_DEFAULT:
            if phase == 0:
                frames[f, F_A] = 0 if R[R_HAS_FIRST] else 1
                frames[f, F_B] = node + 1
                frames[f, F_PHASE] = 1
            first_pass = frames[f, F_A]
            c = frames[f, F_B]
            while True:
                if c >= end:
                    if first_pass == 0:
                        first_pass = 1
                        c = node + 1
                        continue
                    break
                wanted = is_first[name[c]] if first_pass == 0 else not is_first[name[c]]
                if wanted:
                    break
                c = send[c]
            if c >= end:
                top -= 1
                continue
            frames[f, F_A] = first_pass
            frames[f, F_B] = send[c]
            child = c
            push = True
        elif r == ROLE_DEFINITION:
            if phase == 0:
                style = R[R_DEF_STYLE]
                if style == 0:
                    target = _field(A, S, node, R[R_DEF_NAME])
                    value = _field(A, S, node, R[R_DEF_VALUE])
                else:
                    ko, kn = _kids(A, S, node, -7)
                    if cnt[_BAD] != 0:
                        return
                    if style == 1:
                        if kn == 0:
                            cnt[_BAD] = INVALID
                            return
                        target = pool[ko]
                        value = pool[ko + 1] if kn == 2 else -1
                    else:
                        if kn < 2:
                            cnt[_BAD] = INVALID
                            return
                        target = pool[ko + 1]
                        value = pool[ko + 2] if kn >= 3 else -1
                if value < 0:
                    top -= 1
                    vo, vn = _variables(A, S, target)
                    if cnt[_BAD] != 0:
                        return
                    for k in range(vn):
                        leaf = pool[vo + k]
                        _entry(S, ttext[leaf], tpos[leaf], COMES, 0, 0, 0, 0)
                        _set1(S, ttext[leaf], tpos[leaf])
                    continue
                no, nn = _variables(A, S, target)
                vo, vn = _variables(A, S, value)
                frames[f, F_A] = no
                frames[f, F_B] = nn
                frames[f, F_C] = vo
                frames[f, F_D] = vn
                frames[f, F_PHASE] = 1
                child = value
                push = True
            else:
                top -= 1
                _pairwise(A, S, frames[f, F_A], frames[f, F_B], frames[f, F_C],
                          frames[f, F_D], COMES)
                continue
        elif r == ROLE_ASSIGNMENT:
            if R[R_ASSIGN_STYLE] == 1:
                if phase == 0:
                    if nm == R[R_FOR_IN_CLAUSE]:
                        lo = _one(S, _field(A, S, node, R[R_F_LEFT]))
                        ro = _one(S, _last_child(A, node))
                        ln = 1
                        rn = 1
                    else:
                        left = _field(A, S, node, R[R_F_LEFT])
                        right = _field(A, S, node, R[R_F_RIGHT])
                        if right < 0 and R[R_FOR_IN_STYLE] == 0:
                            top -= 1
                            continue
                        lo, ln, ro, rn = _sides(A, S, left, right, R[R_COMMA])
                        if cnt[_BAD] != 0:
                            return
                        if nm == R[R_OPERATOR_ASSIGNMENT]:
                            lo, ln = _one(S, node + 1), 1
                            ro, rn = _one(S, _last_child(A, node)), 1
                    if cnt[_BAD] != 0:
                        return
                    frames[f, F_A] = lo
                    frames[f, F_B] = ln
                    frames[f, F_C] = ro
                    frames[f, F_D] = rn
                    frames[f, F_E] = 0
                    frames[f, F_PHASE] = 1
                k = frames[f, F_E]
                if k < frames[f, F_D]:
                    frames[f, F_E] = k + 1
                    child = pool[frames[f, F_C] + k]
                    push = True
                else:
                    top -= 1
                    _bind_rest(A, S, frames[f, F_A], frames[f, F_B], frames[f, F_C],
                               frames[f, F_D])
                    continue
            else:
                if phase == 0:
                    frames[f, F_A] = _field(A, S, node, R[R_F_LEFT])
                    right = _field(A, S, node, R[R_F_RIGHT])
                    frames[f, F_B] = right
                    frames[f, F_PHASE] = 1
                    child = right
                    push = True
                else:
                    top -= 1
                    no, nn = _variables(A, S, frames[f, F_A])
                    vo, vn = _variables(A, S, frames[f, F_B])
                    if cnt[_BAD] != 0:
                        return
                    _pairwise(A, S, no, nn, vo, vn, COMPUTED)
                    continue
        elif r == ROLE_INCREMENT:
            top -= 1
            vo, vn = _variables(A, S, node)
            if cnt[_BAD] != 0:
                return
            _pairwise(A, S, vo, vn, vo, vn, COMPUTED)
            continue
        elif r == ROLE_BRANCH:
            # A base, B snapshot base, C segments, D segment count, E flag, F else seen,
            # G next child, H/I the state before the branch (snapshot segment)
            if phase == 0:
                n_kids = 0
                c = node + 1
                while c < end:
                    n_kids += 1
                    c = send[c]
                segs = _alloc(S, 2 * (n_kids + 1))
                if segs < 0:
                    return
                frames[f, F_A] = cnt[_J]
                frames[f, F_B] = cnt[_SN]
                frames[f, F_C] = segs
                frames[f, F_D] = 0
                frames[f, F_E] = 0
                frames[f, F_F] = 1 if has_else[nm] else 0
                frames[f, F_G] = node + 1
                frames[f, F_PHASE] = 1
            elif phase == 2:
                # back from a branch: keep its changes, restore the path's state
                base = frames[f, F_A]
                segs = frames[f, F_C]
                n_segs = frames[f, F_D]
                bs, bl = _snapshot(S, base)
                pool[segs + 2 * n_segs] = bs
                pool[segs + 2 * n_segs + 1] = bl
                frames[f, F_D] = n_segs + 1
                _undo(S, base)
                sn, so, sl = S[11], S[12], S[13]
                for k in range(frames[f, F_H], frames[f, F_H] + frames[f, F_I]):
                    _set(S, sn[k], so[k], sl[k])
                if cnt[_BAD] != 0:
                    return
                frames[f, F_G] = send[frames[f, F_G]]
                frames[f, F_PHASE] = 1
            c = frames[f, F_G]
            if c >= end:
                top -= 1
                _branch_finish(A, S, node, frames[f, F_A], frames[f, F_B], frames[f, F_C],
                               frames[f, F_D], frames[f, F_F] == 1)
                continue
            ct = name[c]
            if has_else[ct]:
                frames[f, F_F] = 1
            style = R[R_BRANCH_STYLE]
            if style == 0:
                same = ct != R[R_ELIF_CLAUSE] and ct != R[R_ELSE_CLAUSE]
            elif style == 1:
                same = not is_branch[ct]
            else:
                same = not is_branch[ct] and frames[f, F_E] == 0
            if same:
                frames[f, F_G] = send[c]
                child = c
                push = True
            else:
                frames[f, F_E] = 1
                cs, cl = _snapshot(S, frames[f, F_A])
                frames[f, F_H] = cs
                frames[f, F_I] = cl
                _undo(S, frames[f, F_A])
                frames[f, F_PHASE] = 2
                child = c
                push = True
        elif r == ROLE_FOR_IN:
            # A mark, B iteration, C lo, D ln, E ro, F rn, G next right
            if phase == 0:
                frames[f, F_A] = cnt[_E]
                frames[f, F_B] = 0
                frames[f, F_PHASE] = 1
                phase = 1
            if phase == 3:
                frames[f, F_B] += 1
                frames[f, F_PHASE] = 1
                phase = 1
            if phase == 1:
                if frames[f, F_B] == 2:
                    top -= 1
                    _merge_loop(S, frames[f, F_A], order)
                    continue
                if R[R_FOR_IN_STYLE] == 1:
                    lo = _one(S, _field(A, S, node, R[R_F_PATTERN]))
                    ro = _one(S, _field(A, S, node, R[R_F_VALUE]))
                    ln = 1
                    rn = 1
                else:
                    right = _field(A, S, node, R[R_F_RIGHT])
                    left = _field(A, S, node, R[R_F_LEFT])
                    lo, ln, ro, rn = _sides(A, S, left, right, R[R_COMMA])
                if cnt[_BAD] != 0:
                    return
                frames[f, F_C] = lo
                frames[f, F_D] = ln
                frames[f, F_E] = ro
                frames[f, F_F] = rn
                frames[f, F_G] = 0
                frames[f, F_PHASE] = 2
            k = frames[f, F_G]
            if k < frames[f, F_F]:
                frames[f, F_G] = k + 1
                child = pool[frames[f, F_E] + k]
                push = True
            else:
                _bind_rest(A, S, frames[f, F_C], frames[f, F_D], frames[f, F_E],
                           frames[f, F_F])
                if cnt[_BAD] != 0:
                    return
                frames[f, F_PHASE] = 3
                if R[R_FOR_IN_STYLE] == 1:
                    child = _field(A, S, node, R[R_F_BODY])
                    push = True
                else:
                    last = _last_child(A, node)
                    if last >= 0 and name[last] == R[R_BLOCK]:
                        child = last
                        push = True
                    else:
                        continue  # resumes at phase 3
        elif r == ROLE_C_FOR:
            # A mark, B next child, C again, D second pass
            if phase == 0:
                frames[f, F_A] = cnt[_E]
                frames[f, F_B] = node + 1
                frames[f, F_C] = 0
                frames[f, F_D] = 0
                frames[f, F_PHASE] = 1
            c = frames[f, F_B]
            if frames[f, F_D] == 0:
                if c < end:
                    frames[f, F_B] = send[c]
                    child = c
                    push = True
                else:
                    frames[f, F_D] = 1
                    c = node + 1
            if not push:
                again = frames[f, F_C]
                while c < end:
                    if again:
                        child = c
                        push = True
                        break
                    if R[R_UPDATE_OF] >= 0 and name[c] == R[R_UPDATE_OF]:
                        again = 1
                        update = _field(A, S, c, R[R_F_UPDATE])
                        if update >= 0:
                            child = update
                            push = True
                            break
                    elif name[c] == R[R_RESTART]:
                        again = 1
                    c = send[c]
                frames[f, F_C] = again
                if push:
                    frames[f, F_B] = send[c]
                else:
                    top -= 1
                    _merge_loop(S, frames[f, F_A], order)
                    continue
        elif r == ROLE_FOREACH:
            # A mark, B iteration, C target, D value, E body
            if phase == 0:
                if R[R_FOREACH_PHP]:
                    target = -1
                    value = -1
                    c = node + 1
                    while c < end:
                        if name[c] == R[R_VARIABLE_NAME] and value < 0:
                            value = c
                        elif name[c] == R[R_VARIABLE_NAME] and target < 0:
                            target = c
                            break
                        c = send[c]
                else:
                    target = _field(A, S, node, R[R_FOREACH_NAME])
                    value = _field(A, S, node, R[R_FOREACH_VALUE])
                frames[f, F_A] = cnt[_E]
                frames[f, F_B] = 0
                frames[f, F_C] = target
                frames[f, F_D] = value
                frames[f, F_E] = _field(A, S, node, R[R_F_BODY])
                frames[f, F_PHASE] = 1
                phase = 1
            if phase == 3:
                frames[f, F_B] += 1
                phase = 1
            if phase == 1:
                if frames[f, F_B] == 2:
                    top -= 1
                    _merge_loop(S, frames[f, F_A], order)
                    continue
                frames[f, F_PHASE] = 2
                child = frames[f, F_D]
                push = True
            else:  # phase 2: the value was walked
                no, nn = _variables(A, S, frames[f, F_C])
                vo, vn = _variables(A, S, frames[f, F_D])
                if cnt[_BAD] != 0:
                    return
                _pairwise(A, S, no, nn, vo, vn, COMPUTED)
                frames[f, F_PHASE] = 3
                child = frames[f, F_E]
                push = True
        else:  # ROLE_LOOP: A mark, B iteration, C next child
            if phase == 0:
                frames[f, F_A] = cnt[_E]
                frames[f, F_B] = 0
                frames[f, F_C] = node + 1
                frames[f, F_PHASE] = 1
            c = frames[f, F_C]
            if c >= end:
                frames[f, F_B] += 1
                if frames[f, F_B] == 2:
                    top -= 1
                    _merge_loop(S, frames[f, F_A], order)
                    continue
                c = node + 1
            if c >= end:  # a loop without children
                frames[f, F_C] = c
                continue
            frames[f, F_C] = send[c]
            child = c
            push = True
        if push:
            if top >= frames.shape[0]:
                cnt[_BAD] = OVERFLOW
                return
            frames[top, F_NODE] = child
            frames[top, F_PHASE] = 0
            top += 1


@njit(cache=True)
def _grow(array, need):
    if need <= array.size:
        return array
    size = array.size * 2
    while size < need:
        size *= 2
    out = np.empty(size, array.dtype)
    out[: array.size] = array
    return out


@njit(cache=True)
def dataflow(node_off, name, field, send, has_kids, tpos, ttext, tskip, depth,
             atomic, role, is_first, is_branch, has_else, R,
             n_texts, points, txt_off, max_depth):
    """Normalised dataflow entries of every tree.

    Returns (data, entry offsets, per tree first/last entry, status per tree): an entry is the
    int sequence (name, relation, parent names...) after renaming by first appearance; status
    1 means the tree goes to the reference walker (loops nested too deep).
    """
    n_trees = node_off.size - 1
    order = R[R_ORDER]
    st_off = np.zeros(n_texts, np.int64)
    st_len = np.full(n_texts, -1, np.int64)
    stamp = np.zeros(n_texts, np.int64)
    hashes = np.zeros(n_texts, np.uint64)
    done = np.zeros(n_texts, np.bool_)
    rename = np.full(n_texts, -1, np.int64)
    cnt = np.zeros(6, np.int64)
    data = np.empty(1024, np.int64)
    entry_off = np.zeros(1024, np.int64)
    n_data = 0
    n_entries = 0
    tree_lo = np.zeros(n_trees, np.int64)
    tree_hi = np.zeros(n_trees, np.int64)
    status = np.zeros(n_trees, np.int64)
    A = (name, field, send, has_kids, tpos, ttext, tskip, atomic, role, is_first, is_branch,
         has_else, R)
    loop_depth = np.zeros(name.size, np.int64)
    # work buffers, shared by the trees (grown when a tree needs more)
    widest = 1
    deepest_tree = 0
    for t in range(n_trees):
        if node_off[t + 1] - node_off[t] > widest:
            widest = node_off[t + 1] - node_off[t]
        if depth[t] <= max_depth and depth[t] > deepest_tree:
            deepest_tree = depth[t]
    frames = np.zeros((deepest_tree + 8, F_SIZE), np.int64)
    cap = 16 * widest + 256
    resize = False
    pool = np.empty(8 * cap, np.int64)
    jn = np.empty(cap, np.int64)
    jo = np.empty(cap, np.int64)
    jl = np.empty(cap, np.int64)
    en = np.empty(cap, np.int64)
    ep = np.empty(cap, np.int64)
    er = np.empty(cap, np.int64)
    eno = np.empty(cap, np.int64)
    enl = np.empty(cap, np.int64)
    epo = np.empty(cap, np.int64)
    epl = np.empty(cap, np.int64)
    sn = np.empty(cap, np.int64)
    so = np.empty(cap, np.int64)
    sl = np.empty(cap, np.int64)
    for t in range(n_trees):
        lo, hi = node_off[t], node_off[t + 1]
        tree_lo[t] = n_entries
        tree_hi[t] = n_entries
        if depth[t] > max_depth:
            continue
        # loop nesting (the walker doubles the work per level)
        deepest = 0
        loop_depth[lo] = 0
        for i in range(lo, hi):
            inner = loop_depth[i] + (1 if role[name[i]] >= ROLE_FOR_IN else 0)
            c = i + 1
            while c < send[i]:
                loop_depth[c] = inner
                c = send[c]
            if loop_depth[i] > deepest:
                deepest = loop_depth[i]
        if deepest > LOOP_NESTING_LIMIT:
            status[t] = 1
            continue
        ok = False
        E = 0
        for _attempt in range(6):
            if 16 * (hi - lo) + 256 > cap:
                cap = 16 * (hi - lo) + 256
                resize = True
            if resize:
                resize = False
                pool = np.empty(8 * cap, np.int64)
                jn = np.empty(cap, np.int64)
                jo = np.empty(cap, np.int64)
                jl = np.empty(cap, np.int64)
                en = np.empty(cap, np.int64)
                ep = np.empty(cap, np.int64)
                er = np.empty(cap, np.int64)
                eno = np.empty(cap, np.int64)
                enl = np.empty(cap, np.int64)
                epo = np.empty(cap, np.int64)
                epl = np.empty(cap, np.int64)
                sn = np.empty(cap, np.int64)
                so = np.empty(cap, np.int64)
                sl = np.empty(cap, np.int64)
            for i in range(lo, hi):
                if tpos[i] >= 0:
                    st_len[ttext[i]] = -1
            last_stamp = cnt[_STAMP]
            cnt[:] = 0
            cnt[_STAMP] = last_stamp
            S = (pool, jn, jo, jl, en, ep, er, eno, enl, epo, epl, sn, so, sl, st_off, st_len,
                 stamp, hashes, done, cnt, points, txt_off)
            _run(A, S, lo, order, frames)
            if cnt[_BAD] == OVERFLOW:
                cap *= 4
                resize = True
                continue
            ok = cnt[_BAD] == 0
            E = cnt[_E]
            break
        else:
            status[t] = 1
            continue
        for i in range(lo, hi):
            if tpos[i] >= 0:
                st_len[ttext[i]] = -1
        if not ok or E == 0:
            continue
        # sorted by position (stable), kept when an edge touches the position, merged
        by_pos = np.argsort(ep[:E], kind="mergesort")
        n_pos = 0
        for k in range(E):
            if ep[k] + 1 > n_pos:
                n_pos = ep[k] + 1
            for m in range(epl[k]):
                if pool[epo[k] + m] + 1 > n_pos:
                    n_pos = pool[epo[k] + m] + 1
        keep = np.zeros(n_pos, np.bool_)
        for k in range(E):
            if epl[k] > 0:
                keep[ep[k]] = True
            for m in range(epl[k]):
                keep[pool[epo[k] + m]] = True
        used = cnt[_P]
        extra = 64
        for k in range(E):
            extra += 3 * (enl[k] + epl[k])
        while True:
            if used + extra > pool.size:
                pool2 = np.empty(2 * (used + extra), np.int64)
                pool2[:used] = pool[:used]
                pool = pool2
            pool2 = pool
            cnt[_BAD] = 0
            cnt[_P] = used
            S = (pool2, jn, jo, jl, en, ep, er, eno, enl, epo, epl, sn, so, sl, st_off,
                 st_len, stamp, hashes, done, cnt, points, txt_off)
            slot = np.full(n_pos, -1, np.int64)
            m_name = np.empty(E, np.int64)
            m_rel = np.empty(E, np.int64)
            m_no = np.empty(E, np.int64)
            m_nl = np.empty(E, np.int64)
            m_po = np.empty(E, np.int64)
            m_pl = np.empty(E, np.int64)
            count = 0
            for idx in range(E):
                k = by_pos[idx]
                pos = ep[k]
                if not keep[pos]:
                    continue
                j = slot[pos]
                if j < 0:
                    slot[pos] = count
                    m_name[count], m_rel[count] = en[k], er[k]
                    m_no[count], m_nl[count] = eno[k], enl[k]
                    m_po[count], m_pl[count] = epo[k], epl[k]
                    count += 1
                else:
                    m_name[j], m_rel[j] = en[k], er[k]
                    m_no[j], m_nl[j] = _union(S, m_no[j], m_nl[j], eno[k], enl[k], order)
                    m_po[j], m_pl[j] = _positions_union(S, m_po[j], m_pl[j], epo[k], epl[k],
                                                        False)
                if cnt[_BAD] != 0:
                    break
            if cnt[_BAD] == 0:
                break
            extra *= 4
        pool = pool2
        # renamed by first appearance (parents before the child)
        next_name = 0
        for j in range(count):
            need = 2 + m_nl[j]
            data = _grow(data, n_data + need)
            entry_off = _grow(entry_off, n_entries + 2)
            for m in range(m_nl[j]):
                parent = pool[m_no[j] + m]
                if rename[parent] < 0:
                    rename[parent] = next_name
                    next_name += 1
            if rename[m_name[j]] < 0:
                rename[m_name[j]] = next_name
                next_name += 1
            data[n_data] = rename[m_name[j]]
            data[n_data + 1] = m_rel[j]
            for m in range(m_nl[j]):
                data[n_data + 2 + m] = rename[pool[m_no[j] + m]]
            entry_off[n_entries] = n_data
            n_data += need
            n_entries += 1
            entry_off[n_entries] = n_data
        for j in range(count):
            rename[m_name[j]] = -1
            for m in range(m_nl[j]):
                rename[pool[m_no[j] + m]] = -1
        tree_hi[t] = n_entries
    return data[:n_data].copy(), entry_off[: n_entries + 1].copy(), tree_lo, tree_hi, status


@njit(cache=True)
def dataflow_matches(data, entry_off, tree_lo, tree_hi, pairs):
    """For each (candidate tree, reference tree): reference entries matched by candidate
    entries (each used once) and the reference's entry count."""
    n_entries = entry_off.size - 1
    table = np.full(_table_size_nb(n_entries), -1, np.int64)
    pool = np.empty(data.size + 1, np.int64)
    offs = np.empty(n_entries + 1, np.int64)
    lens = np.empty(n_entries + 1, np.int64)
    counts = np.zeros(2, np.int64)
    ids = np.empty(n_entries, np.int64)
    for e in range(n_entries):
        lo, hi = entry_off[e], entry_off[e + 1]
        ids[e] = _intern(data[lo:hi], hi - lo, table, pool, offs, lens, counts)
    available = np.zeros(counts[0] + 1, np.int64)
    out = np.zeros((pairs.shape[0], 2), np.int64)
    for k in range(pairs.shape[0]):
        cand, ref = pairs[k, 0], pairs[k, 1]
        n_ref = tree_hi[ref] - tree_lo[ref]
        if n_ref == 0:
            continue
        for e in range(tree_lo[cand], tree_hi[cand]):
            available[ids[e]] += 1
        matched = 0
        for e in range(tree_lo[ref], tree_hi[ref]):
            if available[ids[e]] > 0:
                available[ids[e]] -= 1
                matched += 1
        for e in range(tree_lo[cand], tree_hi[cand]):
            available[ids[e]] = 0
        out[k, 0] = matched
        out[k, 1] = n_ref
    return out


# ---------------------------------------------------------------------------------------
# token texts: interned from code points, with fixed strings (kinds, keywords) first
# ---------------------------------------------------------------------------------------


@njit(cache=True)
def _new_table(fixed_points, fixed_off, n_fixed, n_more, pool_size):
    """An intern table holding the ``n_fixed`` fixed strings as ids 0..n_fixed-1."""
    table = np.full(_table_size_nb(n_fixed + n_more), -1, np.int64)
    pool = np.empty(pool_size + fixed_points.size + 1, np.int64)
    offs = np.empty(n_fixed + n_more + 1, np.int64)
    lens = np.empty(n_fixed + n_more + 1, np.int64)
    counts = np.zeros(2, np.int64)
    buf = np.empty(fixed_points.size + 1, np.int64)
    for k in range(n_fixed):
        n = fixed_off[k + 1] - fixed_off[k]
        for i in range(n):
            buf[i] = fixed_points[fixed_off[k] + i]
        _intern(buf, n, table, pool, offs, lens, counts)
    return table, pool, offs, lens, counts


@njit(cache=True)
def token_ids(points, tree_point_off, tok_start, tok_end, tok_off, node_off, tpos,
              fixed_points, fixed_off):
    """Interned text of every token (newlines dropped, as the package joins a token's lines)
    and of every node that resolves to a token; the kinds' names are ids 0..n_kinds-1, so a
    token whose text equals its kind has its kind's id. Returns (text id per node, text code
    points, text offsets)."""
    n_fixed = fixed_off.size - 1
    n_tokens = tok_start.size
    table, pool, offs, lens, counts = _new_table(fixed_points, fixed_off, n_fixed, n_tokens,
                                                 points.size)
    longest = 1
    for r in range(n_tokens):
        if tok_end[r] - tok_start[r] > longest:
            longest = tok_end[r] - tok_start[r]
    buf = np.empty(longest, np.int64)
    rank_id = np.empty(n_tokens, np.int64)
    n_trees = tok_off.size - 1
    for t in range(n_trees):
        base = tree_point_off[t]
        for r in range(tok_off[t], tok_off[t + 1]):
            n = 0
            for i in range(base + tok_start[r], base + tok_end[r]):
                c = points[i]
                if c != 10:
                    buf[n] = c
                    n += 1
            rank_id[r] = _intern(buf, n, table, pool, offs, lens, counts)
    ttext = np.full(tpos.size, -1, np.int64)
    for t in range(n_trees):
        for i in range(node_off[t], node_off[t + 1]):
            if tpos[i] >= 0:
                ttext[i] = rank_id[tok_off[t] + tpos[i]]
    n_ids = counts[0]
    txt_off = np.empty(n_ids + 1, np.int64)
    txt_off[:n_ids] = offs[:n_ids]
    txt_off[n_ids] = counts[1]
    return ttext, pool[: counts[1]].copy(), txt_off


@njit(cache=True, inline="always")
def _is_space(c):
    """``str.isspace`` (the separators of ``str.split()``)."""
    if c <= 32:
        return c == 32 or (9 <= c <= 13) or (28 <= c <= 31)
    if c < 0x85:
        return False
    return (c == 0x85 or c == 0xA0 or c == 0x1680 or (0x2000 <= c <= 0x200A) or c == 0x2028
            or c == 0x2029 or c == 0x202F or c == 0x205F or c == 0x3000)


@njit(cache=True)
def split_ids(points, seg_point_off, fixed_points, fixed_off):
    """``text.split()`` of every segment, tokens interned (the fixed strings, keywords, are
    ids 0..n_fixed-1). Returns (token ids, segment offsets into them)."""
    n_fixed = fixed_off.size - 1
    n_segments = seg_point_off.size - 1
    n_tokens = 0
    for s in range(n_segments):
        inside = False
        for i in range(seg_point_off[s], seg_point_off[s + 1]):
            space = _is_space(points[i])
            if not space and not inside:
                n_tokens += 1
            inside = not space
    table, pool, offs, lens, counts = _new_table(fixed_points, fixed_off, n_fixed,
                                                 n_tokens + 1, points.size)
    ids = np.empty(n_tokens + 1, np.int64)
    seg_off = np.zeros(n_segments + 1, np.int64)
    count = 0
    for s in range(n_segments):
        i = seg_point_off[s]
        end = seg_point_off[s + 1]
        while i < end:
            while i < end and _is_space(points[i]):
                i += 1
            if i >= end:
                break
            j = i
            while j < end and not _is_space(points[j]):
                j += 1
            ids[count] = _intern(points[i:j], j - i, table, pool, offs, lens, counts)
            count += 1
            i = j
        seg_off[s + 1] = count
    return ids[:count].copy(), seg_off


@njit(cache=True)
def strip_python_batch(points, off):
    """``strip_python`` of every text ``points[off[k]:off[k+1]]``: the results in place of
    the texts (zeros elsewhere) and, per text, the result's length or a status (< 0)."""
    out = np.zeros(points.size + 1, points.dtype)
    n = off.size - 1
    lengths = np.empty(n, np.int64)
    for k in range(n):
        a, b = off[k], off[k + 1]
        lengths[k] = strip_python(points[a:b], out[a : b + 1])
    return out[: points.size], lengths
