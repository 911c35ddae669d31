import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import PlantGuideServer

/// The session cookie behind a TLS reverse proxy, and the per-address connection cap.
@Suite struct TransportSecurityTests {
    private func cookie(forwardedProto: String?, trusted: Set<String>) async throws -> String {
        var configuration = ServerConfiguration()
        configuration.trustedProxies = trusted
        var fields = HTTPFields()
        if let forwardedProto { fields[HTTPField.Name("X-Forwarded-Proto")!] = forwardedProto }
        let headers = fields
        return try await makeApp(configuration: configuration).test(.router) { client in
            try await client.execute(uri: "/browse", method: .get, headers: headers) { response in
                response.headers[.setCookie] ?? ""
            }
        }
    }

    @Test func theCookieIsSecureOnlyWhenATrustedProxySaysHTTPS() async throws {
        // The router test client has no socket address; the server names such a client "local".
        let viaProxy = try await cookie(forwardedProto: "https", trusted: ["local"])
        #expect(viaProxy.contains("pg_session="))
        #expect(viaProxy.contains("Secure"))
        #expect(viaProxy.contains("HttpOnly"))
        let plain = try await cookie(forwardedProto: nil, trusted: ["local"])
        #expect(plain.contains("pg_session=") && !plain.contains("Secure"))
        // Anyone else claiming HTTPS is not believed.
        let spoofed = try await cookie(forwardedProto: "https", trusted: ["127.0.0.1"])
        #expect(spoofed.contains("pg_session=") && !spoofed.contains("Secure"))
    }

    @Test func oneAddressGetsOnlyItsShareOfConnections() {
        let counter = ConnectionCounter(maximumPerAddress: 3)
        #expect((0..<3).allSatisfy { _ in counter.acquire("192.0.2.7") })
        #expect(!counter.acquire("192.0.2.7"))
        #expect(counter.acquire("192.0.2.8"))
        counter.release("192.0.2.7")
        #expect(counter.count(for: "192.0.2.7") == 2)
        #expect(counter.acquire("192.0.2.7"))
        for _ in 0..<3 { counter.release("192.0.2.7") }
        #expect(counter.count(for: "192.0.2.7") == 0)
    }
}
