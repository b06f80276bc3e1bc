"""RUBY: published Hearthstone values, tree edit distance against apted and zss, program
dependence graphs of hand-written programs, graph edit distance against networkx, bounded cost
and bad inputs."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import warnings

import networkx as nx
import numpy as np
import pytest
from _peers import require
from apted import APTED
from apted.helpers import Tree as AptedTree
from conftest import ROOT, shared_data, stdlib_pairs
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import cgm_metrics
from cgm_metrics.core.parsing import parse
from cgm_metrics.maths.ruby import (
    MAX_GRAPH_EDGES,
    MAX_GRAPH_NODES,
    MAX_TREE_NODES,
    ProgramGraph,
    RubyMetric,
    Tree,
    compute_ruby,
    graph_edit_distance,
    program_graph,
    ruby,
    ruby_items,
    statement_graph,
    syntax_tree,
    tree_edit_distance,
)
from cgm_metrics.maths.ruby.ged import edit_path_cost, node_assignment, relabel_costs
from cgm_metrics.maths.ruby.ted import edit_cells

zss = require("zss")


# --- Hearthstone: the published pipeline's string level, reproduced exactly --------------------


def _python3_parses(code: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(code)
    except SyntaxError:
        return False
    return True


def _hearthstone_rows():
    path = shared_data("hearthstone", "hs.graded.jsonl")
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def test_hearthstone_string_level_matches_published_ruby():
    rows = [
        row
        for row in _hearthstone_rows()
        if not _python3_parses(row["prediction"])
        or not all(_python3_parses(ref) for ref in row["references"])
    ]
    assert len(rows) == 10  # the count: every row the published pipeline scored as text
    result = compute_ruby(
        [row["prediction"] for row in rows],
        [row["references"] for row in rows],
        return_per_sample=True,
    )
    assert result["sample_levels"] == ["string"] * 10  # the fallback happens by itself
    assert result["levels"] == {"graph": 0, "tree": 0, "string": 10}
    published = [row["scores"]["ruby"] for row in rows]
    assert [round(score, 3) for score in result["scores"]] == published
    forced = compute_ruby(
        [row["prediction"] for row in rows],
        [row["references"] for row in rows],
        return_per_sample=True,
        level="string",
    )
    assert forced["scores"] == result["scores"]


def test_hearthstone_whole_set_scores_and_levels():
    rows = _hearthstone_rows()
    result = compute_ruby(
        [row["prediction"] for row in rows],
        [row["references"] for row in rows],
        return_per_sample=True,
    )
    assert sum(result["levels"].values()) == len(rows) == 132
    assert result["levels"]["string"] == 10 and result["levels"]["graph"] == 122
    assert all(0.0 <= s <= 1.0 for s in result["scores"])
    # identical prediction and reference: 1.0 at any level
    for row, score in zip(rows, result["scores"], strict=True):
        if row["prediction"] == row["references"][0]:
            assert score == 1.0


def test_hearthstone_agreement_with_programmers_at_least_the_published_ruby():
    """Pearson and Kendall with the human (M-MSR) grades: ours against the published RUBY
    values stored in the data, and the order of the two systems by mean score."""
    rows = _hearthstone_rows()
    grades = [row["grade"] for row in rows]
    published = [row["scores"]["ruby"] for row in rows]
    ours = compute_ruby(
        [row["prediction"] for row in rows],
        [row["references"] for row in rows],
        return_per_sample=True,
    )["scores"]
    assert stats.pearsonr(ours, grades)[0] >= stats.pearsonr(published, grades)[0]
    assert stats.kendalltau(ours, grades)[0] >= stats.kendalltau(published, grades)[0]

    def by_system(values):
        return {
            system: np.mean([v for v, r in zip(values, rows, strict=True) if r["system"] == system])
            for system in ("gcnn", "nl2code")
        }

    human, scores = by_system(grades), by_system(ours)
    assert (human["nl2code"] > human["gcnn"]) == (scores["nl2code"] > scores["gcnn"])


def _one_liner_rows():
    path = ROOT / "tests" / "data" / "ruby_oneliners" / "graded.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("level", [None, "tree"])
def test_one_liners_ordered_as_their_grades(level):
    """Hand-graded one-liners (grades from the grade definitions, given before scoring): each
    system's mean RUBY orders the systems as their mean grades do, the <unk>-laden system below
    the near misses and above unrelated code, and item scores rise with the grades."""
    items = _one_liner_rows()
    systems = list(items[0]["outputs"])
    means, grades_of = {}, {}
    all_scores, all_grades = [], []
    for system in systems:
        result = compute_ruby(
            [item["outputs"][system][0] for item in items],
            [item["references"] for item in items],
            level=level,
            return_per_sample=True,
        )
        grades = [item["outputs"][system][1] for item in items]
        means[system], grades_of[system] = result["ruby"], float(np.mean(grades))
        all_scores += result["scores"]
        all_grades += grades
    by_grade = sorted(systems, key=grades_of.get, reverse=True)
    assert by_grade == ["exact", "near", "partial", "unk", "unrelated"]
    assert sorted(systems, key=means.get, reverse=True) == by_grade
    assert stats.kendalltau(all_scores, all_grades)[0] > 0.5


# --- tree edit distance against apted and zss -------------------------------------------------


@st.composite
def random_trees(draw, max_nodes=14):
    n = draw(st.integers(1, max_nodes))
    labels = draw(st.lists(st.sampled_from("abcd"), min_size=n, max_size=n))
    parents = [draw(st.integers(0, k - 1)) for k in range(1, n)]
    children = [[] for _ in range(n)]
    for child, parent in enumerate(parents, start=1):
        children[parent].append(child)
    return labels, children


def _nested(labels, children, node=0):
    return (labels[node], [_nested(labels, children, c) for c in children[node]])


def _ours(tree) -> Tree:
    return Tree.from_nested(_nested(*tree))


def _zss(tree):
    labels, children = tree
    nodes = [zss.Node(label) for label in labels]
    for parent, kids in enumerate(children):
        for kid in kids:
            nodes[parent].addkid(nodes[kid])
    return nodes[0]


def _bracket(tree, node=0) -> str:
    labels, children = tree
    return "{" + labels[node] + "".join(_bracket(tree, c) for c in children[node]) + "}"


def _zss_distance(a, b, relabel: int) -> float:
    """zss's Zhang-Shasha with unit insertions and deletions and the given relabelling cost."""
    return zss.distance(
        a,
        b,
        zss.Node.get_children,
        insert_cost=lambda node: 1,
        remove_cost=lambda node: 1,
        update_cost=lambda x, y: 0 if x.label == y.label else relabel,
    )


