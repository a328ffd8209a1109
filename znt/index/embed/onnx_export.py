"""Turn a sentence-transformers model folder into ONNX files that onnxruntime can run.

This is the only module of the local provider that imports torch and transformers, and it
runs once per model (the result is cached by ``local.py``). Every file it writes is checked
against torch's own output on a padded batch before it is accepted: an export that does not
reproduce the model is an ``ExportError``, never a silently wrong cache entry.

Steps: export the transformer with eager attention (so onnxruntime's BERT optimiser can fuse
attention, layer norm and GELU), optimise the graph, then quantise the weights to int8
(dynamic quantisation: activations stay float). See
docs/decisions/0004-local-embeddings-onnx.md for the measured effect of each step.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import os
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

# The texts every export is checked with: different lengths, so the batch is padded.
CHECK_TEXTS = (
    "def read_json(path):\n    with open(path) as f:\n        return json.load(f)",
    "how to sort a list of dicts by a key",
    "x",
    "class Retry:\n    '''Retry a call with exponential backoff.'''\n    def __init__(self, tries=3):"
    "\n        self.tries = tries",
)
# Smallest per-text cosine between an exported file's pooled vectors and torch's.
MIN_COSINE = {"fp32": 0.9999, "int8": 0.95}  # int8 is judged by retrieval quality too (benchmark)
# Model families whose graph onnxruntime's transformer optimiser knows.
BERT_LIKE = {"bert", "roberta", "xlm-roberta", "distilbert", "electra", "camembert", "mpnet"}


class ExportError(Exception):
    """The model could not be exported, or the export does not reproduce the model."""


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Swallow the exporters' warnings and progress prints: ``index/`` never prints."""
    with (
        warnings.catch_warnings(),
        contextlib.redirect_stdout(io.StringIO()),
        contextlib.redirect_stderr(io.StringIO()),
    ):
        warnings.simplefilter("ignore")
        yield


def export(
    model_dir: Path,
    out_dir: Path,
    *,
    tokenize: Any,
    pool: Any,
    variants: Sequence[str] = ("fp32", "int8"),
) -> dict[str, Any]:
    """Write ``model-<variant>.onnx`` for each variant into ``out_dir``.

    ``tokenize(texts) -> dict of int64 arrays`` and ``pool(hidden, mask) -> unit vectors`` are
    the runtime's own functions, so the check covers exactly what inference will do. Returns
    ``{"inputs": [...], "variants": {variant: {"file", "min_cosine"}}, "failed": {variant:
    reason}, "optimised": bool}``: a variant other than fp32 that fails is left out; an fp32
    failure raises ``ExportError``."""
    try:
        import numpy as np
        import torch
        from transformers import AutoModel
    except ImportError as exc:  # pragma: no cover - the embed extra installs them
        raise ExportError(f"torch/transformers are not installed ({exc})") from exc

    torch.set_num_threads(max(1, _cores()))
    try:
        with _quiet():
            model = AutoModel.from_pretrained(str(model_dir), attn_implementation="eager")
    except Exception as exc:
        raise ExportError(f"transformers could not load the model: {exc}") from exc
    model.eval()
    params = inspect.signature(model.forward).parameters
    feed = tokenize(list(CHECK_TEXTS))
    inputs = [name for name in ("input_ids", "attention_mask", "token_type_ids") if name in params]
    inputs = [name for name in inputs if name in feed or name == "token_type_ids"]
    if "token_type_ids" in inputs and "token_type_ids" not in feed:
        feed["token_type_ids"] = np.zeros_like(feed["input_ids"])
    feed = {name: feed[name] for name in inputs}

    class Wrapper(torch.nn.Module):
        """Positional inputs in a fixed order; returns the last hidden state only."""

        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, *args: Any) -> Any:
            return self.inner(**dict(zip(inputs, args, strict=True))).last_hidden_state

    wrapper = Wrapper(model)
    example = tuple(torch.from_numpy(feed[name]) for name in inputs)
    with torch.no_grad():
        reference = pool(wrapper(*example).numpy(), feed["attention_mask"])
    raw = out_dir / "raw.onnx"
    axes = {name: {0: "batch", 1: "sequence"} for name in [*inputs, "last_hidden_state"]}
    errors: list[str] = []
    for dynamo in (False, True):  # the TorchScript exporter first: its graph fuses better
        try:
            with _quiet(), torch.no_grad():
                torch.onnx.export(
                    wrapper,
                    example,
                    str(raw),
                    input_names=inputs,
                    output_names=["last_hidden_state"],
                    dynamic_axes=axes,
                    opset_version=17,
                    dynamo=dynamo,
                    external_data=False,
                )
            break
        except Exception as exc:
            errors.append(f"{'dynamo' if dynamo else 'torchscript'} exporter: {exc}")
            raw.unlink(missing_ok=True)
    else:
        raise ExportError("torch.onnx.export failed: " + "; ".join(errors))
    del model, wrapper

    fp32 = out_dir / "model-fp32.onnx"
    optimised = _optimise(raw, fp32, model_dir)
    if not optimised or _min_cosine(fp32, feed, pool, reference) < MIN_COSINE["fp32"]:
        optimised = False
        os.replace(raw, fp32)
    raw.unlink(missing_ok=True)

    result: dict[str, Any] = {"inputs": inputs, "optimised": optimised, "variants": {}}
    result["failed"] = failed = {}
    for variant in ("fp32", *(v for v in variants if v != "fp32")):
        path = out_dir / f"model-{variant}.onnx"
        try:
            if variant == "int8":
                _quantise(fp32, path)
            cos = _min_cosine(path, feed, pool, reference)
            if cos < MIN_COSINE[variant]:
                raise ExportError(
                    f"the {variant} export does not reproduce the model (cosine {cos:.4f} "
                    f"< {MIN_COSINE[variant]})"
                )
        except ExportError as exc:
            if variant == "fp32":
                raise
            path.unlink(missing_ok=True)
            failed[variant] = str(exc)
            continue
        result["variants"][variant] = {"file": path.name, "min_cosine": round(cos, 6)}
    if "fp32" not in variants:
        fp32.unlink(missing_ok=True)
    return result


