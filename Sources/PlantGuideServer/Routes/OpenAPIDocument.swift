import Foundation
import PlantGuideCore

/// The OpenAPI 3.1 description of the JSON API, served at `/openapi.json`. Written by hand; the router
/// tests check that every path it names is served and every API route is named.
enum OpenAPIDocument {
    /// Error answers every operation can give, whatever it does: an exposed server refuses a request without a
    /// logged-in session (401) and every server refuses an address longer than its limit (414).
    private static let anyRequest = [401, 414]
    /// What every state-changing operation can also answer: the anti-forgery check (403) and a body that is too
    /// large (413) or too slow (408), each refused before the route runs.
    private static let unsafeRequest = [401, 403, 408, 413, 414]

    /// `"400": { "$ref": "#/components/responses/400" }, …` for the given status codes, sorted.
    private static func errors(_ codes: [Int]) -> String {
        Set(codes).sorted().map { ##""\##($0)": { "$ref": "#/components/responses/\##($0)" }"## }.joined(separator: ", ")
    }

    /// The error responses, each `{status, message}` with what the status means here.
    private static let errorResponses: String = [
        (400, "The request is malformed: a missing or mistyped field, a value outside its range, an unknown option, a search over its limits."),
        (401, "The server has accounts and the request carries no logged-in session; or, for `POST /api/session`, the user name or password is wrong."),
        (403, "A state-changing request without the anti-forgery token of its session (`X-CSRF-Token` header or `_csrf` form field), or without the session cookie it belongs to."),
        (404, "Nothing with that name or id."),
        (408, "The request body did not arrive in full within 60 seconds."),
        (409, "The name is taken: an account of that name exists already, in any letter case."),
        (413, "The body is larger than its limit (\(ServerError.bytes(InputLimits.jsonBodyBytes)) for JSON and forms, the upload limit for photos), or a photo has too many pixels; the message says which."),
        (414, "The address (path and query) is longer than \(ServerError.bytes(InputLimits.urlBytes))."),
        (415, "An upload that is not a \(ImageFormat.acceptedNames) photo (judged by its content)."),
        (422, "A well-formed request with a value that is refused: a text over its limit, a photo that is empty, too damaged or too small to read."),
        (429, "Too many failed log-ins: 5 for one account or 20 from one client address within 15 minutes; retry after the given seconds."),
        (501, "The feature is not installed or configured on this server (catalog, model, API key, collection store)."),
        (502, "The identification service below the server failed; the message says why."),
        (503, "The identification queue is full; retry after the given seconds."),
    ].map { code, meaning in
        let retry = code == 429 || code == 503
            ? #", "headers": { "Retry-After": { "description": "Seconds to wait.", "schema": { "type": "integer", "minimum": 0 } } }"#
            : ""
        return ##""\##(code)": { "description": "\##(meaning)"\##(retry), "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } }"##
    }.joined(separator: ",\n")

    /// The `category` values the catalog accepts: empty (any), each slug and each name, as JSON strings.
    private static let categoryNames = ([""] + PlantCategory.allCases.flatMap { [$0.argumentName, $0.rawValue] })
        .reduce(into: [String]()) { names, name in if !names.contains(name) { names.append(name) } }
        .map { "\"\($0)\"" }.joined(separator: ", ")

    /// The white space a blank name consists of, as the body of a regular expression character class.
    private static let blankClass = CollectionRoutes.blankScalars.sorted { $0.value < $1.value }
        .map { "\\u" + String(format: "%04X", $0.value) }.joined()

    /// The document a server without accounts serves: reading needs nothing (it listens on loopback only).
    static let open = document(readSecurity: #""security": []"#)
    /// The document a server with accounts serves: reading needs a logged-in session too.
    static let withAccounts = document(readSecurity: #""security": [{ "session": [] }]"#)

    /// The document that describes this server as it is now: a server becomes one with accounts when the first is
    /// added (`plantguide user add`), so it is chosen per request.
    static func json(requiresLogin: Bool) -> String { requiresLogin ? withAccounts : open }

    /// The document, with `readSecurity` the security of reading operations.
    private static func document(readSecurity: String) -> String {
        #"""
    {
      "openapi": "3.1.0",
      "info": {
        "title": "PlantGuide",
        "version": "0.1.0",
        "description": "Identify plants from photos, browse the houseplant catalog, keep a collection and its care schedule.\n\nAuthentication. `GET /api/session` sets the session cookie `pg_session` and returns its anti-forgery token `csrfToken`. Every state-changing request (POST, PUT, PATCH, DELETE) needs both: the cookie, and the token in the `X-CSRF-Token` header (or a `_csrf` form field); without them the answer is 403. Reading (GET, HEAD) needs nothing on a server without accounts, which listens on loopback only (the default). Once accounts exist (`plantguide user add`; a server exposed beyond loopback must have one), every request except `GET /api/session` and `POST /api/session` needs a session logged in with `POST /api/session` `{user, password}`, or the answer is 401.\n\nErrors are JSON `{status, message}`; an unsupported method on an API address answers 405 with `Allow`."
      },
      "servers": [{ "url": "/" }],
      "components": {
        "securitySchemes": {
          "session": { "type": "apiKey", "in": "cookie", "name": "pg_session",
            "description": "The session cookie set by any answer to a request without one (get it with `GET /api/session`). Needed by every state-changing request; needed by reading ones only on an exposed server, where the session must also be logged in (`POST /api/session`)." },
          "csrf": { "type": "apiKey", "in": "header", "name": "X-CSRF-Token",
            "description": "The session's anti-forgery token, `csrfToken` of `GET /api/session`. Needed by every state-changing request, also on loopback; forms may send it as the `_csrf` field instead." }
        },
        "responses": {
          \#(errorResponses),
          "NoContent": { "description": "Done." }
        },
        "parameters": {
          "Name": { "name": "name", "in": "path", "required": true, "schema": { "type": "string" }, "description": "Scientific name, e.g. Monstera deliciosa." },
          "Id": { "name": "id", "in": "path", "required": true, "schema": { "type": "string" }, "description": "An id as the list gives it; any other is 404." }
        },
        "schemas": {
          "Error": {
            "type": "object", "required": ["status", "message"],
            "properties": { "status": { "type": "integer" }, "message": { "type": "string" } }
          },
          "User": {
            "type": "object", "required": ["name", "role", "household", "createdAt", "passwordChangedAt"],
            "properties": { "name": { "type": "string" }, "role": { "type": "string", "enum": ["owner", "member"] },
              "household": { "type": "integer", "description": "The household's id." },
              "createdAt": { "type": "string", "format": "date-time" }, "passwordChangedAt": { "type": "string", "format": "date-time" },
              "language": { "type": "string", "enum": ["en", "fr", "de", "es"], "description": "The language the member chose for their pages; absent to follow the browser." },
              "temperatureUnit": { "type": "string", "enum": ["celsius", "fahrenheit"], "description": "The unit the member chose for temperatures; absent for the region's usual one." } }
          },
          "UserList": {
            "type": "object", "required": ["users"],
            "properties": { "users": { "type": "array", "items": { "$ref": "#/components/schemas/User" } } }
          },
          "Session": {
            "type": "object", "required": ["requiresLogin", "loggedIn", "csrfToken"],
            "properties": { "requiresLogin": { "type": "boolean" }, "loggedIn": { "type": "boolean" }, "csrfToken": { "type": "string" },
              "user": { "type": ["string", "null"], "description": "The account logged in." },
              "role": { "type": ["string", "null"], "enum": ["owner", "member", null], "description": "Its role." } }
          },
          "Status": {
            "type": "object",
            "properties": {
              "catalog": { "type": "boolean" }, "identification": { "type": ["string", "null"] },
              "strategies": { "type": "array", "items": { "type": "string" } },
              "collection": { "type": "boolean" }, "care": { "type": "boolean" }, "settings": { "type": "boolean" },
              "requiresLogin": { "type": "boolean" }, "maxUploadBytes": { "type": "integer" },
              "queue": {
                "type": "object",
                "properties": { "running": { "type": "integer" }, "admitted": { "type": "integer" }, "concurrency": { "type": "integer" }, "queueLength": { "type": "integer" } }
              }
            }
          },
          "Plant": {
            "type": "object", "required": ["scientificName", "commonNames", "family", "category"],
            "properties": {
              "scientificName": { "type": "string" }, "commonNames": { "type": "array", "items": { "type": "string" } },
              "family": { "type": "string" }, "category": { "type": "string" },
              "formerNames": { "type": "array", "items": { "type": "string" },
                "description": "Former and trade names the plant is also found by (Calathea orbifolia for Goeppertia orbifolia)." }
            }
          },
          "PlantList": {
            "type": "object", "required": ["count", "plants"],
            "properties": { "count": { "type": "integer", "description": "Matches before the limit." }, "plants": { "type": "array", "items": { "$ref": "#/components/schemas/Plant" } } }
          },
          "PlantDetail": {
            "type": "object",
            "properties": { "plant": { "$ref": "#/components/schemas/Plant" }, "related": { "type": "array", "items": { "$ref": "#/components/schemas/Plant" } } }
          },
          "Category": {
            "type": "object",
            "properties": { "name": { "type": "string" }, "slug": { "type": "string" }, "count": { "type": "integer" } }
          },
          "Prediction": {
            "type": "object", "required": ["rank", "scientificName", "commonNames", "confidence", "inCatalog", "relatedCatalogPlants"],
            "properties": {
              "rank": { "type": "integer", "minimum": 1 }, "scientificName": { "type": "string" },
              "authorship": { "type": "string" }, "commonNames": { "type": "array", "items": { "type": "string" } },
              "commonNameLevel": { "type": "string", "enum": ["species", "genus"],
                "description": "Whether commonNames name the species or only its genus (e.g. 'stonecrop')." },
              "genus": { "type": "string" },
              "confidence": { "type": "number", "minimum": 0, "maximum": 1 }, "classIndex": { "type": "integer" },
              "gbifId": { "type": "string" }, "powoId": { "type": "string" },
              "family": { "type": "string", "description": "APG IV / PPG I family." }, "category": { "type": "string" },
              "inCatalog": { "type": "boolean", "description": "Found in the local catalog." },
              "careSummary": { "type": "string", "description": "One line of care advice, when in the catalog." },
              "relatedCatalogPlants": { "type": "array", "items": { "$ref": "#/components/schemas/Plant" },
                "description": "Catalog plants of the same genus, when the species itself is not in the catalog." },
              "referenceImages": { "type": "array", "maxItems": 4,
                "description": "Pl@ntNet's photos of this species, credited as it gives them. With a localID the photo is kept on this server: GET /identify/reference-photos/{localID}.",
                "items": { "type": "object", "required": ["url"], "properties": {
                  "organ": { "type": "string" }, "author": { "type": "string" }, "license": { "type": "string" },
                  "citation": { "type": "string" }, "url": { "type": "string" },
                  "localID": { "type": "string", "pattern": "^[0-9a-f]{64}$" } } } },
              "source": { "type": "string", "enum": ["collection"],
                "description": "Present on a candidate named from photos of your own plants whose species you confirmed; its confidence is the cosine similarity." }
            }
          },
          "SourceAnswer": {
            "type": "object", "required": ["source", "uncertain", "predictions", "timings"],
            "properties": {
              "source": { "type": "string", "enum": ["onDevice", "plantNetAPI", "cache"] }, "model": { "type": ["string", "null"] },
              "uncertain": { "type": "boolean" }, "predictions": { "type": "array", "items": { "$ref": "#/components/schemas/Prediction" } },
              "timings": { "type": "object", "additionalProperties": { "type": "number", "minimum": 0 } }
            }
          },
          "IdentifyAnswer": {
            "description": "One identification: the same object `plantguide identify --json` prints. Keys that say what happened are always present (null when unknown); the others only when they apply.",
            "type": "object",
            "required": ["source", "strategy", "model", "uncertain", "notAPlant", "offline", "cached", "remainingRequests", "quotaLevel",
              "predictions", "suggestions", "onDevice", "online", "notes", "timings", "recheck"],
            "properties": {
              "source": { "type": "string", "enum": ["onDevice", "plantNetAPI", "cache"], "description": "Where the preferred answer came from." },
              "strategy": { "type": ["string", "null"], "enum": ["on-device", "api", "on-device-first", "parallel", null],
                "description": "How the identifiers were asked (the API's auto is on-device-first with a model, else api)." },
              "model": { "type": ["string", "null"] }, "uncertain": { "type": "boolean" },
              "uncertainReason": { "type": "string", "description": "Why the answer is uncertain and what to do next." },
              "photoCount": { "type": "integer", "minimum": 1 },
              "agreeingPhotos": { "type": "integer", "minimum": 0,
                "description": "Photos that, identified alone, had the combined best species first." },
              "notAPlant": { "type": "boolean", "description": "Pl@ntNet said \"Species not found\": the photo does not look like a plant." },
              "offline": { "type": "boolean", "description": "Pl@ntNet was asked and could not be reached, so the device answered." },
              "cached": { "type": "boolean", "description": "The answer came from the identification cache: no Pl@ntNet call, no quota spent." },
              "remainingRequests": { "type": ["integer", "null"], "description": "Pl@ntNet identifications left today, when known." },
              "quotaLevel": { "type": ["string", "null"], "enum": ["unknown", "ok", "low", "veryLow", "critical", "exhausted", null],
                "description": "How close today's Pl@ntNet quota is to running out; null without Pl@ntNet." },
              "organs": { "type": "array", "items": { "type": "string", "enum": ["auto", "leaf", "flower", "fruit", "bark", "habit", "other"] },
                "description": "What each photo showed, in the order sent." },
              "predictions": { "type": "array", "items": { "$ref": "#/components/schemas/Prediction" },
                "description": "Candidates, best first: 10 from the API (the command line's --top), and before them any species your own confirmed photos name." },
              "suggestions": { "type": "array", "items": { "$ref": "#/components/schemas/Plant" },
                "description": "Catalog plants to offer when the answer is uncertain (\"did you mean\")." },
              "onDevice": { "oneOf": [{ "$ref": "#/components/schemas/SourceAnswer" }, { "type": "null" }], "description": "The device's own answer, when it answered." },
              "online": { "oneOf": [{ "$ref": "#/components/schemas/SourceAnswer" }, { "type": "null" }], "description": "Pl@ntNet's own answer (or its cached copy), when it answered." },
              "notes": { "type": "array", "items": { "type": "string" }, "description": "Why a source that was tried gave no answer." },
              "timings": { "type": "object", "additionalProperties": { "type": "number", "minimum": 0 },
                "description": "Milliseconds per stage: queue, decode, preprocess, inference, prepareUpload, request (the Pl@ntNet round trip) and total, each when measured." },
              "totalMilliseconds": { "type": "number", "minimum": 0 },
              "collectionMatches": { "type": "array", "description": "Your plants this photo most likely shows, most similar first (on-device answers).",
                "items": { "type": "object", "required": ["plantId", "name", "similarity", "photoSHA256"], "properties": {
                  "plantId": { "type": "integer" }, "name": { "type": "string" }, "nickname": { "type": "string" },
                  "room": { "type": "string" }, "scientificName": { "type": "string" },
                  "similarity": { "type": "number", "minimum": -1, "maximum": 1 },
                  "photoSHA256": { "type": "string", "pattern": "^[0-9a-f]{64}$" } } } },
              "recheck": { "oneOf": [{ "type": "null" }, { "type": "object", "required": ["reason"], "properties": {
                  "reason": { "type": "string", "enum": ["offline", "quota", "uncertain"] },
                  "identificationId": { "type": "integer", "description": "The kept identification that waits." } } }],
                "description": "Set when the device answered in Pl@ntNet's place and the answer waits for a Pl@ntNet re-check, and why." },
              "saved": { "type": "object", "required": ["identificationId"], "description": "Where `plantguide identify --save` filed the answer (command line only).",
                "properties": { "identificationId": { "type": "integer" }, "plantId": { "type": ["integer", "null"] } } },
              "uploadId": { "type": "string", "description": "Pass to POST /api/collection to save this photo (server only)." }
            }
          },
          "CollectionEntry": {
            "type": "object", "required": ["id", "scientificName", "added"],
            "properties": {
              "id": { "type": "string" }, "scientificName": { "type": "string" }, "nickname": { "type": "string" },
              "commonName": { "type": "string" }, "room": { "type": "string" },
              "photoID": { "type": "string", "description": "The cover photo: the one chosen on the plant's page, else the newest." },
              "added": { "type": "string", "format": "date-time" }, "notes": { "type": "string" }
            }
          },
          "Event": {
            "type": "object",
            "properties": {
              "date": { "type": "string", "format": "date-time" }, "text": { "type": "string" },
              "by": { "type": "string", "description": "The account that did it; absent when done from the command line." }
            }
          },
          "CollectionEntryDetail": {
            "type": "object",
            "properties": {
              "entry": { "$ref": "#/components/schemas/CollectionEntry" },
              "photoIDs": { "type": "array", "items": { "type": "string" } },
              "history": { "type": "array", "items": { "$ref": "#/components/schemas/Event" } },
              "careLog": { "type": "array", "items": { "$ref": "#/components/schemas/Event" } },
              "photos": { "type": "array", "description": "Newest first. GET /collection/photos/{id} is the photo, /collection/photos/{id}/thumbnail its 256-pixel thumbnail.",
                "items": { "type": "object", "required": ["id", "isCover", "added"], "properties": {
                  "id": { "type": "string" }, "isCover": { "type": "boolean" }, "added": { "type": "string", "format": "date-time" } } } },
              "identifications": { "type": "array", "description": "Newest first.",
                "items": { "type": "object", "required": ["date", "source"], "properties": {
                  "date": { "type": "string", "format": "date-time" }, "species": { "type": "string" },
                  "confidence": { "type": "number", "minimum": 0, "maximum": 1 },
                  "source": { "type": "string", "enum": ["onDevice", "plantNetAPI", "cache"] }, "model": { "type": "string" },
                  "recheckNote": { "type": "string", "description": "E.g. waiting for a Pl@ntNet re-check, or Pl@ntNet re-check." } } } },
              "careProfile": { "type": "object", "description": "What the plant wants; absent when it has no profile.", "properties": {
                "light": { "type": "string", "enum": ["low", "medium", "bright indirect", "direct sun"] },
                "waterGrowingDays": { "type": "integer" }, "waterWinterDays": { "type": "integer" },
                "fertilizeGrowingDays": { "type": "integer" }, "mistDays": { "type": "integer" }, "repotDays": { "type": "integer" },
                "pruneDays": { "type": "integer" }, "humidity": { "type": "string", "enum": ["low", "medium", "high"] },
                "minTemperature": { "type": "integer" }, "maxTemperature": { "type": "integer" },
                "toxicToCats": { "type": "boolean" }, "toxicToDogs": { "type": "boolean" },
                "toxicitySource": { "type": "string" }, "basis": { "type": "string" } } },
              "schedule": { "type": "array", "description": "Every care task; `id` is the task id of /api/care/{id}/done and /snooze.",
                "items": { "type": "object", "required": ["id", "action", "overdueDays"], "properties": {
                  "id": { "type": "string" }, "action": { "type": "string" }, "due": { "type": "string", "format": "date-time" },
                  "intervalDays": { "type": "integer" }, "lastDone": { "type": "string", "format": "date-time" },
                  "snoozedUntil": { "type": "string", "format": "date-time" }, "overdueDays": { "type": "integer", "minimum": 0 },
                  "explanation": { "type": "string", "description": "Why the interval is what it is: the care guide's, learned from the care log, or set by hand." },
                  "checksSoil": { "type": "boolean", "description": "Whether /api/care/{id}/check takes a soil check for this task (watering)." } } } },
              "conditions": { "type": "object", "description": "Where the plant lives, when anything is said: each scales the guide's watering interval.", "properties": {
                "potCentimetres": { "type": "integer", "minimum": 4, "maximum": 150 },
                "potMaterial": { "type": "string", "enum": ["plastic", "terracotta", "ceramic", "self-watering"] },
                "light": { "type": "string", "enum": ["low", "medium", "bright indirect", "direct sun"] },
                "nearHeater": { "type": "boolean" }, "outdoorsInSummer": { "type": "boolean" } } },
              "careFacts": { "type": "array", "description": "Facts from the care log worth checking when the plant looks sick (never a diagnosis).",
                "items": { "type": "object", "required": ["kind", "text"], "properties": {
                  "kind": { "type": "string", "enum": ["watering", "overdue", "repotting", "light"] }, "text": { "type": "string" } } } },
              "healthRecords": { "type": "array", "description": "Diagnoses kept in the plant's history (\"Keep in the plant's history\", `plantguide diagnose --save`), newest first.",
                "items": { "type": "object", "required": ["id", "date", "status", "summary", "candidates", "photoIDs"], "properties": {
                  "id": { "type": "string" }, "date": { "type": "string", "format": "date-time" },
                  "status": { "type": "string", "enum": ["diagnosed", "waiting", "notMade"], "description": "diagnosed: Pl@ntNet answered; waiting: kept while Pl@ntNet could not be reached, sent when it can be; notMade: sending was given up (the summary says why)." },
                  "summary": { "type": "string", "description": "The best candidate and its score, that no disease was found, that it waits for Pl@ntNet, or why it was not made." },
                  "candidates": { "type": "array", "items": { "type": "object", "required": ["rank", "eppoCode", "score"], "properties": {
                    "rank": { "type": "integer" }, "eppoCode": { "type": "string", "description": "The EPPO code, e.g. BOTRCI." },
                    "name": { "type": "string" }, "inDiseaseList": { "type": "boolean" }, "score": { "type": "number" },
                    "referenceImages": { "type": "array", "items": { "type": "object" } } } } },
                  "by": { "type": "string" }, "note": { "type": "string" },
                  "photoIDs": { "type": "array", "items": { "type": "string" }, "description": "Ids for /collection/photos/{id}, in the order sent." },
                  "model": { "type": "string", "description": "The disease service's version, once it answered." } } } }
            }
          },
          "NewCollectionEntry": {
            "type": "object", "required": ["scientificName"],
            "properties": {
              "uploadId": { "type": ["string", "null"], "description": "The `uploadId` of an identification in this session; 404 once it expired. All its photos are stored with the plant." },
              "plantId": { "type": ["string", "null"], "description": "Add the identification and its photos to this plant of the collection instead of adding a new plant; 404 when there is no such plant." },
              "scientificName": { "type": "string", "minLength": 1, "maxLength": \#(InputLimits.plantNameCharacters), "pattern": "[^\#(blankClass)]", "description": "The plant's name (not only white space), at most \#(InputLimits.plantNameCharacters) characters; surrounding spaces are dropped." },
              "nickname": { "type": ["string", "null"], "maxLength": \#(InputLimits.nicknameCharacters) },
              "room": { "type": ["string", "null"], "maxLength": \#(InputLimits.roomCharacters), "description": "Null, empty or only spaces: no room." }
            }
          },
          "CareTask": {
            "type": "object",
            "properties": {
              "id": { "type": "string" }, "plantID": { "type": "string" }, "plantName": { "type": "string" },
              "action": { "type": "string" }, "due": { "type": "string", "format": "date-time" },
              "room": { "type": ["string", "null"], "description": "The plant's room; null when it has none." },
              "why": { "type": ["string", "null"], "description": "Why the task comes round when it does (the interval, the guide, conditions and what the plant's care log taught); null for tasks past the first 200." }
            }
          },
          "ModelInstall": {
            "type": "object", "required": ["state", "receivedBytes", "text"],
            "properties": {
              "state": { "type": "string", "enum": ["idle", "downloading", "checking", "importing", "installed", "failed", "cancelled"] },
              "architecture": { "type": ["string", "null"] }, "receivedBytes": { "type": "integer", "minimum": 0 },
              "totalBytes": { "type": ["integer", "null"] }, "bytesPerSecond": { "type": ["number", "null"] },
              "secondsLeft": { "type": ["integer", "null"] }, "percent": { "type": ["integer", "null"] },
              "message": { "type": ["string", "null"] }, "text": { "type": "string", "description": "Where it stands, in a sentence." }
            }
          },
          "Settings": {
            "type": "object",
            "properties": {
              "available": { "type": "boolean" }, "apiKeySet": { "type": ["boolean", "null"] },
              "apiKeySource": { "type": ["string", "null"], "enum": ["environment", "dataDirectory", null] },
              "quota": { "type": ["object", "null"], "properties": { "remaining": { "type": "integer" }, "limit": { "type": ["integer", "null"] } } },
              "cache": { "type": "array", "items": { "type": "object", "properties": { "label": { "type": "string" }, "value": { "type": "string" } } } },
              "model": { "type": "array", "items": { "type": "object", "properties": { "label": { "type": "string" }, "value": { "type": "string" } } } },
              "identification": { "type": ["string", "null"] }
            }
          }
        }
      },
      "security": [{ "session": [], "csrf": [] }],
      "paths": {
        "/api/session": {
          "get": {
            "summary": "The session and its anti-forgery token", "security": [],
            "description": "Sets the `pg_session` cookie when the request has none. Open to everyone, also on exposed servers.",
            "responses": { "200": { "description": "Session", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Session" } } } }, \#(errors([414])) }
          },
          "post": {
            "summary": "Log in with an account",
            "description": "Checks an account's name and password and starts a fresh logged-in session stored in the database (it expires after 12 hours, and ends at once when the password changes or the account is removed); sets its cookie (get a new `csrfToken` afterwards). `user` may be left out when exactly one account exists (400 otherwise). On a server without accounts it does nothing and answers 204.",
            "requestBody": { "required": true, "content": { "application/json": { "schema": { "type": "object", "required": ["password"], "properties": { "user": { "type": "string", "maxLength": 64, "description": "The account's name (any letter case)." }, "password": { "type": "string" } } } } } },
            "responses": { "204": { "description": "Logged in; a fresh session cookie is set." }, \#(errors([400, 429] + unsafeRequest)) }
          },
          "delete": { "summary": "Log out", "responses": { "204": { "$ref": "#/components/responses/NoContent" }, \#(errors([403, 408, 413, 414])) } }
        },
        "/api/status": {
          "get": {
            "summary": "What this server can do and how busy it is", \#(readSecurity),
            "responses": { "200": { "description": "Status", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Status" } } } }, \#(errors(anyRequest)) }
          }
        },
        "/api/catalog/plants": {
          "get": {
            "summary": "Search or list catalog plants", \#(readSecurity),
            "parameters": [
              { "name": "q", "in": "query", "schema": { "type": "string", "maxLength": \#(InputLimits.queryCharacters) }, "description": "Search text of at most \#(InputLimits.queryCharacters) characters and \#(InputLimits.queryWords) words (400 beyond); empty lists all." },
              { "name": "category", "in": "query", "schema": { "type": "string", "enum": [\#(categoryNames)] }, "description": "Category slug (e.g. cactus or tropical-foliage) or name (e.g. Tropical Foliage); empty is any. Others are 400." },
              { "name": "family", "in": "query", "schema": { "type": "string" } },
              { "name": "limit", "in": "query", "schema": { "type": "integer", "minimum": 1, "maximum": \#(Int.max) }, "description": "At most this many plants." }
            ],
            "responses": { "200": { "description": "Plants", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/PlantList" } } },
              "links": { "FirstPlant": { "operationId": "getCatalogPlant", "parameters": { "name": "$response.body#/plants/0/scientificName" } } } }, \#(errors([400, 501] + anyRequest)) }
          }
        },
        "/api/catalog/plants/{name}": {
          "get": {
            "summary": "One catalog plant and related ones", "operationId": "getCatalogPlant", \#(readSecurity), "parameters": [{ "$ref": "#/components/parameters/Name" }],
            "responses": { "200": { "description": "Plant", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/PlantDetail" } } } }, \#(errors([404, 501] + anyRequest)) }
          }
        },
        "/api/catalog/categories": {
          "get": {
            "summary": "Categories with counts", \#(readSecurity),
            "responses": { "200": { "description": "Categories", "content": { "application/json": { "schema": { "type": "array", "items": { "$ref": "#/components/schemas/Category" } } } } }, \#(errors([501] + anyRequest)) }
          }
        },
        "/api/identify": {
          "post": {
            "summary": "Identify a plant from 1–\#(PhotoUploadRules.maximumPhotos) photos",
            "description": "Photos are checked by content (\#(ImageFormat.acceptedNames)): anything else is 415, an empty, damaged or too small photo 422, too many bytes or pixels 413. Work is bounded by a concurrency limit and a queue; when both are full the answer is 503 with Retry-After.",
            "requestBody": {
              "required": true,
              "content": {
                "multipart/form-data": {
                  "schema": {
                    "type": "object", "required": ["photo"], "additionalProperties": false,
                    "properties": {
                      "photo": { "type": "string", "contentMediaType": "application/octet-stream", "description": "A photo; repeat the part (up to \#(PhotoUploadRules.maximumPhotos)) for more photos of one plant." },
                      "organ": { "type": "string", "enum": ["auto", "leaf", "flower", "fruit", "bark", "habit"],
                        "description": "What the photos show: one part for all photos, or one per photo in their order. A photo of the whole plant (habit) needs one of a leaf, flower, fruit or bark beside it, and is not sent with auto (else 400: Pl@ntNet's rules)." },
                      "strategy": { "type": "string", "enum": [\#(IdentifyStrategy.names.map { "\"\($0)\"" }.joined(separator: ", "))],
                        "description": "auto (the default unless Settings say otherwise): on-device-first with a model installed, else Pl@ntNet only. plantnet and api both mean Pl@ntNet only; the names are those of plantguide identify --strategy." },
                      "_csrf": { "type": "string", "description": "The token, when not sent as X-CSRF-Token." }
                    }
                  }
                }
              }
            },
            "responses": {
              "200": { "description": "Candidates, best first", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/IdentifyAnswer" } } } },
              \#(errors([400, 415, 422, 501, 502, 503] + unsafeRequest))
            }
          }
        },
        "/api/collection": {
          "get": {
            "summary": "Plants in the collection", \#(readSecurity), "parameters": [{ "name": "room", "in": "query", "schema": { "type": "string" } }],
            "responses": { "200": { "description": "Entries", "content": { "application/json": { "schema": { "type": "array", "items": { "$ref": "#/components/schemas/CollectionEntry" } } } } }, \#(errors([501] + anyRequest)) }
          },
          "post": {
            "summary": "Add a plant (optionally the photo of an identification)",
            "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/NewCollectionEntry" } } } },
            "responses": { "201": { "description": "Added", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/CollectionEntry" } } },
              "links": { "AddedPlant": { "operationId": "getCollectionEntry", "parameters": { "id": "$response.body#/id" } } } }, \#(errors([400, 404, 422, 501] + unsafeRequest)) }
          }
        },
        "/api/collection/{id}": {
          "get": {
            "summary": "One plant with photos, history and care log", "operationId": "getCollectionEntry", \#(readSecurity), "parameters": [{ "$ref": "#/components/parameters/Id" }],
            "responses": { "200": { "description": "Plant", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/CollectionEntryDetail" } } } }, \#(errors([404, 501] + anyRequest)) }
          },
          "patch": {
            "summary": "Change a plant's nickname, room and notes", "parameters": [{ "$ref": "#/components/parameters/Id" }],
            "description": "A field left out stays as it is; null, empty or only white space clears it; surrounding white space is dropped. A text over its limit is 422.",
            "requestBody": { "required": true, "content": { "application/json": { "schema": {
              "type": "object",
              "properties": {
                "nickname": { "type": ["string", "null"], "maxLength": \#(InputLimits.nicknameCharacters) },
                "room": { "type": ["string", "null"], "maxLength": \#(InputLimits.roomCharacters) },
                "notes": { "type": ["string", "null"], "maxLength": \#(InputLimits.noteCharacters) }
              }
            } } } },
            "responses": { "200": { "description": "The plant as it is now", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/CollectionEntryDetail" } } } }, \#(errors([400, 404, 422, 501] + unsafeRequest)) }
          }
        },
        "/api/care": {
          "get": {
            "summary": "Care tasks due within some days", \#(readSecurity), "parameters": [{ "name": "days", "in": "query", "schema": { "type": "integer", "minimum": 1, "maximum": 366, "default": 7 } }],
            "responses": { "200": { "description": "Tasks", "content": { "application/json": { "schema": { "type": "array", "items": { "$ref": "#/components/schemas/CareTask" } } } } }, \#(errors([400, 501] + anyRequest)) }
          }
        },
        "/api/care/{id}/done": {
          "post": {
            "summary": "Mark a task done", "parameters": [{ "$ref": "#/components/parameters/Id" }],
            "responses": { "204": { "$ref": "#/components/responses/NoContent" }, \#(errors([404, 501] + unsafeRequest)) }
          }
        },
        "/api/care/{id}/check": {
          "post": {
            "summary": "Say what the soil was like when watering came due: wet moves it on a few days, dry makes it due today; both teach the plant's interval. Only watering tasks take one: 404 for any other.",
            "parameters": [{ "$ref": "#/components/parameters/Id" }, { "name": "soil", "in": "query", "required": true, "schema": { "type": "string", "enum": ["wet", "dry"] } }],
            "responses": { "204": { "$ref": "#/components/responses/NoContent" }, \#(errors([400, 404, 501] + unsafeRequest)) }
          }
        },
        "/api/care/undo/{plant}": {
          "post": {
            "summary": "Remove a plant's newest care entry (care done or a soil check)",
            "parameters": [{ "name": "plant", "in": "path", "required": true, "schema": { "type": "string" } }],
            "responses": { "200": { "description": "What the removed entry said", "content": { "application/json": { "schema": { "type": "object", "required": ["removed"], "properties": { "removed": { "type": "string" } } } } } }, \#(errors([404, 501] + unsafeRequest)) }
          }
        },
        "/api/care/{id}/snooze": {
          "post": {
            "summary": "Move a task later", "parameters": [{ "$ref": "#/components/parameters/Id" }, { "name": "days", "in": "query", "schema": { "type": "integer", "minimum": 1, "maximum": 30, "default": 1 } }],
            "responses": { "204": { "$ref": "#/components/responses/NoContent" }, \#(errors([400, 404, 501] + unsafeRequest)) }
          }
        },
        "/api/settings": {
          "get": {
            "summary": "Key status (never the key), quota, cache and model", \#(readSecurity),
            "responses": { "200": { "description": "Settings", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Settings" } } } }, \#(errors(anyRequest)) }
          }
        },
        "/api/model/install": {
          "get": {
            "summary": "The on-device model download running now, or the last one's outcome", \#(readSecurity),
            "responses": { "200": { "description": "Install status", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ModelInstall" } } } }, \#(errors([501] + anyRequest)) }
          },
          "post": {
            "summary": "Download, check and install an on-device model; it is used once whole and checked",
            "description": "Owners of the installation only: a member's session gets 403. One install runs at a time: while one runs, this answers its status and starts nothing. A stopped download resumes.",
            "requestBody": { "required": true, "content": { "application/json": { "schema": { "type": "object", "required": ["architecture"], "properties": { "architecture": { "type": "string", "enum": ["resnet18", "resnet50"] } } } } } },
            "responses": { "202": { "description": "Started (or already running)", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ModelInstall" } } } }, \#(errors([400, 501, 502] + unsafeRequest)) }
          }
        },
        "/api/settings/api-key": {
          "put": {
            "summary": "Store or replace the Pl@ntNet API key",
            "description": "Owners only: a member's session gets 403.",
            "requestBody": { "required": true, "content": { "application/json": { "schema": { "type": "object", "required": ["apiKey"], "properties": { "apiKey": { "type": "string", "minLength": \#(SettingsRoutes.apiKeyLengths.lowerBound), "maxLength": \#(SettingsRoutes.apiKeyLengths.upperBound), "pattern": "^[A-Za-z0-9_-]{\#(SettingsRoutes.apiKeyLengths.lowerBound),\#(SettingsRoutes.apiKeyLengths.upperBound)}$", "description": "As shown on my.plantnet.org: \#(SettingsRoutes.apiKeyLengths.lowerBound) to \#(SettingsRoutes.apiKeyLengths.upperBound) ASCII letters, digits, `-` and `_`." } } } } } },
            "responses": { "204": { "$ref": "#/components/responses/NoContent" }, \#(errors([400, 501] + unsafeRequest)) }
          }
        },
        "/api/users": {
          "get": {
            "summary": "The accounts (owners only)", \#(readSecurity),
            "description": "Names, roles and dates; never password hashes. A member's session gets 403. A server without accounts lists none.",
            "responses": { "200": { "description": "Accounts", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/UserList" } } } }, \#(errors([403, 501] + anyRequest)) }
          },
          "post": {
            "summary": "Add an account (owners only)",
            "description": "A server without accounts answers 403: its first account, an owner, is made on the server's machine with `plantguide user add NAME`.",
            "requestBody": { "required": true, "content": { "application/json": { "schema": { "type": "object", "required": ["name", "password"], "properties": {
              "name": { "type": "string", "minLength": 1, "maxLength": 64, "pattern": "^[A-Za-z0-9._-]+$", "description": "Unique in any letter case." },
              "password": { "type": "string", "minLength": 8, "description": "8 characters or more; stored as a PBKDF2-SHA256 hash." },
              "role": { "type": ["string", "null"], "enum": ["owner", "member", null], "default": "member", "description": "null or left out: member." } } } } } },
            "responses": { "201": { "description": "Added", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/User" } } } }, \#(errors([400, 403, 409, 422, 501] + unsafeRequest)) }
          }
        },
        "/api/users/{name}": {
          "delete": {
            "summary": "Remove an account (owners only); its log-ins end",
            "description": "The last owner cannot be removed (409). A name no account has is 404.",
            "parameters": [{ "name": "name", "in": "path", "required": true, "schema": { "type": "string" } }],
            "responses": { "204": { "$ref": "#/components/responses/NoContent" }, \#(errors([404, 409, 501] + unsafeRequest)) }
          }
        },
        "/api/users/{name}/password": {
          "put": {
            "summary": "Set an account's password (owners only); its log-ins end",
            "parameters": [{ "name": "name", "in": "path", "required": true, "schema": { "type": "string" } }],
            "requestBody": { "required": true, "content": { "application/json": { "schema": { "type": "object", "required": ["password"], "properties": {
              "password": { "type": "string", "minLength": 8 } } } } } },
            "responses": { "204": { "$ref": "#/components/responses/NoContent" }, \#(errors([400, 404, 422, 501] + unsafeRequest)) }
          }
        }
      }
    }
    """#
    }

    /// The methods each documented API address answers (HEAD wherever GET), for the 405 answer's `Allow`.
    private static let addresses: [(segments: [Substring], methods: [String])] = {
        guard let document = try? JSONSerialization.jsonObject(with: Data(open.utf8)) as? [String: Any],
              let paths = document["paths"] as? [String: [String: Any]]
        else { return [] }
        return paths.map { path, operations in
            var methods = operations.keys.map { $0.uppercased() }
            if methods.contains("GET") { methods.append("HEAD") }
            return (path.split(separator: "/"), methods.sorted())
        }
    }()

    /// The methods the documented API address matching `path` answers, or nil when it documents no such address.
    static func methods(atPath path: String) -> [String]? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for address in addresses where address.segments.count == segments.count {
            let matches = zip(address.segments, segments).allSatisfy { template, segment in
                template.hasPrefix("{") ? !segment.isEmpty : template == segment
            }
            if matches { return address.methods }
        }
        return nil
    }
}
