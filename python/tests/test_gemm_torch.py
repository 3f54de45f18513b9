"""scripts/gemm_torch.py on the CPU: its protocol is the probe's (tests/fixtures/gemm_protocol.json,
which tests/probes/gemm_measure_test.cu holds the probe to), its settle rule gives the shared
cases' answers, its arguments and JSON, and a clear failure where PyTorch or a GPU is missing."""
import importlib.util
import json
import sys
import types

import pytest

from conftest import ROOT

FIXTURE = json.loads((ROOT / "tests" / "fixtures" / "gemm_protocol.json").read_text())


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("gemm_torch", ROOT / "scripts" / "gemm_torch.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_protocol_is_the_probes(script):
    assert script.PROTOCOL == FIXTURE["protocol"]


@pytest.mark.parametrize("case", FIXTURE["settle_cases"], ids=lambda c: c["name"])
def test_settle_rule_gives_the_shared_answers(script, case):
    rule = dict(FIXTURE["protocol"]["settle"], **case.get("rule", {}))
    got = script.settled_at(case["t_s"], case["rate"], **rule)
    if case["settled_at"] is None:
        assert got is None, case["why"]
    else:
        assert got == pytest.approx(case["settled_at"], abs=1e-9), case["why"]


def test_slow_calls_get_one_call_chunks_and_wider_windows(script):
    assert script.chunk_calls(1.4e-3) == 14
    assert script.chunk_calls(0.15) == 1
    assert script.settle_rule_for(1.4e-3)["window_s"] == FIXTURE["protocol"]["settle"]["window_s"]
    assert script.settle_rule_for(0.15)["window_s"] == pytest.approx(0.45)
    with pytest.raises(ValueError):
        script.chunk_calls(0)


def test_arguments(script):
    a = script.parse_args([])
    assert a.types == ["bf16", "fp16", "tf32", "fp8_e4m3", "fp8_e4m3_fast"]
    assert a.shapes == ["sq8192", "m128_n8192_k8192"]
    assert a.groups == FIXTURE["protocol"]["max_groups"]
    a = script.parse_args(["--types", "bf16", "--shapes", "m256_n4096_k1024", "--groups", "3"])
    assert (a.types, a.shapes, a.groups) == (["bf16"], ["m256_n4096_k1024"], 3)
    assert script.parse_shape("m128_n8192_k8192") == (128, 8192, 8192)
    assert script.parse_shape("sq4096") == (4096, 4096, 4096)
    for bad in (["--types", "fp4"], ["--shapes", "sq100"], ["--shapes", "8192"], ["--groups", "0"], ["--types", ""]):
        with pytest.raises(SystemExit):
            script.parse_args(bad)


def test_dry_run_writes_the_plan_and_protocol(script, tmp_path, capsys):
    out = tmp_path / "plan.json"
    assert script.main(["--dry-run", "--types", "bf16,fp8_e4m3", "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["dry_run"] is True
    assert doc["protocol"] == FIXTURE["protocol"]
    assert [(r["type"], r["shape"], r["m"], r["n"], r["k"]) for r in doc["results"]] == [
        ("bf16", "sq8192", 8192, 8192, 8192), ("fp8_e4m3", "sq8192", 8192, 8192, 8192),
        ("bf16", "m128_n8192_k8192", 128, 8192, 8192), ("fp8_e4m3", "m128_n8192_k8192", 128, 8192, 8192)]
    assert "m=128 n=8192 k=8192 (planned)" in capsys.readouterr().out


def test_a_measured_point_is_written_and_printed(script, tmp_path, capsys):
    args = script.parse_args(["--json", str(tmp_path / "r.json")])
    point = {"type": "bf16", "shape": "sq8192", "first_calls_tflops": 809.2, "first_calls_sm_mhz": 1980.0,
             "first_calls_power_w": None, "steady_tflops": 674.5, "steady_sm_mhz": 1440.0, "steady_power_w": 700.0,
             "settle_s": 1.1}
    doc = script.document(args, [point], {"device": "NVIDIA H200"})
    assert json.loads(json.dumps(doc))["results"][0]["steady_tflops"] == 674.5
    script.print_row(point)
    line = capsys.readouterr().out
    assert "809.2" in line and "674.5" in line and "1440" in line and " - " in line  # no first_calls power


def test_fails_clearly_without_pytorch(script, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ImportError
    assert script.main(["--types", "bf16"]) == 2
    assert "needs PyTorch" in capsys.readouterr().err


def test_fails_clearly_without_a_gpu(script, monkeypatch, capsys):
    fake = types.SimpleNamespace(cuda=types.SimpleNamespace(is_available=lambda: False))
    monkeypatch.setitem(sys.modules, "torch", fake)
    assert script.main(["--types", "bf16"]) == 2
    assert "no CUDA device" in capsys.readouterr().err
