"""What a benchmark report says of the processor: its model and the vector instructions that
move our figures.

The int8 ONNX model's speed depends on the CPU's int8 dot-product instructions (AVX-512
VNNI, AVX-VNNI, AMX): on two machines of this workplace the same run gave 2.8x and 6.8x
sentence-transformers (docs/benchmarks/embeddings.md), so a ratio is read with the CPU it
was measured on."""

from __future__ import annotations

from pathlib import Path

# The flags of /proc/cpuinfo that an int8 or float matrix product uses, in report order.
VECTOR_FLAGS = ("avx2", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8")


def cpu_summary(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """``AMD EPYC; avx2 avx512f avx512_vnni avx_vnni`` (``unknown CPU`` off Linux)."""
    try:
        text = cpuinfo.read_text(errors="replace")
    except OSError:
        return "unknown CPU"
    model, flags = "unknown CPU", set[str]()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "model name" and model == "unknown CPU":
            model = value.strip()
        elif key == "flags" and not flags:
            flags = set(value.split())
    shown = [f for f in VECTOR_FLAGS if f in flags]
    return f"{model}; {' '.join(shown) if shown else 'no AVX2'}"