def _optimise(src: Path, dst: Path, model_dir: Path) -> bool:
    """Fuse attention/LayerNorm/GELU with onnxruntime's transformer optimiser, if it knows
    the model family. False (and nothing written) when it does not or fails."""
    import json

    try:
        config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    family = str(config.get("model_type", ""))
    heads, hidden = config.get("num_attention_heads"), config.get("hidden_size")
    if family not in BERT_LIKE or not isinstance(heads, int) or not isinstance(hidden, int):
        return False
    try:
        from onnxruntime.transformers import optimizer

        with _quiet():
            model = optimizer.optimize_model(
                str(src),
                model_type="bert",
                num_heads=heads,
                hidden_size=hidden,
                opt_level=0,
                use_gpu=False,
            )
            model.save_model_to_file(str(dst))
    except Exception:
        dst.unlink(missing_ok=True)
        return False
    return True


def _quantise(src: Path, dst: Path) -> None:
    """Dynamic int8 quantisation of the weights (MatMul, fused Attention, embeddings),
    per output channel."""
    try:
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic

        with _quiet():
            quantize_dynamic(
                str(src),
                str(dst),
                weight_type=QuantType.QInt8,
                per_channel=True,  # per-tensor int8 loses too much (cosine 0.91 to fp32)
                # fused contrib ops hide some tensor types from shape inference
                extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
            )
    except Exception as exc:
        dst.unlink(missing_ok=True)
        raise ExportError(f"int8 quantisation failed: {exc}") from exc


def _min_cosine(path: Path, feed: dict[str, Any], pool: Any, reference: Any) -> float:
    """Smallest per-text cosine between ``path``'s pooled output and ``reference``."""
    import onnxruntime as ort

    try:
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        hidden = session.run(None, feed)[0]
    except Exception as exc:
        raise ExportError(f"onnxruntime cannot run {path.name}: {exc}") from exc
    vectors = pool(hidden, feed["attention_mask"])
    return float((vectors * reference).sum(axis=1).min())


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1
