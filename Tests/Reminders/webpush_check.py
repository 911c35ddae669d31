#!/usr/bin/env python3
"""Web Push reminders end to end, checked by reference implementations.

`plantguide notify` sends the day's digest to a push service on 127.0.0.1 played by this script. The script is the
browser too: it makes the subscription's keys, hands `notify add webpush` the subscription JSON, and decrypts what
arrives with `http_ece` (the reference implementation of RFC 8188/8291 that pywebpush uses). Before accepting a message
it checks the VAPID JWT (RFC 8292) with `cryptography`: ES256 over the server's public key (the one `notify vapid-key`
prints), the audience the push service's origin, expiry within 24 hours. The push service answers 429 and 410 on cue:
a 429 is retried after its back-off, a 410 turns the channel off. Then, on the real clock, the tokens of a digest's
"Done" and "Tomorrow" buttons are sent back to `plantguide serve` as the service worker sends them (no log-in, no
anti-forgery token): done once (a second tap changes nothing), snoozed, and a changed token refused.

Usage: webpush_check.py --binary .build/debug/plantguide
"""
import argparse
import base64
import json
import os
import stat
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
from reminder_support import Check, running_server
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class PushService:
    """A push service on 127.0.0.1: records each request, answers the next queued status (201 when none)."""

    def __init__(self):
        self.requests = []
        self.answers = []
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                service.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                status = service.answers.pop(0) if service.answers else 201
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"


