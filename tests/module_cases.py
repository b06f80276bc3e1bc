"""Per-module inputs for the common evaluate-module tests (tests/test_evaluate_modules.py).

A folder under metrics/ whose features are ``predictions``/``references`` needs no entry: it
gets DEFAULT_CASE. Other modules add an entry here; the common tests fail with a message
naming this file until they do.
"""

PREDICTIONS = [
    "def add(a, b):\n    return a + b\n",
    "def area(r):\n    return 3.14 * r * r\n",
    "for i in range(10):\n    print(i)\n",
    "x = [i * i for i in range(5)]\n",
]
REFERENCES = [
    "def add(x, y):\n    return x + y\n",
    "def area(radius):\n    return 3.14159 * radius ** 2\n",
    "for i in range(10):\n    print(i)\n",
    "squares = [n ** 2 for n in range(5)]\n",
]

DEFAULT_CASE = {
    # keyword arguments of compute(), split across processes by item in the distributed test
    "batch": {"predictions": PREDICTIONS, "references": REFERENCES},
    # extra keyword arguments of compute() that are not features
    "options": {},
    # (compute keyword arguments, exception type, text the message must contain)
    "bad": [
        ({"predictions": PREDICTIONS, "references": REFERENCES[:3]}, ValueError, "references"),
        ({"predictions": [], "references": []}, ValueError, "empty"),
        ({"predictions": PREDICTIONS[:3] + [None], "references": REFERENCES}, (TypeError, ValueError), "predictions"),
        # a bare string is one item, not a list of its characters (evaluate would split it)
        ({"predictions": "x = 1", "references": "x = 1"}, TypeError, "`predictions` must be a list"),
        ({"predictions": ["x = 1"], "references": "x = 1"}, TypeError, "`references` must be a list"),
        ({"predictions": ["x = 1"], "references": ["x = 1"], "return_per_sample": "yes"}, TypeError, "return_per_sample"),
    ],
}

CASES: dict[str, dict] = {}

CASES["paired_significance"] = {
    "batch": {"predictions_a": PREDICTIONS, "predictions_b": REFERENCES, "references": REFERENCES},
    "options": {"metric": "chrf", "n_resamples": 200},
    "bad": [
        ({"predictions_a": PREDICTIONS, "predictions_b": REFERENCES, "references": REFERENCES[:3]}, ValueError, "references"),
        ({"predictions_a": [], "predictions_b": [], "references": []}, ValueError, "empty"),
        ({"predictions_a": "x = 1", "predictions_b": ["x = 1"], "references": ["x = 1"]}, TypeError, "`predictions_a` must be a list"),
        ({"predictions_a": PREDICTIONS, "predictions_b": REFERENCES, "references": REFERENCES, "method": "t-test"}, ValueError, "method"),
    ],
}

# CodeBLEU requires `lang`, as the codebleu package does.
CASES["codebleu"] = {
    **DEFAULT_CASE,
    "options": {"lang": "python"},
}


def case_for(name: str, features: list[str]) -> dict:
    if name in CASES:
        return CASES[name]
    if sorted(features) == ["predictions", "references"]:
        return DEFAULT_CASE
    raise AssertionError(
        f"metrics/{name} has features {features}; add its inputs to tests/module_cases.py"
    )

CASES["code_eval"] = {
    "batch": {
        "predictions": [
            ["def add(a, b):\n    return a + b\n", "def add(a, b):\n    return a * b\n"],
            ["def area(r):\n    return 3.14159 * r * r\n"],
            ["def square(x):\n    return x ** 2\n", "def square(x):\n    return x * x\n"],
            ["def neg(x):\n    return x\n"],
        ],
        "references": [
            "assert add(2, 3) == 5",
            "assert abs(area(1) - 3.14159) < 1e-9",
            "assert square(3) == 9",
            "assert neg(1) == -1",
        ],
    },
    "options": {"k": [1], "allow_code_execution": True},
    "bad": [
        ({"predictions": [["x = 1"]] * 4, "references": ["pass"] * 3}, ValueError, "references"),
        ({"predictions": [], "references": []}, ValueError, "empty"),
        ({"predictions": [["x = 1"]] * 3 + [None], "references": ["pass"] * 4}, (TypeError, ValueError), "predictions"),
        ({"predictions": ["x = 1"] * 4, "references": ["pass"] * 4}, TypeError, "list of candidate programs"),
    ],
}
