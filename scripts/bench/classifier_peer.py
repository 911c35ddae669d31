#!/usr/bin/env python3
"""The classifier benchmark's peer and oracle: ONNX Runtime on the same random weights.

  build  --arch resnet50 --out DIR   full-size random-weight ResNet written twice from the same numpy
                                     arrays: DIR/<arch>.pth in torch.save's zip layout (written by hand,
                                     no torch needed) and DIR/<arch>.onnx; plus DIR/input.f32 (1x3x224x224)
                                     and DIR/photo-12mp.jpg (4000x3000) for the end-to-end row.
  peer   --onnx FILE --input FILE    loads the model in ONNX Runtime, times it, prints JSON with load_ms,
         [--threads 2 --runs 30]     p50_ms, p90_ms, peak_rss_mib and the logits.
  serve  --onnx FILE --input FILE    like peer, but waits on standard input: `run K` times K forwards and
         [--threads 2]               prints their milliseconds as a JSON list, `done` prints the peer
                                     JSON (without timings) and exits. Lets the bench interleave the two
                                     engines so load on the machine hits both alike.
  measure [--runs 5] -- CMD ...      runs CMD several times; prints JSON with each run's seconds and the
                                     largest peak RSS. (A child spawned straight from a big process
                                     inherits that process's ru_maxrss on Linux, so the bench asks
                                     this small one to do it.)

Installs numpy, onnx, onnxruntime and Pillow with pip when missing. Used by plantguide-bench's
`classifier` suite; never by CI.
"""
import argparse
import collections
import io
import json
import os
import pickle
import resource
import subprocess
import sys
import time
import types
import zipfile


def ensure(*modules):
    missing = []
    for module, package in modules:
        try:
            __import__(module)
        except ImportError:
            missing.append(package)
    if missing:
        subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *missing])


LAYOUTS = {
    "resnet18": (False, [2, 2, 2, 2]),
    "resnet34": (False, [3, 4, 6, 3]),
    "resnet50": (True, [3, 4, 6, 3]),
    "resnet101": (True, [3, 4, 23, 3]),
}


def random_resnet(arch, classes, rng, width=64):
    """torchvision ResNet state dict (name -> float32 array, OrderedDict order) with random weights; `width` is the
    stem's channel count (64 in torchvision; smaller makes a tiny network of the same shape for tests)."""
    import numpy as np

    bottleneck, counts = LAYOUTS[arch]
    state = collections.OrderedDict()
    graph = []  # (kind, ...) for the ONNX builder

    def conv(name, cin, cout, k):
        state[name + ".weight"] = (rng.standard_normal((cout, cin, k, k)) * (2.0 / (cin * k * k)) ** 0.5).astype(np.float32)

    def bn(name, n, damp=1.0):
        state[name + ".weight"] = ((0.5 + rng.random(n)) * damp).astype(np.float32)
        state[name + ".bias"] = (rng.standard_normal(n) * 0.1).astype(np.float32)
        state[name + ".running_mean"] = (rng.standard_normal(n) * 0.1).astype(np.float32)
        state[name + ".running_var"] = (0.5 + rng.random(n)).astype(np.float32)
        state[name + ".num_batches_tracked"] = np.array(100, dtype=np.int64)

    conv("conv1", 3, width, 7)
    bn("bn1", width)
    inplanes = width
    expansion = 4 if bottleneck else 1
    for stage, count in enumerate(counts):
        planes = width << stage
        for index in range(count):
            prefix = f"layer{stage + 1}.{index}"
            stride = 2 if stage > 0 and index == 0 else 1
            if bottleneck:
                convs = [(1, inplanes, planes, 1, 1), (2, planes, planes, 3, stride), (3, planes, planes * 4, 1, 1)]
            else:
                convs = [(1, inplanes, planes, 3, stride), (2, planes, planes, 3, 1)]
            for n, cin, cout, k, _ in convs:
                conv(f"{prefix}.conv{n}", cin, cout, k)
                bn(f"{prefix}.bn{n}", cout, 0.3 if n == len(convs) else 1.0)
            downsample = stride != 1 or inplanes != planes * expansion
            if downsample:
                conv(f"{prefix}.downsample.0", inplanes, planes * expansion, 1)
                bn(f"{prefix}.downsample.1", planes * expansion)
            graph.append((prefix, convs, downsample, stride))
            inplanes = planes * expansion
    state["fc.weight"] = (rng.standard_normal((classes, inplanes)) * (1.0 / inplanes) ** 0.5).astype(np.float32)
    state["fc.bias"] = (rng.standard_normal(classes) * 0.1).astype(np.float32)
    return state, graph