@settings(max_examples=300, deadline=None)
@given(random_trees(), random_trees())
def test_ted_equals_zss(tree1, tree2):
    expected = zss.simple_distance(_zss(tree1), _zss(tree2))
    assert tree_edit_distance(_ours(tree1), _ours(tree2)) == expected


@settings(max_examples=200, deadline=None)
@given(random_trees(), random_trees())
def test_ted_with_relabelling_at_two_equals_zss(tree1, tree2):
    """TRS's distance: a relabelling costs a deletion plus an insertion."""
    expected = _zss_distance(_zss(tree1), _zss(tree2), 2)
    assert tree_edit_distance(_ours(tree1), _ours(tree2), relabel=2) == expected


@settings(max_examples=200, deadline=None)
@given(random_trees(max_nodes=20), random_trees(max_nodes=20))
def test_ted_equals_apted(tree1, tree2):
    apted = APTED(AptedTree.from_text(_bracket(tree1)), AptedTree.from_text(_bracket(tree2)))
    assert tree_edit_distance(_ours(tree1), _ours(tree2)) == apted.compute_edit_distance()


@st.composite
def comb_trees(draw):
    """Deep left or right combs: one orientation is quadratic, the other is chosen."""
    n = draw(st.integers(2, 30))
    right = draw(st.booleans())
    labels = draw(st.lists(st.sampled_from("ab"), min_size=n, max_size=n))
    children = [[] for _ in range(n)]
    spine = 0
    for node in range(1, n):
        children[spine].append(node)
        if draw(st.integers(0, 2)) > 0 and len(children[spine]) == (2 if right else 1):
            spine = node
    return labels, children


@settings(max_examples=150, deadline=None)
@given(comb_trees(), comb_trees())
def test_ted_equals_zss_on_combs_in_either_orientation(tree1, tree2):
    ours1, ours2 = _ours(tree1), _ours(tree2)
    expected = zss.simple_distance(_zss(tree1), _zss(tree2))
    assert tree_edit_distance(ours1, ours2) == expected


@settings(max_examples=30, deadline=None)
@given(random_trees(max_nodes=8), random_trees(max_nodes=8))
def test_python_kernel_equals_compiled_kernel(tree1, tree2):
    """Without numba the same kernel runs as Python: same distances."""
    from cgm_metrics.maths.ruby import ted

    first, second = _ours(tree1).orientations[0], _ours(tree2).orientations[0]
    codes = {label: k for k, label in enumerate("abcd")}
    lab1 = np.array([codes[x] for x in tree1[0]], dtype=np.int32)[_preorder_of(tree1)]
    lab2 = np.array([codes[x] for x in tree2[0]], dtype=np.int32)[_preorder_of(tree2)]
    arguments = (
        lab1[first.order],
        first.leftmost,
        first.keyroots,
        lab2[second.order],
        second.leftmost,
        second.keyroots,
    )
    for relabel in (1, 2):
        expected = _zss_distance(_zss(tree1), _zss(tree2), relabel)
        assert ted._zhang_shasha(*arguments, relabel) == expected
        assert ted._kernel()(*arguments, relabel) == expected


def _preorder_of(tree) -> list[int]:
    """Original node ids in the pre-order that Tree.from_nested assigns."""
    labels, children = tree
    order, stack = [], [0]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(reversed(children[node]))
    return order


