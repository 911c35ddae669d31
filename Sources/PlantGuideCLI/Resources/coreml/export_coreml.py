#!/usr/bin/env python3
"""Export a batch-norm-folded torchvision-style ResNet to a Core ML classifier (.mlpackage).

Usage:
  export_coreml.py --weights DIR --output OUT.mlpackage
                   [--source TEXT] [--author TEXT] [--license TEXT] [--model-version TEXT]
                   [--allow-nonstandard-depth]

DIR is the PlantGuide interchange directory:
  DIR/model.json  {"architecture": "resnet18"|"resnet34"|"resnet50", "classes": N, "inputSize": 224,
                   "mean": [3 floats], "std": [3 floats], "labels": [N strings],
                   "tensors": [{"name": "conv1.weight", "shape": [...], "file": "conv1.weight.f32"}, ...]}
  DIR/<file>      raw little-endian float32, PyTorch layout ([out, in, kh, kw] for convolutions).
Batch norm is already folded, so every convolution has NAME.weight and NAME.bias. Names follow
torchvision (conv1, layerL.B.convK, layerL.B.downsample, fc). Channel widths, block counts and the
block kind (BasicBlock or Bottleneck) are read from the tensors; the architecture named in
model.json is only cross-checked against the block counts found.

What is built (coremltools MIL builder, no PyTorch):
  * an ML Program, minimum deployment target iOS 17 (specification version 8), compute precision
    float16, so every weight is stored as float16 in weights/weight.bin;
  * input "image": an RGB image of inputSize x inputSize (ImageType, color layout RGB);
  * outputs: "classLabel" (string) and "classLabel_probs" (label -> probability dictionary), the
    softmax of the logits (ClassifierConfig with the labels of model.json).

Normalisation. Core ML's image preprocessing has ONE scale for all channels and a per-channel bias,
while the network expects (x/255 - mean[c]) / std[c]. The export uses scale = 1/255 and
bias[c] = -mean[c] and folds 1/std[c] into conv1's weights along the input-channel axis
(w[:, c] /= std[c]). This is exact, zero padding included: padding (x/255 - mean)/std with zeros is
the same as padding (x/255 - mean) with zeros and dividing afterwards. The metadata of the package
records this (user_defined_metadata "plantguide.normalization").

Prints one line of JSON: path, sizeBytes, classes, precision, and a few more fields.
Needs coremltools 9.x and numpy (no PyTorch). Runs on Linux; nothing here needs Core ML itself.
"""
import argparse
import hashlib
import json
import os
import re
import sys

import numpy as np

EXPECTED_BLOCKS = {
    "resnet18": ([2, 2, 2, 2], "basic"),
    "resnet34": ([3, 4, 6, 3], "basic"),
    "resnet50": ([3, 4, 6, 3], "bottleneck"),
}

DEFAULT_AUTHOR = "PlantGuide (Core ML export of the Pl@ntNet-300K pretrained ResNet, batch norm folded)"
DEFAULT_LICENSE = (
    "Model weights: Pl@ntNet-300K pretrained models (Garcin et al., NeurIPS 2021 Datasets and "
    "Benchmarks, Zenodo record 4726653); class labels: Pl@ntNet-300K metadata. Check their licences "
    "before shipping: see NOTICE.md and Sources/PlantClassifier/Resources/SOURCES.md of PlantGuide."
)
DEFAULT_SOURCE = "Pl@ntNet-300K v1 pretrained weights (Zenodo record 4726653), batch norm folded"
INPUT_NAME = "image"


class InterchangeError(Exception):
    pass


def quiet_coremltools(verbose=False):
    """Call before the first coremltools import. Off macOS, coremltools warns at import that its
    native Core ML bridge (libcoremlpython) is missing, which is expected here (nothing is run
    through Core ML); its conversion passes also draw tqdm progress bars. Both go to stderr."""
    if verbose:
        return
    import logging
    if sys.platform != "darwin":
        logging.getLogger("coremltools").setLevel(logging.ERROR)
    os.environ.setdefault("TQDM_DISABLE", "1")


