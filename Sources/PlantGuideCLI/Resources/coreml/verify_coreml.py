#!/usr/bin/env python3
"""Check a Core ML package written by export_coreml.py without Core ML (works on Linux).

Usage:
  verify_coreml.py --package OUT.mlpackage --weights DIR --input IMG.f32 --reference REF.f32
                   [--json] [--no-fp16] [--logit-tol 0.05] [--fp16-logit-tol 0.10]
                   [--engine-tol 0.001] [--min-top5 4] [--onnxruntime]

  --weights DIR    the interchange directory the package was exported from (model.json + tensors)
  --input FILE     raw float32, inputSize*inputSize*3 values, HWC, RGB, pixel values 0..255,
                   already resized and cropped
  --reference FILE raw float32 logits (N values) of another engine on the same weights, which
                   normalises the input itself: REF = model((x/255 - mean) / std)
  --onnxruntime    also run the interchange weights through ONNX Runtime (step 4); needs the pip
                   packages onnx and onnxruntime

What it does:
 1. Reads the package back (coremltools.models.MLModel(path, skip_model_load=True).get_spec()) and
    checks: specification version 8 (= iOS 17) with the MIL opset CoreML7, an mlProgram model, one
    RGB ImageType input of inputSize x inputSize, the image preprocessing in the program
    (mul by 1/255, add -mean), conv1's stored weights equal to model.json's divided by std along
    the input channels, a classifier (classLabel + classLabel_probs) whose labels are model.json's,
    every weight constant stored as float16 in weights/weight.bin, and the metadata.
 2. Turns the saved MIL proto back into a MIL Program
    (coremltools.converters.mil.frontend.milproto.load.load(spec, spec_version, weights_dir)) and runs
    its main function with a small numpy interpreter (const, cast, mul, add, sub, real_div, relu,
    conv, max_pool, avg_pool, reduce_mean, linear, matmul, reshape, squeeze, expand_dims,
    transpose, softmax, classify). In a Core ML *ML Program* the ImageType's scale and bias are not
    applied outside the model: they are the program's first ops (mul, add, on float32 pixel values
    0..255), so the interpreter is fed the raw pixels as NCHW float32 and applies them by running
    those ops. It runs twice: "fp32" (every value kept in float32; the float16 weights widen
    exactly) and, unless --no-fp16, "fp16" (every value rounded to the dtype the program declares,
    i.e. float16 activations, float32 accumulation inside an op), a rough model of Core ML's
    float16 execution on GPU/ANE. Logits are the input of the softmax that feeds classify.
 3. Compares the logits with REF and with a plain float32 numpy forward pass computed straight
    from the interchange weights (so the interpreter is checked independently of the other engine),
    and checks that the reference engine agrees with that numpy pass.
 4. With --onnxruntime: builds an ONNX graph (opset 17, in memory with onnx.helper, no file written)
    from the same derived structure the exporter uses (export_coreml.derive_structure) and the
    interchange float32 weights, unchanged: Conv (with the folded bias) / Relu, MaxPool 3x3 stride
    2 pad 1, Add for the shortcuts, GlobalAveragePool, Flatten, Gemm (transB=1) for fc. It takes
    the normalised NCHW float32 input (x/255 - mean) / std, the very array the numpy pass is fed,
    and runs in onnxruntime (CPUExecutionProvider, one thread). The JSON gets a section
    "onnxruntime": {version, onnxVersion, opset, provider, logitsMaxAbsDiffVsReference,
    logitsMaxAbsDiffVsCoreML (vs the fp32 interpreter's logits), top1Equal and top5Overlap (vs
    REF), top1EqualVsCoreML, top5OverlapVsCoreML}, and two checks are added: onnxruntime vs REF
    within --engine-tol (float32 against float32), and the fp32 interpreter vs onnxruntime within
    --logit-tol with the same top-1. This gives a second, independently written float32 engine, so a
    REF that is itself wrong shows up as REF disagreeing with both numpy and onnxruntime.

Tolerances (all relative to the logit scale, max |REF|):
  --logit-tol 0.05       fp32 interpreter vs REF / vs numpy. Float16 weights round each weight by
                         at most 2^-11 (~4.9e-4) relative; over a ResNet's depth that gives logit
                         errors of a few 1e-3 of the logit scale (measured ~1e-3 on synthetic nets),
                         so 5% leaves ample headroom yet catches any structural mistake (a wrong
                         stride, padding, normalisation or label order moves logits by O(scale)).
  --fp16-logit-tol 0.10  fp16-simulated interpreter vs REF: float16 activations add ~1e-2.
  --engine-tol 0.001     numpy float32 pass vs REF, and onnxruntime vs REF: all float32 of the same
                         weights.
  --min-top5 4           top-5 overlap required (fp32 interpreter vs REF); top-1 must be equal.

Prints a JSON report (only the JSON with --json; otherwise a few readable lines first).
Exit status: 0 when every check passes, 1 when a check fails (the failures are listed on stderr),
2 when the inputs cannot be read, or when --onnxruntime is given and onnx or onnxruntime cannot be
imported (the message names the pip packages to install).
"""
import argparse
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_coreml import (  # noqa: E402  (the interchange reader is shared with the exporter)
    INPUT_NAME, InterchangeError, derive_structure, dir_size, load_interchange, quiet_coremltools)

IOS17_SPEC_VERSION = 8
IOS17_OPSET = "CoreML7"


class VerifyError(Exception):
    pass


# ----------------------------------------------------------------------------------------------
# numpy kernels
# ----------------------------------------------------------------------------------------------

def _explicit_pads(pad_type, pad, in_hw, kernel, strides, dilations):
    """Returns [top, bottom, left, right] for MIL's pad_type."""
    if pad_type == "custom":
        return [int(v) for v in pad]
    if pad_type == "valid":
        return [0, 0, 0, 0]
    if pad_type in ("same", "same_lower"):
        out = []
        for size, k, s, d in zip(in_hw, kernel, strides, dilations):
            eff = (k - 1) * d + 1
            total = max((math.ceil(size / s) - 1) * s + eff - size, 0)
            small, big = total // 2, total - total // 2
            out += [big, small] if pad_type == "same_lower" else [small, big]
        return out
    raise VerifyError(f"unsupported pad_type {pad_type}")


