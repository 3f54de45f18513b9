"""scripts/clock_methods.py: the SM clock by clock64/globaltimer, ncu's cycle counter and NVML."""
import importlib.util
import json
import pathlib

import pytest

_path = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "clock_methods.py"
_spec = importlib.util.spec_from_file_location("clock_methods", _path)
clock_methods = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(clock_methods)


def point(mhz, ncu_hz, nvml=1980.0, **extra):
    return {"id": "tensor.wgmma.throughput", "status": "ok", "derived": False, "params": {"n": 256},
            "sm_clock_mhz": mhz, "nvml_sm_clock_mhz": nvml,
            "extra": {"ncu": {"k": {"sm__cycles_elapsed.avg.per_second": ncu_hz}}, **extra}}


def test_rows_and_verdict_name_which_clock_agrees_with_the_counter():
    run = {"records": [point(1612.0, 1.612e9), point(1650.0, 1.65e9),
                       {"id": "x", "status": "ok", "derived": True, "sm_clock_mhz": 1}]}
    rows = clock_methods.compare(run)
    assert [r["ncu_sm_mhz"] for r in rows] == pytest.approx([1612.0, 1650.0])
    v = clock_methods.verdict(rows)["tensor.wgmma.throughput"]
    assert v["points"] == 2
    assert v["in_kernel_vs_ncu"] == pytest.approx(0.0)
    assert v["nvml_vs_ncu"] == pytest.approx(1980 / 1631 - 1, rel=1e-2)  # NVML reads ~21 % high


def test_a_run_without_the_counter_is_refused(tmp_path, capsys):
    f = tmp_path / "run.json"
    f.write_text(json.dumps({"records": [dict(point(1600.0, 1.6e9), extra={})]}))
    assert clock_methods.main([str(f)]) == 2
    assert "sm__cycles_elapsed" in capsys.readouterr().err