def _apted_tree(tree: Tree) -> AptedTree:
    nodes = [AptedTree(label.replace("{", "(").replace("}", ")")) for label in tree.labels]
    for parent, kids in enumerate(tree.children):
        nodes[parent].children = [nodes[k] for k in kids]
    return nodes[0]


def test_ted_equals_apted_on_real_asts():
    predictions, references = stdlib_pairs(12, seed=3)
    for prediction, reference in zip(predictions, references, strict=True):
        a = syntax_tree(parse(prediction, "python"))
        b = syntax_tree(parse(reference, "python"))
        if len(a) > 90 or len(b) > 90:  # keep pure-Python apted quick
            continue
        expected = APTED(_apted_tree(a), _apted_tree(b)).compute_edit_distance()
        assert tree_edit_distance(a, b) == expected


@pytest.mark.parametrize(
    ("code1", "code2"),
    [  # pairs the zero-edge-cost "tree" level of the published code scores 1.0
        (
            "if a:\n    x = f(y)\nelse:\n    z = g(w)\n",
            "if a:\n    z = g(w)\nelse:\n    x = f(y)\n",
        ),
        ("r = a - b * c\n", "r = (a - b) * c\n"),
        ("for i in x:\n    pass\nprint(s)\n", "for i in x:\n    print(s)\n"),
    ],
)
def test_tree_level_sees_structure(code1, code2):
    score, level = ruby(code1, code2, level="tree")
    assert level == "tree" and score < 1.0
    a, b = syntax_tree(parse(code1, "python")), syntax_tree(parse(code2, "python"))
    # the same number from zss on the same trees
    assert tree_edit_distance(a, b) == zss.simple_distance(_tree_to_zss(a), _tree_to_zss(b))
    # TRS prices a relabelling as a deletion plus an insertion: zss with that update cost
    relabelled = _zss_distance(_tree_to_zss(a), _tree_to_zss(b), 2)
    assert tree_edit_distance(a, b, relabel=2) == relabelled
    assert score == pytest.approx(1 - relabelled / (len(a) + len(b)))


def _tree_to_zss(tree: Tree):
    nodes = [zss.Node(label) for label in tree.labels]
    for parent, kids in enumerate(tree.children):
        for kid in kids:
            nodes[parent].addkid(nodes[kid])
    return nodes[0]


def test_ted_right_comb_uses_the_cheaper_orientation():
    # a right comb is quadratic for left-path decomposition; the mirror is linear
    comb = ("r", [])
    node = comb
    for _ in range(400):
        child = ("r", [])
        node[1].extend(["leaf", child])
        node = child
    tree = Tree.from_nested(comb)
    left_paths, right_paths = (o.cells for o in tree.orientations)
    assert right_paths < 2 * len(tree) < left_paths // 50
    assert edit_cells(tree, tree) == right_paths**2
    assert tree_edit_distance(tree, tree) == 0
    assert tree_edit_distance(tree, Tree.from_nested("r")) == len(tree) - 1


# --- program dependence graphs of hand-written programs ---------------------------------------


def _edges(code: str, lang: str):
    graph = statement_graph(parse(code, lang))
    assert graph is not None
    names = [label.split(": ", 1)[1] for label in graph.labels]
    control = {(names[s], names[t]) for s, t, kind in graph.edges if kind == "control"}
    data = {(names[s], names[t]) for s, t, kind in graph.edges if kind == "data"}
    return names, control, data


PYTHON = """\
def total(xs, k=1):
    s = 0
    for x in xs:
        s += x * k
    if s > 10:
        r = s
    else:
        r = -s
    return r
"""


def test_pdg_python():
    names, control, data = _edges(PYTHON, "python")
    assert names == [
        "def total ( xs , k = 1 ) :",
        "s = 0",
        "for x in xs :",
        "s += x * k",
        "if s > 10 : else :",
        "r = s",
        "r = - s",
        "return r",
    ]
    header, init, loop, acc, cond, then, other, ret = names
    assert control == {
        (header, init),
        (header, loop),
        (header, cond),
        (header, ret),
        (loop, acc),
        (cond, then),
        (cond, other),
    }
    assert data == {
        (header, loop),  # xs
        (header, acc),  # k
        (loop, acc),  # x
        (init, acc),
        (acc, acc),  # s, and s carried around the loop
        (init, cond),
        (acc, cond),  # s after the loop: zero or more iterations
        (init, then),
        (acc, then),
        (init, other),
        (acc, other),
        (then, ret),
        (other, ret),  # r from either branch
    }


JAVA = """\
class A {
    int f(int n) {
        int a = 0;
        int b = 1;
        while (n > 0) {
            a = a + b;
            n--;
        }
        if (a > 5) b = a; else { b = 0; }
        return b;
    }
}
"""