def _windows(xp, kernel, strides, dilations, out_hw):
    """(N, C, Ho, Wo, kh, kw) view of the padded input xp."""
    kh, kw = kernel
    eh, ew = (kh - 1) * dilations[0] + 1, (kw - 1) * dilations[1] + 1
    win = np.lib.stride_tricks.sliding_window_view(xp, (eh, ew), axis=(2, 3))
    win = win[:, :, ::strides[0], ::strides[1], ::dilations[0], ::dilations[1]]
    return win[:, :, :out_hw[0], :out_hw[1]]


def conv2d(x, w, b, strides, pads, dilations, groups):
    """im2col convolution, NCHW, float32 accumulation."""
    x = x.astype(np.float32)
    w = w.astype(np.float32)
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    if c != cg * groups or o % groups:
        raise VerifyError(f"conv: input channels {c}, weight {w.shape}, groups {groups}")
    pt, pb, pl, pr = pads
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    ho = (h + pt + pb - ((kh - 1) * dilations[0] + 1)) // strides[0] + 1
    wo = (wd + pl + pr - ((kw - 1) * dilations[1] + 1)) // strides[1] + 1
    win = _windows(xp, (kh, kw), strides, dilations, (ho, wo))
    og = o // groups
    out = np.empty((n, o, ho, wo), np.float32)
    for g in range(groups):
        part = np.tensordot(win[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og], axes=([1, 4, 5], [1, 2, 3]))
        out[:, g * og:(g + 1) * og] = part.transpose(0, 3, 1, 2)
    if b is not None:
        out += b.astype(np.float32)[None, :, None, None]
    return out


def pool2d(x, kind, kernel, strides, pads, ceil_mode, exclude_padding):
    x = x.astype(np.float32)
    n, c, h, w = x.shape
    pt, pb, pl, pr = pads

    def out_size(size, lo, hi, k, s):
        span = size + lo + hi - k
        return (-(-span // s) if ceil_mode else span // s) + 1

    ho, wo = out_size(h, pt, pb, kernel[0], strides[0]), out_size(w, pl, pr, kernel[1], strides[1])
    extra_h = max((ho - 1) * strides[0] + kernel[0] - (h + pt + pb), 0)
    extra_w = max((wo - 1) * strides[1] + kernel[1] - (w + pl + pr), 0)
    fill = -np.inf if kind == "max" else 0.0
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb + extra_h), (pl, pr + extra_w)), constant_values=fill)
    win = _windows(xp, kernel, strides, (1, 1), (ho, wo))
    if kind == "max":
        return win.max(axis=(4, 5))
    sums = win.sum(axis=(4, 5))
    if exclude_padding:
        ones = np.pad(np.ones((1, 1, h, w), np.float32), ((0, 0), (0, 0), (pt, pb + extra_h), (pl, pr + extra_w)))
        counts = _windows(ones, kernel, strides, (1, 1), (ho, wo)).sum(axis=(4, 5))
        return sums / counts
    return sums / float(kernel[0] * kernel[1])


def softmax(x, axis):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(np.float32)


# ----------------------------------------------------------------------------------------------
# MIL interpreter
# ----------------------------------------------------------------------------------------------

_NP_DTYPES = {"fp16": np.float16, "fp32": np.float32, "fp64": np.float64, "int8": np.int8,
              "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16, "int32": np.int32,
              "int64": np.int64, "bool": np.bool_}


