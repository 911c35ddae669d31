import AsyncHTTPClient
import Foundation
import PlantGuideCore
import PlantHTTP

/// Talks to the Pl@ntNet v2 API over HTTP: builds the multipart request, retries once on network failures and
/// 5xx (never on 4xx), and turns every answer into a ``PlantNetAnswer`` or a ``PlantNetError``.
///
/// It keeps no state; quota, cache and offline back-off are the ``PlantNetService``'s.
public struct PlantNetClient: Sendable {
    /// Below this top score an answer is marked uncertain.
    public static let uncertaintyThreshold = 0.7
    /// The largest answer read (an answer with related images is a few hundred kilobytes).
    static let maximumAnswerBytes = 16 * 1_048_576

    /// Where and how requests go.
    public let configuration: PlantNetConfiguration
    private let http: HTTPClient
    private let log: @Sendable (String) -> Void
    private let sleep: @Sendable (Duration) async -> Void
    let now: @Sendable () -> Date

    /// Creates a client.
    /// - Parameters:
    ///   - http: the HTTP client requests go through; the server passes its own (on its event loops), the command
    ///     line uses the process's.
    ///   - log: receives one line per request and answer, with the key already redacted (`--verbose`).
    ///   - sleep: waits between retries (tests pass a short or recording one).
    ///   - now: the clock used for reset times.
    public init(
        configuration: PlantNetConfiguration,
        http: HTTPClient = OutgoingHTTP.processClient,
        log: @escaping @Sendable (String) -> Void = { _ in },
        sleep: @escaping @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) },
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        self.http = http
        self.log = log
        self.sleep = sleep
        self.now = now
    }

    /// Identifies one plant from 1–5 prepared photos (`POST /v2/identify/{project}`).
    ///
    /// A 404 "Species not found" returns an answer with no predictions and `notAPlant` set.
    public func identify(_ images: [PlantNetImage], options: PlantNetOptions = PlantNetOptions()) async throws(PlantNetError)
        -> PlantNetAnswer {
        guard let key = configuration.apiKey else { throw .missingAPIKey }
        try PlantNetRequestRules.validate(images, options: options)
        do throws(PlantNetError) {
            let (answer, milliseconds) = try await postPhotos(
                images, path: "v2/identify/\(options.project)", key: key, summary: "",
                query: (options.includeRelatedImages, options.noReject, options.resultCount, options.language)
            )
            return try interpretIdentify(answer, milliseconds: milliseconds)
        } catch {
            throw error.redacting(key)
        }
    }

    /// The floras the key may search (`GET /v2/projects`).
    public func projects(language: String = "en") async throws(PlantNetError) -> [PlantNetProject] {
        let projects = try await list(ProjectResponse.self, path: "v2/projects", language: language, what: "project list")
        return projects.map { PlantNetProject(id: $0.id, title: $0.title, speciesCount: $0.speciesCount) }
    }

    /// A list the service answers to `GET path?lang=…` (no quota is spent on it), decoded entry by entry as `Entry`.
    func list<Entry: Decodable>(_ entry: Entry.Type, path: String, language: String, what: String) async throws(PlantNetError)
        -> [Entry] {
        guard let key = configuration.apiKey else { throw .missingAPIKey }
        do throws(PlantNetError) {
            let url = try makeURL(path: path, query: [
                URLQueryItem(name: "lang", value: language), URLQueryItem(name: "api-key", value: key),
            ])
            var request = HTTPClientRequest(url: url.absoluteString)
            request.headers.add(name: "Accept", value: "application/json")
            let answer = try await send(request, summary: what)
            guard answer.status == 200 else { throw mapFailure(answer) }
            do {
                return try JSONDecoder().decode([Entry].self, from: answer.body)
            } catch {
                throw PlantNetError.malformedResponse("the \(what) did not decode (\(Self.describe(error))).")
            }
        } catch {
            throw error.redacting(key)
        }
    }

    // MARK: - Sending

    /// Sends photos to `path` as both services take them (the same query, an `organs` field and an `images` file part
    /// per photo); the answer and how long it took, in milliseconds.
    func postPhotos(
        _ images: [PlantNetImage], path: String, key: String, summary: String,
        query: (includeRelatedImages: Bool, noReject: Bool, resultCount: Int, language: String)
    ) async throws(PlantNetError) -> (answer: HTTPAnswer, milliseconds: Double) {
        let url = try makeURL(path: path, query: [
            URLQueryItem(name: "include-related-images", value: String(query.includeRelatedImages)),
            URLQueryItem(name: "no-reject", value: String(query.noReject)),
            URLQueryItem(name: "nb-results", value: String(query.resultCount)),
            URLQueryItem(name: "lang", value: query.language),
            URLQueryItem(name: "api-key", value: key),
        ])
        var form = MultipartForm()
        for image in images { form.addField(name: "organs", value: image.organ.rawValue) }
        for (number, image) in images.enumerated() {
            form.addFile(name: "images", filename: "photo\(number + 1).jpg", contentType: "image/jpeg", data: image.jpeg)
        }
        let body = form.body
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: form.contentType)
        request.headers.add(name: "Accept", value: "application/json")
        let started = ContinuousClock.now
        let answer = try await send(request, upload: body, summary: "\(summary)\(images.count) photo(s), \(body.count) bytes")
        return (answer, (ContinuousClock.now - started).inMilliseconds)
    }

    func makeURL(path: String, query: [URLQueryItem]) throws(PlantNetError) -> URL {
        let url = configuration.baseURL.appendingPathComponent(path)
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw .invalidRequest("the service URL \(configuration.baseURL) is not valid.")
        }
        components.queryItems = query
        // `+` is legal in a query but read as a space by many servers; keys may contain it.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let result = components.url else { throw .invalidRequest("the request URL could not be built.") }
        return result
    }

    /// Sends `request`, retrying network failures and 5xx answers with exponential back-off.
    func send(
        _ request: HTTPClientRequest, upload: Data? = nil, summary: String
    ) async throws(PlantNetError) -> HTTPAnswer {
        let shownURL = Redaction.redact(request.url, secret: configuration.apiKey)
        var attempt = 0
        while true {
            log("→ \(request.method.rawValue) \(shownURL) (\(summary))")
            let failure: PlantNetError
            do {
                let answer = try await http.fetch(
                    request, uploading: upload, timeout: configuration.timeout, limit: Self.maximumAnswerBytes
                )
                log("← \(answer.status), \(answer.body.count) bytes")
                guard (500...599).contains(answer.status) else { return answer }
                failure = mapFailure(answer)
            } catch {
                let reason = HTTPFailure(error)
                log("← \(reason)")
                switch reason {
                case .timedOut:
                    // Already waited the whole time limit; a retry would double the wait for little gain.
                    throw .timeout(seconds: configuration.timeout.inMilliseconds / 1000)
                case .cancelled:
                    throw .offline("the request was cancelled")
                case .tooLarge:
                    throw .malformedResponse("the answer was larger than \(Self.maximumAnswerBytes / 1_048_576) MB.")
                case .unreachable(let text):
                    failure = .offline(text)
                }
            }
            guard attempt < configuration.maximumRetries else { throw failure }
            let delay = configuration.retryDelay * (1 << attempt)
            attempt += 1
            log("  retrying in \(delay)")
            await sleep(delay)
        }
    }

    // MARK: - Answers

    private func interpretIdentify(_ answer: HTTPAnswer, milliseconds: Double) throws(PlantNetError) -> PlantNetAnswer {
        let data = answer.body
        let header = answer.header("RateLimit").flatMap(RateLimitHeader.init)
        switch answer.status {
        case 200:
            let decoded: IdentifyResponse
            do {
                decoded = try JSONDecoder().decode(IdentifyResponse.self, from: data)
            } catch {
                throw .malformedResponse("the identification did not decode (\(Self.describe(error))).")
            }
            let predictions = decoded.results.enumerated().map { index, result in
                let species = result.species
                return SpeciesPrediction(
                    rank: index + 1,
                    scientificName: species.scientificNameWithoutAuthor,
                    authorship: species.scientificNameAuthorship.flatMap { $0.isEmpty ? nil : $0 },
                    commonNames: species.commonNames ?? [],
                    confidence: min(max(result.score, 0), 1),
                    gbifId: result.gbif?.id,
                    family: species.family?.scientificNameWithoutAuthor ?? species.family?.scientificName,
                    genus: species.genus?.scientificNameWithoutAuthor ?? species.genus?.scientificName,
                    powoId: result.powo?.id,
                    referenceImages: Self.referenceImages(result.images ?? [])
                )
            }
            let identification = Identification(
                source: .plantNetAPI,
                model: decoded.version.map { "Pl@ntNet \($0)" } ?? "Pl@ntNet",
                predictions: predictions,
                uncertain: (predictions.first?.confidence ?? 0) < Self.uncertaintyThreshold,
                timings: [IdentificationStage.request.rawValue: milliseconds],
                date: now()
            )
            return PlantNetAnswer(
                identification: identification, notAPlant: predictions.isEmpty,
                remainingRequests: decoded.remainingIdentificationRequests ?? header?.remaining,
                secondsUntilReset: header?.secondsUntilReset
            )
        case 404:
            let message = Self.errorMessage(in: data)
            guard message.isEmpty || message.localizedCaseInsensitiveContains("species not found") else {
                throw .unexpectedStatus(404, message)
            }
            let identification = Identification(
                source: .plantNetAPI, model: "Pl@ntNet", predictions: [], uncertain: true,
                timings: [IdentificationStage.request.rawValue: milliseconds], date: now()
            )
            return PlantNetAnswer(
                identification: identification, notAPlant: true, remainingRequests: header?.remaining,
                secondsUntilReset: header?.secondsUntilReset
            )
        default:
            throw mapFailure(answer)
        }
    }

    /// At most ``referenceImagesPerCandidate`` related images with a web address, medium size preferred.
    static func referenceImages(_ images: [IdentifyResponse.Image]) -> [ReferenceImage] {
        images.compactMap { image -> ReferenceImage? in
            guard let address = image.url?.m ?? image.url?.s ?? image.url?.o,
                  let url = URL(string: address), ["https", "http"].contains(url.scheme?.lowercased() ?? "")
            else { return nil }
            return ReferenceImage(
                organ: image.organ.nonBlank, author: image.author.nonBlank, license: image.license.nonBlank,
                citation: image.citation.nonBlank, url: address
            )
        }.prefix(referenceImagesPerCandidate).map { $0 }
    }

    /// Related images kept per candidate.
    public static let referenceImagesPerCandidate = 4

    func mapFailure(_ answer: HTTPAnswer) -> PlantNetError {
        let message = Self.errorMessage(in: answer.body)
        let status = answer.status
        switch status {
        case 400: return .badRequest(message)
        case 401: return .invalidAPIKey
        case 403: return .forbidden(message)
        case 413: return .payloadTooLarge(bytes: nil)
        case 429:
            let header = answer.header("RateLimit").flatMap(RateLimitHeader.init)
            let resetsAt = header?.secondsUntilReset.map { now().addingTimeInterval(Double($0)) }
                ?? QuotaCalendar.nextReset(after: now())
            return .quotaExhausted(resetsAt: resetsAt)
        case 500...599: return .serverError(status: status, message: message)
        default: return .unexpectedStatus(status, message)
        }
    }

    static func errorMessage(in data: Data) -> String {
        if let decoded = try? JSONDecoder().decode(ErrorResponse.self, from: data) {
            return decoded.message ?? decoded.error ?? ""
        }
        return String(decoding: data.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? DecodingError {
            switch error {
            case .keyNotFound(let key, let context):
                return "missing \(context.codingPath.map(\.stringValue) + [key.stringValue])"
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                return "\(context.debugDescription) at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
            @unknown default:
                return "\(error)"
            }
        }
        return "\(error)"
    }
}

extension Optional where Wrapped == String {
    /// The text, or `nil` when it is missing or only white space.
    var nonBlank: String? {
        guard let text = self?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }
}