def test_pdg_java():
    names, control, data = _edges(JAVA, "java")
    assert names == [
        "class A { }",
        "int f ( int n ) { }",
        "int a = 0 ;",
        "int b = 1 ;",
        "while ( n > 0 ) { }",
        "a = a + b ;",
        "n -- ;",
        "if ( a > 5 ) else { }",
        "b = a ;",
        "b = 0 ;",
        "return b ;",
    ]
    cls, method, a0, b1, loop, acc, dec, cond, then, other, ret = names
    assert control == {
        (cls, method),
        (method, a0),
        (method, b1),
        (method, loop),
        (method, cond),
        (method, ret),
        (loop, acc),
        (loop, dec),
        (cond, then),
        (cond, other),
    }
    assert data == {
        (method, loop),
        (method, dec),
        (dec, loop),
        (dec, dec),  # n; n-- reads and writes n
        (a0, acc),
        (acc, acc),
        (b1, acc),  # a = a + b
        (a0, cond),
        (acc, cond),
        (a0, then),
        (acc, then),  # a after the loop
        (b1, ret),
        (then, ret),
        (other, ret),  # b: unchanged, or either branch
    }


JAVASCRIPT = """\
function f(items) {
  let count = 0;
  for (const item of items) {
    if (item.ok) count += 1;
  }
  const show = (n) => { return `${n}` + count; };
  return show(count);
}
"""


def test_pdg_javascript():
    names, control, data = _edges(JAVASCRIPT, "javascript")
    assert names == [
        "function f ( items ) { }",
        "let count = 0 ;",
        "for ( const item of items ) { }",
        "if ( item . ok )",
        "count += 1 ;",
        "const show = ( n ) => { } ;",
        "return `${n}` + count ;",
        "return show ( count ) ;",
    ]
    fn, init, loop, cond, inc, arrow, inner, ret = names
    assert control == {
        (fn, init),
        (fn, loop),
        (fn, arrow),
        (fn, ret),
        (loop, cond),
        (cond, inc),
        (arrow, inner),
    }
    assert data == {
        (fn, loop),  # items
        (loop, cond),  # item
        (init, inc),
        (inc, inc),  # count, carried around the loop
        (arrow, inner),  # n
        (init, inner),
        (inc, inner),  # count seen by the closure
        (arrow, ret),
        (init, ret),
        (inc, ret),  # show, count
    }


def test_program_graph_of_straight_line_code():
    """Expression-level PDG: operands feed operations, definitions feed their uses."""
    graph = program_graph(parse("x = 1\ny = x + 1\nprint(y)\n", "python"))
    assert graph.labels == (
        "assignment =", "identifier:x", "integer:1",
        "assignment =", "identifier:y", "binary_operator +", "identifier:x", "integer:1",
        "call", "identifier:print", "argument_list", "identifier:y",
    )  # fmt: skip
    assert set(graph.edges) == {
        (0, 1, "data:left"),  # x receives the assigned value
        (2, 0, "data:right"),
        (3, 4, "data:left"),
        (5, 3, "data:right"),
        (6, 5, "data:left"),
        (7, 5, "data:right"),
        (9, 8, "data:function"),
        (10, 8, "data:arguments"),
        (11, 10, "data:0"),
        (1, 6, "data"),  # def-use: x
        (4, 11, "data"),  # def-use: y
    }


def test_program_graph_control_and_loop_carried_dependences():
    code = "def f(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n"
    graph = program_graph(parse(code, "python"))
    names = graph.labels
    assert names[0] == "function_definition def" and "for_statement for in" in names
    index = {label: k for k, label in reversed(list(enumerate(names)))}
    control = {(names[a], names[b]) for a, b, kind in graph.edges if kind == "control"}
    assert control == {
        ("function_definition def", "assignment ="),
        ("function_definition def", "for_statement for in"),
        ("function_definition def", "return_statement return"),
        ("for_statement for in", "augmented_assignment +="),
    }
    uses = [(a, b) for a, b, kind in graph.edges if kind == "data"]
    s_def = index["identifier:s"]  # s = 0
    targets = [b for a, b in uses if a == s_def]
    assert len(targets) == 2  # s += x (first iteration) and return s (zero iterations)
    # every def-use edge joins two occurrences of the same variable
    assert all(names[a] == names[b] for a, b in uses)


def test_program_graph_sees_dependences_not_layout():
    independent = ("a = f(1)\nb = g(2)\n", "b = g(2)\na = f(1)\n")
    assert ruby(*independent) == (1.0, "graph")  # no dependence between them: same PDG
    assert ruby(*independent, level="tree")[0] < 1.0  # the tree keeps the order
    dependent = ("a = f(1)\nb = g(a)\n", "b = g(a)\na = f(1)\n")
    assert ruby(*dependent)[0] < 1.0  # the use no longer sees the definition
    assert ruby("y = a - b", "y = b - a")[0] < 1.0  # operands keep their roles
    for lang, code in (
        ("java", "class A { int f(int n) { return n + 1; } }"),
        ("javascript", "const y = x + 1;"),
        ("python", "y = x + 1"),
    ):
        graph = program_graph(parse(code, lang))
        assert len(graph.labels) >= 4 and len(graph.edges) >= 3  # a one-liner is a graph
        assert ruby(code, code, lang=lang) == (1.0, "graph")


def test_pdg_languages_without_a_table_start_at_the_tree_level():
    assert program_graph(parse("fn main() { let x = 1; }", "rust")) is None
    assert ruby("fn main() { let x = 1; }", "fn main() { let x = 2; }", lang="rust")[1] == "tree"