class MilInterpreter:
    """Evaluates a MIL Function op by op; values are kept in a dict keyed by variable name.

    mode "fp32": every floating value is float32 (float16 constants widen exactly, cast to fp16
    is a no-op). mode "fp16": every op's float output is rounded to the dtype the program
    declares for it (compute happens in float32 inside the op).
    """

    def __init__(self, function, mode="fp32"):
        from coremltools.converters.mil.mil import types
        self.types = types
        self.function = function
        self.mode = mode
        self.env = {}
        self.ops_run = {}

    # -- value access
    def _declared_dtype(self, var):
        t = self.types
        st = var.sym_type
        if t.is_tensor(st) or t.is_scalar(st):
            return t.builtin_to_string(var.dtype)
        return None

    def _fit(self, value, dtype_name):
        if not isinstance(value, (np.ndarray, np.generic, float, int, bool)):
            return value
        arr = np.asarray(value)
        if dtype_name in ("fp16", "fp32", "fp64"):
            if self.mode == "fp32":
                return arr.astype(np.float32)
            return arr.astype(_NP_DTYPES[dtype_name])
        if dtype_name in _NP_DTYPES:
            return arr.astype(_NP_DTYPES[dtype_name])
        return arr

    def value(self, var):
        if var.name in self.env:
            return self.env[var.name]
        if var.val is not None:  # immediate value bound straight into the op (e.g. classify's classes)
            v = var.val
            return self._fit(v, self._declared_dtype(var))
        raise VerifyError(f"value {var.name} is used before it is computed")

    def arg(self, op, name, default=None):
        var = op.inputs.get(name)
        if var is None:
            return default
        if isinstance(var, (list, tuple)):
            return [self.value(v) for v in var]
        return self.value(var)

    @staticmethod
    def ints(v):
        return [int(i) for i in np.asarray(v).reshape(-1)]

    # -- run
    def run(self, feeds):
        for name, var in self.function.inputs.items():
            if name not in feeds:
                raise VerifyError(f"no value for program input {name}")
            self.env[name] = self._fit(feeds[name], self._declared_dtype(var))
        for op in self.function.operations:
            handler = getattr(self, "op_" + op.op_type, None)
            if handler is None:
                raise VerifyError(f"the interpreter has no numpy kernel for op '{op.op_type}' ({op.name})")
            results = handler(op)
            if not isinstance(results, tuple):
                results = (results,)
            if len(results) != len(op.outputs):
                raise VerifyError(f"{op.op_type} {op.name}: {len(results)} results for {len(op.outputs)} outputs")
            for var, res in zip(op.outputs, results):
                res = self._fit(res, self._declared_dtype(var))
                shape = var.shape if self.types.is_tensor(var.sym_type) else None
                if isinstance(res, np.ndarray) and shape is not None and all(isinstance(d, (int, np.integer)) for d in shape):
                    if tuple(res.shape) != tuple(int(d) for d in shape):
                        raise VerifyError(f"{op.op_type} {op.name}: computed shape {res.shape}, program declares {tuple(shape)}")
                self.env[var.name] = res
            self.ops_run[op.op_type] = self.ops_run.get(op.op_type, 0) + 1
        return {v.name: self.env[v.name] for v in self.function.outputs}

    # -- ops
    def op_const(self, op):
        return op.outputs[0].val

    def op_cast(self, op):
        return self.arg(op, "x")  # the output dtype is applied by _fit from the declared type

    def _binary(self, op, fn):
        x, y = self.arg(op, "x"), self.arg(op, "y")
        return fn(np.asarray(x, np.float32) if np.asarray(x).dtype.kind == "f" else x,
                  np.asarray(y, np.float32) if np.asarray(y).dtype.kind == "f" else y)

    def op_add(self, op):
        return self._binary(op, np.add)

    def op_sub(self, op):
        return self._binary(op, np.subtract)

    def op_mul(self, op):
        return self._binary(op, np.multiply)

    def op_real_div(self, op):
        return self._binary(op, np.divide)

    def op_maximum(self, op):
        return self._binary(op, np.maximum)

    def op_relu(self, op):
        return np.maximum(self.arg(op, "x").astype(np.float32), 0)

    def op_conv(self, op):
        x, w = self.arg(op, "x"), self.arg(op, "weight")
        k = w.shape[2:]
        strides = self.ints(self.arg(op, "strides", [1, 1]))
        dil = self.ints(self.arg(op, "dilations", [1, 1]))
        pads = _explicit_pads(str(self.arg(op, "pad_type", "valid")), self.ints(self.arg(op, "pad", [0, 0, 0, 0])),
                              x.shape[2:], k, strides, dil)
        return conv2d(x, w, self.arg(op, "bias"), strides, pads, dil, int(self.arg(op, "groups", 1)))

    def _pool(self, op, kind):
        x = self.arg(op, "x")
        k = self.ints(self.arg(op, "kernel_sizes"))
        strides = self.ints(self.arg(op, "strides", [1, 1]))
        if x.ndim != 4:
            raise VerifyError(f"{op.op_type}: only 2-D pooling is implemented")
        pads = _explicit_pads(str(self.arg(op, "pad_type", "valid")), self.ints(self.arg(op, "pad", [0, 0, 0, 0])),
                              x.shape[2:], k, strides, (1, 1))
        return pool2d(x, kind, k, strides, pads, bool(self.arg(op, "ceil_mode", False)),
                      bool(self.arg(op, "exclude_padding_from_average", False)))

    def op_max_pool(self, op):
        return self._pool(op, "max")

    def op_avg_pool(self, op):
        return self._pool(op, "avg")

    def op_reduce_mean(self, op):
        x = self.arg(op, "x").astype(np.float32)
        axes = self.arg(op, "axes")
        axes = None if axes is None else tuple(self.ints(axes))
        return x.mean(axis=axes, keepdims=bool(self.arg(op, "keep_dims", False)), dtype=np.float64).astype(np.float32)

    def op_linear(self, op):
        x = self.arg(op, "x").astype(np.float32)
        w = self.arg(op, "weight").astype(np.float32)
        b = self.arg(op, "bias")
        y = x @ w.T
        return y + b.astype(np.float32) if b is not None else y

    def op_matmul(self, op):
        x = self.arg(op, "x").astype(np.float32)
        y = self.arg(op, "y").astype(np.float32)
        if self.arg(op, "transpose_x", False):
            x = np.swapaxes(x, -1, -2)
        if self.arg(op, "transpose_y", False):
            y = np.swapaxes(y, -1, -2)
        return x @ y

    def op_reshape(self, op):
        return np.reshape(self.arg(op, "x"), self.ints(self.arg(op, "shape")))

    def op_squeeze(self, op):
        axes = self.arg(op, "axes")
        return np.squeeze(self.arg(op, "x"), axis=None if axes is None else tuple(self.ints(axes)))

    def op_expand_dims(self, op):
        x = self.arg(op, "x")
        for a in sorted(self.ints(self.arg(op, "axes"))):
            x = np.expand_dims(x, a)
        return x

    def op_transpose(self, op):
        return np.transpose(self.arg(op, "x"), self.ints(self.arg(op, "perm")))

    def op_softmax(self, op):
        return softmax(self.arg(op, "x"), int(self.arg(op, "axis", -1)))

    def op_classify(self, op):
        probs = np.asarray(self.arg(op, "probabilities"), np.float32).reshape(-1)
        classes = list(self.arg(op, "classes"))
        if len(classes) != probs.size:
            raise VerifyError(f"classify: {len(classes)} classes for {probs.size} probabilities")
        best = int(np.argmax(probs))
        return classes[best], {c: float(p) for c, p in zip(classes, probs)}


# ----------------------------------------------------------------------------------------------
# independent numpy forward pass from the interchange weights
# ----------------------------------------------------------------------------------------------

def _conv_chw(x, w, b, stride, pad):
    """Shift-and-accumulate convolution (one kernel tap at a time), CHW, float32."""
    c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (pad, pad), (pad, pad)))
    ho, wo = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    acc = np.zeros((o, ho, wo), np.float32)
    for i in range(kh):
        for j in range(kw):
            tap = xp[:, i:i + stride * (ho - 1) + 1:stride, j:j + stride * (wo - 1) + 1:stride]
            acc += np.einsum("oc,chw->ohw", w[:, :, i, j], tap, dtype=np.float32)
    return acc + b[:, None, None]


