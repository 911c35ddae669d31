import Foundation
import Hummingbird
import HummingbirdTesting
import PlantGuideLive
import Testing
@testable import PlantGuideServer

/// "Add to Home Screen" gives an app: a valid manifest whose icons are served at their stated sizes, a service
/// worker at the root, and every page linking them — reachable before log-in, as browsers fetch them.
@Suite struct InstallableAppTests {
    struct Manifest: Decodable {
        struct Icon: Decodable {
            var src: String
            var sizes: String
            var type: String
            var purpose: String
        }

        var name: String
        var short_name: String
        var start_url: String
        var display: String
        var theme_color: String
        var icons: [Icon]
    }

    /// Width and height from a PNG's IHDR chunk.
    static func pngSize(_ data: Data) -> (Int, Int)? {
        let bytes = [UInt8](data)
        guard bytes.count > 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { return nil }
        func number(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (number(16), number(20))
    }

    @Test func manifestIconsAndServiceWorkerAreServedEvenBeforeLogIn() async throws {
        let configuration = ServerConfiguration(host: "0.0.0.0", passwordHash: PasswordHash(password: "a long passphrase", iterations: 1_000))
        try await makeApp(configuration: configuration).test(.router) { client in
            let manifest = try await client.execute(uri: "/manifest.webmanifest", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("application/manifest+json") == true)
                return try JSONDecoder().decode(Manifest.self, from: Data(buffer: response.body))
            }
            #expect(manifest.display == "standalone")
            #expect(manifest.theme_color == InstallableApp.themeColor)
            #expect(manifest.start_url == "/identify")
            #expect(Set(manifest.icons.map(\.sizes)).isSuperset(of: ["192x192", "512x512"]))
            #expect(manifest.icons.contains { $0.purpose == "maskable" })
            for icon in manifest.icons {
                try await client.execute(uri: icon.src, method: .get) { response in
                    #expect(response.status == .ok, "\(icon.src)")
                    #expect(response.headers[.contentType] == icon.type)
                    let size = try #require(Self.pngSize(Data(buffer: response.body)))
                    #expect("\(size.0)x\(size.1)" == icon.sizes, "\(icon.src)")
                }
            }
            try await client.execute(uri: "/sw.js", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("text/javascript") == true)
                #expect(response.headers[.cacheControl] == "no-cache")
                #expect(response.text.contains("plantguide-static-\(StaticAssets.version)"))
            }
            try await client.execute(uri: "/favicon.ico", method: .get) { response in
                #expect(Self.pngSize(Data(buffer: response.body)).map { $0.0 } == 32)
            }
            // The log-in page (the only page before log-in) links them all.
            try await client.execute(uri: "/login", method: .get) { response in
                let page = response.text
                #expect(page.contains(#"<link rel="manifest" href="/manifest.webmanifest">"#))
                #expect(page.contains(#"<meta name="theme-color" content="\#(InstallableApp.themeColor)">"#))
                #expect(page.contains(#"rel="apple-touch-icon""#))
            }
            // Everything else still needs the log-in.
            try await client.execute(uri: "/collection", method: .get) { response in
                #expect(response.status == .found)
                #expect(response.headers[.location]?.hasPrefix("/login") == true)
            }
        }
    }
}
