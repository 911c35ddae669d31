#!/usr/bin/env python3
"""Two PlantGuide replicas behind nginx, as docs/deploy.md runs them, and one of them killed mid-load.

Starts the Pl@ntNet stub, two `plantguide serve` processes on two loopback ports sharing one data directory (one
collection database and one photo folder), and nginx (the Debian package) balancing round-robin between them. Then,
every request through nginx, so any of them may land on either replica:

1. logs in with an account made by `plantguide user add`;
2. identifies a photo through the stub, saves it as a plant with "This is my plant" (its upload id), adds a second
   photo to the plant, and marks a care task done;
3. reads all of it back from EACH replica directly: the plant, both photos (byte for byte), the care log;
4. logs in as bob, of another household, and finds none of it through nginx or on either replica;
5. runs `plantguide collection list` and `care done` on the same database: the command line sees the plant, and both
   replicas show the care it logged;
6. sends a bounded load of writes (new plants) from 4 threads and kills one replica with SIGKILL midway: nginx must go
   on serving through the other, and every write that was answered 201 must be there afterwards.

With --postgres ADMIN_URL (a PostgreSQL server the script may create a database on, e.g. the test cluster's
PLANTGUIDE_TEST_POSTGRES_URL) the replicas keep everything in a fresh database there instead of the shared SQLite file,
as replicas on several machines do; the database is dropped afterwards.

Bounded: the whole run gives up after --timeout seconds (default 240). Exits non-zero on the first failed check.

Usage: replicas.py --binary .build/debug/plantguide [--postgres postgres://postgres@127.0.0.1:5432/postgres]
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
PASSWORD = "replica passphrase 42"


class Failure(Exception):
    pass


def check(condition, what):
    if not condition:
        raise Failure(what)
    print(f"  ok: {what}")


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(arguments, home, environment, pattern, log):
    """Starts a long-running plantguide command and waits for the address it prints."""
    env = dict(os.environ, PLANTGUIDE_HOME=str(home), NO_COLOR="1")
    env.pop("PLANTNET_API_KEY", None)
    env.update(environment)
    process = subprocess.Popen(arguments, env=env, stdout=subprocess.PIPE, stderr=open(log, "w"), text=True)
    deadline = time.time() + 60
    while time.time() < deadline:
        line = process.stdout.readline()
        if not line:
            if process.poll() is not None:
                raise Failure(f"{' '.join(arguments[1:3])} exited: " + Path(log).read_text()[-2000:])
            continue
        match = re.search(pattern, line)
        if match:
            return process, match.group(1)
    raise Failure(f"{' '.join(arguments[1:3])} did not print its address within 60 s")


def nginx_config(work, port, upstreams):
    servers = "\n".join(f"    server 127.0.0.1:{p} max_fails=1 fail_timeout=10s;" for p in upstreams)
    # As root the workers would run as nobody and could not write the temporary folders under `work`.
    user = "user root;" if os.geteuid() == 0 else ""
    return f"""
{user}
worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log warn;
events {{ worker_connections 256; }}
http {{
  access_log {work}/nginx-access.log;
  client_body_temp_path {work}/nginx-body;
  proxy_temp_path {work}/nginx-proxy;
  fastcgi_temp_path {work}/nginx-fastcgi;
  uwsgi_temp_path {work}/nginx-uwsgi;
  scgi_temp_path {work}/nginx-scgi;
  client_max_body_size 40m;
  upstream plantguide {{
{servers}
  }}
  server {{
    listen 127.0.0.1:{port};
    location / {{
      proxy_pass http://plantguide;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_read_timeout 120s;
    }}
  }}
}}
"""


class Client:
    """A browser-like client: one session cookie and its anti-forgery token."""

    def __init__(self, base):
        self.base = base.rstrip("/")
        self.cookie = None
        self.csrf = None

    def request(self, method, path, body=None, content_type=None, base=None, timeout=60):
        headers = {}
        if self.cookie:
            headers["Cookie"] = f"pg_session={self.cookie}"
        if self.csrf and method not in ("GET", "HEAD"):
            headers["X-CSRF-Token"] = self.csrf
        if content_type:
            headers["Content-Type"] = content_type
        request = urllib.request.Request((base or self.base).rstrip("/") + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                status, data, reply_headers = response.status, response.read(), response.headers
        except urllib.error.HTTPError as error:
            status, data, reply_headers = error.code, error.read(), error.headers
        for value in reply_headers.get_all("Set-Cookie") or []:
            match = re.match(r"pg_session=([^;]*)", value)
            if match:
                self.cookie = match.group(1)
        return status, data

    def json(self, method, path, payload=None, base=None):
        body = json.dumps(payload).encode() if payload is not None else None
        status, data = self.request(method, path, body, "application/json" if body else None, base=base)
        try:
            return status, json.loads(data) if data else None
        except json.JSONDecodeError:
            return status, data.decode(errors="replace")

    def refresh_token(self):
        status, session = self.json("GET", "/api/session")
        check(status == 200, "GET /api/session answers")
        self.csrf = session["csrfToken"]
        return session


def multipart(fields, files):
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in fields:
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    for name, filename, data in files:
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                     f'Content-Type: application/octet-stream\r\n\r\n'.encode() + data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def journey(client, replicas, photo, second_photo):
    """Log in, identify on one replica and save on the other, add a photo, care (through nginx); then read everything
    from each replica."""
    session = client.refresh_token()
    check(session["requiresLogin"] and not session["loggedIn"], "the replicas ask for a log-in")
    status, _ = client.json("POST", "/api/session", {"user": "owner", "password": PASSWORD})
    check(status == 204, f"log in through nginx (got {status})")
    session = client.refresh_token()
    check(session["loggedIn"] and session["user"] == "owner", "the session is logged in, whichever replica answers")

    # Identified on replica 1, saved on replica 2 (same log-in, same anti-forgery token): the upload must be shared.
    body, kind = multipart([("strategy", "plantnet"), ("organ", "leaf")], [("photo", "leaf.jpg", photo)])
    status, result = client.request("POST", "/api/identify", body, kind, base=replicas[0])
    check(status == 200, f"identify on replica 1 through the stub (got {status}: {result[:200]!r})")
    result = json.loads(result)
    check(result["source"] == "plantNetAPI" and result["predictions"], "Pl@ntNet's answer, through the stub")
    species = result["predictions"][0]["scientificName"]
    check(bool(result["uploadId"]), "the answer has an upload id to save it with")

    status, plant = client.json("POST", "/api/collection", {"uploadId": result["uploadId"], "scientificName": species,
                                                            "nickname": "Replicated", "room": "Hall"}, base=replicas[1])
    check(status == 201, f"'This is my plant' saves it on replica 2 (got {status}: {plant})")
    plant_id = plant["id"]

    body, kind = multipart([], [("photo", "second.jpg", second_photo)])
    status, _ = client.request("POST", f"/collection/{plant_id}/photos", body, kind)
    check(status in (200, 303), f"a second photo is added to the plant (got {status})")

    status, tasks = client.json("GET", "/api/care?days=366")
    check(status == 200 and any(t["plantID"] == plant_id for t in tasks), "the plant has care tasks")
    task = next(t for t in tasks if t["plantID"] == plant_id)
    status, _ = client.json("POST", f"/api/care/{task['id']}/done")
    check(status == 204, f"a care task is marked done (got {status})")

    for number, base in enumerate(replicas, 1):
        status, detail = client.json("GET", f"/api/collection/{plant_id}", base=base)
        check(status == 200 and detail["entry"]["nickname"] == "Replicated" and detail["entry"]["scientificName"] == species,
              f"replica {number} has the plant")
        photos = detail.get("photos") or []
        check(len(photos) == 2, f"replica {number} has both photos (has {len(photos)})")
        served = set()
        for entry in photos:
            status, data = client.request("GET", f"/collection/photos/{entry['id']}", base=base)
            check(status == 200 and len(data) > 1000, f"replica {number} serves photo {entry['id'][:12]}")
            served.add(data)
        check(len(served) == 2, f"replica {number} serves two different photos")
        check(len(detail.get("careLog") or []) == 1, f"replica {number} has the care done ({detail.get('careLog')})")
    return plant_id


def other_household(base, replicas, plant_id):
    """Bob, of another household, through nginx and on each replica: alice's plant, photos and care are not found,
    and his collection is empty."""
    bob = Client(base)
    bob.refresh_token()
    status, _ = bob.json("POST", "/api/session", {"user": "bob", "password": PASSWORD})
    check(status == 204, f"bob of the household Joneses logs in (got {status})")
    bob.refresh_token()
    for number, replica in enumerate(replicas, 1):
        status, listed = bob.json("GET", "/api/collection", base=replica)
        check(status == 200 and not any(entry.get("id") == plant_id for entry in (listed or [])),
              f"replica {number} lists none of the owner's plants to bob")
        status, _ = bob.json("GET", f"/api/collection/{plant_id}", base=replica)
        check(status == 404, f"replica {number}: the owner's plant is not found for bob (got {status})")
        status, _ = bob.json("POST", f"/api/care/{plant_id}-water/done", base=replica)
        check(status == 404, f"replica {number}: bob cannot mark the owner's care done (got {status})")
    print("replicas: another household sees nothing of the owner's")


def command_line(binary, env, client, replicas, plant_id):
    """The command line on the replicas' database: it lists the plant the web app saved, and care it logs is on the
    replicas' plant page at once."""
    listed = subprocess.run([binary, "collection", "list", "--json"], env=env, capture_output=True, text=True, timeout=60)
    check(listed.returncode == 0, f"plantguide collection list on the replicas' database ({listed.stderr.strip()[:200]})")
    names = [plant.get("nickname") for plant in json.loads(listed.stdout)]
    check("Replicated" in names, f"the command line lists the plant saved through nginx ({names})")
    done = subprocess.run([binary, "care", "done", str(plant_id), "mist", "--note", "from the command line"], env=env,
                          capture_output=True, text=True, timeout=60)
    check(done.returncode == 0, f"plantguide care done on the replicas' database ({done.stderr.strip()[:200]})")
    for number, base in enumerate(replicas, 1):
        status, detail = client.json("GET", f"/api/collection/{plant_id}", base=base)
        log = [entry.get("text") or "" for entry in (detail.get("careLog") or [])]
        check(status == 200 and any("from the command line" in text for text in log),
              f"replica {number} shows the care the command line logged ({log})")


