import Crypto
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import PlantGuideCore
import PlantStore

/// How a message reaches the SMTP server: TLS from the first byte (port 465), upgraded with STARTTLS (port 587), or in
/// the clear (only to a relay on this machine).
public enum SMTPSecurity: String, Sendable, Codable, CaseIterable {
    case starttls, tls, none
}

/// Why an email could not be sent: one case per stage, so a failure says where it happened and never what was sent.
public struct SMTPError: Error, Sendable, CustomStringConvertible {
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}

/// The SMTP server reminders go out through, from the environment (`PLANTGUIDE_SMTP_*`). The password is kept here and
/// never encoded, logged or printed.
public struct SMTPSettings: Sendable {
    public var host: String
    public var port: Int
    public var security: SMTPSecurity
    public var user: String?
    public var password: String?
    /// The sender address, e.g. `plants@example.org`.
    public var from: String
    /// A PEM file of certificates to trust besides the system's (a private CA; the tests' own).
    public var trustedCertificates: String?

    /// Settings given in full.
    public init(
        host: String, port: Int, security: SMTPSecurity, user: String? = nil, password: String? = nil, from: String,
        trustedCertificates: String? = nil
    ) {
        self.host = host
        self.port = port
        self.security = security
        self.user = user
        self.password = password
        self.from = from
        self.trustedCertificates = trustedCertificates
    }

    /// The environment variables read, and what each holds.
    public static let variables: [(String, String)] = [
        ("PLANTGUIDE_SMTP_HOST", "the SMTP server's name (email reminders are off without it)"),
        ("PLANTGUIDE_SMTP_PORT", "its port (default 587 for starttls, 465 for tls, 25 for none)"),
        ("PLANTGUIDE_SMTP_SECURITY", "starttls (default), tls, or none (only for a relay on this machine)"),
        ("PLANTGUIDE_SMTP_USER", "the user name to log in with (AUTH PLAIN or LOGIN), if the server wants one"),
        ("PLANTGUIDE_SMTP_PASSWORD", "its password (never printed)"),
        ("PLANTGUIDE_SMTP_FROM", "the sender address, e.g. plants@example.org"),
        ("PLANTGUIDE_SMTP_CA_FILE", "a PEM file of certificates to trust besides the system's"),
    ]

    /// The settings the environment gives; `nil` when no host is set (email is off); throws when they are incomplete or
    /// unsafe.
    public static func from(environment: [String: String]) throws(SMTPError) -> SMTPSettings? {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard let host = value("PLANTGUIDE_SMTP_HOST") else { return nil }
        let securityText = value("PLANTGUIDE_SMTP_SECURITY") ?? "starttls"
        guard let security = SMTPSecurity(rawValue: securityText.lowercased()) else {
            throw SMTPError("PLANTGUIDE_SMTP_SECURITY must be starttls, tls or none, not '\(securityText)'")
        }
        let defaultPort = switch security {
        case .starttls: 587
        case .tls: 465
        case .none: 25
        }
        let port = value("PLANTGUIDE_SMTP_PORT").map { Int($0) } ?? defaultPort
        guard let port, (1...65_535).contains(port) else { throw SMTPError("PLANTGUIDE_SMTP_PORT must be a port number") }
        guard let from = value("PLANTGUIDE_SMTP_FROM"), ReminderRules.isEmailAddress(from) else {
            throw SMTPError("PLANTGUIDE_SMTP_FROM must be the sender's address, e.g. plants@example.org")
        }
        let user = value("PLANTGUIDE_SMTP_USER"), password = value("PLANTGUIDE_SMTP_PASSWORD")
        if security == .none {
            guard isLoopback(host) else {
                throw SMTPError("PLANTGUIDE_SMTP_SECURITY=none is only for a relay on this machine (localhost), not \(host)")
            }
        }
        if (user == nil) != (password == nil) {
            throw SMTPError("set both PLANTGUIDE_SMTP_USER and PLANTGUIDE_SMTP_PASSWORD, or neither")
        }
        return SMTPSettings(
            host: host, port: port, security: security, user: user, password: password, from: from,
            trustedCertificates: value("PLANTGUIDE_SMTP_CA_FILE")
        )
    }

    static func isLoopback(_ host: String) -> Bool {
        let lower = host.lowercased()
        if lower == "localhost" || lower == "::1" || lower == "[::1]" { return true }
        let parts = lower.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        return parts.count == 4 && parts[0] == 127 && parts.allSatisfy { $0.map { (0...255).contains($0) } ?? false }
    }
}

