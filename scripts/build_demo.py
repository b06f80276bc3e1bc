"""Builds ``demo.json``, the example data of ``cgm demo`` (hand-written for this project).

45 small Python tasks, each with a prompt, a reference solution and assert-based tests, and
the outputs of four made-up systems:

- ``strong``: correct solutions written differently from the reference;
- ``strong_v2``: ``strong`` with a few items rewritten (some closer to the reference, some
  further), a difference too small to be significant;
- ``near_miss``: the reference with one small bug (off-by-one, wrong operator, missing
  return...): fails the tests, easy to fix, and scores high on similarity metrics;
- ``weak``: plausible but wrong or incomplete code.

``passes`` records which outputs pass their task's tests (checked again by the test suite).
Run ``python scripts/build_demo.py`` to regenerate ``src/cgm_metrics/data/demo/demo.json``
(it runs the demo outputs against their tests, so it stays out of the package).
"""

from __future__ import annotations

import json
from pathlib import Path

TASKS: list[dict] = []


def task(name, prompt, reference, strong, near_miss, weak, tests, variant=None):
    old, new = near_miss
    if reference.count(old) != 1:
        raise ValueError(f"{name}: near-miss edit {old!r} must occur once in the reference")
    TASKS.append(
        {
            "id": name,
            "prompt": prompt,
            "reference": reference,
            "tests": tests,
            "strong": strong,
            "strong_v2": variant if variant is not None else strong,
            "near_miss": reference.replace(old, new),
            "weak": weak,
        }
    )


