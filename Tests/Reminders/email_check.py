#!/usr/bin/env python3
"""Email reminders end to end, received by a real SMTP server.

An aiosmtpd server on loopback demands STARTTLS (with a certificate for `localhost` from a CA made here, which
PlantGuide is told to trust) and a log-in (AUTH). `plantguide notify` sends a test and the day's digest; Python's
`email` package parses what arrived: the headers (Subject, Date, Message-ID, List-Unsubscribe), both parts (text and
HTML) and each task's "mark done" link. The password never appears in any output. Then, on the real clock, a link from
a digest is opened on a running `plantguide serve`: the page asks first (opening a link changes nothing), its button
marks the task done.

Usage: email_check.py --binary .build/debug/plantguide
"""
import argparse
import datetime
import email
import email.policy
import email.utils
import json
import os
import re
import socket
import ssl
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request

from reminder_support import Check, running_server
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

USER, PASSWORD = "gardener", "S3cret-smtp-pass"


def make_certificates(directory):
    """A CA and a certificate for localhost signed by it; returns (ca file, cert file, key file)."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "PlantGuide test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
          .not_valid_after(now + datetime.timedelta(days=30))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                       content_commitment=False, key_encipherment=False, data_encipherment=False,
                                       key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    paths = [os.path.join(directory, name) for name in ("ca.pem", "cert.pem", "key.pem")]
    with open(paths[0], "wb") as handle:
        handle.write(ca.public_bytes(serialization.Encoding.PEM))
    with open(paths[1], "wb") as handle:
        handle.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(paths[2], "wb") as handle:
        handle.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    return paths


class Mailbox:
    def __init__(self):
        self.messages = []

    async def handle_DATA(self, server, session, envelope):
        self.messages.append({"from": envelope.mail_from, "to": list(envelope.rcpt_tos), "data": envelope.content,
                              "tls": session.ssl is not None, "auth": session.authenticated})
        return "250 OK"


def authenticator(server, session, envelope, mechanism, auth_data):
    ok = isinstance(auth_data, LoginPassword) and auth_data.login == USER.encode() and auth_data.password == PASSWORD.encode()
    # handled=False: aiosmtpd then answers 535 itself (with its default, True, it would answer nothing).
    return AuthResult(success=ok, handled=False)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def parts(message):
    found = {}
    for part in message.walk():
        if part.get_content_maintype() == "text":
            found[part.get_content_type()] = part.get_content()
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True)
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    check = Check()
    outputs = []

    with tempfile.TemporaryDirectory(prefix="plantguide-email-") as home:
        ca_file, cert_file, key_file = make_certificates(home)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert_file, key_file)
        mailbox = Mailbox()
        port = free_port()
        controller = Controller(mailbox, hostname="127.0.0.1", port=port, tls_context=context, require_starttls=True,
                                auth_required=True, authenticator=authenticator, server_hostname="localhost")
        controller.start()
        env = dict(os.environ, PLANTGUIDE_HOME=home, TZ="UTC", PLANTGUIDE_HEMISPHERE="north", NO_COLOR="1",
                   PLANTGUIDE_NOW="2026-06-01T09:00:00Z", PLANTGUIDE_PUBLIC_URL="https://plants.example.org",
                   PLANTGUIDE_SMTP_HOST="localhost", PLANTGUIDE_SMTP_PORT=str(port), PLANTGUIDE_SMTP_SECURITY="starttls",
                   PLANTGUIDE_SMTP_USER=USER, PLANTGUIDE_SMTP_PASSWORD=PASSWORD,
                   PLANTGUIDE_SMTP_FROM="plants@example.org", PLANTGUIDE_SMTP_CA_FILE=ca_file)

        def run(*arguments, ok=True, environment=None):
            result = subprocess.run([binary, *arguments], env=environment or env, capture_output=True, text=True,
                                    timeout=120)
            outputs.append(result.stdout + result.stderr)
            if ok:
                check.expect(result.returncode == 0, f"{' '.join(arguments)}: {result.stderr.strip()[:300]}")
            return result

        try:
            run("collection", "add", "Boston fern", "--room", "Bathroom")
            run("care", "done", "1", "water", "--date", "2026-05-25")
            refused = run("notify", "add", "email", "not-an-address", ok=False)
            check.expect(refused.returncode != 0 and "address" in refused.stderr, "a bad address is refused")
            run("notify", "add", "email", "alice@example.org", "--at", "08:30")
            listed = run("notify", "channels").stdout + run("notify", "channels", "--json").stdout
            check.expect("alice@" not in listed and "a…@example.org" in listed, f"the address is shown shortened: {listed}")

            tested = run("notify", "test", "1")
            check.expect(len(mailbox.messages) == 1, f"the test email arrived ({len(mailbox.messages)})")
            if mailbox.messages:
                first = mailbox.messages[0]
                check.expect(first["tls"] and first["auth"], "it came over STARTTLS, logged in")
                check.expect(first["to"] == ["alice@example.org"] and first["from"] == "plants@example.org", "envelope")

            sent = run("notify", "run", "--now", "2026-06-01T08:30:00Z")
            check.expect("sent (1 task)" in sent.stdout, f"notify run sends the digest: {sent.stdout.strip()}")
            check.expect(len(mailbox.messages) == 2, f"the digest arrived ({len(mailbox.messages)})")
            if len(mailbox.messages) == 2:
                message = email.message_from_bytes(mailbox.messages[1]["data"], policy=email.policy.default)
                print("  digest email as received:")
                for name in ("Subject", "From", "To", "Date", "Message-ID", "List-Unsubscribe", "Content-Type"):
                    print(f"    {name}: {message[name]}")
                check.expect(message["Subject"] == "PlantGuide: 1 plant task today", f"Subject: {message['Subject']}")
                date = email.utils.parsedate_to_datetime(message["Date"])
                check.expect(date is not None and date.year == 2026, f"Date parses: {message['Date']}")
                check.expect(re.fullmatch(r"<[^<>@\s]+@example\.org>", message["Message-ID"] or "") is not None,
                             f"Message-ID: {message['Message-ID']}")
                check.expect("https://plants.example.org/settings" in (message["List-Unsubscribe"] or ""),
                             f"List-Unsubscribe: {message['List-Unsubscribe']}")
                check.expect(message.get_content_type() == "multipart/alternative", "text and HTML alternatives")
                bodies = parts(message)
                text, html = bodies.get("text/plain", ""), bodies.get("text/html", "")
                print("    text part:\n      " + text.replace("\n", "\n      "))
                check.expect("Bathroom" in text and "- Water Boston fern" in text, "the text lists the task by room")
                check.expect("<strong>Boston fern</strong>" in html and "<h2>Bathroom</h2>" in html,
                             "the HTML lists the task by room")
                links = re.findall(r"https://plants\.example\.org/reminders/act\?token=[A-Za-z0-9._%-]+", text)
                check.expect(len(links) == 1 and links[0] in html.replace("&amp;", "&"),
                             f"each task has a mark-done link in both parts: {links}")

            again = run("notify", "run", "--now", "2026-06-01T10:00:00Z")
            check.expect(len(mailbox.messages) == 2, "one digest a day")

            # A wrong password: refused at the log-in, said so, never printed.
            wrong = dict(env, PLANTGUIDE_SMTP_PASSWORD="Wrong-pass-123")
            failed = run("notify", "test", "1", ok=False, environment=wrong)
            check.expect(failed.returncode != 0 and "log-in" in (failed.stdout + failed.stderr),
                         f"a wrong password fails at the log-in: {(failed.stdout + failed.stderr).strip()[:200]}")
            # Mail in the clear only to a relay on this machine.
            clear = dict(env, PLANTGUIDE_SMTP_SECURITY="none", PLANTGUIDE_SMTP_HOST="mail.example.org")
            unsafe = run("notify", "run", ok=False, environment=clear)
            check.expect(unsafe.returncode != 0 and "none is only for a relay" in unsafe.stderr,
                         f"security none to another machine is refused: {unsafe.stderr.strip()[:200]}")

            check_link(check, binary, env, mailbox, run)
        finally:
            controller.stop()

    for output in outputs:
        check.expect(PASSWORD not in output and "Wrong-pass-123" not in output, "no output shows the password")
    if check.failures:
        print(f"email: {len(check.failures)} of {check.count} checks failed", file=sys.stderr)
        return 1
    print(f"email: {check.count} checks passed (aiosmtpd with STARTTLS and AUTH; parsed by Python's email package)")
    return 0


def check_link(check, binary, base_env, mailbox, run):
    """On the real clock: a digest's mark-done link opened on a running server asks, and its button marks done."""
    with tempfile.TemporaryDirectory(prefix="plantguide-email-link-") as home:
        env = dict(base_env, PLANTGUIDE_HOME=home)
        env.pop("PLANTGUIDE_NOW", None)
        today = datetime.datetime.now(datetime.timezone.utc).date()
        run("collection", "add", "Boston fern", "--acquired", str(today - datetime.timedelta(days=60)), environment=env)
        run("care", "done", "1", "water", "--date", str(today - datetime.timedelta(days=30)), environment=env)
        run("notify", "add", "email", "bob@example.org", "--at", "00:00", environment=env)
        before = len(mailbox.messages)
        run("notify", "run", environment=env)
        check.expect(len(mailbox.messages) == before + 1, "the real day's digest arrived")
        if len(mailbox.messages) != before + 1:
            return
        message = email.message_from_bytes(mailbox.messages[-1]["data"], policy=email.policy.default)
        links = re.findall(r"https://plants\.example\.org(/reminders/act\?token=[A-Za-z0-9._%-]+)",
                           parts(message).get("text/plain", ""))
        check.expect(len(links) >= 1, f"the digest has mark-done links: {links}")
        if not links:
            return
        with running_server(binary, env) as base:
            check.expect(base is not None, "plantguide serve starts")
            if base is None:
                return
            page = urllib.request.urlopen(base + links[0], timeout=30).read().decode()
            check.expect("Mark done" in page and 'method="post"' in page, "opening the link asks first")
            due = json.loads(run("care", "due", "--days", "0", "--json", environment=env).stdout)
            check.expect(any(t["task"] == "water" for r in due["rooms"] for t in r["tasks"]),
                         "opening the link changed nothing")
            token = urllib.parse.parse_qs(urllib.parse.urlparse(links[0]).query)["token"][0]
            form = urllib.parse.urlencode({"token": token}).encode()
            request = urllib.request.Request(base + "/reminders/act", data=form, method="POST",
                                             headers={"Content-Type": "application/x-www-form-urlencoded"})
            answer = urllib.request.urlopen(request, timeout=30).read().decode()
            check.expect("1 task marked done" in answer, f"the button marks it done: {answer[-300:]}")
            due = json.loads(run("care", "due", "--days", "0", "--json", environment=env).stdout)
            check.expect(not any(t["task"] == "water" for r in due["rooms"] for t in r["tasks"]),
                         "the watering is no longer due")


if __name__ == "__main__":
    sys.exit(main())
