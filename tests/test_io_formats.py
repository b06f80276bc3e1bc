"""The readers of input/output problem formats (execution/io_formats.py), through
read_problems as every front end reads them: each format recognised by its fields, its tests
as the source gives them (the expected values come from the source files: SandboxFusion's
decoded rows, CodeRL's APPS files, verl's fixture), LiveCodeBench's compressed tests decoded
without running anything, large tests kept on disk, datasets read by name offline, and errors
that name the file, the line, the field and the fix. No program runs here."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cgm_metrics.errors import InputError
from cgm_metrics.execution import io_formats
from cgm_metrics.execution.io_spec import DataRef, text_of
from cgm_metrics.execution.problems import read_problems

DATA = Path(__file__).parent / "data"
FORMATS = DATA / "io_formats"
COMPETITIVE = DATA / "competitive"


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _tests(problem) -> list[tuple[str, str]]:
    return [(text_of(t.input), text_of(t.output)) for t in problem.io.tests]


def test_livecodebench_rows_plain_and_compressed_give_the_sources_tests():
    problems = read_problems(FORMATS / "livecodebench.jsonl")
    # the tests SandboxFusion ships for the same three problems, decoded from its own encoding
    source = {row["task_id"].split("/")[1]: row
              for row in _rows(COMPETITIVE / "sandboxfusion_live_code_bench_v1.jsonl")}
    assert problems.task_ids == ["1873_A", "2727", "abc301_a"]
    for problem in problems.problems:
        expected = source[problem.task_id]
        assert problem.kind == "io" and problem.io.source == "livecodebench"
        assert _tests(problem) == [(t["input"], t["output"]) for t in expected["tests"]]
        assert [t.group for t in problem.io.tests][:3] == ["public", "public", "private"]
        assert problem.io.tests[2].name == "private/0"
        assert problem.io.time_limit is None and problem.io.memory_mb is None
    functional = problems.problems[1]
    assert functional.io.test_type == "functional" and functional.io.fn_name == "countSeniors"
    assert functional.io.call_style == "leetcode"
    assert "class Solution" in functional.io.starter_code
    assert dict(functional.io.metadata)["platform"] == "leetcode"
    assert problems.problems[0].io.test_type == "stdin"


def test_a_pickle_that_names_any_global_is_refused_and_nothing_runs(tmp_path):
    marker = Path("/tmp/cgm-pwned")
    if marker.exists():
        marker.unlink()
    with pytest.raises(InputError) as error:
        read_problems(FORMATS / "livecodebench_malicious.jsonl")
    text = str(error.value)
    assert "livecodebench_malicious.jsonl, line 1" in text
    assert "'private_test_cases'" in text and "refused" in text
    assert "posix.system" in text or "os.system" in text
    assert not marker.exists()


def test_the_decoder_reads_plain_data_only():
    import base64
    import pickle
    import zlib

    def encode(value, protocol=4):
        return base64.b64encode(zlib.compress(pickle.dumps(value, protocol=protocol))).decode()

    assert io_formats.decode_compressed(encode('[{"input": "1"}]')) == '[{"input": "1"}]'
    assert io_formats.decode_compressed(encode({"a": [1, 2.5, None]}, 2)) == {"a": [1, 2.5, None]}
    for value in (complex(1, 2), range(3), Path("x")):  # each pickled through a global
        with pytest.raises(ValueError, match="refused"):
            io_formats.decode_compressed(encode(value))
    with pytest.raises(ValueError, match="zlib"):
        io_formats.decode_compressed(base64.b64encode(b"not zlib").decode())


def test_apps_rows_stdin_and_call_based_from_coderls_files():
    problems = read_problems(FORMATS / "apps.jsonl")
    assert problems.task_ids == ["1", "4184"]
    stdin, call = problems.problems
    assert stdin.io.test_type == "stdin" and stdin.io.source == "apps"
    assert _tests(stdin) == [("3\n2 2 3\n4 3 7\n10 1 9\n", "1\n6\n-1\n")]
    assert stdin.canonical_solution and len(stdin.io.solutions) > 1
    assert call.io.test_type == "functional" and call.io.fn_name == "is_prime"
    assert call.io.call_style == "function"  # a plain function, not a class Solution
    assert _tests(call)[:2] == [("1", "[false]"), ("2", "[true]")]
    assert dict(call.io.rule.options) == {"apps_unwrap": True}


def test_code_contests_rows_groups_limits_and_solutions_by_language():
    (problem,) = read_problems(FORMATS / "code_contests.jsonl").problems
    spec = problem.io
    assert problem.task_id == "242_C. King's Path" and spec.source == "code_contests"
    assert [t.group for t in spec.tests] == ["public"] + ["private"] * 4 + ["generated"] * 6
    assert spec.time_limit == 2.5 and spec.memory_mb == 256
    # Python 2 (language 1) does not run here; 3 is Python 3, 2 is C++
    assert [language for language, _ in spec.solutions] == ["python", "cpp"]
    assert problem.canonical_solution == spec.solutions[0][1]
    verl = _rows(COMPETITIVE / "verl_prime_code_fixture.jsonl")[0]
    assert _tests(problem) == [(t["input"], t["output"]) for t in verl["tests"]]


def test_sandboxfusion_rows_stdio_and_its_encoded_livecodebench_rows():
    problems = read_problems(FORMATS / "sandboxfusion_stdio.jsonl")
    normalised = _rows(COMPETITIVE / "sandboxfusion_live_code_bench_v1.jsonl")
    assert problems.task_ids == ["0", "1", "2"]
    assert problems.problems[0].io.source == "sandboxfusion"
    assert len(problems.problems[0].io.tests) == 101
    encoded = read_problems(COMPETITIVE / "sandboxfusion_original_code_eval_live_code_bench_v1.jsonl")
    assert encoded.task_ids == [row["task_id"] for row in normalised]
    for problem, row in zip(encoded.problems, normalised, strict=True):
        assert _tests(problem) == [(t["input"], t["output"]) for t in row["tests"]]
        assert problem.io.test_type == row["test_type"]
    assert encoded.problems[1].io.call_style == "leetcode"


def test_normalised_rows_of_every_shared_file():
    for name, count, kind in (("coderl_apps_train.jsonl", 5, "stdin"),
                              ("verl_prime_code_fixture.jsonl", 2, "stdin"),
                              ("sandboxfusion_code_contests.jsonl.gz", 20, "stdin"),
                              ("rllm_leetcode_train_tested.jsonl.gz", 1768, "functional")):
        problems = read_problems(COMPETITIVE / name)
        assert len(problems) == count, name
        assert problems.problems[0].io.test_type == kind
    rllm = read_problems(COMPETITIVE / "rllm_leetcode_train_tested.jsonl.gz").problems[0]
    assert rllm.io.call_style == "leetcode" and rllm.io.fn_name == "twoSum"
    assert _tests(rllm)[0] == ("[2, 7, 11, 15]\n9", "[0, 1]")
    assert rllm.canonical_solution.startswith("class Solution")
    assert rllm.io.solutions == (("python", rllm.canonical_solution),)


def test_human_eval_rows_are_read_as_before():
    problems = read_problems(DATA / "humanevalplus" / "HumanEvalPlus-OriginFmt.jsonl.gz")
    assert len(problems) == 164 and all(p.kind == "program" for p in problems.problems)


def test_large_tests_are_kept_on_disk(tmp_path, monkeypatch):
    monkeypatch.setattr(io_formats, "SPILL_BYTES", 1000)
    big = "1 " * 5000
    row = {"id": "big", "test_type": "stdin",
           "tests": [{"input": big, "output": "small\n"}, {"input": "x", "output": big}]}
    path = tmp_path / "big.jsonl"
    path.write_text(json.dumps(row) + "\n")
    (problem,) = read_problems(path).problems
    first, second = problem.io.tests
    assert isinstance(first.input, DataRef) and isinstance(second.output, DataRef)
    assert first.output == "small\n" and second.input == "x"
    assert first.input.read() == big and second.output.read() == big
    assert first.input.path == second.output.path  # one file for all
    assert os.stat(first.input.path).st_mode & 0o004  # readable by the sandbox's uid


@pytest.mark.parametrize("row, where, fix", [
    ({"question_id": "q", "public_test_cases": "[{\"input\": 1}]"},
     "field 'public_test_cases'", "input and expected output"),
    ({"question_id": "q", "public_test_cases": "not json"},
     "field 'public_test_cases'", "not valid JSON"),
    ({"question_id": "q", "public_test_cases": "[]", "private_test_cases": "eJzz"},
     "field 'private_test_cases'", "compressed encoding"),
    ({"question_id": "q", "public_test_cases": json.dumps(
        [{"input": "1", "output": "2", "testtype": "functional"}])},
     "field 'metadata'", "func_name"),
    ({"question_id": "q", "public_test_cases": "[]"}, "(task q", "no tests"),
    ({"name": "n", "public_tests": {"input": ["1"], "output": []}, "private_tests": {}},
     "field 'public_tests'", "1 inputs but 0 outputs"),
    ({"problem_id": 7, "input_output": "{\"inputs\": [\"1\"]}"},
     "field 'input_output'", "inputs: [...], outputs: [...]"),
    ({"id": "r", "test_type": "functional", "tests": [{"input": "1", "output": "1"}]},
     "field 'fn_name'", "name the function"),
    ({"id": "r", "test_type": "stdin", "tests": None}, "field 'tests'", "leave it out"),
    ({"id": "r", "test_type": "stdin", "tests": [{"input": 3, "output": "1"}]},
     "field 'tests'", "must be strings"),
])
def test_errors_name_the_file_line_field_and_fix(tmp_path, row, where, fix):
    path = tmp_path / "p.jsonl"
    path.write_text("\n" + json.dumps(row) + "\n")
    with pytest.raises(InputError) as error:
        read_problems(path)
    text = str(error.value)
    assert f"{path}, line 2" in text and where in text and fix in text


def test_a_row_of_no_known_format_lists_the_formats(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"question": "?", "answer": 42}) + "\n")
    with pytest.raises(InputError) as error:
        read_problems(path)
    text = str(error.value)
    assert "line 1: not a problem of a known format" in text
    for name in ("human-eval", "livecodebench", "code_contests", "apps", "sandboxfusion"):
        assert name in text


def test_a_dataset_by_name_offline_release_and_dates():
    folder = FORMATS / "code_generation_lite"
    everything = read_problems(str(folder), release="release_v2")
    assert sorted(everything.task_ids) == ["1873_A", "2727", "abc301_a"]
    assert everything.digest and len(everything.digest) == 64
    assert read_problems(str(folder), release="v1").task_ids == ["2727", "abc301_a"]
    assert read_problems(str(folder), release="v2").task_ids == ["1873_A"]
    since = read_problems(str(folder), release="release_v2", since="2023-08-01")
    assert since.task_ids == ["1873_A"]
    until = read_problems(str(folder), release="release_v2", until="2023-06-01")
    assert sorted(until.task_ids) == ["2727", "abc301_a"]
    with pytest.raises(InputError, match="not a LiveCodeBench release"):
        read_problems(str(folder), release="v9")
    with pytest.raises(InputError, match="not a date"):
        read_problems(str(folder), since="last week")


def test_a_dataset_folder_of_another_schema_and_split(tmp_path):
    folder = tmp_path / "apps_like"
    folder.mkdir()
    (folder / "test.jsonl").write_text((FORMATS / "apps.jsonl").read_text())
    assert read_problems(str(folder), split="test").task_ids == ["1", "4184"]
    with pytest.raises(InputError, match="could not be loaded"):
        read_problems(str(folder), split="validation")


def test_dataset_options_on_a_file_are_refused():
    with pytest.raises(InputError, match="--release select rows of a dataset"):
        read_problems(FORMATS / "apps.jsonl", release="v5")


def test_a_missing_file_is_not_taken_for_a_dataset(tmp_path):
    with pytest.raises(InputError, match="File not found"):
        read_problems(tmp_path / "nothere.jsonl")