task(
    "add",
    "Return the sum of a and b.",
    "def add(a, b):\n    return a + b\n",
    "def add(x, y):\n    return x + y\n",
    ("a + b", "a - b"),
    "def add(a, b):\n    print(a + b)\n",
    "assert add(2, 3) == 5\nassert add(-1, 1) == 0",
    variant="def add(first, second):\n    result = first + second\n    return result\n",
)
task(
    "is_even",
    "Return True if n is even.",
    "def is_even(n):\n    return n % 2 == 0\n",
    "def is_even(n):\n    return not n % 2\n",
    ("== 0", "== 1"),
    "def is_even(n):\n    return n / 2 == 0\n",
    "assert is_even(4)\nassert not is_even(7)\nassert is_even(0)",
)
task(
    "factorial",
    "Return n! for a non-negative integer n.",
    "def factorial(n):\n    result = 1\n    for i in range(2, n + 1):\n        result *= i\n"
    "    return result\n",
    "def factorial(n):\n    if n <= 1:\n        return 1\n    return n * factorial(n - 1)\n",
    ("range(2, n + 1)", "range(2, n)"),
    "def factorial(n):\n    return n * (n - 1)\n",
    "assert factorial(0) == 1\nassert factorial(5) == 120\nassert factorial(1) == 1",
    variant="def factorial(n):\n    result = 1\n    for k in range(1, n + 1):\n        result *= k\n"
    "    return result\n",
)
task(
    "fibonacci",
    "Return the n-th Fibonacci number (fib(0) = 0, fib(1) = 1).",
    "def fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n",
    "def fib(n):\n    prev, cur = 0, 1\n    for _ in range(n):\n        prev, cur = cur, prev + cur\n"
    "    return prev\n",
    ("return a\n", "return b\n"),
    "def fib(n):\n    return fib(n - 1) + fib(n - 2)\n",
    "assert fib(0) == 0\nassert fib(1) == 1\nassert fib(10) == 55",
)
task(
    "reverse_string",
    "Return the string s reversed.",
    "def reverse_string(s):\n    return s[::-1]\n",
    "def reverse_string(s):\n    return ''.join(reversed(s))\n",
    ("s[::-1]", "s[::1]"),
    "def reverse_string(s):\n    return s.reverse()\n",
    "assert reverse_string('abc') == 'cba'\nassert reverse_string('') == ''",
    variant="def reverse_string(s):\n    out = ''\n    for ch in s:\n        out = ch + out\n"
    "    return out\n",
)
task(
    "is_palindrome",
    "Return True if s reads the same forwards and backwards, ignoring case.",
    "def is_palindrome(s):\n    s = s.lower()\n    return s == s[::-1]\n",
    "def is_palindrome(text):\n    text = text.lower()\n    return text == text[::-1]\n",
    ("    s = s.lower()\n", ""),
    "def is_palindrome(s):\n    return s[0] == s[-1]\n",
    "assert is_palindrome('Level')\nassert not is_palindrome('abca')\nassert is_palindrome('a')",
)
task(
    "count_vowels",
    "Count the vowels (a, e, i, o, u, either case) in s.",
    "def count_vowels(s):\n    return sum(1 for ch in s.lower() if ch in 'aeiou')\n",
    "def count_vowels(s):\n    count = 0\n    for ch in s.lower():\n        if ch in 'aeiou':\n"
    "            count += 1\n    return count\n",
    ("s.lower()", "s"),
    "def count_vowels(s):\n    return len(s)\n",
    "assert count_vowels('Hello World') == 3\nassert count_vowels('AEIOU') == 5\n"
    "assert count_vowels('xyz') == 0",
)
task(
    "max_of_list",
    "Return the largest element of a non-empty list without using max().",
    "def max_of_list(items):\n    best = items[0]\n    for item in items[1:]:\n"
    "        if item > best:\n            best = item\n    return best\n",
    "def max_of_list(values):\n    largest = values[0]\n    for value in values:\n"
    "        if value > largest:\n            largest = value\n    return largest\n",
    ("item > best", "item < best"),
    "def max_of_list(items):\n    return items[-1]\n",
    "assert max_of_list([3, 9, 2]) == 9\nassert max_of_list([-5, -2, -9]) == -2",
)
task(
    "flatten",
    "Flatten a list of lists into one list.",
    "def flatten(lists):\n    return [x for sub in lists for x in sub]\n",
    "def flatten(lists):\n    result = []\n    for sub in lists:\n        result.extend(sub)\n"
    "    return result\n",
    ("for x in sub", "for x in lists"),
    "def flatten(lists):\n    return lists[0]\n",
    "assert flatten([[1, 2], [3], []]) == [1, 2, 3]\nassert flatten([]) == []",
)
task(
    "unique_sorted",
    "Return the distinct elements of items in ascending order.",
    "def unique_sorted(items):\n    return sorted(set(items))\n",
    "def unique_sorted(items):\n    return sorted(set(items))\n",
    ("sorted(set(items))", "sorted(set(items), reverse=True)"),
    "def unique_sorted(items):\n    return sorted(items)\n",
    "assert unique_sorted([3, 1, 3, 2]) == [1, 2, 3]\nassert unique_sorted([5, 4, 4]) == [4, 5]",
)
task(
    "word_count",
    "Return a dict mapping each whitespace-separated word of text to its count.",
    "def word_count(text):\n    counts = {}\n    for word in text.split():\n"
    "        counts[word] = counts.get(word, 0) + 1\n    return counts\n",
    "from collections import Counter\n\n\ndef word_count(text):\n"
    "    return dict(Counter(text.split()))\n",
    ("counts.get(word, 0) + 1", "1"),
    "def word_count(text):\n    return len(text.split())\n",
    "assert word_count('a b a') == {'a': 2, 'b': 1}\nassert word_count('') == {}",
)
task(
    "celsius_to_fahrenheit",
    "Convert a temperature from Celsius to Fahrenheit.",
    "def celsius_to_fahrenheit(c):\n    return c * 9 / 5 + 32\n",
    "def celsius_to_fahrenheit(celsius):\n    return celsius * 1.8 + 32\n",
    ("+ 32", "- 32"),
    "def celsius_to_fahrenheit(c):\n    return c + 32\n",
    "assert celsius_to_fahrenheit(100) == 212\nassert celsius_to_fahrenheit(0) == 32",
    variant="def celsius_to_fahrenheit(degrees):\n    fahrenheit = degrees * 1.8 + 32\n"
    "    return fahrenheit\n",
)
task(
    "gcd",
    "Return the greatest common divisor of two positive integers.",
    "def gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return a\n",
    "def gcd(a, b):\n    if b == 0:\n        return a\n    return gcd(b, a % b)\n",
    ("a % b", "a // b"),
    "def gcd(a, b):\n    return min(a, b)\n",
    "assert gcd(12, 18) == 6\nassert gcd(7, 13) == 1\nassert gcd(10, 5) == 5",
)
task(
    "is_prime",
    "Return True if n is a prime number.",
    "def is_prime(n):\n    if n < 2:\n        return False\n    i = 2\n    while i * i <= n:\n"
    "        if n % i == 0:\n            return False\n        i += 1\n    return True\n",
    "def is_prime(n):\n    if n < 2:\n        return False\n"
    "    for d in range(2, int(n ** 0.5) + 1):\n        if n % d == 0:\n            return False\n"
    "    return True\n",
    ("i * i <= n", "i * i < n"),
    "def is_prime(n):\n    return n % 2 == 1\n",
    "assert is_prime(2)\nassert is_prime(13)\nassert not is_prime(9)\nassert not is_prime(1)\n"
    "assert not is_prime(25)",
)
task(
    "chunks",
    "Split items into consecutive lists of length size (the last may be shorter).",
    "def chunks(items, size):\n    return [items[i:i + size] for i in range(0, len(items), size)]\n",
    "def chunks(items, size):\n    out = []\n    for start in range(0, len(items), size):\n"
    "        out.append(items[start:start + size])\n    return out\n",
    ("range(0, len(items), size)", "range(0, len(items) - size, size)"),
    "def chunks(items, size):\n    return [items[:size], items[size:]]\n",
    "assert chunks([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]\nassert chunks([], 3) == []",
)
task(
    "capitalize_words",
    "Capitalize the first letter of every word of a space-separated sentence.",
    "def capitalize_words(sentence):\n"
    "    return ' '.join(word.capitalize() for word in sentence.split(' '))\n",
    "def capitalize_words(sentence):\n    words = sentence.split(' ')\n"
    "    return ' '.join(w[:1].upper() + w[1:].lower() for w in words)\n",
    ("word.capitalize()", "word.upper()"),
    "def capitalize_words(sentence):\n    return sentence.capitalize()\n",
    "assert capitalize_words('hello big world') == 'Hello Big World'",
)
task(
    "binary_search",
    "Return the index of target in the sorted list items, or -1 if absent.",
    "def binary_search(items, target):\n    lo, hi = 0, len(items) - 1\n    while lo <= hi:\n"
    "        mid = (lo + hi) // 2\n        if items[mid] == target:\n            return mid\n"
    "        if items[mid] < target:\n            lo = mid + 1\n        else:\n"
    "            hi = mid - 1\n    return -1\n",
    "def binary_search(items, target):\n    low, high = 0, len(items) - 1\n"
    "    while low <= high:\n        middle = (low + high) // 2\n"
    "        if items[middle] < target:\n            low = middle + 1\n"
    "        elif items[middle] > target:\n            high = middle - 1\n        else:\n"
    "            return middle\n    return -1\n",
    ("while lo <= hi", "while lo < hi"),
    "def binary_search(items, target):\n    return items.index(target)\n",
    "assert binary_search([1, 3, 5, 7], 7) == 3\nassert binary_search([1, 3, 5, 7], 4) == -1\n"
    "assert binary_search([2], 2) == 0",
)
task(
    "merge_sorted",
    "Merge two sorted lists into one sorted list.",
    "def merge_sorted(a, b):\n    result = []\n    i = j = 0\n    while i < len(a) and j < len(b):\n"
    "        if a[i] <= b[j]:\n            result.append(a[i])\n            i += 1\n"
    "        else:\n            result.append(b[j])\n            j += 1\n"
    "    result.extend(a[i:])\n    result.extend(b[j:])\n    return result\n",
    "def merge_sorted(a, b):\n    merged = []\n    i, j = 0, 0\n"
    "    while i < len(a) and j < len(b):\n        if a[i] < b[j]:\n"
    "            merged.append(a[i])\n            i += 1\n        else:\n"
    "            merged.append(b[j])\n            j += 1\n    return merged + a[i:] + b[j:]\n",
    ("    result.extend(b[j:])\n", ""),
    "def merge_sorted(a, b):\n    return a + b\n",
    "assert merge_sorted([1, 4], [2, 3, 5]) == [1, 2, 3, 4, 5]\n"
    "assert merge_sorted([], [1]) == [1]",
)
task(
    "running_sum",
    "Return the list of prefix sums of numbers.",
    "def running_sum(numbers):\n    total = 0\n    result = []\n    for x in numbers:\n"
    "        total += x\n        result.append(total)\n    return result\n",
    "from itertools import accumulate\n\n\ndef running_sum(numbers):\n"
    "    return list(accumulate(numbers))\n",
    ("        total += x\n", "        total = x\n"),
    "def running_sum(numbers):\n    return sum(numbers)\n",
    "assert running_sum([1, 2, 3]) == [1, 3, 6]\nassert running_sum([]) == []",
    variant="def running_sum(numbers):\n    sums = []\n    total = 0\n    for n in numbers:\n"
    "        total += n\n        sums.append(total)\n    return sums\n",
)
task(
    "char_frequency",
    "Return the most frequent character of a non-empty string (the first one on ties).",
    "def most_frequent_char(s):\n    counts = {}\n    for ch in s:\n"
    "        counts[ch] = counts.get(ch, 0) + 1\n    return max(s, key=lambda ch: counts[ch])\n",
    "def most_frequent_char(s):\n    return max(s, key=s.count)\n",
    ("max(s, key", "min(s, key"),
    "def most_frequent_char(s):\n    return s[0]\n",
    "assert most_frequent_char('abbc') == 'b'\nassert most_frequent_char('aabb') == 'a'",
)
task(
    "clamp",
    "Limit value to the range [low, high].",
    "def clamp(value, low, high):\n    return max(low, min(value, high))\n",
    "def clamp(value, low, high):\n    if value < low:\n        return low\n"
    "    if value > high:\n        return high\n    return value\n",
    ("max(low, min(value, high))", "min(low, max(value, high))"),
    "def clamp(value, low, high):\n    return value\n",
    "assert clamp(5, 0, 3) == 3\nassert clamp(-2, 0, 3) == 0\nassert clamp(2, 0, 3) == 2",
)
task(
    "transpose",
    "Transpose a matrix given as a list of equal-length rows.",
    "def transpose(matrix):\n    return [list(row) for row in zip(*matrix)]\n",
    "def transpose(matrix):\n    return [[row[i] for row in matrix] for i in range(len(matrix[0]))]"
    " if matrix else []\n",
    ("zip(*matrix)", "zip(matrix)"),
    "def transpose(matrix):\n    return matrix[::-1]\n",
    "assert transpose([[1, 2, 3], [4, 5, 6]]) == [[1, 4], [2, 5], [3, 6]]",
)
task(
    "dedupe_keep_order",
    "Remove repeated elements of items, keeping the first occurrence of each.",
    "def dedupe(items):\n    seen = set()\n    result = []\n    for item in items:\n"
    "        if item not in seen:\n            seen.add(item)\n            result.append(item)\n"
    "    return result\n",
    "def dedupe(items):\n    return list(dict.fromkeys(items))\n",
    ("            seen.add(item)\n", ""),
    "def dedupe(items):\n    return list(set(items))\n",
    "assert dedupe([3, 1, 3, 2, 1]) == [3, 1, 2]\nassert dedupe([]) == []",
)
task(
    "sum_digits",
    "Return the sum of the decimal digits of a non-negative integer.",
    "def sum_digits(n):\n    return sum(int(d) for d in str(n))\n",
    "def sum_digits(n):\n    total = 0\n    while n:\n        total += n % 10\n"
    "        n //= 10\n    return total\n",
    ("int(d)", "d"),
    "def sum_digits(n):\n    return n % 10\n",
    "assert sum_digits(1234) == 10\nassert sum_digits(0) == 0",
)
task(
    "rotate_list",
    "Rotate items to the right by k positions.",
    "def rotate(items, k):\n    if not items:\n        return items\n    k %= len(items)\n"
    "    return items[-k:] + items[:-k]\n",
    "def rotate(items, k):\n    if not items:\n        return []\n    k = k % len(items)\n"
    "    return items[len(items) - k:] + items[:len(items) - k]\n",
    ("    k %= len(items)\n", ""),
    "def rotate(items, k):\n    return items[k:] + items[:k]\n",
    "assert rotate([1, 2, 3, 4], 1) == [4, 1, 2, 3]\nassert rotate([1, 2, 3], 4) == [3, 1, 2]\n"
    "assert rotate([], 2) == []",
)
task(
    "count_words_longer",
    "Count the words of text longer than n characters.",
    "def count_long_words(text, n):\n    return len([w for w in text.split() if len(w) > n])\n",
    "def count_long_words(text, n):\n    return sum(1 for word in text.split() if len(word) > n)\n",
    ("len(w) > n", "len(w) >= n"),
    "def count_long_words(text, n):\n    return len(text) > n\n",
    "assert count_long_words('a bb ccc dddd', 2) == 2\nassert count_long_words('', 1) == 0",
)
task(
    "matrix_sum",
    "Return the sum of all numbers in a matrix (list of rows).",
    "def matrix_sum(matrix):\n    return sum(sum(row) for row in matrix)\n",
    "def matrix_sum(matrix):\n    total = 0\n    for row in matrix:\n        for value in row:\n"
    "            total += value\n    return total\n",
    ("sum(sum(row) for row in matrix)", "sum(row[0] for row in matrix)"),
    "def matrix_sum(matrix):\n    return sum(matrix[0])\n",
    "assert matrix_sum([[1, 2], [3, 4]]) == 10\nassert matrix_sum([]) == 0",
    variant="def matrix_sum(matrix):\n    return sum(map(sum, matrix))\n",
)
task(
    "second_largest",
    "Return the second largest distinct value of items (at least two distinct values).",
    "def second_largest(items):\n    values = sorted(set(items))\n    return values[-2]\n",
    "def second_largest(items):\n    distinct = sorted(set(items), reverse=True)\n"
    "    return distinct[1]\n",
    ("sorted(set(items))", "sorted(items)"),
    "def second_largest(items):\n    return sorted(items)[1]\n",
    "assert second_largest([4, 1, 4, 3]) == 3\nassert second_largest([10, 20]) == 10",
)
task(
    "anagrams",
    "Return True if a and b are anagrams of each other.",
    "def are_anagrams(a, b):\n    return sorted(a) == sorted(b)\n",
    "from collections import Counter\n\n\ndef are_anagrams(a, b):\n"
    "    return Counter(a) == Counter(b)\n",
    ("sorted(a) == sorted(b)", "set(a) == set(b)"),
    "def are_anagrams(a, b):\n    return len(a) == len(b)\n",
    "assert are_anagrams('listen', 'silent')\nassert not are_anagrams('aab', 'abb')",
)
task(
    "power_set_size",
    "Return the number of subsets of a set with n elements.",
    "def count_subsets(n):\n    return 2 ** n\n",
    "def count_subsets(n):\n    return 1 << n\n",
    ("2 ** n", "n ** 2"),
    "def count_subsets(n):\n    return n * 2\n",
    "assert count_subsets(0) == 1\nassert count_subsets(3) == 8\nassert count_subsets(5) == 32",
)
task(
    "invert_dict",
    "Swap the keys and values of a dict whose values are distinct.",
    "def invert(mapping):\n    return {value: key for key, value in mapping.items()}\n",
    "def invert(d):\n    return {v: k for k, v in d.items()}\n",
    ("{value: key", "{key: value"),
    "def invert(mapping):\n    return list(mapping.values())\n",
    "assert invert({'a': 1, 'b': 2}) == {1: 'a', 2: 'b'}",
)
task(
    "average",
    "Return the mean of a list of numbers, or 0.0 for an empty list.",
    "def average(numbers):\n    if not numbers:\n        return 0.0\n"
    "    return sum(numbers) / len(numbers)\n",
    "def average(numbers):\n    return sum(numbers) / len(numbers) if numbers else 0.0\n",
    ("    if not numbers:\n        return 0.0\n", ""),
    "def average(numbers):\n    return sum(numbers) // 2\n",
    "assert average([1, 2, 3, 4]) == 2.5\nassert average([]) == 0.0",
)
task(
    "title_case_count",
    "Count the words of text that start with an uppercase letter.",
    "def count_capitalized(text):\n    return sum(1 for w in text.split() if w[0].isupper())\n",
    "def count_capitalized(text):\n    count = 0\n    for word in text.split():\n"
    "        if word[:1].isupper():\n            count += 1\n    return count\n",
    ("w[0].isupper()", "w.isupper()"),
    "def count_capitalized(text):\n    return text.count(text.upper())\n",
    "assert count_capitalized('Alice met Bob in Paris') == 3\nassert count_capitalized('') == 0",
)
task(
    "remove_negatives",
    "Return the list without its negative numbers.",
    "def remove_negatives(numbers):\n    return [x for x in numbers if x >= 0]\n",
    "def remove_negatives(numbers):\n    return list(filter(lambda x: x >= 0, numbers))\n",
    ("x >= 0", "x > 0"),
    "def remove_negatives(numbers):\n    return [abs(x) for x in numbers]\n",
    "assert remove_negatives([3, -1, 0, -7, 2]) == [3, 0, 2]",
    variant="def remove_negatives(numbers):\n    return [n for n in numbers if n >= 0]\n",
)
task(
    "pairwise_diff",
    "Return the differences between consecutive elements of numbers.",
    "def differences(numbers):\n"
    "    return [b - a for a, b in zip(numbers, numbers[1:])]\n",
    "def differences(numbers):\n"
    "    return [numbers[i + 1] - numbers[i] for i in range(len(numbers) - 1)]\n",
    ("b - a", "a - b"),
    "def differences(numbers):\n    return [numbers[-1] - numbers[0]]\n",
    "assert differences([1, 4, 9, 16]) == [3, 5, 7]\nassert differences([5]) == []",
)
task(
    "is_sorted",
    "Return True if items is in non-decreasing order.",
    "def is_sorted(items):\n    return all(a <= b for a, b in zip(items, items[1:]))\n",
    "def is_sorted(items):\n    for i in range(1, len(items)):\n"
    "        if items[i - 1] > items[i]:\n            return False\n    return True\n",
    ("a <= b", "a < b"),
    "def is_sorted(items):\n    return items[0] <= items[-1]\n",
    "assert is_sorted([1, 2, 2, 5])\nassert not is_sorted([3, 1])\nassert is_sorted([])",
)
task(
    "caesar",
    "Shift every lowercase letter of text by k positions in the alphabet (wrapping around); "
    "keep other characters.",
    "def caesar(text, k):\n    out = []\n    for ch in text:\n        if 'a' <= ch <= 'z':\n"
    "            out.append(chr((ord(ch) - ord('a') + k) % 26 + ord('a')))\n        else:\n"
    "            out.append(ch)\n    return ''.join(out)\n",
    "import string\n\n\ndef caesar(text, k):\n    letters = string.ascii_lowercase\n"
    "    shifted = letters[k % 26:] + letters[:k % 26]\n"
    "    return text.translate(str.maketrans(letters, shifted))\n",
    ("% 26 + ord('a')", "+ ord('a')"),
    "def caesar(text, k):\n    return ''.join(chr(ord(ch) + k) for ch in text)\n",
    "assert caesar('abc xyz', 3) == 'def abc'\nassert caesar('Hi!', 1) == 'Hj!'",
)
task(
    "nested_get",
    "Follow the keys of path through nested dicts; return default if a key is missing.",
    "def nested_get(data, path, default=None):\n    current = data\n    for key in path:\n"
    "        if not isinstance(current, dict) or key not in current:\n            return default\n"
    "        current = current[key]\n    return current\n",
    "def nested_get(data, path, default=None):\n    node = data\n    for key in path:\n"
    "        try:\n            node = node[key]\n        except (KeyError, TypeError):\n"
    "            return default\n    return node\n",
    ("            return default\n", "            return None\n"),
    "def nested_get(data, path, default=None):\n    return data.get(path[0], default)\n",
    "assert nested_get({'a': {'b': 2}}, ['a', 'b']) == 2\n"
    "assert nested_get({'a': {}}, ['a', 'b'], 0) == 0",
)
task(
    "group_by_length",
    "Group words into a dict from length to the list of words of that length, in order.",
    "def group_by_length(words):\n    groups = {}\n    for word in words:\n"
    "        groups.setdefault(len(word), []).append(word)\n    return groups\n",
    "from collections import defaultdict\n\n\ndef group_by_length(words):\n"
    "    groups = defaultdict(list)\n    for word in words:\n        groups[len(word)].append(word)\n"
    "    return dict(groups)\n",
    ("setdefault(len(word), [])", "setdefault(word, [])"),
    "def group_by_length(words):\n    return {len(words): words}\n",
    "assert group_by_length(['a', 'bb', 'c']) == {1: ['a', 'c'], 2: ['bb']}",
)
task(
    "digits_to_int",
    "Turn a list of decimal digits into the integer they spell.",
    "def digits_to_int(digits):\n    value = 0\n    for d in digits:\n"
    "        value = value * 10 + d\n    return value\n",
    "def digits_to_int(digits):\n    return int(''.join(str(d) for d in digits)) if digits else 0\n",
    ("value * 10 + d", "value + d * 10"),
    "def digits_to_int(digits):\n    return sum(digits)\n",
    "assert digits_to_int([1, 2, 3]) == 123\nassert digits_to_int([]) == 0",
)
task(
    "stack_balanced",
    "Return True if the brackets (), [] and {} in s are balanced.",
    "def balanced(s):\n    pairs = {')': '(', ']': '[', '}': '{'}\n    stack = []\n    for ch in s:\n"
    "        if ch in '([{':\n            stack.append(ch)\n        elif ch in pairs:\n"
    "            if not stack or stack.pop() != pairs[ch]:\n                return False\n"
    "    return not stack\n",
    "def balanced(s):\n    closing = {')': '(', ']': '[', '}': '{'}\n    stack = []\n"
    "    for ch in s:\n        if ch in closing.values():\n            stack.append(ch)\n"
    "        elif ch in closing:\n            if not stack or stack[-1] != closing[ch]:\n"
    "                return False\n            stack.pop()\n    return len(stack) == 0\n",
    ("    return not stack\n", "    return True\n"),
    "def balanced(s):\n    return s.count('(') == s.count(')')\n",
    "assert balanced('([]{})')\nassert not balanced('(]')\nassert not balanced('((')\n"
    "assert balanced('')\nassert not balanced(')(')",
)
task(
    "roman_to_int",
    "Convert a Roman numeral (I, V, X, L, C, D, M) to an integer.",
    "def roman_to_int(s):\n    values = {'I': 1, 'V': 5, 'X': 10, 'L': 50, 'C': 100, 'D': 500, 'M': 1000}\n"
    "    total = 0\n    for i, ch in enumerate(s):\n"
    "        if i + 1 < len(s) and values[ch] < values[s[i + 1]]:\n            total -= values[ch]\n"
    "        else:\n            total += values[ch]\n    return total\n",
    "def roman_to_int(s):\n    vals = {'I': 1, 'V': 5, 'X': 10, 'L': 50, 'C': 100, 'D': 500, 'M': 1000}\n"
    "    result = 0\n    previous = 0\n    for ch in reversed(s):\n        v = vals[ch]\n"
    "        if v < previous:\n            result -= v\n        else:\n            result += v\n"
    "            previous = v\n    return result\n",
    ("total -= values[ch]", "total += values[ch]"),
    "def roman_to_int(s):\n    return len(s)\n",
    "assert roman_to_int('XIV') == 14\nassert roman_to_int('MCMXC') == 1990\n"
    "assert roman_to_int('III') == 3",
)
task(
    "count_in_range",
    "Count the numbers of values with low <= x < high.",
    "def count_in_range(values, low, high):\n    return sum(1 for x in values if low <= x < high)\n",
    "def count_in_range(values, low, high):\n    count = 0\n    for x in values:\n"
    "        if low <= x < high:\n            count += 1\n    return count\n",
    ("low <= x < high", "low < x < high"),
    "def count_in_range(values, low, high):\n    return high - low\n",
    "assert count_in_range([1, 2, 3, 4, 5], 2, 4) == 2\nassert count_in_range([], 0, 9) == 0",
    variant="def count_in_range(values, low, high):\n"
    "    return len([v for v in values if low <= v < high])\n",
)
task(
    "snake_to_camel",
    "Convert a snake_case name to camelCase.",
    "def snake_to_camel(name):\n    first, *rest = name.split('_')\n"
    "    return first + ''.join(part.title() for part in rest)\n",
    "def snake_to_camel(name):\n    parts = name.split('_')\n"
    "    return parts[0] + ''.join(p[:1].upper() + p[1:] for p in parts[1:])\n",
    ("first + ''", "first.title() + ''"),
    "def snake_to_camel(name):\n    return name.replace('_', '')\n",
    "assert snake_to_camel('max_line_length') == 'maxLineLength'\n"
    "assert snake_to_camel('x') == 'x'",
)
task(
    "safe_divide",
    "Return a / b, or None when b is zero.",
    "def safe_divide(a, b):\n    if b == 0:\n        return None\n    return a / b\n",
    "def safe_divide(a, b):\n    try:\n        return a / b\n    except ZeroDivisionError:\n"
    "        return None\n",
    ("return a / b", "return a // b"),
    "def safe_divide(a, b):\n    return a / b\n",
    "assert safe_divide(7, 2) == 3.5\nassert safe_divide(1, 0) is None",
)