/// A reminder as an email: plain text and HTML of the same digest, the headers mail clients and filters expect.
public struct EmailMessage: Sendable {
    public var from: String
    public var to: String
    public var subject: String
    public var text: String
    public var html: String
    public var date: Date
    /// `<…@domain>`.
    public var messageID: String
    /// The `List-Unsubscribe` target, e.g. `<https://plants.example.org/settings#reminders>`.
    public var unsubscribe: String

    /// The message as sent (CRLF line ends, both parts base64 so no line is too long), before dot-stuffing.
    public func rendered() -> String {
        let boundary = "plantguide-" + UUID().uuidString.lowercased()
        var lines = [
            "From: PlantGuide <\(from)>",
            "To: <\(to)>",
            "Subject: \(Self.encodedHeader(subject))",
            "Date: \(Self.dateFormatter.string(from: date))",
            "Message-ID: \(messageID)",
            "List-Unsubscribe: \(unsubscribe)",
            "Auto-Submitted: auto-generated",
            "MIME-Version: 1.0",
            "Content-Type: multipart/alternative; boundary=\"\(boundary)\"",
            "",
        ]
        for (type, body) in [("text/plain", text), ("text/html", html)] {
            lines += [
                "--\(boundary)", "Content-Type: \(type); charset=utf-8", "Content-Transfer-Encoding: base64", "",
            ]
            lines += Self.wrapped(Data(body.utf8).base64EncodedString())
        }
        lines += ["--\(boundary)--", ""]
        return lines.joined(separator: "\r\n")
    }

    /// A header value as RFC 2047 encoded words when it is not plain ASCII.
    static func encodedHeader(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value > 0x7E }) else { return text }
        return "=?utf-8?b?" + Data(text.utf8).base64EncodedString() + "?="
    }

    private static func wrapped(_ text: String) -> [String] {
        var lines: [String] = []
        var index = text.startIndex
        while index < text.endIndex {
            let end = text.index(index, offsetBy: 76, limitedBy: text.endIndex) ?? text.endIndex
            lines.append(String(text[index..<end]))
            index = end
        }
        return lines
    }

    private static let dateFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        return formatter
    }()
}

extension EmailMessage {
    /// The email of a digest: room by room, each task with a link that marks it done (signed, valid 36 hours) when the
    /// server's public address is known.
    public init(digest: ReminderDigest, to: String, from: String, publicURL: URL?, actionKey: SymmetricKeyBox?, now: Date) {
        self.from = from
        self.to = to
        subject = "PlantGuide: \(digest.title)"
        date = now
        let domain = from.split(separator: "@").last.map(String.init) ?? "localhost"
        messageID = "<\(UUID().uuidString.lowercased()).\(digest.day)@\(domain)>"
        unsubscribe = publicURL.map { "<\($0.appendingPathComponent("settings").absoluteString)#reminders>" }
            ?? "<mailto:\(from)?subject=Stop%20plant%20reminders>"

        func link(_ item: ReminderDigest.Item) -> String? {
            guard let publicURL, let key = actionKey?.key else { return nil }
            var one = digest
            one.items = [item]
            guard let token = ReminderActionToken.tokens(for: one, key: key, now: now)?["done"] else { return nil }
            var components = URLComponents(url: publicURL.appendingPathComponent("reminders/act"), resolvingAgainstBaseURL: false)
            components?.queryItems = [URLQueryItem(name: "token", value: token)]
            return components?.url?.absoluteString
        }

        var textLines = ["\(digest.title) (\(digest.day))."]
        var htmlRooms: [String] = []
        var room: String?? = .none
        var roomItems: [String] = []
        func closeRoom() {
            if case .some(let name) = room {
                htmlRooms.append("<h2>\(HTMLText.escape(name ?? "No room"))</h2><ul>\(roomItems.joined())</ul>")
            }
            roomItems = []
        }
        for item in digest.items {
            if case .some(let current) = room, current == item.room {
                // Same room.
            } else {
                closeRoom()
                room = .some(item.room)
                textLines += ["", item.room ?? "No room"]
            }
            let late = item.overdueDays > 0 ? " (\(counted(item.overdueDays, "day")) overdue)" : ""
            let done = link(item)
            textLines.append("- \(item.action) \(item.plant)\(late)" + (done.map { "\n  Done: \($0)" } ?? ""))
            let button = done.map { " <a href=\"\(HTMLText.escape($0))\">Mark done</a>" } ?? ""
            roomItems.append("<li>\(HTMLText.escape(item.action)) <strong>\(HTMLText.escape(item.plant))</strong>\(HTMLText.escape(late))\(button)</li>")
        }
        closeRoom()
        let care = digest.link
        if let care { textLines += ["", "Open the Care page: \(care)"] }
        textLines += ["", "You get this because a reminder was set up in PlantGuide's Settings; remove it there to stop."]
        text = textLines.joined(separator: "\n")
        html = """
            <!doctype html><html><head><meta charset="utf-8"><title>\(HTMLText.escape(subject))</title></head>\
            <body><h1>\(HTMLText.escape(digest.title))</h1><p>\(digest.day)</p>\(htmlRooms.joined())\
            \(care.map { "<p><a href=\"\(HTMLText.escape($0))\">Open the Care page</a></p>" } ?? "")\
            <p>You get this because a reminder was set up in PlantGuide's Settings; remove it there to stop.</p></body></html>
            """
    }
}

