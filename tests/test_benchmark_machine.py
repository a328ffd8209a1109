"""benchmarks/machine.py: the CPU line every speed report carries (the int8 model's speed
depends on the int8 dot-product instructions)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.machine import cpu_summary


def test_cpu_summary_names_the_model_and_the_vector_flags(tmp_path: Path) -> None:
    info = tmp_path / "cpuinfo"
    info.write_text(
        "processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse avx2 avx512f avx512_vnni\n\n"
        "processor\t: 1\nmodel name\t: other\nflags\t\t: fpu\n"
    )
    assert cpu_summary(info) == "AMD EPYC; avx2 avx512f avx512_vnni"
    info.write_text("processor\t: 0\nmodel name\t: Old CPU\nflags\t\t: fpu sse2\n")
    assert cpu_summary(info) == "Old CPU; no AVX2"
    assert cpu_summary(tmp_path / "missing") == "unknown CPU"
