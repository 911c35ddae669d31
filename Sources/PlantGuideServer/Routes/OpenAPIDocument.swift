import PlantGuideCore

/// The OpenAPI 3.1 description of the JSON API, served at `/openapi.json`. Written by hand; the router
/// tests check that every path it names is served and every API route is named.
enum OpenAPIDocument {
    static let json = #"""
    {
      "openapi": "3.1.0",
      "info": {
        "title": "PlantGuide",
        "version": "0.1.0",
        "description": "Identify plants from photos, browse the houseplant catalog, keep a collection and its care schedule. Every state-changing call needs the session cookie `pg_session` and its anti-forgery token in the `X-CSRF-Token` header (get both from `GET /api/session`). When the server is exposed beyond loopback, log in with `POST /api/session` first. Errors are JSON `{status, message}`."
      },
      "servers": [{ "url": "/" }],
      "components": {
        "securitySchemes": {
          "session": { "type": "apiKey", "in": "cookie", "name": "pg_session" },
          "csrf": { "type": "apiKey", "in": "header", "name": "X-CSRF-Token" }
        },
        "responses": {
          "Error": {
            "description": "An error with a status and a message a person can act on.",
            "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } }
          },
          "NoContent": { "description": "Done." }
        },
        "parameters": {
          "Name": { "name": "name", "in": "path", "required": true, "schema": { "type": "string" }, "description": "Scientific name, e.g. Monstera deliciosa." },
          "Id": { "name": "id", "in": "path", "required": true, "schema": { "type": "string" } }
        },
        "schemas": {
          "Error": {
            "type": "object", "required": ["status", "message"],
            "properties": { "status": { "type": "integer" }, "message": { "type": "string" } }
          },
          "Session": {
            "type": "object", "required": ["requiresLogin", "loggedIn", "csrfToken"],
            "properties": { "requiresLogin": { "type": "boolean" }, "loggedIn": { "type": "boolean" }, "csrfToken": { "type": "string" } }
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
              "family": { "type": "string" }, "category": { "type": "string" }
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
                "description": "Catalog plants of the same genus, when the species itself is not in the catalog." }
            }
          },
          "IdentifyResult": {
            "type": "object", "required": ["uploadId", "source", "uncertain", "offline", "predictions", "didYouMean"],
            "properties": {
              "uploadId": { "type": "string", "description": "Pass to POST /api/collection to save this photo." },
              "source": { "type": "string", "enum": ["onDevice", "plantNetAPI", "cache"] },
              "model": { "type": "string" }, "uncertain": { "type": "boolean" }, "offline": { "type": "boolean" },
              "uncertainReason": { "type": "string", "description": "Why the answer is uncertain and what to do next." },
              "photoCount": { "type": "integer", "minimum": 1 },
              "agreeingPhotos": { "type": "integer", "minimum": 0,
                "description": "Photos that, identified alone, had the combined best species first." },
              "quotaRemaining": { "type": "integer" },
              "predictions": { "type": "array", "items": { "$ref": "#/components/schemas/Prediction" }, "maxItems": 10 },
              "didYouMean": { "type": "array", "items": { "$ref": "#/components/schemas/Plant" } }
            }
          },
          "CollectionEntry": {
            "type": "object", "required": ["id", "scientificName", "added"],
            "properties": {
              "id": { "type": "string" }, "scientificName": { "type": "string" }, "nickname": { "type": "string" },
              "commonName": { "type": "string" }, "room": { "type": "string" }, "photoID": { "type": "string" },
              "added": { "type": "string", "format": "date-time" }
            }
          },
          "Event": {
            "type": "object", "properties": { "date": { "type": "string", "format": "date-time" }, "text": { "type": "string" } }
          },
          "CollectionEntryDetail": {
            "type": "object",
            "properties": {
              "entry": { "$ref": "#/components/schemas/CollectionEntry" },
              "photoIDs": { "type": "array", "items": { "type": "string" } },
              "history": { "type": "array", "items": { "$ref": "#/components/schemas/Event" } },
              "careLog": { "type": "array", "items": { "$ref": "#/components/schemas/Event" } }
            }
          },
          "NewCollectionEntry": {
            "type": "object", "required": ["scientificName"],
            "properties": { "uploadId": { "type": "string" }, "scientificName": { "type": "string", "minLength": 1, "maxLength": \#(InputLimits.plantNameCharacters) }, "nickname": { "type": "string", "maxLength": \#(InputLimits.nicknameCharacters) }, "room": { "type": "string", "maxLength": \#(InputLimits.roomCharacters) } }
          },
          "CareTask": {
            "type": "object",
            "properties": {
              "id": { "type": "string" }, "plantID": { "type": "string" }, "plantName": { "type": "string" },
              "action": { "type": "string" }, "due": { "type": "string", "format": "date-time" }
            }
          },
          "Settings": {
            "type": "object",
            "properties": {
              "available": { "type": "boolean" }, "apiKeySet": { "type": ["boolean", "null"] },
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
          "get": { "summary": "The session and its anti-forgery token", "security": [], "responses": { "200": { "description": "Session", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Session" } } } } } },
          "post": {
            "summary": "Log in (exposed servers)", "security": [{ "session": [], "csrf": [] }],
            "requestBody": { "required": true, "content": { "application/json": { "schema": { "type": "object", "required": ["password"], "properties": { "password": { "type": "string" } } } } } },
            "responses": { "204": { "description": "Logged in; a fresh session cookie is set." }, "401": { "$ref": "#/components/responses/Error" }, "429": { "$ref": "#/components/responses/Error" } }
          },
          "delete": { "summary": "Log out", "responses": { "204": { "$ref": "#/components/responses/NoContent" } } }
        },
        "/api/status": {
          "get": { "summary": "What this server can do and how busy it is", "responses": { "200": { "description": "Status", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Status" } } } } } }
        },
        "/api/catalog/plants": {
          "get": {
            "summary": "Search or list catalog plants",
            "parameters": [
              { "name": "q", "in": "query", "schema": { "type": "string", "maxLength": \#(InputLimits.queryCharacters) }, "description": "Search text of at most \#(InputLimits.queryCharacters) characters and \#(InputLimits.queryWords) words; empty lists all." },
              { "name": "category", "in": "query", "schema": { "type": "string" }, "description": "Category slug, e.g. cactus or tropical-foliage." },
              { "name": "family", "in": "query", "schema": { "type": "string" } },
              { "name": "limit", "in": "query", "schema": { "type": "integer", "minimum": 1 } }
            ],
            "responses": { "200": { "description": "Plants", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/PlantList" } } } }, "400": { "$ref": "#/components/responses/Error" } }
          }
        },
        "/api/catalog/plants/{name}": {
          "get": {
            "summary": "One catalog plant and related ones", "parameters": [{ "$ref": "#/components/parameters/Name" }],
            "responses": { "200": { "description": "Plant", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/PlantDetail" } } } }, "404": { "$ref": "#/components/responses/Error" } }
          }
        },
        "/api/catalog/categories": {
          "get": { "summary": "Categories with counts", "responses": { "200": { "description": "Categories", "content": { "application/json": { "schema": { "type": "array", "items": { "$ref": "#/components/schemas/Category" } } } } } } }
        },
        "/api/identify": {
          "post": {
            "summary": "Identify a plant from 1–5 photos",
            "description": "Photos are checked by content (JPEG, PNG, WebP, HEIC). Work is bounded by a concurrency limit and a queue; when both are full the answer is 503 with Retry-After.",
            "requestBody": {
              "required": true,
              "content": {
                "multipart/form-data": {
                  "schema": {
                    "type": "object", "required": ["photo"],
                    "properties": {
                      "photo": { "type": "string", "contentMediaType": "application/octet-stream" },
                      "organ": { "type": "string", "enum": ["auto", "leaf", "flower", "fruit", "bark"] },
                      "strategy": { "type": "string", "enum": ["auto", "on-device", "plantnet"] },
                      "_csrf": { "type": "string", "description": "The token, when not sent as X-CSRF-Token." }
                    }
                  }
                }
              }
            },
            "responses": {
              "200": { "description": "Candidates, best first", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/IdentifyResult" } } } },
              "400": { "$ref": "#/components/responses/Error" }, "403": { "$ref": "#/components/responses/Error" },
              "413": { "$ref": "#/components/responses/Error" }, "415": { "$ref": "#/components/responses/Error" },
              "422": { "$ref": "#/components/responses/Error" }, "501": { "$ref": "#/components/responses/Error" },
              "503": { "description": "Busy; retry after the given seconds.", "headers": { "Retry-After": { "schema": { "type": "integer" } } }, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } }
            }
          }
        },
        "/api/collection": {
          "get": {
            "summary": "Plants in the collection", "parameters": [{ "name": "room", "in": "query", "schema": { "type": "string" } }],
            "responses": { "200": { "description": "Entries", "content": { "application/json": { "schema": { "type": "array", "items": { "$ref": "#/components/schemas/CollectionEntry" } } } } }, "501": { "$ref": "#/components/responses/Error" } }
          },
          "post": {
            "summary": "Add a plant (optionally the photo of an identification)",
            "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/NewCollectionEntry" } } } },
            "responses": { "201": { "description": "Added", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/CollectionEntry" } } } }, "400": { "$ref": "#/components/responses/Error" }, "404": { "$ref": "#/components/responses/Error" }, "413": { "$ref": "#/components/responses/Error" }, "422": { "$ref": "#/components/responses/Error" } }
          }
        },
        "/api/collection/{id}": {
          "get": {
            "summary": "One plant with photos, history and care log", "parameters": [{ "$ref": "#/components/parameters/Id" }],
            "responses": { "200": { "description": "Plant", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/CollectionEntryDetail" } } } }, "404": { "$ref": "#/components/responses/Error" } }
          }
        },
        "/api/care": {
          "get": {
            "summary": "Care tasks due within some days", "parameters": [{ "name": "days", "in": "query", "schema": { "type": "integer", "minimum": 1, "maximum": 366, "default": 7 } }],
            "responses": { "200": { "description": "Tasks", "content": { "application/json": { "schema": { "type": "array", "items": { "$ref": "#/components/schemas/CareTask" } } } } }, "400": { "$ref": "#/components/responses/Error" } }
          }
        },
        "/api/care/{id}/done": {
          "post": { "summary": "Mark a task done", "parameters": [{ "$ref": "#/components/parameters/Id" }], "responses": { "204": { "$ref": "#/components/responses/NoContent" }, "404": { "$ref": "#/components/responses/Error" } } }
        },
        "/api/care/{id}/snooze": {
          "post": {
            "summary": "Move a task later", "parameters": [{ "$ref": "#/components/parameters/Id" }, { "name": "days", "in": "query", "schema": { "type": "integer", "minimum": 1, "maximum": 30, "default": 1 } }],
            "responses": { "204": { "$ref": "#/components/responses/NoContent" }, "400": { "$ref": "#/components/responses/Error" }, "404": { "$ref": "#/components/responses/Error" } }
          }
        },
        "/api/settings": {
          "get": { "summary": "Key status (never the key), quota, cache and model", "responses": { "200": { "description": "Settings", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Settings" } } } } } }
        },
        "/api/settings/api-key": {
          "put": {
            "summary": "Store or replace the Pl@ntNet API key",
            "requestBody": { "required": true, "content": { "application/json": { "schema": { "type": "object", "required": ["apiKey"], "properties": { "apiKey": { "type": "string" } } } } } },
            "responses": { "204": { "$ref": "#/components/responses/NoContent" }, "400": { "$ref": "#/components/responses/Error" }, "501": { "$ref": "#/components/responses/Error" } }
          }
        }
      }
    }
    """#
}