def normalized_input(meta, image_hwc):
    """(x/255 - mean[c]) / std[c] as CHW float32: what REF's engine feeds the network."""
    mean = np.asarray(meta["mean"], np.float32)[:, None, None]
    std = np.asarray(meta["std"], np.float32)[:, None, None]
    return ((image_hwc.transpose(2, 0, 1) / np.float32(255.0) - mean) / std).astype(np.float32)


def numpy_reference(structure, meta, image_hwc):
    x = normalized_input(meta, image_hwc)
    s = structure["stem"]
    x = np.maximum(_conv_chw(x, s["weight"], s["bias"], 2, s["pad"]), 0)
    # 3x3/2 max pool with padding 1 (values are >= 0 after the ReLU, padding never wins)
    c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    ho, wo = (h - 1) // 2 + 1, (w - 1) // 2 + 1
    x = np.max([xp[:, i:i + 2 * (ho - 1) + 1:2, j:j + 2 * (wo - 1) + 1:2] for i in range(3) for j in range(3)], axis=0)
    for blk in structure["blocks"]:
        y = x
        for i, cv in enumerate(blk["convs"]):
            y = _conv_chw(y, cv["weight"], cv["bias"], cv["stride"], cv["pad"])
            if i < len(blk["convs"]) - 1:
                y = np.maximum(y, 0)
        ds = blk["downsample"]
        shortcut = _conv_chw(x, ds["weight"], ds["bias"], ds["stride"], ds["pad"]) if ds else x
        x = np.maximum(y + shortcut, 0)
    feat = x.reshape(x.shape[0], -1).mean(axis=1)
    fw, fb = structure["fc"]
    return (fw @ feat + fb).astype(np.float32)


# ----------------------------------------------------------------------------------------------
# ONNX Runtime forward pass from the interchange weights (--onnxruntime)
# ----------------------------------------------------------------------------------------------

ONNX_OPSET = 17
ONNX_IR_VERSION = 8  # the IR version that came with opset 17; older runtimes reject newer IRs
ONNX_INPUT, ONNX_OUTPUT = "input", "logits"


def import_onnx_runtime():
    """Returns (onnx, onnxruntime) or raises ImportError naming the pip packages that are missing."""
    mods, missing = {}, []
    for name in ("onnx", "onnxruntime"):
        try:
            mods[name] = __import__(name)
        except ImportError as e:  # also a broken install (e.g. a missing shared library)
            missing.append((name, str(e)))
    if missing:
        names = " ".join(n for n, _ in missing)
        why = "; ".join(f"{n}: {e}" for n, e in missing)
        raise ImportError(f"--onnxruntime needs the Python packages onnx and onnxruntime; cannot import "
                          f"{names} ({why}). Install them with: pip install onnx onnxruntime")
    return mods["onnx"], mods["onnxruntime"]


def build_onnx_graph(onnx, structure, input_size):
    """An ONNX ModelProto of the derived ResNet, float32 weights as initializers.

    Input ONNX_INPUT [1, 3, S, S] is the already normalised image; output ONNX_OUTPUT [1, classes]
    holds the logits (no softmax).
    """
    from onnx import TensorProto, helper, numpy_helper

    nodes, inits = [], []

    def const(name, arr):
        inits.append(numpy_helper.from_array(np.ascontiguousarray(arr, np.float32), name=name))
        return name

    def conv(x, c, relu):
        n, p = c["name"], c["pad"]
        k = int(c["kernel"])
        y = n + ".out"
        nodes.append(helper.make_node(
            "Conv", [x, const(n + ".weight", c["weight"]), const(n + ".bias", c["bias"])], [y], name=n,
            kernel_shape=[k, k], strides=[c["stride"]] * 2, pads=[p, p, p, p], dilations=[1, 1], group=1))
        if not relu:
            return y
        nodes.append(helper.make_node("Relu", [y], [n + ".relu"], name=n + ".relu"))
        return n + ".relu"

    x = conv(ONNX_INPUT, structure["stem"], relu=True)
    nodes.append(helper.make_node("MaxPool", [x], ["maxpool.out"], name="maxpool",
                                  kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]))
    x = "maxpool.out"
    for blk in structure["blocks"]:
        y = x
        convs = blk["convs"]
        for i, c in enumerate(convs):
            y = conv(y, c, relu=i < len(convs) - 1)
        shortcut = conv(x, blk["downsample"], relu=False) if blk["downsample"] else x
        pre = blk["prefix"]
        nodes.append(helper.make_node("Add", [y, shortcut], [pre + ".sum"], name=pre + ".add"))
        nodes.append(helper.make_node("Relu", [pre + ".sum"], [pre + ".out"], name=pre + ".relu"))
        x = pre + ".out"
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["avgpool.out"], name="avgpool"))
    nodes.append(helper.make_node("Flatten", ["avgpool.out"], ["features"], name="flatten", axis=1))
    fw, fb = structure["fc"]
    nodes.append(helper.make_node("Gemm", ["features", const("fc.weight", fw), const("fc.bias", fb)],
                                  [ONNX_OUTPUT], name="fc", transB=1))

    graph = helper.make_graph(
        nodes, "plantguide_resnet",
        [helper.make_tensor_value_info(ONNX_INPUT, TensorProto.FLOAT, [1, 3, input_size, input_size])],
        [helper.make_tensor_value_info(ONNX_OUTPUT, TensorProto.FLOAT, [1, int(fw.shape[0])])],
        initializer=inits)
    model = helper.make_model(graph, producer_name="plantguide-verify_coreml",
                              opset_imports=[helper.make_opsetid("", ONNX_OPSET)])
    model.ir_version = ONNX_IR_VERSION
    onnx.checker.check_model(model, full_check=True)  # also runs shape inference over the graph
    return model


