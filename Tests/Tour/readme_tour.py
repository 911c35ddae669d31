#!/usr/bin/env python3
"""Runs every command of the README's "A short tour" in the order written, on a fresh PLANTGUIDE_HOME.

What a person would have at hand is made here: photos named as in the README (copies of the fixture leaf), a folder
~/Pictures/garden, a downloaded checkpoint for `model inspect`, and two loopback services in place of the internet:
a mirror of small random PlantNet-300K-shaped checkpoints (PLANTGUIDE_MODEL_URL) and the Pl@ntNet stand-in
(PLANTGUIDE_PLANTNET_URL, key in $KEY). A command passes when it exits 0, except `dev plantnet-stub`, which must still
be serving after 3 s. `migrate --to postgres://…` needs a PostgreSQL server of its own and is left out here (the
MigrateCommandTests run it against one).

Usage: readme_tour.py --binary .build/debug/plantguide [--readme README.md]
"""
import argparse
import http.server
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "scripts" / "bench"))


def tour_commands(readme):
    """The shell lines of the tour's code blocks, comments dropped."""
    text = readme.read_text()
    section = text.split("## A short tour", 1)[1].split("\n## ", 1)[0]
    lines = []
    for block in re.findall(r"```sh\n(.*?)```", section, re.S):
        for line in block.splitlines():
            command = re.sub(r"\s+#\s.*$", "", line).strip()
            if command:
                lines.append(command)
    return lines


def make_checkpoints(folder):
    """Small random ResNet18 and ResNet50 with the 1,081 PlantNet-300K classes, as torch.save writes them."""
    import numpy as np
    from classifier_peer import random_resnet, write_torch_zip

    rng = np.random.default_rng(7)
    for arch in ("resnet18", "resnet50"):
        state, _ = random_resnet(arch, 1081, rng, width=8)
        write_torch_zip(state, str(folder / f"{arch}_weights_best_acc.tar"))


def serve_folder(folder):
    handler = type("Mirror", (http.server.SimpleHTTPRequestHandler,), {
        "log_message": lambda *args: None,
        "__init__": lambda self, *a, **k: http.server.SimpleHTTPRequestHandler.__init__(self, *a, directory=str(folder), **k),
    })
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def start_stub(binary, env):
    process = subprocess.Popen([binary, "dev", "plantnet-stub", "--port", "0"], env=env, stdout=subprocess.PIPE, text=True)
    deadline = time.time() + 30
    while time.time() < deadline:
        match = re.search(r"(http://127\.0\.0\.1:\d+)", process.stdout.readline())
        if match:
            return process, match.group(1)
    raise RuntimeError("the Pl@ntNet stand-in did not start")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--readme", default=str(ROOT / "README.md"))
    args = parser.parse_args()
    binary = str(Path(args.binary).resolve())
    work = Path(tempfile.mkdtemp(prefix="plantguide-tour-"))
    mirror = work / "mirror"
    mirror.mkdir()
    make_checkpoints(mirror)
    files = serve_folder(mirror)
    user_home = work / "user"
    (user_home / "Pictures" / "garden").mkdir(parents=True)
    photo = ROOT / "Tests" / "Browser" / "Fixtures" / "leaf.jpg"
    cwd = work / "cwd"
    cwd.mkdir()
    for name in ("leaf.jpg", "flower.jpg", "fern.jpg", "spike.jpg", "new-leaf.jpg"):
        shutil.copy(photo, cwd / name)
    for name in ("one.jpg", "two.jpg"):
        shutil.copy(photo, user_home / "Pictures" / "garden" / name)
    # The checkpoint `model inspect` reads: "downloaded" by the person beforehand.
    shutil.copy(mirror / "resnet50_weights_best_acc.tar", cwd / "resnet50_weights_best_acc.tar")

    env = dict(os.environ, PLANTGUIDE_HOME=str(work / "data"), HOME=str(user_home), NO_COLOR="1", TZ="UTC",
               PLANTGUIDE_MODEL_URL=f"http://127.0.0.1:{files.server_address[1]}/",
               PLANTGUIDE_ZENODO_URL="http://127.0.0.1:9/", PATH=f"{Path(binary).parent}:{os.environ['PATH']}")
    env.pop("PLANTNET_API_KEY", None)
    # The README's outputs are English: the terminal's language would change them.
    env.pop("LC_ALL", None)
    env.pop("LC_MESSAGES", None)
    env["LANG"] = "C.UTF-8"
    stub, stub_url = start_stub(binary, env)
    env.update(PLANTGUIDE_PLANTNET_URL=stub_url, KEY="stub-key")
    failures, ran = [], 0
    try:
        for command in tour_commands(Path(args.readme)):
            if "plantguide migrate --to postgres" in command:
                print(f"  skipped (needs a PostgreSQL server; MigrateCommandTests run it): {command}")
                continue
            ran += 1
            started = time.time()
            if command.startswith("plantguide dev plantnet-stub"):
                # Its own process group, so the shell and the server it starts stop together.
                process = subprocess.Popen(command, shell=True, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                                           stderr=subprocess.PIPE, text=True, start_new_session=True)
                time.sleep(3)
                alive = process.poll() is None
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=10)
                if not alive:
                    failures.append((command, "the stand-in stopped: " + process.stderr.read()[-500:]))
                print(f"  {'ok ' if alive else 'FAIL'} {time.time() - started:5.1f} s  {command}")
                continue
            outcome = subprocess.run(command, shell=True, cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
                                     executable="/bin/bash")
            ok = outcome.returncode == 0
            print(f"  {'ok ' if ok else 'FAIL'} {time.time() - started:5.1f} s  {command}")
            if not ok:
                failures.append((command, f"exit {outcome.returncode}: {(outcome.stderr or outcome.stdout)[-800:]}"))
    finally:
        stub.terminate()
        stub.wait(timeout=10)
        files.shutdown()
        shutil.rmtree(work, ignore_errors=True)
    for command, why in failures:
        print(f"README tour FAILED: {command}\n{why}", file=sys.stderr)
    print(f"README tour: {ran - len(failures)} of {ran} commands ran as written")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