def verify_vapid(check, headers, public_key_b64, origin, now):
    """The Authorization header's JWT: signed by the server's key, for this origin, expiring within 24 hours."""
    authorization = headers.get("Authorization", "")
    check.expect(authorization.startswith("vapid t="), f"Authorization is VAPID: {authorization[:20]}")
    parts = dict(part.strip().split("=", 1) for part in authorization[len("vapid "):].split(","))
    check.expect(parts.get("k") == public_key_b64, "k= is the key `notify vapid-key` prints")
    token = parts.get("t", "")
    header_b64, claims_b64, signature_b64 = token.split(".")
    header = json.loads(b64url_decode(header_b64))
    claims = json.loads(b64url_decode(claims_b64))
    check.expect(header.get("alg") == "ES256", f"the JWT is ES256: {header}")
    signature = b64url_decode(signature_b64)
    check.expect(len(signature) == 64, "the signature is r||s, 64 bytes")
    public_key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64url_decode(public_key_b64))
    der = utils.encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        public_key.verify(der, f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
        check.expect(True, "the JWT's signature verifies")
    except InvalidSignature:
        check.expect(False, "the JWT's signature verifies")
    check.expect(claims.get("aud") == origin, f"aud is the push service's origin: {claims.get('aud')}")
    exp = claims.get("exp", 0)
    check.expect(now < exp <= now + 24 * 3600, f"exp within 24 h: {exp - now} s")
    check.expect(str(claims.get("sub", "")).startswith(("mailto:", "https:")), f"sub is a contact: {claims.get('sub')}")


def post_json(url, payload):
    request = urllib.request.Request(url, data=json.dumps(payload).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def check_actions(check, binary, service, browser_key, browser_public, auth_secret):
    """A digest's "Done" and "Tomorrow" tokens, sent back to a running server as the service worker does."""
    with tempfile.TemporaryDirectory(prefix="plantguide-actions-") as home:
        env = dict(os.environ, PLANTGUIDE_HOME=home, TZ="UTC", PLANTGUIDE_ALLOW_LOCAL_TARGETS="1", NO_COLOR="1",
                   PLANTGUIDE_VAPID_SUBJECT="mailto:gardener@example.org")
        env.pop("PLANTGUIDE_NOW", None)

        def run(*arguments, stdin=None):
            result = subprocess.run([binary, *arguments], env=env, input=stdin, capture_output=True, text=True,
                                    timeout=120)
            check.expect(result.returncode == 0, f"{' '.join(arguments)}: {result.stderr.strip()[:300]}")
            return result

        today = datetime.now(timezone.utc).date()
        run("collection", "add", "Boston fern", "--room", "Bathroom", "--acquired", str(today - timedelta(days=60)))
        run("care", "done", "1", "water", "--date", str(today - timedelta(days=30)))
        subscription = {"endpoint": service.url("/push/actions-1"),
                        "keys": {"p256dh": b64url(browser_public), "auth": b64url(auth_secret)}}
        run("notify", "add", "webpush", "--subscription", "-", "--at", "00:00", stdin=json.dumps(subscription))
        before = len(service.requests)
        run("notify", "run")
        check.expect(len(service.requests) == before + 1, "the digest of the real day is sent")
        if len(service.requests) != before + 1:
            return
        message = json.loads(http_ece.decrypt(service.requests[-1]["body"], private_key=browser_key,
                                              auth_secret=auth_secret, version="aes128gcm"))
        actions = message.get("actions") or {}
        check.expect(set(actions) == {"done", "tomorrow"}, f"the message carries both buttons' tokens: {list(actions)}")
        if set(actions) != {"done", "tomorrow"}:
            return
        with running_server(binary, env) as base:
            check.expect(base is not None, "plantguide serve starts")
            if base is None:
                return
            def due_water():
                rooms = json.loads(run("care", "due", "--days", "0", "--json").stdout).get("rooms", [])
                return [task for room in rooms for task in room.get("tasks", [])
                        if task.get("task") == "water" and task.get("plantId") == 1]
            check.expect(len(due_water()) == 1, "the fern's watering is due before the tap")
            status, answer = post_json(base + "/reminders/act", {"token": actions["done"]})
            check.expect(status == 200 and answer.get("changed", 0) >= 1, f"Done marks the care done: {status} {answer}")
            check.expect(not due_water(), "after Done the fern's watering is no longer due")
            status, again = post_json(base + "/reminders/act", {"token": actions["done"]})
            check.expect(status == 200 and again.get("changed") == 0, f"a second tap changes nothing: {again}")
            payload, tag = actions["tomorrow"].split(".")
            forged = payload[:-2] + ("A" if payload[-2] != "A" else "B") + payload[-1] + "." + tag
            status, refused = post_json(base + "/reminders/act", {"token": forged})
            check.expect(status == 403 and "not signed" in refused.get("message", refused.get("error", str(refused))),
                         f"a changed token is refused: {status} {refused}")
            # Bad forms (stray percent signs, spaces, no token) are refused, and the server keeps answering.
            for body in (b"token=%", b"token=a b#%zz", b"nothing=1", b"%%%&&=="):
                request = urllib.request.Request(base + "/reminders/act", data=body, method="POST", headers={
                    "Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"})
                try:
                    urllib.request.urlopen(request, timeout=30)
                    status = 200
                except urllib.error.HTTPError as error:
                    status = error.code
                check.expect(status in (400, 403), f"a bad form {body!r} is refused: {status}")
            status, snoozed = post_json(base + "/reminders/act", {"token": actions["tomorrow"]})
            check.expect(status == 200 and snoozed.get("changed", 0) >= 1, f"Tomorrow snoozes: {status} {snoozed}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True)
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    check = Check()
    service = PushService()

    # The browser's side: a P-256 key pair and a 16-byte auth secret.
    browser_key = ec.generate_private_key(ec.SECP256R1())
    browser_public = browser_key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    auth_secret = os.urandom(16)
    endpoint = service.url("/push/v2/subscription-8c1e")
    subscription = {"endpoint": endpoint, "expirationTime": None,
                    "keys": {"p256dh": b64url(browser_public), "auth": b64url(auth_secret)}}

    with tempfile.TemporaryDirectory(prefix="plantguide-webpush-") as home:
        env = dict(os.environ, PLANTGUIDE_HOME=home, TZ="UTC", PLANTGUIDE_HEMISPHERE="north",
                   PLANTGUIDE_NOW="2026-06-01T09:00:00Z", PLANTGUIDE_ALLOW_LOCAL_TARGETS="1",
                   PLANTGUIDE_VAPID_SUBJECT="mailto:gardener@example.org", NO_COLOR="1")

        def run(*arguments, stdin=None, ok=True):
            result = subprocess.run([binary, *arguments], env=env, input=stdin, capture_output=True, text=True,
                                    timeout=120)
            if ok:
                check.expect(result.returncode == 0, f"{' '.join(arguments)}: {result.stderr.strip()[:300]}")
            return result

        run("collection", "add", "Boston fern", "--room", "Bathroom")
        run("care", "done", "1", "water", "--date", "2026-05-25")

        public_key = run("notify", "vapid-key").stdout.strip()
        check.expect(len(b64url_decode(public_key)) == 65, "the VAPID public key is an uncompressed P-256 point")
        key_file = os.path.join(home, "vapid-key.pem")
        mode = stat.S_IMODE(os.stat(key_file).st_mode)
        check.expect(mode == 0o600, f"vapid-key.pem is mode 0600, not {oct(mode)}")
        check.expect(run("notify", "vapid-key").stdout.strip() == public_key, "the key is kept, not made again")

        # Bad subscriptions are refused with a reason and add nothing.
        bad = dict(subscription, keys={"p256dh": b64url(b"\x04" + b"\x01" * 64), "auth": b64url(auth_secret)})
        refused = run("notify", "add", "webpush", "--subscription", "-", stdin=json.dumps(bad), ok=False)
        check.expect(refused.returncode != 0 and "p256dh" in refused.stderr, f"a bad key is refused: {refused.stderr}")
        refused = run("notify", "add", "webpush", "--subscription", "-", stdin="{not json", ok=False)
        check.expect(refused.returncode != 0 and "endpoint" in refused.stderr, "text that is not a subscription is refused")

        subscription_file = os.path.join(home, "subscription.json")
        with open(subscription_file, "w") as handle:
            json.dump(subscription, handle)
        added = run("notify", "add", "webpush", "--subscription", subscription_file, "--at", "08:30")
        listed = run("notify", "channels").stdout + run("notify", "channels", "--json").stdout + added.stdout
        for secret in (b64url(auth_secret), b64url(browser_public), "subscription-8c1e"):
            check.expect(secret not in listed, "the channel list shows no key and no full endpoint")

        # 08:30 UTC: the digest goes out, encrypted for the browser and signed by the server.
        before = int(time.time())
        sent = run("notify", "run", "--now", "2026-06-01T08:30:00Z")
        check.expect("sent (1 task)" in sent.stdout, f"notify run sends: {sent.stdout.strip()}")
        check.expect(len(service.requests) == 1, f"one push request, not {len(service.requests)}")
        if service.requests:
            request = service.requests[0]
            headers = request["headers"]
            check.expect(request["path"] == "/push/v2/subscription-8c1e", "sent to the subscription's endpoint")
            check.expect(headers.get("Content-Encoding") == "aes128gcm", "Content-Encoding: aes128gcm")
            check.expect(int(headers.get("TTL", "0")) > 0, "a TTL is given")
            check.expect(headers.get("Urgency") in ("normal", "high"), f"an Urgency: {headers.get('Urgency')}")
            verify_vapid(check, headers, public_key, service.url(""), before)
            plaintext = http_ece.decrypt(request["body"], private_key=browser_key, auth_secret=auth_secret,
                                         version="aes128gcm")
            message = json.loads(plaintext)
            print("  push payload as decrypted by http_ece:", json.dumps(message))
            check.expect(message.get("title") == "PlantGuide: 1 plant task today", f"title: {message.get('title')}")
            check.expect("Water Boston fern" in message.get("body", ""), f"body: {message.get('body')}")
            check.expect(message.get("tasks") == 1 and message.get("day") == "2026-06-01", "tasks and day")
            check.expect(message.get("url", "").endswith("/care"), f"a tap opens the Care page: {message.get('url')}")

        again = run("notify", "run", "--now", "2026-06-01T09:00:00Z")
        check.expect(len(service.requests) == 1, "sent once a day: a second run sends nothing")

        # The next day the push service is busy (429): tried again after the back-off, then delivered.
        service.answers = [429]
        busy = run("notify", "run", "--now", "2026-06-02T08:30:00Z", ok=False)
        check.expect(busy.returncode != 0 and "429" in busy.stdout, f"a 429 is a failure: {busy.stdout.strip()}")
        channels = json.loads(run("notify", "channels", "--json").stdout)
        check.expect(channels and channels[0]["enabled"], "a busy push service does not turn the channel off")
        run("notify", "run", "--now", "2026-06-02T08:30:30Z")
        check.expect(len(service.requests) == 2, "not retried before its back-off")
        retried = run("notify", "run", "--now", "2026-06-02T08:31:30Z")
        check.expect("sent" in retried.stdout and len(service.requests) == 3, f"retried: {retried.stdout.strip()}")
        if len(service.requests) == 3:
            plaintext = http_ece.decrypt(service.requests[2]["body"], private_key=browser_key, auth_secret=auth_secret,
                                         version="aes128gcm")
            check.expect("Boston fern" in json.loads(plaintext)["body"], "the retried message decrypts")

        # The day after, the subscription is gone (410): the channel is turned off, saying why.
        service.answers = [410]
        run("notify", "run", "--now", "2026-06-03T08:30:00Z", ok=False)
        channels = json.loads(run("notify", "channels", "--json").stdout)
        check.expect(channels and not channels[0]["enabled"] and "410" in channels[0].get("note", ""),
                     f"a 410 turns the channel off: {channels}")
        run("notify", "run", "--now", "2026-06-04T08:30:00Z")
        check.expect(len(service.requests) == 4, "nothing is sent to a channel turned off")

    check_actions(check, binary, service, browser_key, browser_public, auth_secret)
    service.server.shutdown()
    if check.failures:
        print(f"webpush: {len(check.failures)} of {check.count} checks failed", file=sys.stderr)
        return 1
    print(f"webpush: {check.count} checks passed (VAPID verified with cryptography, payloads decrypted by http_ece)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