# --- graph edit distance: an upper bound that is exact on small graphs ------------------------


def _networkx_exact(g1: ProgramGraph, g2: ProgramGraph) -> float:
    """Exact GED with the same costs (networkx, exponential: small graphs only)."""

    def as_nx(graph):
        result = nx.DiGraph()
        for index, label in enumerate(graph.labels):
            result.add_node(index, label=label)
        for source, target, label in graph.edges:
            if result.has_edge(source, target):
                result[source][target]["labels"] = tuple(
                    sorted(result[source][target]["labels"] + (label,))
                )
            else:
                result.add_edge(source, target, labels=(label,))
        return result

    # program graphs (exact labels) price a relabelling as a deletion plus an insertion (2),
    # statement graphs at most 1 (token distance). networkx never takes a substitution that
    # costs as much as a deletion plus an insertion (it then deletes and inserts the edges
    # too), so it runs with 2 - 1e-6: a little cheaper, so its exact value can only be lower.
    exact = g1.exact_labels and g2.exact_labels
    relabel = 2.0 - 1e-6 if exact else 1.0

    def edge_subst(a, b):
        x, y = list(a["labels"]), list(b["labels"])
        common = sum(min(x.count(v), y.count(v)) for v in set(x))
        only_x, only_y = len(x) - common, len(y) - common
        return relabel * min(only_x, only_y) + abs(only_x - only_y)

    def node_subst(a, b):
        return relabel * float(relabel_costs((a["label"],), (b["label"],), exact)[0, 0])

    return nx.graph_edit_distance(
        as_nx(g1),
        as_nx(g2),
        node_subst_cost=node_subst,
        node_del_cost=lambda a: 1.0,
        node_ins_cost=lambda a: 1.0,
        edge_subst_cost=edge_subst,
        edge_del_cost=lambda a: len(a["labels"]),
        edge_ins_cost=lambda a: len(a["labels"]),
    )


SMALL_PROGRAMS = [
    "x = 1\ny = x + 1\nprint(y)\n",
    "x = 2\ny = x + 1\nprint(y)\n",
    "y = 1\nx = y + 1\nprint(x)\n",
    "x = 1\nif x:\n    y = x\nprint(y)\n",
    "for i in r:\n    s = i\nprint(s)\n",
    "x = 1\nprint(x)\n",
]


@pytest.mark.parametrize("first", range(len(SMALL_PROGRAMS)))
def test_bipartite_ged_is_an_upper_bound(first):
    g1 = statement_graph(parse(SMALL_PROGRAMS[first], "python"))
    for second in SMALL_PROGRAMS:
        g2 = statement_graph(parse(second, "python"))
        exact = _networkx_exact(g1, g2)
        ours = graph_edit_distance(g1, g2)
        assert ours >= exact - 1e-9
        assert ours == pytest.approx(edit_path_cost(g1, g2, node_assignment(g1, g2)))
    assert graph_edit_distance(g1, g1) == 0


def test_bipartite_ged_exact_on_renamed_and_changed_programs():
    g1 = statement_graph(parse(SMALL_PROGRAMS[0], "python"))
    g2 = statement_graph(parse(SMALL_PROGRAMS[1], "python"))
    assert graph_edit_distance(g1, g2) == pytest.approx(_networkx_exact(g1, g2))


ONE_LINERS = ["x = a + b", "x = a - b", "y = a + b", "print(x)", "x = 1", "f(a, b)", "f(b, a)"]


@pytest.mark.parametrize("first", range(len(ONE_LINERS)))
def test_bipartite_ged_is_an_upper_bound_on_program_graphs(first):
    g1 = program_graph(parse(ONE_LINERS[first], "python"))
    for second in ONE_LINERS:
        g2 = program_graph(parse(second, "python"))
        assert graph_edit_distance(g1, g2) >= _networkx_exact(g1, g2) - 1e-5
    assert graph_edit_distance(g1, g1) == 0


@st.composite
def small_graphs(draw, exact_labels=False):
    n = draw(st.integers(0, 4))
    labels = tuple(
        draw(st.sampled_from(["a: x = 1", "a: x = 2", "b: y", "b: y z"])) for _ in range(n)
    )
    edges = set()
    if n:
        for _ in range(draw(st.integers(0, 5))):
            edge = (
                draw(st.integers(0, n - 1)),
                draw(st.integers(0, n - 1)),
                draw(st.sampled_from(["control", "data"])),
            )
            if not (exact_labels and edge[0] == edge[1]):  # program graphs have no loops
                edges.add(edge)
    return ProgramGraph(labels, tuple(sorted(edges)), exact_labels)


@settings(max_examples=60, deadline=None)
@given(small_graphs(), small_graphs())
def test_bipartite_ged_bounds_on_random_graphs(g1, g2):
    ours = graph_edit_distance(g1, g2)
    assert _networkx_exact(g1, g2) - 1e-9 <= ours <= g1.size + g2.size
    assert graph_edit_distance(g1, g1) == 0