SYSTEMS = {
    "strong": "correct solutions, written differently from the references",
    "strong_v2": "the strong system with a few outputs rewritten (a tiny change)",
    "near_miss": "the reference with one small bug per item: fails, but is easy to fix",
    "weak": "plausible but wrong or incomplete code",
}


def passes(code: str, tests: str) -> bool:
    """Whether ``code`` passes ``tests`` (our own hand-written data only)."""
    namespace: dict = {}
    try:
        exec(compile(code + "\n" + tests, "<demo>", "exec"), namespace)  # noqa: S102
    except Exception:
        return False
    return True


def build() -> dict:
    data = {
        "description": "Hand-written example data of cgm-metrics: small Python tasks with "
        "reference solutions and the outputs of four made-up systems.",
        "lang": "python",
        "tasks": [
            {key: t[key] for key in ("id", "prompt", "reference", "tests")} for t in TASKS
        ],
        "systems": {
            name: {
                "description": description,
                "outputs": [t[name] for t in TASKS],
                "passes": [passes(t[name], t["tests"]) for t in TASKS],
            }
            for name, description in SYSTEMS.items()
        },
    }
    return data


if __name__ == "__main__":
    target = Path(__file__).resolve().parents[1] / "src" / "cgm_metrics" / "data" / "demo" / "demo.json"
    target.write_text(json.dumps(build(), indent=1) + "\n", encoding="utf-8")
    for name, system in build()["systems"].items():
        print(name, sum(system["passes"]), "/", len(system["passes"]), "pass")