def onnxruntime_logits(onnx, ort, structure, meta, image_hwc):
    """Logits of the interchange network in onnxruntime on (x/255 - mean) / std; also its provider."""
    model = build_onnx_graph(onnx, structure, int(meta["inputSize"]))
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.log_severity_level = 3  # errors only
    sess = ort.InferenceSession(model.SerializeToString(), sess_options=opts,
                                providers=["CPUExecutionProvider"])
    x = normalized_input(meta, image_hwc)[None]
    (out,) = sess.run([ONNX_OUTPUT], {ONNX_INPUT: x})
    return np.asarray(out, np.float32).reshape(-1), sess.get_providers()[0]


# ----------------------------------------------------------------------------------------------
# checks
# ----------------------------------------------------------------------------------------------

class Report:
    def __init__(self):
        self.checks = []

    def check(self, name, ok, detail=None):
        self.checks.append({"name": name, "ok": bool(ok), **({"detail": detail} if detail is not None else {})})
        return ok

    @property
    def failures(self):
        return [c for c in self.checks if not c["ok"]]


def _find_main_block(spec):
    funcs = spec.mlProgram.functions
    if "main" not in funcs:
        raise VerifyError("the ML Program has no 'main' function")
    f = funcs["main"]
    return f, dict(f.block_specializations)


def check_spec(model, spec, meta, tensors, rep):
    from coremltools import proto
    info = {}
    ft = proto.FeatureTypes_pb2
    info["specificationVersion"] = spec.specificationVersion
    rep.check("specificationVersion is 8 (iOS 17)", spec.specificationVersion == IOS17_SPEC_VERSION,
              spec.specificationVersion)
    kind = spec.WhichOneof("Type")
    info["modelType"] = kind
    if not rep.check("model is an ML Program (mlProgram)", kind == "mlProgram", kind):
        raise VerifyError(f"model type is {kind}, not mlProgram; nothing more can be checked")
    func, blocks = _find_main_block(spec)
    info["opsets"] = sorted(blocks)
    rep.check("main function opset is CoreML7 (iOS 17)", sorted(blocks) == [IOS17_OPSET] and func.opset == IOS17_OPSET,
              {"opset": func.opset, "blocks": sorted(blocks)})
    info["minimumDeploymentTarget"] = "iOS17" if spec.specificationVersion == IOS17_SPEC_VERSION else None

    # input
    size = int(meta["inputSize"])
    ins = list(spec.description.input)
    desc = {}
    if len(ins) == 1:
        it = ins[0].type
        desc = {"name": ins[0].name, "type": it.WhichOneof("Type")}
        if desc["type"] == "imageType":
            desc.update(width=it.imageType.width, height=it.imageType.height,
                        colorSpace=ft.ImageFeatureType.ColorSpace.Name(it.imageType.colorSpace))
    info["input"] = desc
    rep.check(f"one input '{INPUT_NAME}', ImageType RGB {size}x{size}",
              desc.get("name") == INPUT_NAME and desc.get("type") == "imageType" and desc.get("colorSpace") == "RGB"
              and desc.get("width") == size and desc.get("height") == size, desc)
    MIL_pb2 = proto.MIL_pb2
    prog_in = [(i.name, MIL_pb2.DataType.Name(i.type.tensorType.dataType),
                [d.constant.size for d in i.type.tensorType.dimensions]) for i in func.inputs]
    rep.check("program input is float32 [1, 3, S, S]", prog_in == [(INPUT_NAME, "FLOAT32", [1, 3, size, size])], prog_in)

    # outputs / classifier
    outs = [(o.name, o.type.WhichOneof("Type")) for o in spec.description.output]
    info["outputs"] = outs
    info["predictedFeatureName"] = spec.description.predictedFeatureName
    info["predictedProbabilitiesName"] = spec.description.predictedProbabilitiesName
    ok_outs = (dict(outs).get(spec.description.predictedFeatureName) == "stringType"
               and dict(outs).get(spec.description.predictedProbabilitiesName) == "dictionaryType"
               and len(outs) == 2)
    if ok_outs:
        pd = [o for o in spec.description.output if o.name == spec.description.predictedProbabilitiesName][0]
        ok_outs = pd.type.dictionaryType.WhichOneof("KeyType") == "stringKeyType"
    rep.check("classifier outputs: string label + {string: probability} dictionary", ok_outs, outs)

    # weights: every const tensor with a blob-file value
    block = blocks.get(IOS17_OPSET) or next(iter(blocks.values()))
    # (small tensors, e.g. an 8-channel bias, are stored inline in model.mlmodel, not in weight.bin)
    dtype_counts, inline_counts, blob_params = {}, {}, 0
    const_dtype = {}
    for op in block.operations:
        if op.type != "const":
            continue
        val = op.attributes["val"]
        if val.type.WhichOneof("type") != "tensorType":
            continue  # e.g. the classify op's list of labels
        tt = val.type.tensorType
        dt = MIL_pb2.DataType.Name(tt.dataType)
        const_dtype[op.outputs[0].name] = dt
        n = int(np.prod([d.constant.size for d in tt.dimensions]))
        if val.WhichOneof("value") == "blobFileValue":
            dtype_counts[dt] = dtype_counts.get(dt, 0) + n
            blob_params += n
        elif dt.startswith("FLOAT") and tt.rank > 0:
            inline_counts[dt] = inline_counts.get(dt, 0) + n
    weight_bin = os.path.join(model.weights_dir or "", "weight.bin")
    weight_bytes = os.path.getsize(weight_bin) if os.path.exists(weight_bin) else None
    info["weights"] = {"blobParamsByDtype": dtype_counts, "inlineFloatTensorsByDtype": inline_counts,
                       "weightBinBytes": weight_bytes,
                       "bytesPerParam": round(weight_bytes / blob_params, 4) if weight_bytes and blob_params else None}
    rep.check("every weight in weight.bin is float16", set(dtype_counts) == {"FLOAT16"}, dtype_counts)
    # conv / linear parameters must come from float16 constants (never a float32 const + cast)
    bad = []
    n_param_inputs = 0
    for op in block.operations:
        if op.type in ("conv", "linear", "matmul"):
            for key in ("weight", "bias", "y"):
                if key in op.inputs:
                    for a in op.inputs[key].arguments:
                        if a.WhichOneof("binding") == "name":
                            n_param_inputs += 1
                            if const_dtype.get(a.name) not in ("FLOAT16", None):
                                bad.append((op.type, key, a.name, const_dtype.get(a.name)))
    rep.check("conv/linear weights and biases are float16 constants", not bad and n_param_inputs > 0,
              {"notFloat16": bad[:6], "count": len(bad)} if bad else {"parameterInputs": n_param_inputs})
    # the total of parameters must equal the interchange's (nothing dropped, nothing added)
    # inline float32 tensors are allowed only for the image preprocessing (scale is a scalar, the
    # 3-value bias is the only float32 tensor)
    n_interchange = int(sum(t.size for t in tensors.values()))
    n_fp16 = blob_params + inline_counts.get("FLOAT16", 0)
    rep.check("float16 weight count equals the interchange parameter count; no other float32 tensors than the image bias",
              set(dtype_counts) <= {"FLOAT16"} and n_fp16 == n_interchange
              and inline_counts.get("FLOAT32", 0) <= 3 and not set(inline_counts) - {"FLOAT16", "FLOAT32"},
              {"package": n_fp16, "interchange": n_interchange, "inline": inline_counts})

    # metadata
    md = spec.description.metadata
    ud = dict(md.userDefined)
    norm = None
    try:
        norm = json.loads(ud.get("plantguide.normalization", "null"))
    except ValueError:
        pass
    info["metadata"] = {"author": md.author, "license": md.license, "version": md.versionString,
                        "shortDescription": md.shortDescription,
                        "userDefined": {k: v for k, v in ud.items() if k.startswith("plantguide.")}}
    mean, std = [float(v) for v in meta["mean"]], [float(v) for v in meta["std"]]
    ok_md = (bool(md.author) and bool(md.license) and bool(md.versionString) and bool(md.shortDescription)
             and ud.get("plantguide.architecture") == meta["architecture"]
             and ud.get("plantguide.classes") == str(meta["classes"])
             and bool(ud.get("plantguide.source"))
             and isinstance(norm, dict) and norm.get("mean") == mean and norm.get("std") == std
             and np.allclose(norm.get("imageScale", 0), 1 / 255.0, rtol=1e-9)
             and np.allclose(norm.get("imageBias", [0, 0, 0]), [-m for m in mean], atol=1e-12))
    rep.check("metadata: author, license, version, source, architecture, classes, normalisation", ok_md,
              None if ok_md else info["metadata"])
    return info