/// A symmetric key carried across concurrency domains (swift-crypto's key type is an immutable value it does not mark
/// `Sendable`).
public struct SymmetricKeyBox: @unchecked Sendable {
    public let key: SymmetricKey

    /// Wraps `key`.
    public init(_ key: SymmetricKey) { self.key = key }
}

/// A minimal SMTP client (RFC 5321) for one message at a time: EHLO, STARTTLS (RFC 3207) or TLS from the start, AUTH
/// PLAIN or LOGIN (RFC 4954), MAIL, RCPT, DATA with dot-stuffing, QUIT. Certificates are checked against the system's
/// roots (and `PLANTGUIDE_SMTP_CA_FILE`'s).
public enum SMTPClient {
    /// Sends `message` through `settings`' server; throws what went wrong, at which step.
    public static func send(_ message: EmailMessage, settings: SMTPSettings) async throws(SMTPError) {
        let session: SMTPSession
        do {
            session = try await SMTPSession.connect(settings)
        } catch let error as SMTPError {
            throw error
        } catch {
            throw SMTPError("could not connect to \(settings.host):\(settings.port) (\(type(of: error)))")
        }
        do {
            try await session.deliver(message, settings: settings)
            await session.close()
        } catch let error as SMTPError {
            await session.close()
            throw error
        } catch {
            await session.close()
            throw SMTPError("the SMTP exchange failed (\(type(of: error)))")
        }
    }
}

/// One connection to an SMTP server.
final class SMTPSession: Sendable {
    private let channel: any Channel
    private let lines: AsyncStream<String>
    private let tlsContext: NIOSSLContext?

    private init(channel: any Channel, lines: AsyncStream<String>, tlsContext: NIOSSLContext?) {
        self.channel = channel
        self.lines = lines
        self.tlsContext = tlsContext
    }