@settings(max_examples=60, deadline=None)
@given(small_graphs(exact_labels=True), small_graphs(exact_labels=True))
def test_bipartite_ged_bounds_on_random_program_graphs(g1, g2):
    """Relabelling at 2 (deletion plus insertion): still an upper bound, at most the sizes."""
    ours = graph_edit_distance(g1, g2)
    assert _networkx_exact(g1, g2) - 1e-9 <= ours <= g1.size + g2.size
    assert graph_edit_distance(g1, g1) == 0


def _cost_matrices(seed: int, count: int):
    """Random cost matrices of every shape from 0 x 0 to 40 x 40: uniform, small integers
    (many ties), RUBY's clipped savings, all zero, and some with infinite entries."""
    rng = np.random.default_rng(seed)
    for index in range(count):
        n, m = (int(x) for x in rng.integers(0, 41, 2))
        kind = index % 5
        if kind == 0:
            yield rng.random((n, m)) * 10
        elif kind == 1:
            yield rng.integers(0, 3, (n, m)).astype(np.float64)
        elif kind == 2:
            yield np.minimum(rng.integers(-6, 4, (n, m)) * 0.5, 0.0)
        elif kind == 3:
            yield np.zeros((n, m))
        else:
            matrix = rng.integers(0, 5, (n, m)).astype(np.float64)
            matrix[rng.random((n, m)) < (0.15 if index % 2 else 0.95)] = np.inf
            yield matrix


def test_assignment_equals_scipys_pairs_and_costs():
    """The graph matching's assignment (compiled) gives scipy's pairs, not only their cost,
    on square and rectangular matrices, with ties and with forbidden (infinite) entries."""
    from scipy.optimize import linear_sum_assignment as scipy_assignment

    from cgm_metrics.maths.ruby.ged import _compiled_assignment, linear_sum_assignment

    assert _compiled_assignment() is not None  # the C library is built for the tests
    checked = infeasible = 0
    for matrix in _cost_matrices(7, 3000):
        try:
            expected = scipy_assignment(matrix)
        except ValueError:
            infeasible += 1
            with pytest.raises(ValueError, match="infeasible"):
                linear_sum_assignment(matrix)
            continue
        rows, cols = linear_sum_assignment(matrix)
        assert rows.tolist() == expected[0].tolist() and cols.tolist() == expected[1].tolist()
        assert matrix[rows, cols].sum() == matrix[expected].sum()
        checked += 1
    assert checked > 2000 and infeasible > 30
    for bad in (np.array([[1.0, np.nan]]), np.array([[-np.inf, 1.0]])):
        with pytest.raises(ValueError, match="invalid numeric entries"):
            linear_sum_assignment(bad)