# ----------------------------------------------------------------------------------------------
# Interchange reading and structure derivation (also imported by verify_coreml.py)
# ----------------------------------------------------------------------------------------------

def load_interchange(weights_dir):
    """Returns (meta, tensors) where tensors maps name -> float32 ndarray of the declared shape."""
    meta_path = os.path.join(weights_dir, "model.json")
    try:
        with open(meta_path, "r", encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        raise InterchangeError(f"cannot read {meta_path}: {e}")
    for key in ("architecture", "classes", "inputSize", "mean", "std", "labels", "tensors"):
        if key not in meta:
            raise InterchangeError(f"model.json lacks '{key}'")
    if len(meta["mean"]) != 3 or len(meta["std"]) != 3:
        raise InterchangeError("mean and std must have 3 values (R, G, B)")
    if any(float(s) <= 0 for s in meta["std"]):
        raise InterchangeError("std values must be positive")
    labels = meta["labels"]
    if len(labels) != int(meta["classes"]):
        raise InterchangeError(f"{len(labels)} labels for {meta['classes']} classes")
    if not all(isinstance(l, str) and l for l in labels):
        raise InterchangeError("labels must be non-empty strings")
    if len(set(labels)) != len(labels):
        raise InterchangeError("labels must be unique (they key the probability dictionary)")
    tensors = {}
    for entry in meta["tensors"]:
        name, shape, fn = entry["name"], [int(d) for d in entry["shape"]], entry["file"]
        if name in tensors:
            raise InterchangeError(f"tensor {name} listed twice")
        path = os.path.join(weights_dir, fn)
        count = int(np.prod(shape)) if shape else 1
        try:
            size = os.path.getsize(path)
        except OSError as e:
            raise InterchangeError(f"tensor {name}: {e}")
        if size != count * 4:
            raise InterchangeError(f"tensor {name}: {fn} has {size} bytes, shape {shape} needs {count * 4}")
        arr = np.fromfile(path, dtype="<f4").reshape(shape).astype(np.float32)
        if not np.all(np.isfinite(arr)):
            raise InterchangeError(f"tensor {name} has non-finite values")
        tensors[name] = arr
    return meta, tensors


def _conv_entry(tensors, name):
    w = tensors.get(name + ".weight")
    b = tensors.get(name + ".bias")
    if w is None or b is None:
        raise InterchangeError(f"convolution {name} needs both {name}.weight and {name}.bias")
    if w.ndim != 4 or b.shape != (w.shape[0],):
        raise InterchangeError(f"convolution {name}: weight {list(w.shape)} / bias {list(b.shape)} do not fit")
    if w.shape[2] != w.shape[3] or w.shape[2] % 2 != 1:
        raise InterchangeError(f"convolution {name}: kernel {w.shape[2]}x{w.shape[3]} is not odd and square")
    return {"name": name, "weight": w, "bias": b, "kernel": w.shape[2], "pad": w.shape[2] // 2}


def derive_structure(meta, tensors, allow_nonstandard_depth=False):
    """Reads the network's structure from the tensor names and shapes.

    Returns {"stem": conv, "blocks": [block...], "fc": (w, b), "kind": "basic"|"bottleneck",
    "counts": [n1..n4]}, each conv a dict with name/weight/bias/kernel/pad/stride, each block
    {"prefix", "stride", "convs": [...], "downsample": conv or None}.
    """
    pattern = re.compile(r"^layer(\d+)\.(\d+)\.(conv\d|downsample)\.(weight|bias)$")
    found = {}
    used = set()
    for name in tensors:
        m = pattern.match(name)
        if m:
            layer, block, part = int(m.group(1)), int(m.group(2)), m.group(3)
            found.setdefault(layer, {}).setdefault(block, set()).add(part)
    if sorted(found) != [1, 2, 3, 4]:
        raise InterchangeError(f"expected layer1..layer4, found layers {sorted(found)}")
    counts = []
    for layer in (1, 2, 3, 4):
        blocks = sorted(found[layer])
        if blocks != list(range(len(blocks))):
            raise InterchangeError(f"layer{layer} block indices are not 0..n-1: {blocks}")
        counts.append(len(blocks))
    parts = {frozenset(p - {"downsample"}) for l in found.values() for p in l.values()}
    if parts == {frozenset({"conv1", "conv2"})}:
        kind = "basic"
    elif parts == {frozenset({"conv1", "conv2", "conv3"})}:
        kind = "bottleneck"
    else:
        raise InterchangeError(f"blocks mix or lack convolutions: {sorted(sorted(p) for p in parts)}")

    arch = meta["architecture"]
    if arch in EXPECTED_BLOCKS:
        want_counts, want_kind = EXPECTED_BLOCKS[arch]
        if want_kind != kind or (want_counts != counts and not allow_nonstandard_depth):
            raise InterchangeError(
                f"model.json says {arch} ({want_kind}, blocks {want_counts}) but the tensors hold "
                f"{kind} blocks {counts}")
    elif not allow_nonstandard_depth:
        raise InterchangeError(f"unknown architecture '{arch}' (expected one of {sorted(EXPECTED_BLOCKS)})")

    stem = _conv_entry(tensors, "conv1")
    stem["stride"] = 2
    if stem["weight"].shape[1] != 3:
        raise InterchangeError(f"conv1 takes {stem['weight'].shape[1]} channels, expected 3 (RGB)")
    used.update({"conv1.weight", "conv1.bias"})
    channels = stem["weight"].shape[0]
    blocks = []
    for layer in (1, 2, 3, 4):
        for b in range(counts[layer - 1]):
            prefix = f"layer{layer}.{b}"
            stride = 2 if (layer > 1 and b == 0) else 1
            names = ["conv1", "conv2"] + (["conv3"] if kind == "bottleneck" else [])
            convs = []
            cin = channels
            for i, n in enumerate(names):
                c = _conv_entry(tensors, f"{prefix}.{n}")
                # BasicBlock: stride on conv1 (3x3); Bottleneck v1.5: stride on conv2 (the 3x3)
                strided = (i == 0) if kind == "basic" else (i == 1)
                c["stride"] = stride if strided else 1
                if c["weight"].shape[1] != cin:
                    raise InterchangeError(f"{c['name']} takes {c['weight'].shape[1]} channels, gets {cin}")
                cin = c["weight"].shape[0]
                convs.append(c)
                used.update({c["name"] + ".weight", c["name"] + ".bias"})
            ds = None
            if "downsample" in found[layer][b]:
                ds = _conv_entry(tensors, f"{prefix}.downsample")
                ds["stride"] = stride
                if ds["kernel"] != 1 or ds["weight"].shape[1] != channels or ds["weight"].shape[0] != cin:
                    raise InterchangeError(f"{prefix}.downsample has shape {list(ds['weight'].shape)}")
                used.update({ds["name"] + ".weight", ds["name"] + ".bias"})
            elif stride != 1 or channels != cin:
                raise InterchangeError(f"{prefix} changes shape but has no downsample")
            blocks.append({"prefix": prefix, "stride": stride, "convs": convs, "downsample": ds})
            channels = cin
    fw, fb = tensors.get("fc.weight"), tensors.get("fc.bias")
    if fw is None or fb is None:
        raise InterchangeError("fc.weight and fc.bias are required")
    classes = int(meta["classes"])
    if fw.shape != (classes, channels) or fb.shape != (classes,):
        raise InterchangeError(f"fc is {list(fw.shape)}/{list(fb.shape)}, expected [{classes}, {channels}]/[{classes}]")
    used.update({"fc.weight", "fc.bias"})
    unused = sorted(set(tensors) - used)
    if unused:
        raise InterchangeError(f"tensors not used by the network: {unused[:8]}")
    return {"stem": stem, "blocks": blocks, "fc": (fw, fb), "kind": kind, "counts": counts,
            "features": channels}


def weights_digest(weights_dir, meta):
    """SHA-256 over model.json and every tensor file in model.json order (provenance only)."""
    h = hashlib.sha256()
    with open(os.path.join(weights_dir, "model.json"), "rb") as f:
        h.update(f.read())
    for entry in meta["tensors"]:
        with open(os.path.join(weights_dir, entry["file"]), "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    return h.hexdigest()


def dir_size(path):
    total = 0
    for root, _, files in os.walk(path):
        for fn in files:
            total += os.path.getsize(os.path.join(root, fn))
    return total


# ----------------------------------------------------------------------------------------------
# MIL program
# ----------------------------------------------------------------------------------------------

def build_program(structure, input_size, std):
    import coremltools as ct
    from coremltools.converters.mil import Builder as mb

    stem = dict(structure["stem"])
    # 1/std folded into conv1 along the input-channel axis (see module docstring)
    folded = stem["weight"].astype(np.float64) / np.asarray(std, np.float64)[None, :, None, None]
    stem["weight"] = folded.astype(np.float32)

    def var_name(name):
        return name.replace(".", "_")

    def conv(x, c, relu):
        p = c["pad"]
        y = mb.conv(x=x, weight=c["weight"], bias=c["bias"], strides=[c["stride"]] * 2,
                    pad_type="custom", pad=[p, p, p, p], dilations=[1, 1], groups=1,
                    name=var_name(c["name"]))
        return mb.relu(x=y, name=var_name(c["name"]) + "_relu") if relu else y

    @mb.program(input_specs=[mb.TensorSpec(shape=(1, 3, input_size, input_size))],
                opset_version=ct.target.iOS17)
    def prog(image):
        x = conv(image, stem, relu=True)
        x = mb.max_pool(x=x, kernel_sizes=[3, 3], strides=[2, 2], pad_type="custom",
                        pad=[1, 1, 1, 1], name="maxpool")
        for blk in structure["blocks"]:
            y = x
            convs = blk["convs"]
            for i, c in enumerate(convs):
                y = conv(y, c, relu=i < len(convs) - 1)
            shortcut = conv(x, blk["downsample"], relu=False) if blk["downsample"] else x
            s = mb.add(x=y, y=shortcut, name=var_name(blk["prefix"]) + "_add")
            x = mb.relu(x=s, name=var_name(blk["prefix"]) + "_out")
        x = mb.reduce_mean(x=x, axes=[2, 3], keep_dims=False, name="avgpool")
        fw, fb = structure["fc"]
        logits = mb.linear(x=x, weight=fw, bias=fb, name="logits")
        return mb.softmax(x=logits, axis=-1, name="probabilities")

    # mb.program names the function input after the Python parameter
    assert INPUT_NAME in prog.functions["main"].inputs
    return prog


def export(weights_dir, output, source=None, author=DEFAULT_AUTHOR, license_text=DEFAULT_LICENSE,
           model_version="1.0", allow_nonstandard_depth=False):
    import coremltools as ct

    meta, tensors = load_interchange(weights_dir)
    structure = derive_structure(meta, tensors, allow_nonstandard_depth)
    size = int(meta["inputSize"])
    mean = [float(v) for v in meta["mean"]]
    std = [float(v) for v in meta["std"]]
    labels = list(meta["labels"])
    source = source or meta.get("source") or DEFAULT_SOURCE

    # float16 storage: a folded batch norm with a tiny variance can give weights beyond float16's
    # range (65504); refuse rather than ship infinities
    fp16_max = float(np.finfo(np.float16).max)
    largest = {}
    for name, arr in tensors.items():
        scale_in = np.asarray(std)[None, :, None, None] if name == "conv1.weight" else 1.0
        largest[name] = float(np.max(np.abs(arr / scale_in))) if arr.size else 0.0
    worst = max(largest, key=largest.get)
    if largest[worst] >= fp16_max:
        raise InterchangeError(f"{worst} holds |w| = {largest[worst]:.6g}, beyond float16's range")

    prog = build_program(structure, size, std)
    scale = 1.0 / 255.0
    bias = [-m for m in mean]
    model = ct.convert(
        prog,
        convert_to="mlprogram",
        inputs=[ct.ImageType(name=INPUT_NAME, shape=(1, 3, size, size), scale=scale, bias=bias,
                             color_layout=ct.colorlayout.RGB, channel_first=True)],
        classifier_config=ct.ClassifierConfig(labels),
        minimum_deployment_target=ct.target.iOS17,
        compute_precision=ct.precision.FLOAT16,
    )

    normalization = {
        "network": "(x/255 - mean[c]) / std[c] on RGB pixels x in 0..255",
        "mean": mean,
        "std": std,
        "imageScale": scale,
        "imageBias": bias,
        "conv1": "weights divided by std[c] along the input-channel axis (w[:, c] /= std[c])",
    }
    counts = structure["counts"]
    model.short_description = (
        f"{meta['architecture']} plant species classifier, {len(labels)} classes, {size}x{size} RGB input. "
        f"Source: {source}. Preprocessing: scale 1/255, bias -mean per channel "
        f"({', '.join(f'{-m:g}' for m in mean)}); 1/std ({', '.join(f'{s:g}' for s in std)}) folded into conv1. "
        f"Outputs classLabel and classLabel_probs (softmax over the logits)."
    )
    model.author = author
    model.license = license_text
    model.version = model_version
    md = model.user_defined_metadata
    md["plantguide.source"] = source
    md["plantguide.architecture"] = meta["architecture"]
    md["plantguide.blockKind"] = structure["kind"]
    md["plantguide.blocks"] = ",".join(str(c) for c in counts)
    md["plantguide.classes"] = str(len(labels))
    md["plantguide.inputSize"] = str(size)
    md["plantguide.normalization"] = json.dumps(normalization, sort_keys=True)
    md["plantguide.weightsSha256"] = weights_digest(weights_dir, meta)
    model.input_description[INPUT_NAME] = (
        f"RGB photo, {size}x{size} (resized and center-cropped by the caller); "
        "scaled by 1/255 and offset by -mean inside the model")
    model.output_description["classLabel"] = "Most probable species label"
    model.output_description["classLabel_probs"] = "Probability of each species label (softmax of the logits)"

    out = os.path.abspath(output)
    model.save(out)
    return {
        "path": out,
        "sizeBytes": dir_size(out),
        "classes": len(labels),
        "precision": "float16",
        "architecture": meta["architecture"],
        "blocks": counts,
        "blockKind": structure["kind"],
        "features": structure["features"],
        "minimumDeploymentTarget": "iOS17",
        "specificationVersion": model.get_spec().specificationVersion,
        "maxAbsWeight": round(largest[worst], 6),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--weights", required=True, help="interchange directory with model.json")
    ap.add_argument("--output", required=True, help="OUT.mlpackage to write")
    ap.add_argument("--source", default=None,
                    help="provenance text for the metadata (default: model.json 'source' or the Pl@ntNet-300K text)")
    ap.add_argument("--author", default=DEFAULT_AUTHOR)
    ap.add_argument("--license", default=DEFAULT_LICENSE, dest="license_text")
    ap.add_argument("--model-version", default="1.0")
    ap.add_argument("--allow-nonstandard-depth", action="store_true",
                    help="accept block counts that differ from the architecture named in model.json")
    ap.add_argument("--verbose", action="store_true", help="keep coremltools' warnings and progress bars")
    a = ap.parse_args(argv)
    quiet_coremltools(a.verbose)
    if not a.output.endswith(".mlpackage"):
        ap.error("--output must end with .mlpackage")
    try:
        summary = export(a.weights, a.output, a.source, a.author, a.license_text, a.model_version,
                         a.allow_nonstandard_depth)
    except InterchangeError as e:
        print(f"export_coreml: bad interchange directory {a.weights}: {e}", file=sys.stderr)
        return 2
    print(json.dumps(summary, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
