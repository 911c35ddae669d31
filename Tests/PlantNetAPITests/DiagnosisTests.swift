import Foundation
import PlantGuideCore
import PlantGuideTestSupport
import Testing
@testable import PlantNetAPI

/// The disease service's client and service against the stand-in, and its wire types on answers with fields missing.
@Suite struct DiagnosisTests {
    private func service(_ stub: PlantNetStub, folder: URL, time: ManualTime = ManualTime(Date())) -> PlantNetService {
        PlantNetService(
            client: PlantNetClient(
                configuration: PlantNetConfiguration(baseURL: stub.baseURL, apiKey: "stub-key"), sleep: { _ in }, now: time.now
            ),
            quota: QuotaTracker(file: folder.appendingPathComponent("quota.json"), now: time.now),
            cache: IdentificationCache(file: folder.appendingPathComponent("cache.json"), now: time.now),
            reachability: Reachability(backOff: 60, now: time.now),
            diseaseList: DiseaseListCache(directory: folder, now: time.now)
        )
    }

    @Test func theClientDecodesEveryDocumentedField() async throws {
        try await withStub { stub in
            let client = PlantNetClient(configuration: PlantNetConfiguration(baseURL: stub.baseURL, apiKey: "stub-key"), sleep: { _ in })
            let answer = try await client.diagnose([image(1, organ: .leaf)], options: DiagnosisOptions(language: "fr", resultCount: 2))
            let diagnosis = answer.diagnosis
            #expect(diagnosis.source == .plantNetAPI && diagnosis.model == "Pl@ntNet 2025-03-10 (diseases 1.2)")
            #expect(diagnosis.language == "fr" && answer.remainingRequests == 499 && !answer.rejected)
            #expect(diagnosis.candidates.map(\.eppoCode) == ["BOTRCI", "TETRUR"])
            #expect(diagnosis.candidates.map(\.name) == ["Grey mould", nil])
            #expect(diagnosis.candidates.map(\.score) == [0.62, 0.21])
            let photo = try #require(diagnosis.candidates.first?.referenceImages.first)
            #expect(photo.author == "Stub Pathologist 1" && photo.license == "cc-by" && photo.organ == "leaf")
            #expect(photo.citation == "Stub Pathologist 1 / Pl@ntNet stub, cc-by" && photo.url.hasSuffix("/images/0.jpg"))
            let sent = try #require(stub.requests.last)
            #expect(sent.method == "POST" && sent.path == "/v2/diseases/identify")
            #expect(sent.query["nb-results"] == "2" && sent.query["no-reject"] == "false" && sent.query["lang"] == "fr")

            let list = try await client.knownDiseases(language: "en")
            #expect(list.map(\.eppoCode) == ["BOTRCI", "TETRUR", "PHYTIN"])
            #expect(list.last?.label == "Late blight" && list.last?.categories == ["oomycete"])
        }
    }

