import Foundation
import PlantForms
import PlantGuideCore
import Testing
@testable import PlantGuideServer

@Suite struct UploadParsingTests {
    @Test(arguments: [
        (Data([0xFF, 0xD8, 0xFF, 0xDB, 0, 0]), ImageFormat?.some(.jpeg)),
        (Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]), .png),
        (Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8), .webp),
        (Data("\u{0}\u{0}\u{0}\u{18}ftypheic\u{0}\u{0}".utf8), .heic),
        (Data("GIF89a".utf8), nil),
        (Data("<svg".utf8), nil),
        (Data(), nil),
        (Data([0xFF, 0xD8]), nil),
    ])
    func imagesAreRecognisedByTheirFirstBytes(data: Data, expected: ImageFormat?) {
        #expect(ImageFormat.detect(data) == expected)
    }

    @Test func multipartKeepsFieldsAndBinaryFiles() throws {
        var form = Multipart()
        form.field("organ", "leaf")
        form.file("photo", "a.jpg", jpegBytes + Data("\r\n--not-the-boundary\r\n".utf8))
        form.file("empty", "", Data())
        let parsed = try #require(try FormData.parse(contentType: form.contentType, body: Data(buffer: form.body)))
        #expect(parsed["organ"] == "leaf")
        #expect(parsed.files.count == 1)
        #expect(parsed.files[0].data == jpegBytes + Data("\r\n--not-the-boundary\r\n".utf8))
        #expect(parsed.files[0].filename == "a.jpg")
    }

    @Test(arguments: [
        "no boundary at all",
        "--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\nunterminated",
        "--b\r\nno-headers-end",
        // Complete parts but no close delimiter: a body cut off by the network.
        "--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n1\r\n--b\r\n",
        "--b\r\nContent-Type: text/plain\r\n\r\nno name\r\n--b--\r\n",
    ])
    func malformedMultipartIsABadRequest(body: String) {
        #expect(throws: FormError.self) {
            _ = try FormData.parse(contentType: "multipart/form-data; boundary=b", body: Data(body.utf8))
        }
    }

    @Test func multipartBodiesOfLineBreaksAndNearBoundariesKeepEveryByte() throws {
        // Bytes that keep starting a delimiter and then break off: every one of them belongs to the file.
        let tricky = Data(String(repeating: "\r\n--", count: 20_000).utf8) + Data("\r\n--bb\r\r\n-".utf8)
        var form = Multipart()
        form.file("photo", "a.jpg", tricky)
        form.field("organ", "flower")
        let parsed = try #require(try FormData.parse(contentType: form.contentType, body: Data(buffer: form.body)))
        #expect(parsed.files.first?.data == tricky)
        #expect(parsed["organ"] == "flower")
    }

    @Test func urlEncodedFormsDecodePlusAndPercent() {
        let form = FormData(urlEncoded: "q=snake+plant&name=Philodendron%20%27Birkin%27&empty=")
        #expect(form["q"] == "snake plant")
        #expect(form["name"] == "Philodendron 'Birkin'")
        #expect(form["empty"] == "")
        #expect(form["missing"] == nil)
    }

    @Test func htmlInterpolationEscapesTextButNotMarkup() {
        let name = "<b>\"Tom\" & 'Jerry'</b>"
        let inner: HTML = "<i>ok</i>"
        let html: HTML = "<p title=\"\(name)\">\(inner)</p>"
        #expect(html.markup == "<p title=\"&lt;b&gt;&quot;Tom&quot; &amp; &#39;Jerry&#39;&lt;/b&gt;\"><i>ok</i></p>")
    }

    @Test func queueRefusesBeyondCapacityAndCountsBack() async throws {
        let queue = IdentifyQueue(maximumConcurrent: 1, maximumQueued: 0)
        let gate = Gate()
        let first = Task { try await queue.admit { try await queue.run { await gate.wait() } } }
        while queue.load.running < 1 { try await Task.sleep(for: .milliseconds(2)) }
        await #expect(throws: ServerError.overloaded(retryAfter: 5)) { try await queue.admit { () } }
        gate.open()
        try await first.value
        #expect(queue.load.admitted == 0 && queue.load.running == 0)
    }
}

@Suite struct LogLineTests {
    @Test func logStringsAreValidJSON() throws {
        let tricky = "quote \" backslash \\ newline \n tab \t bell \u{7} é"
        let data = Data("{\"k\":\(JSONLogHandler.quoted(tricky))}".utf8)
        let decoded = try #require(try JSONSerialization.jsonObject(with: data) as? [String: String])
        #expect(decoded["k"] == tricky)
    }
}