def check_program(prog, meta, tensors, rep):
    """Structural checks on the loaded MIL program: preprocessing ops, conv1 folding, labels."""
    from coremltools.converters.mil.mil import types
    f = prog.functions["main"]
    ops = list(f.operations)
    info = {"opCounts": {}}
    for op in ops:
        info["opCounts"][op.op_type] = info["opCounts"].get(op.op_type, 0) + 1
    img = f.inputs[INPUT_NAME]

    # preprocessing: image -> mul(scale) -> add(bias) inside the program
    users = [o for o in ops if any(v is img for v in _input_vars(o))]
    scale = bias = None
    if len(users) == 1 and users[0].op_type == "mul":
        mul = users[0]
        other = mul.inputs["y"] if mul.inputs["x"] is img else mul.inputs["x"]
        scale = other.val
        nxt = [o for o in ops if any(v is mul.outputs[0] for v in _input_vars(o))]
        if len(nxt) == 1 and nxt[0].op_type == "add":
            add = nxt[0]
            other = add.inputs["y"] if add.inputs["x"] is mul.outputs[0] else add.inputs["x"]
            bias = other.val
    mean = np.asarray(meta["mean"], np.float64)
    info["preprocessing"] = {
        "scale": None if scale is None else float(np.asarray(scale).reshape(-1)[0]),
        "bias": None if bias is None else [float(v) for v in np.asarray(bias).reshape(-1)],
        "inProgram": scale is not None and bias is not None,
    }
    rep.check("image preprocessing in the program: mul by 1/255 then add -mean (float32)",
              scale is not None and bias is not None and np.asarray(scale).size == 1
              and abs(float(np.asarray(scale).reshape(-1)[0]) * 255.0 - 1.0) < 1e-6
              and np.asarray(bias).size == 3 and np.allclose(np.asarray(bias, np.float64).reshape(-1), -mean, atol=1e-6)
              and types.builtin_to_string(img.dtype) == "fp32",
              info["preprocessing"])

    # conv1 stores the interchange weights divided by std along the input channels
    convs = [o for o in ops if o.op_type == "conv"]
    first = convs[0] if convs else None
    if first is not None and first.inputs["weight"].val is not None:
        stored = np.asarray(first.inputs["weight"].val)
        want = tensors["conv1.weight"].astype(np.float64) / np.asarray(meta["std"], np.float64)[None, :, None, None]
        # float16 rounding moves a value by at most half an ulp: |w| * 2^-11 for normal numbers,
        # 2^-25 for subnormals; measure the error in units of that bound (<= 1 when exact)
        half_ulp = np.maximum(np.abs(want) * 2.0 ** -11, 2.0 ** -25)
        err = float(np.max(np.abs(stored.astype(np.float64) - want) / half_ulp)) if stored.shape == want.shape else float("inf")
        info["conv1Folding"] = {"dtype": str(stored.dtype), "maxErrInHalfUlps": err}
        rep.check("conv1 weights = interchange conv1.weight / std[c] (within float16 rounding)",
                  stored.dtype == np.float16 and err <= 1.05, info["conv1Folding"])
    else:
        rep.check("conv1 weights = interchange conv1.weight / std[c] (within float16 rounding)", False, "no constant conv found")

    # classifier labels
    cls = [o for o in ops if o.op_type == "classify"]
    labels = list(cls[0].inputs["classes"].val) if cls else []
    labels = [str(l) for l in labels]
    info["classifyLabels"] = len(labels)
    same = labels == list(meta["labels"])
    first_diff = next((i for i, (a, b) in enumerate(zip(labels, meta["labels"])) if a != b), None)
    rep.check(f"classify op labels equal model.json's {len(meta['labels'])} labels, same order", same,
              None if same else {"package": len(labels), "firstMismatch": first_diff})
    return info


