import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PlantGuideCore
import PlantGuideLive
import Testing
@testable import PlantGuideServer

/// The keyed pages in the `en-XA` pseudo-language (#40 step 7, without a browser): every text a person reads is wrapped
/// in ⟦ ⟧, so none was left out of the string tables; what is English on purpose says `lang="en"`, and names and
/// numbers are data.
@Suite struct PseudoLanguagePageTests {
    /// The texts of `html` a person reads (text nodes, and the `aria-label`, `title`, `alt` and `placeholder`
    /// attributes) that have letters outside ⟦ ⟧ and are neither marked as another language (`lang`, `translate="no"`)
    /// nor data (`allowed`: names the test put there). Scripts, styles, `<code>` and `<head>` are not read.
    static func unmarkedTexts(_ html: String, allowed: Set<String>) -> [String] {
        let voids: Set<String> = ["input", "br", "img", "meta", "link", "hr", "source", "wbr", "col", "area", "base"]
        var stack: [(tag: String, exempt: Bool)] = []
        var found: [String] = []
        let tag = /<(\/?|!)([a-zA-Z][a-zA-Z0-9-]*)([^>]*)>/
        let readAttribute = /(?:aria-label|title|alt|placeholder)="([^"]*)"/
        // How deep in ⟦ ⟧ the text is: markup placed in a text (a link) splits one wrapped text into several nodes.
        var depth = 0
        /// What of `text` lies outside ⟦ ⟧, starting `depth` deep; `depth` is left where the text ends.
        func outside(_ text: String, depth: inout Int) -> String {
            var kept = ""
            for character in text {
                if character == "⟦" { depth += 1 } else if character == "⟧" { depth = max(0, depth - 1) } else if depth == 0 { kept.append(character) }
            }
            return kept.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func check(_ text: String, depth: inout Int) {
            let left = outside(text, depth: &depth)
            if left.contains(where: \.isLetter), !allowed.contains(left) { found.append(left) }
        }
        var rest = Substring(html)
        while let match = rest.firstMatch(of: tag) {
            let exempt = stack.contains { $0.exempt }
            if !exempt { check(String(rest[..<match.range.lowerBound]), depth: &depth) }
            let name = match.output.2.lowercased()
            let attributes = String(match.output.3)
            let marked = (attributes.contains(" lang=\"") && !attributes.contains(" lang=\"en-XA\""))
                || attributes.contains("translate=\"no\"")
            if !exempt, !marked, match.output.1 != "/" {
                for attribute in attributes.matches(of: readAttribute) {
                    var own = 0
                    check(String(attribute.output.1), depth: &own)
                }
            }
            if match.output.1 == "!" {
                // <!doctype html>: no element.
            } else if match.output.1 == "/" {
                if let index = stack.lastIndex(where: { $0.tag == name }) { stack.removeSubrange(index...) }
            } else if !voids.contains(name), !attributes.hasSuffix("/") {
                stack.append((name, marked || ["head", "script", "style", "svg", "code"].contains(name)))
            }
            rest = rest[match.range.upperBound...]
        }
        return found
    }

    @Test func theScanFindsWhatIsLeftOut() {
        let html = #"<!doctype html><main><h1>⟦Ŵéļçóɱé⟧</h1><p>Left out</p><p lang="en">English on purpose</p><a>Snowball</a>"#
            + #"<span>12</span><p>⟦Ƥáşţé íţ óñ ţĥé <a>⟦Šéţţíñğš⟧</a> ƥáğé⟧</p><p>After</p><p>⟦Ŵŕáƥƥéď⟧ and not</p>"#
            + #"<button aria-label="Unlabelled">⟦Ĝó⟧</button><input placeholder="⟦Ńáɱé⟧"></main>"#
        #expect(Self.unmarkedTexts(html, allowed: ["Snowball"]) == ["Left out", "After", "and not", "Unlabelled"])
    }

    @Test(arguments: ["/", "/care", "/no-such-page", "/login"])
    func aKeyedPageLeavesNoTextOut(path: String) async throws {
        var configuration = ServerConfiguration()
        configuration.pseudoLocale = true
        if path == "/login" {
            configuration.host = "0.0.0.0"
            configuration.passwordHash = PasswordHash(password: "a long passphrase", iterations: 1_000)
        }
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let tasks = [
            DueCareItem(id: "7-water", plantID: "7", plantName: "Snowball", action: "Water", due: now.addingTimeInterval(-86_400),
                        room: "Kitchen", why: "every 9 days"),
            DueCareItem(id: "8-repot", plantID: "8", plantName: "Fern", action: "Repot", due: now, room: nil),
        ]
        let care = CareCapability(
            due: { through in tasks.filter { $0.due <= through } }, markDone: { _ in }, snooze: { _, _ in },
            calendar: { _ in "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n" }
        )
        let app = makeApp(configuration: configuration, dependencies: ServerDependencies(catalog: fixtureCatalog, care: care, now: { now }))
        try await app.test(.router) { client in
            let session = try await Session.open(client)
            var headers = session.headers
            headers[.acceptLanguage] = "en-XA"
            try await client.execute(uri: path, method: .get, headers: headers) { response in
                let html = String(buffer: response.body)
                #expect(html.contains("<html lang=\"en-XA\">"))
                let left = Self.unmarkedTexts(html, allowed: ["PlantGuide", "Snowball", "Fern", "Kitchen", "$PLANTGUIDE_HOME/models/"])
                #expect(left.isEmpty, "\(path): \(left)")
            }
        }
    }
}