    static func tlsContext(_ settings: SMTPSettings) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let file = settings.trustedCertificates { configuration.additionalTrustRoots = [.file(file)] }
        return try NIOSSLContext(configuration: configuration)
    }

    static func connect(_ settings: SMTPSettings) async throws -> SMTPSession {
        let context = settings.security == .none ? nil : try tlsContext(settings)
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let hostname = Self.serverName(settings.host)
        let implicitTLS = settings.security == .tls
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(15))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if implicitTLS, let context {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: hostname))
                    }
                    try channel.pipeline.syncOperations.addHandler(SMTPLineHandler(continuation: continuation))
                }
            }
            .connect(host: settings.host, port: settings.port).get()
        return SMTPSession(channel: channel, lines: stream, tlsContext: context)
    }

    /// The name to check the certificate against: `nil` for an address (SNI takes names only).
    private static func serverName(_ host: String) -> String? {
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        if bare.contains(":") || bare.split(separator: ".").allSatisfy({ Int($0) != nil }) { return nil }
        return bare
    }

    func deliver(_ message: EmailMessage, settings: SMTPSettings) async throws {
        var iterator = lines.makeAsyncIterator()
        var linesRead = 0
        func reply(_ step: String, expecting codes: Set<Int>) async throws -> [String] {
            var received: [String] = []
            while true {
                guard let line = await iterator.next() else { throw SMTPError("the server closed the connection (\(step))") }
                linesRead += 1
                received.append(line)
                if line.count < 4 || line[line.index(line.startIndex, offsetBy: 3)] != "-" { break }
                guard received.count < 100 else { throw SMTPError("the server's answer to \(step) never ended") }
            }
            let code = received.last.flatMap { Int($0.prefix(3)) } ?? 0
            guard codes.contains(code) else {
                // The server's words, cut: they may say why (a refused address), never our secrets.
                let said = received.last.map { String($0.prefix(200)) } ?? ""
                throw SMTPError("the server refused \(step): \(said)")
            }
            return received
        }
        func command(_ text: String, _ step: String, expecting codes: Set<Int>) async throws -> [String] {
            try await write(text + "\r\n")
            return try await reply(step, expecting: codes)
        }

        _ = try await reply("the greeting", expecting: [220])
        let helo = "plantguide.invalid"
        var extensions = try await command("EHLO \(helo)", "EHLO", expecting: [250])
        if settings.security == .starttls {
            guard extensions.contains(where: { $0.dropFirst(4).uppercased().hasPrefix("STARTTLS") }) else {
                throw SMTPError("the server does not offer STARTTLS (set PLANTGUIDE_SMTP_SECURITY=tls for port 465)")
            }
            _ = try await command("STARTTLS", "STARTTLS", expecting: [220])
            guard let tlsContext else { throw SMTPError("no TLS context") }
            // Anything the server sent after its 220, before TLS, could be an attacker's forged replies: refuse it, and
            // read what comes over TLS from a fresh stream.
            let channel = channel, name = Self.serverName(settings.host), read = linesRead
            let (fresh, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(256))
            let clean = try await channel.eventLoop.submit { () throws -> Bool in
                let lines = try channel.pipeline.syncOperations.handler(type: SMTPLineHandler.self)
                let clean = lines.restart(with: continuation, linesRead: read)
                if clean {
                    let handler = try NIOSSLClientHandler(context: tlsContext, serverHostname: name)
                    try channel.pipeline.syncOperations.addHandler(handler, position: .first)
                }
                return clean
            }.get()
            guard clean else { throw SMTPError("the server sent more than its answer to STARTTLS (refused: it could be forged)") }
            iterator = fresh.makeAsyncIterator()
            extensions = try await command("EHLO \(helo)", "EHLO after STARTTLS", expecting: [250])
        }
        if let user = settings.user, let password = settings.password {
            let auth = extensions.first { $0.dropFirst(4).uppercased().hasPrefix("AUTH") }?.uppercased() ?? ""
            if auth.contains("PLAIN") {
                let credentials = Data("\0\(user)\0\(password)".utf8).base64EncodedString()
                _ = try await command("AUTH PLAIN \(credentials)", "the log-in (AUTH PLAIN)", expecting: [235])
            } else if auth.contains("LOGIN") {
                _ = try await command("AUTH LOGIN", "the log-in (AUTH LOGIN)", expecting: [334])
                _ = try await command(Data(user.utf8).base64EncodedString(), "the user name", expecting: [334])
                _ = try await command(Data(password.utf8).base64EncodedString(), "the password", expecting: [235])
            } else {
                throw SMTPError("the server offers no log-in this client knows (AUTH PLAIN or LOGIN)")
            }
        }
        _ = try await command("MAIL FROM:<\(message.from)>", "the sender", expecting: [250])
        _ = try await command("RCPT TO:<\(message.to)>", "the recipient", expecting: [250, 251])
        _ = try await command("DATA", "DATA", expecting: [354])
        // Dot-stuffing (RFC 5321 §4.5.2): a line starting with a dot gets one more.
        let body = message.rendered().components(separatedBy: "\r\n").map { $0.hasPrefix(".") ? "." + $0 : $0 }
            .joined(separator: "\r\n")
        try await write(body + "\r\n.\r\n")
        _ = try await reply("the message", expecting: [250])
        _ = try? await command("QUIT", "QUIT", expecting: [221])
    }

    private func write(_ text: String) async throws {
        try await channel.writeAndFlush(channel.allocator.buffer(string: text)).get()
    }

    func close() async {
        try? await channel.close().get()
    }
}

/// Splits what the server says into lines (CRLF), at most 8 KiB each, into a stream the session reads.
private final class SMTPLineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private var continuation: AsyncStream<String>.Continuation
    private var pending: [UInt8] = []
    /// Lines handed to the stream so far.
    private var linesYielded = 0

    init(continuation: AsyncStream<String>.Continuation) {
        self.continuation = continuation
    }

    /// Hands what follows to a new stream (after STARTTLS); `false` when the server said more than the session read
    /// (`linesRead` lines), whole lines or part of one.
    func restart(with continuation: AsyncStream<String>.Continuation, linesRead: Int) -> Bool {
        let clean = pending.isEmpty && linesYielded == linesRead
        self.continuation.finish()
        self.continuation = continuation
        pending = []
        linesYielded = 0
        return clean
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        pending += buffer.readBytes(length: buffer.readableBytes) ?? []
        while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
            var line = Array(pending[..<end])
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            pending.removeSubrange(...end)
            linesYielded += 1
            continuation.yield(String(decoding: line, as: UTF8.self))
        }
        if pending.count > 8_192 {
            continuation.finish()
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        continuation.finish()
        context.close(promise: nil)
    }
}