def test_ruby_on_program_graphs_does_not_import_scipy():
    """scipy.optimize costs about 0.3 s to import, more than RUBY's work on 100 items."""
    script = (
        "import sys\n"
        "from cgm_metrics.maths.ruby import ruby_items\n"
        "scores, levels = ruby_items(['x = 1\\ny = x + 2\\nprint(y)'],"
        " [['x = 1\\ny = x + 1\\nprint(y)']], 'python')\n"
        "assert levels == ('graph',) or list(levels) == ['graph'], levels\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] == 'scipy'))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# --- the metric: references, levels, determinism ----------------------------------------------


def test_max_over_references_and_level_of_the_best():
    preds = ["x = (1", "y = a + b"]
    refs = [["x = 1", "x = (1"], ["z = 0", "y = a + b"]]
    result = compute_ruby(preds, refs, return_per_sample=True)
    assert result["scores"] == [1.0, 1.0]
    assert result["sample_levels"] == ["string", "graph"]
    single = compute_ruby(preds, [r[0] for r in refs], return_per_sample=True)
    assert all(a <= b for a, b in zip(single["scores"], result["scores"], strict=True))


def test_level_option_sets_the_first_level():
    pred, ref = "def f(a):\n    return a + 1\n", "def f(b):\n    return b - 1\n"
    levels = [
        compute_ruby([pred], [ref], level=lv, return_per_sample=True)
        for lv in ("graph", "tree", "string")
    ]
    assert [r["sample_levels"][0] for r in levels] == ["graph", "tree", "string"]
    from rapidfuzz.distance import Levenshtein

    from cgm_metrics.core.tokenizers import code_tokens as tokens

    a, b = tokens(pred), tokens(ref)
    assert levels[2]["ruby"] == pytest.approx(1 - Levenshtein.distance(a, b) / max(len(a), len(b)))
    assert compute_ruby([pred], [ref])["ruby"] == levels[0]["ruby"]


def test_empty_snippets():
    assert compute_ruby([""], [""])["ruby"] == 1.0
    assert compute_ruby([""], ["x = 1"])["ruby"] == 0.0
    assert compute_ruby(["   "], [""], level="string")["ruby"] == 1.0


def test_registry_and_statistics_interface():
    result = cgm_metrics.score("ruby", ["x = 1", "y = (2"], ["x = 1", "y = 2"], per_item=True)
    direct = compute_ruby(["x = 1", "y = (2"], ["x = 1", "y = 2"], return_per_sample=True)
    assert result["per_item"] == direct["scores"]
    assert result["score"] == pytest.approx(direct["ruby"])
    assert "ruby|lang:python" in result["signature"]


def test_deterministic_under_hash_seeds():
    script = (
        "from cgm_metrics.maths.ruby import compute_ruby;"
        f"print(compute_ruby({[PYTHON, 'x = (']!r}, {[PYTHON.replace('s', 't'), 'x']!r},"
        " return_per_sample=True))"
    )
    outputs = set()
    for seed in ("0", "1", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        run = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        outputs.add(run.stdout)
    assert len(outputs) == 1


# --- bounded cost ----------------------------------------------------------------------------


def test_deep_nesting_falls_back_without_recursion_error():
    depth = 3000
    python_expr = "x = " + "(" * depth + "1" + ")" * depth
    java_blocks = "class A { void f() { " + "{" * depth + "}" * depth + " } }"
    js_ifs = "".join("if (a) {" for _ in range(depth)) + "x = 1;" + "}" * depth
    result = compute_ruby([python_expr], [python_expr], return_per_sample=True)
    assert result["scores"] == [1.0] and result["sample_levels"] == ["string"]
    for code, lang in ((java_blocks, "java"), (js_ifs, "javascript")):
        result = compute_ruby([code], [code + " "], lang=lang, return_per_sample=True)
        assert result["sample_levels"] == ["string"] and result["scores"] == [1.0]


def test_nested_loops_cost_linear_time():
    # running each loop body twice would visit the innermost statement 2**90 times
    code = "for (;;) {" * 90 + "x = x + 1;" + "}" * 90
    graph = statement_graph(parse(code, "javascript"))
    assert len(graph.labels) == 91
    assert [e for e in graph.edges if e[2] == "data"] == [(90, 90, "data")]
    assert ruby(code, code, lang="javascript") == (1.0, "graph")


def test_more_nodes_than_the_graph_limit_use_the_tree_level():
    code = "\n".join(f"x{i} = {i}" for i in range(MAX_GRAPH_NODES // 3 + 50))  # 3 nodes each
    assert program_graph(parse(code, "python"), MAX_GRAPH_NODES) is None
    result = compute_ruby([code], [code.replace("x1 ", "y1 ")], return_per_sample=True)
    assert result["sample_levels"] == ["tree"] and 0.99 < result["scores"][0] < 1.0


def test_quadratic_def_use_edges_are_bounded():
    # 20 conditional definitions of x all reach each of 20 uses: 400 def-use edges
    code = "\n".join(["if c:\n    x = 1"] * 20 + ["y = x"] * 20)
    graph = program_graph(parse(code, "python"))
    assert sum(kind == "data" for _, _, kind in graph.edges) == 400
    assert program_graph(parse(code, "python"), max_edges=len(graph.edges) - 1) is None


def test_nesting_past_the_graph_limit_uses_the_tree_level():
    code = "if (a) {" * 120 + "x = 1;" + "}" * 120  # 120 nested statements, few AST nodes
    assert program_graph(parse(code, "javascript")) is None
    score, level = ruby(code, code.replace("x = 1", "x = 2"), lang="javascript")
    assert level == "tree" and 0.99 < score < 1.0


def test_huge_input_falls_back_to_string_and_says_so():
    big = "\n".join(f"v{i} = f(v{i - 1}, {i})" for i in range(1, 5000))
    assert parse(big, "python").root.descendant_count > 2 * MAX_TREE_NODES
    result = compute_ruby(
        [big, "x = 1"], [big.replace("f(", "g("), "x = 1"], return_per_sample=True
    )
    assert result["sample_levels"] == ["string", "graph"]
    assert result["scores"][0] == pytest.approx(7 / 8)  # one of 8 tokens differs per line
    assert result["levels"] == {"graph": 1, "tree": 0, "string": 1}


# --- bad inputs ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "text"),
    [
        ({"level": "ast"}, ValueError, "level"),
        ({"lang": "klingon"}, ValueError, "Supported"),
        ({"return_per_sample": "yes"}, TypeError, "return_per_sample"),
    ],
)
def test_bad_options(kwargs, error, text):
    with pytest.raises(error, match=text):
        compute_ruby(["x"], ["x"], **kwargs)


def test_bad_inputs():
    with pytest.raises(ValueError, match="references"):
        compute_ruby(["x", "y"], ["x"])
    with pytest.raises(TypeError, match="predictions"):
        compute_ruby([1], ["x"])
    with pytest.raises(TypeError, match="references"):
        compute_ruby(["x"], [[None]])
    with pytest.raises(ValueError, match="empty"):
        compute_ruby([], [])
    with pytest.raises(TypeError, match="unknown options"):
        RubyMetric(lang="python", weights=(1, 1))
    with pytest.raises(TypeError, match="predictions"):
        ruby_items  # noqa: B018 - the public helper exists
        compute_ruby("x = 1", ["x = 1"])


# --- the evaluate module, loaded as users load it ---------------------------------------------


def test_evaluate_module_contract():
    import evaluate
    from conftest import METRICS_DIR

    module = evaluate.load(str(METRICS_DIR / "ruby"))
    java_pred = "class A { int f(int n) { return n + 1; } }"
    java_refs = ["class A { int f(int m) { return m + 1; } }", "class A { }"]
    result = module.compute(predictions=[java_pred], references=[java_refs], lang="java")
    assert set(result) == {"ruby", "levels"}
    assert result["levels"] == {"graph": 1, "tree": 0, "string": 0}
    per_sample = module.compute(
        predictions=[java_pred, "int x = ;"],
        references=[java_refs, ["int x = 1;", "int y = 2;"]],
        lang="java",
        return_per_sample=True,
    )
    assert set(per_sample) == {"ruby", "levels", "scores", "sample_levels"}
    assert per_sample["sample_levels"] == ["graph", "string"]
    assert per_sample["scores"][0] == result["ruby"]
    assert per_sample["ruby"] == pytest.approx(sum(per_sample["scores"]) / 2)


def _graph_texts(lang: str) -> list[str]:
    """Real snippets of ``lang``: the public CodeBLEU files (predictions and references), plus
    standard-library functions and the HearthStone cards for Python."""
    texts: list[str] = []
    for line in shared_data("codebleu", f"codebleu_public_{lang}.jsonl").read_text(
            encoding="utf-8").splitlines():
        row = json.loads(line)
        texts += [*row["predictions"], *row["references"]]
    if lang == "python":
        predictions, references = stdlib_pairs(300)
        texts += [*predictions, *references]
        for line in shared_data("hearthstone", "hs.graded.jsonl").read_text(
                encoding="utf-8").splitlines():
            row = json.loads(line)
            texts += [row["prediction"], *row["references"]]
        texts += [
            "s = f'{a!r} {b}'\nt = 'é' + \"q\" + '\udc80'\nu = t\n",  # lone surrogate: replaced
            "x = 1  # c\nfor i in range(3):\n  x += i\nelse:\n  y = x\n",
            "try:\n  a = 1\nexcept E as e:\n  b = e\nfinally:\n  c = a\n",
            "a, (b, *c) = d\nglobal g\ng **= a\nlambda q: q + a\n",
        ]
    return list(dict.fromkeys(texts))


@pytest.mark.parametrize("lang", ["python", "java", "javascript"])
def test_compiled_program_graph_equals_the_python_walks(lang):
    from cgm_metrics.maths.ruby import compiled
    from cgm_metrics.maths.ruby.pdg import python_program_graph

    assert compiled._language(lang, 100) is not None, "the compiled graph builder must serve"
    texts = _graph_texts(lang)
    assert len(texts) >= 150
    built = 0
    for text in texts:
        parsed = parse(text, lang)
        for limits in ((None, None), (MAX_GRAPH_NODES, MAX_GRAPH_EDGES), (25, 40)):
            expected = python_program_graph(parsed, *limits)
            assert program_graph(parsed, *limits) == expected, (text, limits)
            built += expected is not None
    assert built >= len(texts)  # most texts give a graph


def test_without_the_compiled_library_ruby_gives_the_same_numbers():
    """What a platform without a C compiler gets: no library, the graphs from the Python
    walks, the same scores and levels."""
    predictions, references = stdlib_pairs(40)
    script = (
        "import json, sys\n"
        "import cgm_metrics.base.native as native\n"
        "native._state.update(library=None, reason='no compiler in this test')\n"
        "from cgm_metrics.maths.ruby import compiled, ruby_items\n"
        "predictions, references = json.load(sys.stdin)\n"
        "assert compiled._language('python', 100) is None\n"
        "print(json.dumps(ruby_items(predictions, [[r] for r in references], 'python')))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          input=json.dumps([predictions, references]), timeout=300)
    assert done.returncode == 0, done.stderr
    scores, levels = json.loads(done.stdout)
    expected = ruby_items(predictions, [[r] for r in references], "python")
    assert levels.count("graph") >= 20
    assert [scores, levels] == [list(expected[0]), list(expected[1])]  # the same bits


def test_compiled_program_graph_too_deep_is_none():
    from cgm_metrics.maths.ruby.pdg import MAX_DEPTH, python_program_graph

    code = "".join("    " * k + f"if x{k}:\n" for k in range(MAX_DEPTH + 1)) + "    " * (
        MAX_DEPTH + 1) + "pass\n"
    parsed = parse(code, "python")
    assert python_program_graph(parsed) is None
    assert program_graph(parsed) is None


def test_compiled_program_graphs_in_threads():
    """Each thread builds with its own C memory: graphs built at once in threads are the
    Python walks' graphs."""
    from concurrent.futures import ThreadPoolExecutor

    from cgm_metrics.maths.ruby.pdg import python_program_graph

    predictions, references = stdlib_pairs(40)
    parsed = [parse(text, "python") for text in [*predictions, *references]]
    expected = [python_program_graph(p) for p in parsed]
    with ThreadPoolExecutor(4) as pool:
        built = list(pool.map(program_graph, parsed))
    assert built == expected
