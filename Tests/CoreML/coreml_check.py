#!/usr/bin/env python3
"""The Core ML export, end to end on the fixture checkpoints (issue #39).

For the tiny ResNet18 (1,081 PlantNet-300K classes) and ResNet50 (37 classes) fixtures: `plantguide model import`,
then `plantguide model export --format coreml --json`, which writes the package with coremltools 9.0 and checks it on
Linux (read back: ML Program, iOS 17, RGB image input with scale 1/255 and bias -mean, classifier with the labels,
float16 weights; the MIL program evaluated by a numpy interpreter against PlantGuide's engine and ONNX Runtime on the
same weights). This script asserts the report and the labels file (`model labels --format plantlabels`).

coremltools, numpy, onnx and onnxruntime are installed into .build-coreml/venv on first use (kept between runs). When
PyPI cannot be reached the check is skipped with a message (exit 0); any other failure fails it.

Usage: coreml_check.py --binary PATH/plantguide [--venv DIR]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "Tests", "PlantClassifierTests", "Fixtures")
PACKAGES = ["coremltools==9.0", "numpy", "onnx", "onnxruntime"]


def fail(message):
    print(f"coreml check: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def pypi_reachable():
    try:
        with urllib.request.urlopen("https://pypi.org/simple/coremltools/", timeout=20) as answer:
            return answer.status == 200
    except OSError:
        return False


def ensure_venv(venv):
    python = os.path.join(venv, "bin", "python")
    probe = "import coremltools, numpy, onnx, onnxruntime"
    if os.path.exists(python) and subprocess.run([python, "-c", probe], capture_output=True).returncode == 0:
        return python
    if not pypi_reachable():
        print("coreml check: SKIPPED: PyPI cannot be reached, so coremltools cannot be installed", file=sys.stderr)
        sys.exit(0)
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    installed = subprocess.run(
        [os.path.join(venv, "bin", "pip"), "install", "--disable-pip-version-check", "--quiet", *PACKAGES],
        capture_output=True, text=True, timeout=600,
    )
    if installed.returncode != 0:
        fail(f"pip could not install {' '.join(PACKAGES)}: {installed.stderr[-800:]}")
    return python


def run(binary, arguments, env, expect=0):
    done = subprocess.run([binary, *arguments], capture_output=True, text=True, env=env, timeout=600)
    if done.returncode != expect:
        fail(f"`plantguide {' '.join(arguments)}` exited {done.returncode} (wanted {expect}):\n{done.stderr[-2000:]}")
    return done


def check(condition, what, report=None):
    if not condition:
        fail(what + ("" if report is None else f"\n{json.dumps(report, indent=1)[:3000]}"))
    print(f"  ok  {what}")


def export(binary, env, work, checkpoint, arch, labels, classes):
    extra = [] if labels is None else ["--labels", labels]
    run(binary, ["model", "import", os.path.join(FIXTURES, checkpoint), "--arch", arch, *extra], env)
    name = f"{arch}-{labels or 'plantnet300k'}"
    package = os.path.join(work, f"{name}.mlpackage")
    report = json.loads(run(binary, ["model", "export", name, "--format", "coreml", "--output", package, "--json"], env).stdout)
    verification = report.get("verification") or {}
    spec = verification.get("spec", {})
    print(f"{name}: {report['export']['sizeBytes']} bytes")
    check(os.path.isdir(package) and os.path.exists(os.path.join(package, "Manifest.json")), f"{name}: the package is written")
    check(verification.get("passed") is True, f"{name}: every check of verify_coreml.py passes", verification.get("checks"))
    check(spec.get("modelType") == "mlProgram" and spec.get("specificationVersion") == 8 and spec.get("minimumDeploymentTarget") == "iOS17",
          f"{name}: an ML Program for iOS 17 (specification version 8)", spec)
    image = spec.get("input", {})
    check(image.get("type") == "imageType" and image.get("colorSpace") == "RGB" and image.get("width") == 224 and image.get("height") == 224,
          f"{name}: an RGB image input of 224x224", image)
    preprocessing = verification.get("program", {}).get("preprocessing", {})
    check(abs(preprocessing.get("scale", 0) - 1 / 255) < 1e-7 and all(
        abs(b + m) < 1e-6 for b, m in zip(preprocessing.get("bias", []), [0.485, 0.456, 0.406])),
        f"{name}: scale 1/255 and bias -mean in the program", preprocessing)
    check(verification.get("program", {}).get("classifyLabels") == classes, f"{name}: a classifier with {classes} labels")
    weights = spec.get("weights", {})
    check(weights.get("blobParamsByDtype", {}).keys() == {"FLOAT16"} and weights.get("bytesPerParam", 9) < 2.1,
          f"{name}: weights stored as float16 ({weights.get('bytesPerParam')} bytes per weight)", weights)
    scale = verification["logitScale"]
    engine, onnx = verification["fp32VsReference"], verification.get("onnxruntime") or {}
    check(engine["maxAbsDiff"] <= 0.01 * scale and engine["top1Equal"] and engine["top5Overlap"] == 5,
          f"{name}: logits within {engine['maxAbsDiff']:.5f} of PlantGuide's engine (scale {scale:.2f}), same top 5", engine)
    check(onnx.get("logitsMaxAbsDiffVsCoreML", 1e9) <= 0.01 * scale and onnx.get("top1EqualVsCoreML") is True,
          f"{name}: within {onnx.get('logitsMaxAbsDiffVsCoreML', float('nan')):.5f} of ONNX Runtime {onnx.get('version')}", onnx)
    check(onnx.get("logitsMaxAbsDiffVsReference", 1e9) <= 1e-3 * scale,
          f"{name}: ONNX Runtime and PlantGuide's engine agree within {onnx.get('logitsMaxAbsDiffVsReference', float('nan')):.2e}", onnx)
    return name


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--venv", default=os.path.join(ROOT, ".build-coreml", "venv"))
    args = parser.parse_args()
    python = ensure_venv(os.path.abspath(args.venv))
    with tempfile.TemporaryDirectory(prefix="plantguide-coreml-check-") as work:
        env = dict(os.environ, PLANTGUIDE_HOME=os.path.join(work, "home"), PLANTGUIDE_COREML_VENV=os.path.dirname(os.path.dirname(python)),
                   NO_COLOR="1")
        export(args.binary, env, work, "tiny-resnet18.pth", "resnet18", None, 1081)
        export(args.binary, env, work, "tiny-resnet50.pth", "resnet50", "index", 37)

        # The labels file of the spec, for the 1,081 classes.
        labels_path = os.path.join(work, "PlantLabels.json")
        model = os.path.join(work, "home", "models", "resnet18-plantnet300k.pgmodel")
        run(args.binary, ["model", "labels", "--model", model, "--format", "plantlabels", "--output", labels_path], env)
        with open(labels_path, encoding="utf-8") as handle:
            labels = json.load(handle)
        entries = labels["labels"]
        check(len(entries) == 1081 and [e["index"] for e in entries] == list(range(1081)), "PlantLabels.json: 1,081 classes in order")
        check(all(set(e) == {"index", "scientificName", "commonNames", "family"} for e in entries), "PlantLabels.json: the spec's keys")
        check(sum(1 for e in entries if e["family"]) == 1081 and sum(1 for e in entries if e["commonNames"]) > 900,
              "PlantLabels.json: every class has a family, most have common names")
        check(bool(labels["version"]) and "PlantNet-300K" in labels["source"], "PlantLabels.json: version and source")

        # Refusals: an existing package without --force, and a package name that is not one.
        package = os.path.join(work, "resnet50-index.mlpackage")
        refused = run(args.binary, ["model", "export", "resnet50-index", "--format", "coreml", "--output", package], env, expect=1)
        check("--force" in refused.stderr, "an existing package is not replaced without --force")
        run(args.binary, ["model", "export", "--format", "coreml", "--output", os.path.join(work, "x.zip")], env, expect=64)
    print("coreml check: passed")


if __name__ == "__main__":
    main()