def _input_vars(op):
    out = []
    for v in op.inputs.values():
        out.extend(v if isinstance(v, (list, tuple)) else [v])
    return out


def find_logits_var(function):
    """The input of the softmax whose output (possibly through casts) is classify's probabilities."""
    ops = list(function.operations)
    cls = [o for o in ops if o.op_type == "classify"]
    if not cls:
        return None
    var = cls[0].inputs["probabilities"]
    while var.op is not None and var.op.op_type == "cast":
        var = var.op.inputs["x"]
    if var.op is not None and var.op.op_type == "softmax":
        return var.op.inputs["x"]
    return None


def compare(logits, ref, scale):
    d = np.abs(logits.astype(np.float64) - ref.astype(np.float64))
    top5a, top5b = np.argsort(-logits)[:5], np.argsort(-ref)[:5]
    return {
        "maxAbsDiff": float(d.max()),
        "meanAbsDiff": float(d.mean()),
        "maxRelDiff": float(d.max() / scale),
        "top1Equal": bool(top5a[0] == top5b[0]),
        "top1": int(top5a[0]),
        "top1Reference": int(top5b[0]),
        "top5Overlap": int(len(set(top5a.tolist()) & set(top5b.tolist()))),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--package", required=True)
    ap.add_argument("--weights", required=True)
    ap.add_argument("--input", required=True)
    ap.add_argument("--reference", required=True)
    ap.add_argument("--json", action="store_true", help="print only the JSON report")
    ap.add_argument("--no-fp16", action="store_true", help="skip the float16-simulated run")
    ap.add_argument("--logit-tol", type=float, default=0.05)
    ap.add_argument("--fp16-logit-tol", type=float, default=0.10)
    ap.add_argument("--engine-tol", type=float, default=1e-3)
    ap.add_argument("--min-top5", type=int, default=4)
    ap.add_argument("--allow-nonstandard-depth", action="store_true")
    ap.add_argument("--onnxruntime", action="store_true",
                    help="also compare with ONNX Runtime on the interchange weights (pip install onnx onnxruntime)")
    ap.add_argument("--verbose", action="store_true", help="keep coremltools' import warnings")
    a = ap.parse_args(argv)
    quiet_coremltools(a.verbose)
    onnx_mod = ort_mod = None
    if a.onnxruntime:  # fail before any work is done
        try:
            onnx_mod, ort_mod = import_onnx_runtime()
        except ImportError as e:
            print(f"verify_coreml: {e}", file=sys.stderr)
            return 2

    def say(msg):
        if not a.json:
            print(msg)

    import coremltools as ct
    from coremltools.converters.mil.frontend.milproto.load import load as milproto_load

    try:
        meta, tensors = load_interchange(a.weights)
        structure = derive_structure(meta, tensors, a.allow_nonstandard_depth)
        size, n = int(meta["inputSize"]), int(meta["classes"])
        img = np.fromfile(a.input, dtype="<f4")
        if img.size != size * size * 3:
            raise VerifyError(f"{a.input} has {img.size} floats, expected {size}*{size}*3")
        img = img.reshape(size, size, 3).astype(np.float32)
        if img.min() < 0 or img.max() > 255:
            raise VerifyError(f"{a.input} holds values outside 0..255 ({img.min()}..{img.max()})")
        ref = np.fromfile(a.reference, dtype="<f4").astype(np.float32)
        if ref.size != n:
            raise VerifyError(f"{a.reference} has {ref.size} floats, expected {n} logits")
        if not os.path.isdir(a.package):
            raise VerifyError(f"{a.package} is not an .mlpackage directory")
        model = ct.models.MLModel(a.package, skip_model_load=True)
        spec = model.get_spec()
    except (InterchangeError, VerifyError, OSError, ValueError) as e:
        print(f"verify_coreml: cannot read inputs: {e}", file=sys.stderr)
        return 2

    rep = Report()
    result = {"package": os.path.abspath(a.package), "packageSizeBytes": dir_size(a.package),
              "coremltools": ct.__version__, "architecture": meta["architecture"], "classes": n}
    try:
        result["spec"] = check_spec(model, spec, meta, tensors, rep)
        prog = milproto_load(spec, spec.specificationVersion, model.weights_dir)
        result["program"] = check_program(prog, meta, tensors, rep)
        func = prog.functions["main"]
        logits_var = find_logits_var(func)
        feeds = {INPUT_NAME: img.transpose(2, 0, 1)[None].copy()}  # raw pixels 0..255, NCHW, RGB

        scale = float(max(np.abs(ref).max(), 1e-6))
        result["logitScale"] = scale
        runs = {}
        for mode in (["fp32"] if a.no_fp16 else ["fp32", "fp16"]):
            interp = MilInterpreter(func, mode)
            outs = interp.run(feeds)
            label_name = spec.description.predictedFeatureName
            probs_name = spec.description.predictedProbabilitiesName
            probs_dict = outs[probs_name]
            probs = np.array([probs_dict[l] for l in meta["labels"]], np.float64)
            if logits_var is not None:
                logits = np.asarray(interp.env[logits_var.name], np.float32).reshape(-1)
                source = f"softmax input '{logits_var.name}'"
            else:
                logits = np.log(np.maximum(probs, 1e-45)).astype(np.float32)
                source = "log of classLabel_probs"
            runs[mode] = {"logits": logits, "probs": probs, "label": outs[label_name], "source": source,
                          "ops": interp.ops_run}
        result["interpreter"] = {"opsRun": runs["fp32"]["ops"], "logitsFrom": runs["fp32"]["source"]}

        say("running the numpy reference forward pass from the interchange weights")
        npref = numpy_reference(structure, meta, img)

        result["fp32VsReference"] = compare(runs["fp32"]["logits"], ref, scale)
        result["fp32VsNumpy"] = compare(runs["fp32"]["logits"], npref, scale)
        result["numpyVsReference"] = compare(npref, ref, scale)
        if "fp16" in runs:
            result["fp16VsReference"] = compare(runs["fp16"]["logits"], ref, scale)

        r = result["fp32VsReference"]
        order = np.argsort(-ref)
        margin = float(ref[order[0]] - ref[order[1]])
        rep.check(f"fp32 interpreter logits vs REF: max|d| <= {a.logit_tol} x logit scale",
                  r["maxRelDiff"] <= a.logit_tol, {"maxAbsDiff": r["maxAbsDiff"], "limit": a.logit_tol * scale})
        rep.check("fp32 interpreter top-1 equals REF top-1", r["top1Equal"],
                  {"interpreter": r["top1"], "reference": r["top1Reference"], "referenceTop1Margin": margin})
        rep.check(f"fp32 interpreter top-5 overlap with REF >= {a.min_top5}", r["top5Overlap"] >= a.min_top5, r["top5Overlap"])
        r2 = result["fp32VsNumpy"]
        rep.check(f"fp32 interpreter logits vs numpy pass: max|d| <= {a.logit_tol} x logit scale, same top-1",
                  r2["maxRelDiff"] <= a.logit_tol and r2["top1Equal"], {"maxAbsDiff": r2["maxAbsDiff"]})
        r3 = result["numpyVsReference"]
        rep.check(f"numpy float32 pass vs REF: max|d| <= {a.engine_tol} x logit scale",
                  r3["maxRelDiff"] <= a.engine_tol, {"maxAbsDiff": r3["maxAbsDiff"]})
        if "fp16" in runs:
            r4 = result["fp16VsReference"]
            rep.check(f"fp16-simulated interpreter vs REF: max|d| <= {a.fp16_logit_tol} x logit scale, same top-1",
                      r4["maxRelDiff"] <= a.fp16_logit_tol and r4["top1Equal"],
                      {"maxAbsDiff": r4["maxAbsDiff"], "top5Overlap": r4["top5Overlap"]})
        p = runs["fp32"]["probs"]
        want_label = meta["labels"][int(np.argmax(ref))]
        result["classLabel"] = runs["fp32"]["label"]
        result["classLabelReference"] = want_label
        result["probabilitySum"] = float(p.sum())
        result["top1Probability"] = float(p.max())
        rep.check("classLabel is REF's top-1 label and probabilities sum to 1",
                  runs["fp32"]["label"] == want_label and abs(p.sum() - 1.0) < 1e-3,
                  {"classLabel": runs["fp32"]["label"], "sum": float(p.sum())})
        soft = softmax(ref[None].astype(np.float32), -1).reshape(-1)
        result["maxProbabilityDiff"] = float(np.abs(p - soft).max())

        if a.onnxruntime:
            say("running the interchange weights through onnxruntime")
            try:
                ort_logits, provider = onnxruntime_logits(onnx_mod, ort_mod, structure, meta, img)
            except Exception as e:  # a graph onnx rejects or a runtime error: one failed check
                rep.check("onnxruntime forward pass ran", False, f"{type(e).__name__}: {e}")
            else:
                vs_ref = compare(ort_logits, ref, scale)
                vs_cml = compare(runs["fp32"]["logits"], ort_logits, scale)
                result["onnxruntime"] = {
                    "version": ort_mod.__version__,
                    "onnxVersion": onnx_mod.__version__,
                    "opset": ONNX_OPSET,
                    "provider": provider,
                    "logitsMaxAbsDiffVsReference": vs_ref["maxAbsDiff"],
                    "logitsMaxAbsDiffVsCoreML": vs_cml["maxAbsDiff"],
                    "top1Equal": vs_ref["top1Equal"],
                    "top5Overlap": vs_ref["top5Overlap"],
                    "top1EqualVsCoreML": vs_cml["top1Equal"],
                    "top5OverlapVsCoreML": vs_cml["top5Overlap"],
                }
                rep.check(f"onnxruntime float32 logits vs REF: max|d| <= {a.engine_tol} x logit scale",
                          vs_ref["maxRelDiff"] <= a.engine_tol,
                          {"maxAbsDiff": vs_ref["maxAbsDiff"], "limit": a.engine_tol * scale})
                rep.check(f"fp32 interpreter logits vs onnxruntime: max|d| <= {a.logit_tol} x logit scale, same top-1",
                          vs_cml["maxRelDiff"] <= a.logit_tol and vs_cml["top1Equal"],
                          {"maxAbsDiff": vs_cml["maxAbsDiff"], "limit": a.logit_tol * scale,
                           "interpreter": vs_cml["top1"], "onnxruntime": vs_cml["top1Reference"]})
    except VerifyError as e:
        rep.check("interpret the program", False, str(e))
    except Exception as e:  # an unexpected program shape: report it as a failed check, keep the trace
        import traceback
        traceback.print_exc()
        rep.check("verification ran to the end", False, f"{type(e).__name__}: {e}")

    result["checks"] = rep.checks
    result["passed"] = not rep.failures
    if not a.json:
        for c in rep.checks:
            print(("PASS " if c["ok"] else "FAIL ") + c["name"])
    print(json.dumps(result, indent=None if a.json else 1, ensure_ascii=False))
    if rep.failures:
        print("verify_coreml: FAILED: " + "; ".join(
            c["name"] + (f" ({json.dumps(c['detail'], ensure_ascii=False)})" if "detail" in c else "")
            for c in rep.failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