    @Test func answersWithFieldsMissingStillDecode() throws {
        let decoder = JSONDecoder()
        #expect(try decoder.decode(DiseaseIdentifyResponse.self, from: Data("{}".utf8)).results.isEmpty)
        let bare = try decoder.decode(DiseaseIdentifyResponse.self, from: Data(#"{"results":[{"name":"PHYTIN"}]}"#.utf8))
        #expect(bare.results.first?.name == "PHYTIN" && bare.results.first?.score == nil && bare.results.first?.description == nil)
        let odd = try decoder.decode(DiseaseIdentifyResponse.self, from: Data(
            #"{"results":[{"name":"BOTRCI","score":"high","images":"none","description":7}],"version":3,"language":null}"#.utf8
        ))
        #expect(odd.results.first?.name == "BOTRCI" && odd.results.first?.score == nil && odd.results.first?.images == nil)
        #expect(odd.version == nil)
        #expect(throws: DecodingError.self) { try decoder.decode(DiseaseIdentifyResponse.self, from: Data(#"{"results":5}"#.utf8)) }
        let entries = try decoder.decode([DiseaseListEntry].self, from: Data(#"[{"name":"PHYTIN"},{"label":"nameless"},{}]"#.utf8))
        #expect(entries.map(\.name) == ["PHYTIN", nil, nil] && entries[0].categories == nil)
    }

    @Test func theServiceNamesFromTheKeptListAndMarksCodesItDoesNotKnow() async throws {
        try await withStub { stub in
            let folder = try temporaryFolder()
            let time = ManualTime(Date())
            let api = service(stub, folder: folder, time: time)
            let answer = try await api.diagnose([image(2, organ: .leaf)])
            #expect(answer.diagnosis.candidates.map(\.name) == ["Grey mould", "Two-spotted spider mite", nil])
            #expect(answer.diagnosis.candidates.map(\.inDiseaseList) == [true, true, false])
            #expect(answer.diagnosis.candidates.last?.title == "ZZSTUB")
            _ = try await api.diagnose([image(3, organ: .fruit)])
            #expect(stub.requests.filter { $0.path == "/v2/diseases" }.count == 1)
            // After 30 days the list is asked for again.
            time.advance(by: DiseaseListCache.timeToLive + 1)
            #expect(DiseaseListCache(directory: folder, now: time.now).list(language: "en") == nil)
            _ = try await api.diagnose([image(4, organ: .bark)])
            #expect(stub.requests.filter { $0.path == "/v2/diseases" }.count == 2)
        }
    }

    @Test func noDiseaseAndNotAPlantAreAnswersNotErrors() async throws {
        var behaviour = PlantNetStubBehaviour()
        behaviour.diseases = []
        try await withStub(behaviour) { stub in
            let api = service(stub, folder: try temporaryFolder())
            let none = try await api.diagnose([image(5)])
            #expect(none.diagnosis.candidates.isEmpty && !none.rejected && !none.diagnosis.isConfident)
            stub.configure { $0.notAPlant = true }
            let rejected = try await api.diagnose([image(6)])
            #expect(rejected.rejected && rejected.diagnosis.candidates.isEmpty)
        }
    }

    @Test func organsTheServiceRefusesAreRefusedBeforeSendingAndTheQuotaIsIdentifys() async throws {
        var behaviour = PlantNetStubBehaviour()
        behaviour.quotaLimit = 2
        try await withStub(behaviour) { stub in
            let api = service(stub, folder: try temporaryFolder())
            for organ in [PlantNetOrgan.habit, .other] {
                let error = await #expect(throws: PlantNetError.self) { try await api.diagnose([image(7, organ: organ)]) }
                guard case .invalidRequest(let reason)? = error else { Issue.record("got \(String(describing: error))"); continue }
                #expect(reason.contains("not '\(organ.rawValue)'"))
            }
            #expect(stub.requestCount == 0)
            _ = try await api.identify([image(8, organ: .leaf)])
            _ = try await api.diagnose([image(9, organ: .leaf)])
            #expect(await api.quota.status().level == .exhausted)
            let error = await #expect(throws: PlantNetError.self) { try await api.diagnose([image(10, organ: .leaf)]) }
            guard case .quotaExhausted? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(stub.requests.filter { $0.path == "/v2/diseases/identify" }.count == 1)
        }
    }

    @Test func aDiagnosisIsNeverAnsweredFromAnIdentificationsCacheKey() {
        let photos = [image(11, organ: .leaf)]
        let diagnosis = CacheKey.diagnosis(of: photos, options: DiagnosisOptions())
        // An answer of 5 candidates does not stand for one of 10.
        #expect(diagnosis.exactKey != CacheKey.diagnosis(of: photos, options: DiagnosisOptions(resultCount: 10)).exactKey)
        let identification = CacheKey(images: photos, options: PlantNetOptions(project: "all", language: "en"))
        #expect(diagnosis.exactKey != identification.exactKey)
        // No flora can take the diagnoses' project name.
        #expect(throws: PlantNetError.self) {
            try PlantNetRequestRules.validate(photos, options: PlantNetOptions(project: CacheKey.diagnosisProject))
        }
    }
}