def write_torch_zip(state, path):
    """The layout torch.save (>= 1.6) writes: <name>/data.pkl (protocol 2, storages as persistent ids),
    <name>/data/<key> raw little-endian storages, <name>/version, <name>/byteorder."""
    import numpy as np

    # Stand-ins so pickle writes GLOBAL torch._utils _rebuild_tensor_v2 / torch FloatStorage by name.
    torch_module = types.ModuleType("torch")
    utils_module = types.ModuleType("torch._utils")

    def _rebuild_tensor_v2(*args):
        raise RuntimeError("never called")

    _rebuild_tensor_v2.__module__ = "torch._utils"
    _rebuild_tensor_v2.__qualname__ = "_rebuild_tensor_v2"
    utils_module._rebuild_tensor_v2 = _rebuild_tensor_v2
    storages = {}
    for dtype_name in ("FloatStorage", "LongStorage"):
        cls = type(dtype_name, (), {"__module__": "torch"})
        setattr(torch_module, dtype_name, cls)
        storages[dtype_name] = cls
    # A second checkpoint in the same process pickles by the stand-ins the first one registered.
    torch_module = sys.modules.setdefault("torch", torch_module)
    utils_module = sys.modules.setdefault("torch._utils", utils_module)
    _rebuild_tensor_v2 = utils_module._rebuild_tensor_v2
    storages = {name: getattr(torch_module, name) for name in storages}

    class Storage:
        def __init__(self, key, array):
            self.key, self.array = key, array

    class Tensor:
        def __init__(self, storage, shape):
            self.storage, self.shape = storage, shape

    class Writer(pickle.Pickler):
        def persistent_id(self, obj):
            if isinstance(obj, Storage):
                kind = storages["LongStorage" if obj.array.dtype == np.int64 else "FloatStorage"]
                return ("storage", kind, obj.key, "cpu", obj.array.size)
            return None

        def reducer_override(self, obj):
            if isinstance(obj, Tensor):
                shape = tuple(obj.shape)
                strides, step = [], 1
                for size in reversed(shape):
                    strides.insert(0, step)
                    step *= size
                return (_rebuild_tensor_v2, (obj.storage, 0, shape, tuple(strides), False, collections.OrderedDict()))
            return NotImplemented

    name = os.path.splitext(os.path.basename(path))[0]
    tensors = collections.OrderedDict()
    payloads = []
    for index, (key, array) in enumerate(state.items()):
        storage = Storage(str(index), array)
        payloads.append((str(index), array))
        tensors[key] = Tensor(storage, array.shape)
    buffer = io.BytesIO()
    Writer(buffer, protocol=2).dump(tensors)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr(f"{name}/data.pkl", buffer.getvalue())
        archive.writestr(f"{name}/byteorder", "little")
        for key, array in payloads:
            archive.writestr(f"{name}/data/{key}", np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes())
        archive.writestr(f"{name}/version", "3\n")


def write_onnx(state, graph, path):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nodes, inits = [], []
    for key, array in state.items():
        if not key.endswith("num_batches_tracked"):
            inits.append(numpy_helper.from_array(array, key))

    def conv_bn(x, conv, bn, k, stride, relu, out):
        pad = k // 2
        nodes.append(helper.make_node("Conv", [x, conv + ".weight"], [out + "_c"], kernel_shape=[k, k], strides=[stride, stride], pads=[pad] * 4))
        nodes.append(helper.make_node("BatchNormalization", [out + "_c", bn + ".weight", bn + ".bias", bn + ".running_mean", bn + ".running_var"], [out + ("_b" if relu else "")], epsilon=1e-5))
        if relu:
            nodes.append(helper.make_node("Relu", [out + "_b"], [out]))
        return out

    x = conv_bn("input", "conv1", "bn1", 7, 2, True, "stem")
    nodes.append(helper.make_node("MaxPool", [x], ["pool"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]))
    x = "pool"
    for prefix, convs, downsample, stride in graph:
        y = x
        for n, cin, cout, k, s in convs:
            last = n == len(convs)
            y = conv_bn(y, f"{prefix}.conv{n}", f"{prefix}.bn{n}", k, s, not last, f"{prefix}.out{n}")
        shortcut = x
        if downsample:
            shortcut = conv_bn(x, f"{prefix}.downsample.0", f"{prefix}.downsample.1", 1, stride, False, f"{prefix}.ds")
        nodes.append(helper.make_node("Add", [y, shortcut], [prefix + ".sum"]))
        nodes.append(helper.make_node("Relu", [prefix + ".sum"], [prefix + ".relu"]))
        x = prefix + ".relu"
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["gap"]))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"], axis=1))
    nodes.append(helper.make_node("Gemm", ["flat", "fc.weight", "fc.bias"], ["logits"], transB=1))
    classes = state["fc.bias"].shape[0]
    model = helper.make_model(
        helper.make_graph(
            nodes, "resnet",
            [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 224, 224])],
            [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, classes])],
            inits,
        ),
        opset_imports=[helper.make_opsetid("", 13)],
    )
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)


