#!/usr/bin/env python3
"""Sends every file of the hostile corpus, and generated bombs, to every upload route of a real
`plantguide serve`, and checks that each is refused with a 4xx (never a 5xx, never accepted), that the
server stays up, and that its peak memory stays under 300 MiB.

usage: Tests/Server/hostile_corpus.py --binary .build/debug/plantguide
The corpus is Tests/PlantImagingTests/Fixtures/hostile/ (truncated, damaged, tiny, random and bomb photos).
Standard library only.
"""
import argparse
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "PlantImagingTests" / "Fixtures" / "hostile"
# Every route that takes photos: identify (API and page) and adding photos to a plant (plant 1, made below).
ROUTES = ["/api/identify", "/identify", "/collection/1/photos", "/diagnose"]
# Odd but valid photos the decoder is meant to handle: they may be identified (200) rather than refused.
VALID = {"extreme-aspect.jpg"}
PEAK_LIMIT_MIB = 300


def generated():
    """Bombs made here rather than committed: a PNG claiming 60000 x 60000 pixels,
    a JPEG header with nothing after it, and a multipart part with a long boundary-like line."""
    png_header = bytes.fromhex("89504e470d0a1a0a0000000d49484452") + (60000).to_bytes(4, "big") * 2 + bytes([8, 2, 0, 0, 0])
    return [
        ("claims-60000px.png", png_header + b"\0" * 4),
        ("header-only.jpg", b"\xff\xd8\xff"),
        ("text.jpg", b"--" + b"x" * 10000 + b"\r\n"),
    ]


def multipart(name, data):
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"{name}\"\r\n"
            f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def peak_mib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="plantguide-hostile-"))
    env = dict(os.environ, PLANTGUIDE_HOME=str(home))
    env.pop("PLANTNET_API_KEY", None)
    checkpoint = HERE.parent / "PlantClassifierTests" / "Fixtures" / "tiny-resnet18.pth"
    subprocess.run([args.binary, "model", "import", str(checkpoint), "--arch", "resnet18"], env=env, check=True, capture_output=True)
    subprocess.run([args.binary, "collection", "add", "Monstera deliciosa"], env=env, check=True, capture_output=True)
    # The disease form needs Pl@ntNet: the stand-in, which would answer any photo that got through.
    stub = subprocess.Popen([args.binary, "dev", "plantnet-stub", "--port", "0"], env=env, stdout=subprocess.PIPE, text=True)
    match = re.search(r"(http://127\.0\.0\.1:\d+)", stub.stdout.readline())
    if match is None:
        print("hostile corpus FAILED: the Pl@ntNet stand-in did not start", file=sys.stderr)
        stub.kill()
        return 1
    server_env = dict(env, PLANTGUIDE_PLANTNET_URL=match.group(1), PLANTNET_API_KEY="stub-key")
    server = subprocess.Popen([args.binary, "serve", "--port", "0"], env=server_env, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    failures = []
    try:
        base = None
        deadline = time.time() + 60
        while time.time() < deadline and base is None:
            match = re.search(r"(http://127\.0\.0\.1:\d+/)", server.stdout.readline())
            base = match.group(1) if match else None
        if base is None:
            print("hostile corpus FAILED: the server did not start", file=sys.stderr)
            return 1
        session = urllib.request.urlopen(base + "api/session", timeout=10)
        cookie = session.headers["Set-Cookie"].split(";")[0]
        token = json.load(session)["csrfToken"]
        cases = [(path.name, path.read_bytes()) for path in sorted(CORPUS.iterdir())] + generated()
        sent = 0
        for name, data in cases:
            body, content_type = multipart(name, data)
            for route in ROUTES:
                request = urllib.request.Request(base + route.lstrip("/"), data=body, method="POST", headers={
                    "Cookie": cookie, "X-CSRF-Token": token, "Content-Type": content_type, "Accept": "application/json"})
                try:
                    with urllib.request.urlopen(request, timeout=60) as response:
                        status = response.status
                except urllib.error.HTTPError as error:
                    status = error.code
                except (urllib.error.URLError, ConnectionError) as error:
                    status = f"connection error {error}"
                sent += 1
                if name in VALID and status in (200, 303):
                    continue
                if not (isinstance(status, int) and 400 <= status < 500):
                    failures.append(f"{name} → {route}: {status}")
        # A body over the upload limit is refused from its Content-Length, before it is sent.
        for route in ROUTES:
            connection = http.client.HTTPConnection(base.split("//")[1].rstrip("/"), timeout=30)
            connection.putrequest("POST", route)
            for header, value in {"Cookie": cookie, "X-CSRF-Token": token, "Content-Length": str(26 * 1024 * 1024),
                                  "Content-Type": "multipart/form-data; boundary=b"}.items():
                connection.putheader(header, value)
            connection.endheaders()
            status = connection.getresponse().status
            connection.close()
            sent += 1
            if status != 413:
                failures.append(f"a 26 MB upload → {route}: {status}")
        alive = urllib.request.urlopen(base + "healthz", timeout=10).status == 200
        peak = peak_mib(server.pid)
        if not alive:
            failures.append("the server stopped answering /healthz")
        if peak >= PEAK_LIMIT_MIB:
            failures.append(f"peak memory {peak:.0f} MiB (limit {PEAK_LIMIT_MIB})")
        if failures:
            print("hostile corpus FAILED:\n  " + "\n  ".join(failures), file=sys.stderr)
            return 1
        print(f"hostile corpus: {sent} uploads ({len(cases)} files x {len(ROUTES)} routes, and a 26 MB body): every damaged "
              f"or hostile one refused with a 4xx ({', '.join(sorted(VALID))} is valid and accepted); "
              f"server peak memory {peak:.0f} MiB")
        return 0
    finally:
        stub.terminate()
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