def load_with_kill(client, replicas, victim, survivor_base, writes=120, threads=4):
    """Writes through nginx from several threads; kills a replica after a third of them."""
    results = []
    lock = threading.Lock()
    counter = iter(range(writes))
    killed = threading.Event()

    def worker():
        while True:
            with lock:
                index = next(counter, None)
            if index is None:
                return
            if index == writes // 3 and not killed.is_set():
                victim.send_signal(signal.SIGKILL)
                killed.set()
            name = f"Load plant {index:03d}"
            try:
                status, body = client.json("POST", "/api/collection", {"scientificName": name, "room": "Load"})
            except OSError as error:
                status, body = 0, str(error)
            with lock:
                results.append((name, status, body, killed.is_set()))

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        for future in [pool.submit(worker) for _ in range(threads)]:
            future.result()
    victim.wait(timeout=10)
    check(victim.returncode == -signal.SIGKILL, "one replica was killed with SIGKILL mid-load")
    committed = {name for name, status, _, _ in results if status == 201}
    after_kill = [status for _, status, _, was_killed in results if was_killed]
    failed = [(name, status) for name, status, _, _ in results if status != 201]
    print(f"  load: {len(results)} writes, {len(committed)} answered 201, {len(failed)} failed {failed[:5]}; "
          f"{len(after_kill)} sent after the kill")
    check(len(after_kill) > 0 and sum(1 for s in after_kill if s == 201) >= len(after_kill) - threads,
          "nginx goes on serving through the other replica (at most one failure per thread, the requests in flight)")
    status, entries = client.json("GET", "/api/collection?room=Load", base=survivor_base)
    check(status == 200, "the surviving replica lists the collection")
    present = {entry["scientificName"] for entry in entries}
    lost = committed - present
    check(not lost, f"no write answered 201 is lost ({len(committed)} committed, {len(lost)} missing: {sorted(lost)[:5]})")
    status, entries = client.json("GET", "/api/collection?room=Load")
    check(status == 200 and {e["scientificName"] for e in entries} >= committed, "nginx still serves the full list")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--photo", default=str(HERE.parent / "Browser" / "Fixtures" / "leaf.jpg"))
    parser.add_argument("--timeout", type=int, default=240)
    parser.add_argument("--postgres", help="an admin URL of a PostgreSQL server to keep the replicas' database on")
    args = parser.parse_args()
    signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(Failure(f"gave up after {args.timeout} s")))
    signal.alarm(args.timeout)
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    work = Path(tempfile.mkdtemp(prefix="plantguide-replicas-"))
    home = work / "home"
    home.mkdir()
    processes = []
    nginx_started = False
    database = None
    try:
        binary = str(Path(args.binary).resolve())
        env = dict(os.environ, PLANTGUIDE_HOME=str(home))
        env.pop("PLANTGUIDE_DATABASE_URL", None)
        shared = {}
        if args.postgres:
            database = create_database(args.postgres)
            shared = {"PLANTGUIDE_DATABASE_URL": database}
            env.update(shared)
        checkpoint = HERE.parent / "PlantClassifierTests" / "Fixtures" / "tiny-resnet18.pth"
        subprocess.run([binary, "model", "import", str(checkpoint), "--arch", "resnet18"],
                       env={k: v for k, v in env.items() if k != "PLANTGUIDE_DATABASE_URL"}, check=True, capture_output=True)
        subprocess.run([binary, "user", "add", "owner"], env=env, input=PASSWORD + "\n", text=True, check=True,
                       capture_output=True)
        subprocess.run([binary, "user", "add", "bob", "--household", "Joneses"], env=env, input=PASSWORD + "\n", text=True,
                       check=True, capture_output=True)
        stub, stub_url = start([binary, "dev", "plantnet-stub", "--port", "0"], home, {}, r"(http://127\.0\.0\.1:\d+)",
                               work / "stub.log")
        processes.append(stub)
        replicas = []
        for number in (1, 2):
            process, base = start([binary, "serve", "--port", "0"], home,
                                  {"PLANTGUIDE_PLANTNET_URL": stub_url, "PLANTNET_API_KEY": "stub-key", **shared},
                                  r"(http://127\.0\.0\.1:\d+/)", work / f"replica{number}.log")
            processes.append(process)
            replicas.append((process, base))
        ports = [int(re.search(r":(\d+)/", base).group(1)) for _, base in replicas]
        port = free_port()
        (work / "nginx.conf").write_text(nginx_config(work, port, ports))
        subprocess.run([nginx, "-p", str(work), "-c", str(work / "nginx.conf")], check=True, capture_output=True)
        nginx_started = True
        print(f"replicas: nginx on {port} balancing {ports}, on " + ("PostgreSQL" if database else "one SQLite file"))
        client = Client(f"http://127.0.0.1:{port}")
        photo = Path(args.photo).read_bytes()
        second = (HERE.parent / "PlantClassifierTests" / "Fixtures").glob("*.jpg")
        second_photo = next((p.read_bytes() for p in second if p.read_bytes() != photo), None)
        if second_photo is None:
            raise Failure("no second JPEG fixture found under Tests/PlantClassifierTests/Fixtures")
        plant_id = journey(client, [base for _, base in replicas], photo, second_photo)
        other_household(f"http://127.0.0.1:{port}", [base for _, base in replicas], plant_id)
        command_line(binary, env, client, [base for _, base in replicas], plant_id)
        load_with_kill(client, [base for _, base in replicas], replicas[0][0], replicas[1][1])
        if database:
            check(not (home / "collection.sqlite").exists(), "nothing was kept in an SQLite file beside PostgreSQL")
            count = subprocess.run(["psql", database, "-Atc", "SELECT count(*) FROM plant"], capture_output=True, text=True)
            check(count.returncode == 0 and int(count.stdout.strip() or 0) >= 2, f"PostgreSQL holds the plants ({count.stdout.strip()})")
        print("replicas: passed")
        return 0
    except (Failure, subprocess.CalledProcessError, OSError) as error:
        print(f"replicas FAILED: {error}", file=sys.stderr)
        for log in sorted(work.glob("*.log")):
            print(f"--- {log.name}\n" + log.read_text(errors="replace")[-1500:], file=sys.stderr)
        return 1
    finally:
        signal.alarm(0)
        if nginx_started:
            subprocess.run([nginx, "-p", str(work), "-c", str(work / "nginx.conf"), "-s", "stop"], capture_output=True)
        for process in processes:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
        if database:
            drop_database(args.postgres, database)
        shutil.rmtree(work, ignore_errors=True)


def create_database(admin_url):
    """A fresh database on the server of `admin_url`; returns its URL."""
    name = "replicas_" + uuid.uuid4().hex[:12]
    subprocess.run(["psql", admin_url, "-v", "ON_ERROR_STOP=1", "-qc", f"CREATE DATABASE {name}"], check=True,
                   capture_output=True)
    return with_database(admin_url, name)


def with_database(url, name):
    """`url` with its database (the path) replaced by `name`, keeping the query."""
    scheme, rest = url.split("://", 1)
    authority, _, tail = rest.partition("/")
    query = tail.partition("?")[2]
    return f"{scheme}://{authority}/{name}" + (f"?{query}" if query else "")


def drop_database(admin_url, database):
    name = database.split("://", 1)[1].partition("/")[2].partition("?")[0]
    subprocess.run(["psql", admin_url, "-qc", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], capture_output=True)


if __name__ == "__main__":
    sys.exit(main())