def write_photo(path, rng):
    from PIL import Image
    import numpy as np

    h, w = 3000, 4000
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    base = np.stack([
        120 + 60 * np.sin(xx / 300.0) * np.cos(yy / 200.0),
        150 + 70 * np.cos(xx / 250.0 + yy / 400.0),
        90 + 50 * np.sin((xx + yy) / 350.0),
    ], axis=-1)
    noise = rng.normal(0, 12, size=(h, w, 3)).astype(np.float32)
    Image.fromarray(np.clip(base + noise, 0, 255).astype(np.uint8)).save(path, quality=90)


def build(args):
    ensure(("numpy", "numpy"), ("onnx", "onnx"), ("PIL", "Pillow"))
    import numpy as np

    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(4726653)
    state, graph = random_resnet(args.arch, 1081, rng)
    write_torch_zip(state, os.path.join(args.out, f"{args.arch}.pth"))
    write_onnx(state, graph, os.path.join(args.out, f"{args.arch}.onnx"))
    input_path = os.path.join(args.out, "input.f32")
    if not os.path.exists(input_path):
        rng.standard_normal((1, 3, 224, 224)).astype("<f4").tofile(input_path)
    photo = os.path.join(args.out, "photo-12mp.jpg")
    if not os.path.exists(photo):
        write_photo(photo, rng)


def peer(args):
    ensure(("numpy", "numpy"), ("onnxruntime", "onnxruntime"))
    import numpy as np
    import onnxruntime as ort

    data = np.fromfile(args.input, dtype="<f4").reshape(1, 3, 224, 224)
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    start = time.perf_counter()
    session = ort.InferenceSession(args.onnx, options, providers=["CPUExecutionProvider"])
    load_ms = (time.perf_counter() - start) * 1000
    for _ in range(5):
        logits = session.run(None, {"input": data})[0]
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        session.run(None, {"input": data})
        times.append((time.perf_counter() - start) * 1000)
    times.sort()

    def percentile(p):
        return times[min(len(times) - 1, max(0, int(-(-p * len(times) // 1)) - 1))]

    print(json.dumps({
        "runtime": f"onnxruntime {ort.__version__}",
        "load_ms": load_ms,
        "p50_ms": percentile(0.5),
        "p90_ms": percentile(0.9),
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "logits": [float(v) for v in logits[0]],
    }))


def serve(args):
    ensure(("numpy", "numpy"), ("onnxruntime", "onnxruntime"))
    import numpy as np
    import onnxruntime as ort

    data = np.fromfile(args.input, dtype="<f4").reshape(1, 3, 224, 224)
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    start = time.perf_counter()
    session = ort.InferenceSession(args.onnx, options, providers=["CPUExecutionProvider"])
    load_ms = (time.perf_counter() - start) * 1000
    logits = session.run(None, {"input": data})[0]
    print("ready", flush=True)
    for line in sys.stdin:
        words = line.split()
        if words[:1] == ["run"]:
            times = []
            for _ in range(int(words[1])):
                start = time.perf_counter()
                session.run(None, {"input": data})
                times.append((time.perf_counter() - start) * 1000)
            print(json.dumps(times), flush=True)
        elif words[:1] == ["done"]:
            break
    print(json.dumps({
        "runtime": f"onnxruntime {ort.__version__}",
        "load_ms": load_ms,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "logits": [float(v) for v in logits[0]],
    }), flush=True)


def measure(args):
    command = args.command_line[1:] if args.command_line[:1] == ["--"] else args.command_line
    seconds, statuses = [], []
    for _ in range(args.runs):
        start = time.perf_counter()
        statuses.append(subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode)
        seconds.append(time.perf_counter() - start)
    print(json.dumps({
        "statuses": statuses,
        "seconds": seconds,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
    }))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    b = commands.add_parser("build")
    b.add_argument("--arch", default="resnet50", choices=sorted(LAYOUTS))
    b.add_argument("--out", required=True)
    p = commands.add_parser("peer")
    p.add_argument("--onnx", required=True)
    p.add_argument("--input", required=True)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--runs", type=int, default=30)
    v = commands.add_parser("serve")
    v.add_argument("--onnx", required=True)
    v.add_argument("--input", required=True)
    v.add_argument("--threads", type=int, default=2)
    m = commands.add_parser("measure")
    m.add_argument("--runs", type=int, default=5)
    m.add_argument("command_line", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    {"build": build, "peer": peer, "serve": serve, "measure": measure}[args.command](args)


if __name__ == "__main__":
    main()
