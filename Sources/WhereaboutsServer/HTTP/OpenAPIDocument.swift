import Hummingbird
import Logging
import Whereabouts

/// The OpenAPI 3 document of the server's whole API, served at `GET /openapi.json` (no token
/// needed): every route with its parameters, request bodies (schemas that match
/// ``EventValidation``), the statuses it answers with, Pryv's error shape and the `meta` member.
///
/// The document is kept true by `OpenAPIDocumentTests` (every route of the server is described,
/// every described route answers, the statuses listed are the ones the server gives) and by
/// `Scripts/schemathesis.sh`, which checks the running server against it.
///
/// ```swift
/// let router = Router(context: ServerRequestContext.self)
/// // … every other route …
/// OpenAPIDocument.addRoute(to: router, logger: logger)
/// ```
public enum OpenAPIDocument {
    /// The path the document is served at.
    public static let path = "/openapi.json"

    /// The document, parsed once from its source (a test checks the source is valid JSON).
    public static let json: JSONValue = (try? JSONParser.parse(source)) ?? .object([])

    /// The document as served: compact JSON.
    static let body = JSONWriter().string(from: json)

    /// The operations the document describes, as `METHOD /path` with Hummingbird's path
    /// spelling (`GET /events/{id}`), sorted.
    public static var operations: [String] {
        guard case .object(let paths)? = json["paths"] else { return [] }
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
        return paths.flatMap { path, item -> [String] in
            guard case .object(let members) = item else { return [] }
            return members.map(\.key).filter(methods.contains).map { "\($0.uppercased()) \(path)" }
        }.sorted()
    }

    /// The routes `router` has that the document does not describe, as `METHOD /path`.
    public static func undocumentedRoutes(of router: Router<ServerRequestContext>) -> [String] {
        let documented = Set(operations)
        return router.routes.map { "\($0.method.rawValue) \($0.path)" }.filter { !documented.contains($0) }.sorted()
    }

    /// Adds `GET /openapi.json` to `router`, and logs a warning for every route of `router` that
    /// the document does not describe. Call it after adding every other route.
    public static func addRoute(to router: Router<ServerRequestContext>, logger: Logger) {
        router.get(RouterPath(path)) { _, _ in
            APIResponse.json(text: body)
        }
        for route in undocumentedRoutes(of: router) {
            logger.warning("Route missing from /openapi.json; describe it in OpenAPIDocument.swift.",
                           metadata: ["route": "\(route)"])
        }
    }

    // The document's source: OpenAPI 3.0.3, written by hand next to the routes it describes.
    static let source = #"""
{
  "openapi": "3.0.3",
  "info": {
    "title": "Whereabouts server",
    "version": "1.9.0",
    "description": "A location-event store with a Pryv-compatible events API (events, streams, batch calls), OwnTracks' HTTP mode, exports, a live feed and a map page. Every JSON response of the API carries `meta` ({apiVersion, serverTime, serial}); errors have Pryv's shape {\"error\": {\"id\", \"message\"}, \"meta\"}. Error ids: invalid-request-structure (the body is not JSON or not the expected structure), invalid-parameters-format (a field or parameter has the wrong type or value), unknown-resource (404: no such event, stream, attachment or route), unknown-referenced-resource (400: the request names a stream that does not exist), item-already-exists (409), invalid-access-token (401), forbidden (403), request-too-large (413), too-many-requests (429), invalid-operation (405), upgrade-required (426), unexpected-error (5xx: the store did not answer). A request carrying a valid token is subject to that token's rate limit on every route.",
    "license": {"name": "See the Whereabouts repository"}
  },
  "security": [{"token": []}, {"bearer": []}, {"basic": []}, {"authQuery": []}],
  "tags": [
    {"name": "events", "description": "Pryv's events methods."},
    {
      "name": "streams",
      "description": "Pryv's streams methods: a stream tree per user; `position` exists from the start."
    },
    {"name": "batch", "description": "Several method calls in one request."},
    {"name": "owntracks", "description": "OwnTracks' HTTP mode."},
    {"name": "map", "description": "The map page, the venue it draws and its live feed."},
    {"name": "operations", "description": "Health, metrics and this document; no token needed."}
  ],
  "paths": {
    "/events": {
      "get": {
        "tags": ["events"],
        "operationId": "events.get",
        "summary": "The token's readable events matching the filters.",
        "description": "Defaults (Pryv's): without fromTime and toTime, the newest 20 events; with toTime only, the 24 h before it; with fromTime only, until now. Newest first unless sortAscending. With `format` geojson, gpx or csv (and no `types[]`), the user's `position/wgs84` events as a track file ordered by time.",
        "parameters": [
          {
            "name": "fromTime",
            "in": "query",
            "description": "Events that end at or after this time (seconds since 1970).",
            "schema": {"$ref": "#/components/schemas/QueryTime"}
          },
          {
            "name": "toTime",
            "in": "query",
            "description": "Events that start at or before this time (seconds since 1970).",
            "schema": {"$ref": "#/components/schemas/QueryTime"}
          },
          {
            "name": "streams[]",
            "in": "query",
            "description": "Events in these streams or their descendants (repeat the parameter; `streams` works too).",
            "style": "form",
            "explode": true,
            "schema": {"type": "array", "items": {"$ref": "#/components/schemas/Identifier"}}
          },
          {
            "name": "types[]",
            "in": "query",
            "description": "Events of these types (`class/format`) or classes (`class/*`).",
            "style": "form",
            "explode": true,
            "schema": {
              "type": "array",
              "items": {"type": "string", "pattern": "^[a-z0-9-]+/([a-z0-9-]+|\\*)$", "maxLength": 100}
            }
          },
          {
            "name": "limit",
            "in": "query",
            "description": "The most events to return.",
            "schema": {"type": "integer", "minimum": 0, "maximum": 1000000}
          },
          {
            "name": "skip",
            "in": "query",
            "description": "How many matching events to pass over first.",
            "schema": {"type": "integer", "minimum": 0, "maximum": 1000000000}
          },
          {
            "name": "sortAscending",
            "in": "query",
            "description": "Oldest first.",
            "schema": {"type": "boolean"}
          },
          {
            "name": "running",
            "in": "query",
            "description": "Only running periods (true) or only finished events (false).",
            "schema": {"type": "boolean"}
          },
          {
            "name": "state",
            "in": "query",
            "description": "By trash state.",
            "schema": {"type": "string", "enum": ["default", "trashed", "all"]}
          },
          {
            "name": "modifiedSince",
            "in": "query",
            "description": "Only events changed after this time.",
            "schema": {"$ref": "#/components/schemas/QueryTime"}
          },
          {
            "name": "format",
            "in": "query",
            "description": "json (the default) or a track file.",
            "schema": {"type": "string", "enum": ["json", "geojson", "gpx", "csv"]}
          }
        ],
        "responses": {
          "200": {
            "description": "The events (JSON), or the track file for `format`.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": ["events", "meta"],
                  "additionalProperties": false,
                  "properties": {
                    "events": {"type": "array", "items": {"$ref": "#/components/schemas/Event"}},
                    "meta": {"$ref": "#/components/schemas/Meta"}
                  }
                },
                "example": {
                  "events": [
                    {
                      "id": "fix-1700000000",
                      "streamIds": ["position"],
                      "streamId": "position",
                      "time": 1700000000,
                      "type": "position/wgs84",
                      "content": {"latitude": 46.5191, "longitude": 6.5668},
                      "created": 1700000001.2,
                      "createdBy": "c8x1",
                      "modified": 1700000001.2,
                      "modifiedBy": "c8x1"
                    }
                  ],
                  "meta": {"apiVersion": "1.9.0", "serverTime": 1700000100.5, "serial": "whereabouts-0.1.0"}
                }
              },
              "application/geo+json": {
                "schema": {
                  "type": "object",
                  "required": ["type", "features"],
                  "properties": {
                    "type": {"type": "string", "enum": ["FeatureCollection"]},
                    "features": {"type": "array", "items": {"type": "object"}}
                  }
                }
              },
              "application/gpx+xml": {"schema": {"type": "string"}},
              "text/csv": {"schema": {"type": "string"}}
            }
          },
          "400": {"$ref": "#/components/responses/BadRequest"},
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "403": {"$ref": "#/components/responses/Forbidden"},
          "429": {"$ref": "#/components/responses/TooManyRequests"},
          "503": {"$ref": "#/components/responses/Unavailable"}
        }
      },
      "post": {
        "tags": ["events"],
        "operationId": "events.create",
        "summary": "Creates an event (JSON), or an event with attachments (multipart).",
        "description": "A client-supplied `id` makes the create idempotent: the same id again answers 200 with the stored event and stores nothing. `position/wgs84` needs latitude and longitude in range; `note/txt` a string content; `picture/attached` at least one file, so only as multipart; other `class/format` types take any JSON content.",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {"$ref": "#/components/schemas/EventCreate"},
              "example": {
                "id": "fix-1700000000",
                "streamIds": ["position"],
                "time": 1700000000,
                "type": "position/wgs84",
                "content": {"latitude": 46.5191, "longitude": 6.5668, "horizontalAccuracy": 12}
              }
            },
            "multipart/form-data": {
              "schema": {
                "type": "object",
                "required": ["event"],
                "properties": {
                  "event": {"$ref": "#/components/schemas/EventCreateWithFiles"},
                  "file": {
                    "type": "string",
                    "format": "binary",
                    "description": "A file to attach; any part other than `event` (or with a file name) becomes an attachment."
                  }
                }
              },
              "encoding": {"event": {"contentType": "application/json"}}
            }
          }
        },
        "responses": {
          "201": {"$ref": "#/components/responses/EventCreated"},
          "200": {"$ref": "#/components/responses/EventExisting"},
          "400": {"$ref": "#/components/responses/BadRequest"},
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "403": {"$ref": "#/components/responses/Forbidden"},
          "409": {"$ref": "#/components/responses/Conflict"},
          "413": {"$ref": "#/components/responses/TooLarge"},
          "429": {"$ref": "#/components/responses/TooManyRequests"},
          "503": {"$ref": "#/components/responses/Unavailable"}
        }
      }
    },
    "/events/{id}": {
      "parameters": [{"$ref": "#/components/parameters/EventId"}],
      "get": {
        "tags": ["events"],
        "operationId": "events.getOne",
        "summary": "One event the token may read.",
        "responses": {
          "200": {"$ref": "#/components/responses/EventOK"},
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "404": {"$ref": "#/components/responses/NotFound"},
          "429": {"$ref": "#/components/responses/TooManyRequests"},
          "503": {"$ref": "#/components/responses/Unavailable"}
        }
      },
      "put": {
        "tags": ["events"],
        "operationId": "events.update",
        "summary": "Changes some fields of an event (e.g. `duration` to end a period).",
        "description": "The token must contribute to the event's streams before and after. The resulting content must fit the resulting type, as on create.",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {"$ref": "#/components/schemas/EventUpdate"},
              "example": {"duration": 3600, "tags": ["walk"]}
            }
          }
        },
        "responses": {
          "200": {"$ref": "#/components/responses/EventOK"},
          "400": {"$ref": "#/components/responses/BadRequest"},
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "403": {"$ref": "#/components/responses/Forbidden"},
          "404": {"$ref": "#/components/responses/NotFound"},
          "413": {"$ref": "#/components/responses/TooLarge"},
          "429": {"$ref": "#/components/responses/TooManyRequests"},
          "503": {"$ref": "#/components/responses/Unavailable"}
        }
      },
      "delete": {
        "tags": ["events"],
        "operationId": "events.delete",
        "summary": "Moves an event to the trash; deletes it for good when it is already there.",
        "responses": {
          "200": {
            "description": "The trashed event, or the deletion.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": ["meta"],
                  "additionalProperties": false,
                  "properties": {
                    "event": {"$ref": "#/components/schemas/Event"},
                    "eventDeletion": {
                      "type": "object",
                      "required": ["id"],
                      "additionalProperties": false,
                      "properties": {"id": {"type": "string"}}
                    },
                    "meta": {"$ref": "#/components/schemas/Meta"}
                  }
                }
              }
            }
          },
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "403": {"$ref": "#/components/responses/Forbidden"},
          "404": {"$ref": "#/components/responses/NotFound"},
          "429": {"$ref": "#/components/responses/TooManyRequests"},
          "503": {"$ref": "#/components/responses/Unavailable"}
        }
      }
    },
    "/events/{id}/{attachmentId}": {
      "parameters": [
        {"$ref": "#/components/parameters/EventId"},
        {"$ref": "#/components/parameters/AttachmentId"}
      ],
      "get": {
        "tags": ["events"],
        "operationId": "events.getAttachment",
        "summary": "Downloads an attachment (by its id or file name).",
        "responses": {
          "200": {"$ref": "#/components/responses/AttachmentFile"},
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "404": {"$ref": "#/components/responses/NotFound"},
          "429": {"$ref": "#/components/responses/TooManyRequests"},
          "503": {"$ref": "#/components/responses/Unavailable"}
        }
      }
    },
    "/events/{id}/{attachmentId}/{fileName}": {
      "parameters": [
        {"$ref": "#/components/parameters/EventId"},
        {"$ref": "#/components/parameters/AttachmentId"},
        {
          "name": "fileName",
          "in": "path",
          "required": true,
          "description": "Any name (Pryv's readable download URLs); it is not checked.",
          "schema": {"type": "string"}
        }
      ],
      "get": {
        "tags": ["events"],
        "operationId": "events.getAttachmentNamed",
        "summary": "Downloads an attachment, with a file name in the URL.",
        "responses": {
          "200": {"$ref": "#/components/responses/AttachmentFile"},
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "404": {"$ref": "#/components/responses/NotFound"},
          "429": {"$ref": "#/components/responses/TooManyRequests"},
          "503": {"$ref": "#/components/responses/Unavailable"}
        }
      }
    },
    "/streams": {
      "get": {
        "tags": ["streams"],
        "operationId": "streams.get",
        "summary": "The streams the token may read, as a tree.",
        "parameters": [
          {
            "name": "state",
            "in": "query",
            "description": "`all` includes trashed streams.",
            "schema": {"type": "string", "enum": ["default", "all"]}
          },
          {
            "name": "parentId",
            "in": "query",
            "description": "Only the children of this stream.",
            "schema": {"type": "string"}
          }
        ],
        "responses": {
          "200": {
            "description": "The stream tree.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": ["streams", "meta"],
                  "additionalProperties": false,
                  "properties": {
                    "streams": {"type": "array", "items": {"$ref": "#/components/schemas/Stream"}},
                    "meta": {"$ref": "#/components/schemas/Meta"}
                  }
                }
              }
            }
          },
          "400": {"$ref": "#/components/responses/BadRequest"},
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "429": {"$ref": "#/components/responses/TooManyRequests"},
          "503": {"$ref": "#/components/responses/Unavailable"}
        }
      },
      "post": {
        "tags": ["streams"],
        "operationId": "streams.create",
        "summary": "Creates a stream (the token must manage the parent, or every stream for a root).",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {"$ref": "#/components/schemas/StreamCreate"},
              "example": {"id": "notes", "name": "Notes"}
            }
          }
        },
        "responses": {
          "201": {"$ref": "#/components/responses/StreamOK"},
          "400": {"$ref": "#/components/responses/BadRequest"},
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "403": {"$ref": "#/components/responses/Forbidden"},
          "409": {"$ref": "#/components/responses/Conflict"},
          "413": {"$ref": "#/components/responses/TooLarge"},
          "429": {"$ref": "#/components/responses/TooManyRequests"},
          "503": {"$ref": "#/components/responses/Unavailable"}
        }
      }
    },
    "/streams/{id}": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "description": "The stream's identifier.",
          "schema": {"type": "string"}
        }
      ],
      "put": {
        "tags": ["streams"],
        "operationId": "streams.update",
        "summary": "Renames, moves, trashes or restores a stream (the token must manage it).",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {"$ref": "#/components/schemas/StreamUpdate"},
              "example": {"name": "Positions", "clientData": {"colour": "#d33"}}
            }
          }
        },
        "responses": {
          "200": {"$ref": "#/components/responses/StreamOK"},
          "400": {"$ref": "#/components/responses/BadRequest"},
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "403": {"$ref": "#/components/responses/Forbidden"},
          "404": {"$ref": "#/components/responses/NotFound"},
          "409": {"$ref": "#/components/responses/Conflict"},
          "413": {"$ref": "#/components/responses/TooLarge"},
          "429": {"$ref": "#/components/responses/TooManyRequests"},
          "503": {"$ref": "#/components/responses/Unavailable"}
        }
      }
    },
    "/": {
      "post": {
        "tags": ["batch"],
        "operationId": "batch",
        "summary": "Runs several method calls, answered in order; one failing call does not stop the others.",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {"type": "array", "items": {"$ref": "#/components/schemas/BatchCall"}},
              "example": [
                {
                  "method": "events.create",
                  "params": {"streamIds": ["position"], "type": "note/txt", "content": "Arrived"}
                },
                {"method": "events.get", "params": {"limit": 5}},
                {"method": "streams.get", "params": {}}
              ]
            }
          }
        },
        "responses": {
          "200": {
            "description": "One result per call, in order.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": ["results", "meta"],
                  "additionalProperties": false,
                  "properties": {
                    "results": {"type": "array", "items": {"$ref": "#/components/schemas/BatchResult"}},
                    "meta": {"$ref": "#/components/schemas/Meta"}
                  }
                }
              }
            }
          },
          "400": {"$ref": "#/components/responses/BadRequest"},
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "413": {"$ref": "#/components/responses/TooLarge"},
          "429": {"$ref": "#/components/responses/TooManyRequests"},
          "503": {"$ref": "#/components/responses/Unavailable"}
        }
      }
    },
    "/access-info": {
      "get": {
        "tags": ["streams"],
        "operationId": "getAccessInfo",
        "summary": "Who the token acts for and what it may do.",
        "responses": {
          "200": {
            "description": "The access.",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/AccessInfo"}}}
          },
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "429": {"$ref": "#/components/responses/TooManyRequests"},
          "503": {"$ref": "#/components/responses/Unavailable"}
        }
      }
    },
    "/pub": {
      "post": {
        "tags": ["owntracks"],
        "operationId": "owntracks.publish",
        "summary": "OwnTracks' HTTP mode: a `_type: location` message becomes a `position/wgs84` event in the `position` stream.",
        "description": "Other message types are accepted and ignored. The event id comes from the device and `tst`, so a message sent again is stored once. `vel` (km/h) becomes speed in m/s (negative values are dropped); `cog` outside 0–360 is dropped; the resulting position must be in range as for POST /events.",
        "parameters": [
          {
            "name": "X-Limit-U",
            "in": "header",
            "description": "The user the message is for; must be the token's user.",
            "schema": {"type": "string"}
          },
          {
            "name": "X-Limit-D",
            "in": "header",
            "description": "The device that sent it.",
            "schema": {"type": "string"}
          },
          {
            "name": "u",
            "in": "query",
            "description": "The user, when the header is absent.",
            "schema": {"type": "string"}
          },
          {
            "name": "d",
            "in": "query",
            "description": "The device, when the header is absent.",
            "schema": {"type": "string"}
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {"$ref": "#/components/schemas/OwnTracksMessage"},
              "example": {
                "_type": "location",
                "lat": 46.5191,
                "lon": 6.5668,
                "tst": 1700000000,
                "acc": 15,
                "alt": 420,
                "vel": 4,
                "cog": 90,
                "batt": 81,
                "tid": "ph"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "Stored (or ignored): OwnTracks expects a JSON array of commands in reply, here always empty.",
            "content": {"application/json": {"schema": {"type": "array", "maxItems": 0, "items": {}}}}
          },
          "400": {"$ref": "#/components/responses/BadRequest"},
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "403": {"$ref": "#/components/responses/Forbidden"},
          "409": {"$ref": "#/components/responses/Conflict"},
          "413": {"$ref": "#/components/responses/TooLarge"},
          "429": {"$ref": "#/components/responses/TooManyRequests"},
          "503": {"$ref": "#/components/responses/Unavailable"}
        }
      }
    },
    "/health": {
      "get": {
        "tags": ["operations"],
        "operationId": "health",
        "summary": "Whether the server and its store answer (for load balancers).",
        "security": [],
        "responses": {
          "200": {
            "description": "Healthy.",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Health"}}}
          },
          "429": {"$ref": "#/components/responses/TooManyRequests"},
          "503": {
            "description": "The store does not answer.",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Health"}}}
          }
        }
      }
    },
    "/metrics": {
      "get": {
        "tags": ["operations"],
        "operationId": "metrics",
        "summary": "Prometheus metrics: requests by method, route and status, latency, events stored.",
        "security": [],
        "responses": {
          "200": {
            "description": "Prometheus' text exposition format.",
            "content": {"text/plain": {"schema": {"type": "string"}}}
          },
          "429": {"$ref": "#/components/responses/TooManyRequests"}
        }
      }
    },
    "/openapi.json": {
      "get": {
        "tags": ["operations"],
        "operationId": "openapi",
        "summary": "This document.",
        "security": [],
        "responses": {
          "200": {
            "description": "The OpenAPI 3 document of the API.",
            "content": {
              "application/json": {"schema": {"type": "object", "required": ["openapi", "info", "paths"]}}
            }
          },
          "429": {"$ref": "#/components/responses/TooManyRequests"}
        }
      }
    },
    "/map": {
      "get": {
        "tags": ["map"],
        "operationId": "map",
        "summary": "The map page: a user's positions over a date range as a track, on the venue plan when the server has a venue (`--venue`), live over /live. Works offline (no CDN); the token goes in the page's form or `?auth=`.",
        "security": [],
        "responses": {
          "200": {"description": "The page.", "content": {"text/html": {"schema": {"type": "string"}}}},
          "429": {"$ref": "#/components/responses/TooManyRequests"}
        }
      }
    },
    "/map/map.css": {
      "get": {
        "tags": ["map"],
        "operationId": "mapStylesheet",
        "summary": "The map page's style sheet.",
        "security": [],
        "responses": {
          "200": {"description": "CSS.", "content": {"text/css": {"schema": {"type": "string"}}}},
          "429": {"$ref": "#/components/responses/TooManyRequests"}
        }
      }
    },
    "/map/map.js": {
      "get": {
        "tags": ["map"],
        "operationId": "mapScript",
        "summary": "The map page's script.",
        "security": [],
        "responses": {
          "200": {"description": "JavaScript.", "content": {"text/javascript": {"schema": {"type": "string"}}}},
          "429": {"$ref": "#/components/responses/TooManyRequests"}
        }
      }
    },
    "/venue": {
      "get": {
        "tags": ["map"],
        "operationId": "venue",
        "summary": "The venue the map page draws (beacons, places, floors), as venue.json (see Documentation/FORMATS.md).",
        "security": [],
        "responses": {
          "200": {
            "description": "The venue.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": ["venue", "meta"],
                  "additionalProperties": false,
                  "properties": {"venue": {"type": "object"}, "meta": {"$ref": "#/components/schemas/Meta"}}
                }
              }
            }
          },
          "404": {"$ref": "#/components/responses/NotFound"},
          "429": {"$ref": "#/components/responses/TooManyRequests"}
        }
      }
    },
    "/live": {
      "get": {
        "tags": ["map"],
        "operationId": "live",
        "summary": "A WebSocket on which the server sends the token's readable events as they are created or changed.",
        "description": "Connect with `Upgrade: websocket` and the token as `?auth=TOKEN` (browsers cannot set headers on a WebSocket) or in the Authorization header. The server sends text messages: `{\"ready\": true}` once subscribed, then `{\"event\": <Event>}` for each event created or changed. Messages from the client are ignored.",
        "parameters": [
          {"name": "auth", "in": "query", "description": "The token.", "schema": {"type": "string"}}
        ],
        "responses": {
          "101": {"description": "Switched to the WebSocket protocol."},
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "403": {"$ref": "#/components/responses/Forbidden"},
          "426": {
            "description": "A valid token, but the request was not a WebSocket upgrade.",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}}
          },
          "429": {"$ref": "#/components/responses/TooManyRequests"}
        }
      }
    }
  },
  "components": {
    "securitySchemes": {
      "token": {
        "type": "apiKey",
        "in": "header",
        "name": "Authorization",
        "description": "The token itself as the Authorization header (Pryv's way)."
      },
      "bearer": {"type": "http", "scheme": "bearer", "description": "`Authorization: Bearer TOKEN`."},
      "basic": {
        "type": "http",
        "scheme": "basic",
        "description": "HTTP Basic with the token as the user name (Pryv's https://TOKEN@host) or as the password (OwnTracks' settings)."
      },
      "authQuery": {"type": "apiKey", "in": "query", "name": "auth", "description": "`?auth=TOKEN`."}
    },
    "parameters": {
      "EventId": {
        "name": "id",
        "in": "path",
        "required": true,
        "description": "The event's identifier.",
        "schema": {"type": "string"}
      },
      "AttachmentId": {
        "name": "attachmentId",
        "in": "path",
        "required": true,
        "description": "The attachment's identifier or file name.",
        "schema": {"type": "string"}
      }
    },
    "responses": {
      "EventCreated": {
        "description": "Created.",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/EventResponse"}}}
      },
      "EventExisting": {
        "description": "The id was already stored: the stored event, unchanged (an idempotent retry).",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/EventResponse"}}}
      },
      "EventOK": {
        "description": "The event.",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/EventResponse"}}}
      },
      "StreamOK": {
        "description": "The stream.",
        "content": {
          "application/json": {
            "schema": {
              "type": "object",
              "required": ["stream", "meta"],
              "additionalProperties": false,
              "properties": {
                "stream": {"$ref": "#/components/schemas/Stream"},
                "meta": {"$ref": "#/components/schemas/Meta"}
              }
            }
          }
        }
      },
      "AttachmentFile": {
        "description": "The file, with the media type it was uploaded with.",
        "headers": {"Content-Disposition": {"schema": {"type": "string"}}},
        "content": {"*/*": {"schema": {"type": "string", "format": "binary"}}}
      },
      "BadRequest": {
        "description": "The body or a parameter is wrong (invalid-request-structure, invalid-parameters-format, unknown-referenced-resource).",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}}
      },
      "Unauthorized": {
        "description": "No token, or one the server does not know (invalid-access-token).",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}}
      },
      "Forbidden": {
        "description": "The token does not allow this (forbidden).",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}}
      },
      "NotFound": {
        "description": "No such resource visible to the token (unknown-resource).",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}}
      },
      "Conflict": {
        "description": "Something with this identifier or name already exists (item-already-exists).",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}}
      },
      "TooLarge": {
        "description": "The body is larger than the server accepts (1 MiB JSON, 10 MiB multipart by default; request-too-large).",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}}
      },
      "TooManyRequests": {
        "description": "The token is over its rate limit (too-many-requests).",
        "headers": {
          "Retry-After": {"description": "Seconds to wait.", "schema": {"type": "integer", "minimum": 1}}
        },
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}}
      },
      "Unavailable": {
        "description": "The store did not answer (unexpected-error); the request may be retried.",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}}
      }
    },
    "schemas": {
      "Meta": {
        "type": "object",
        "required": ["apiVersion", "serverTime", "serial"],
        "additionalProperties": false,
        "properties": {
          "apiVersion": {"type": "string", "description": "The Pryv API generation the server follows."},
          "serverTime": {"type": "number", "description": "The server's clock, seconds since 1970."},
          "serial": {"type": "string", "description": "Changes when the server's API changes."}
        }
      },
      "ErrorResponse": {
        "type": "object",
        "required": ["error", "meta"],
        "additionalProperties": false,
        "properties": {
          "error": {"$ref": "#/components/schemas/Error"},
          "meta": {"$ref": "#/components/schemas/Meta"}
        },
        "example": {
          "error": {
            "id": "invalid-parameters-format",
            "message": "`content.latitude` must be a number from -90 to 90, found 91."
          },
          "meta": {"apiVersion": "1.9.0", "serverTime": 1700000100.5, "serial": "whereabouts-0.1.0"}
        }
      },
      "Error": {
        "type": "object",
        "required": ["id", "message"],
        "additionalProperties": false,
        "properties": {
          "id": {"type": "string", "description": "Pryv's error identifier, e.g. invalid-parameters-format."},
          "message": {"type": "string", "description": "What was wrong and what to do."},
          "data": {"description": "Details, when any."}
        }
      },
      "Identifier": {
        "type": "string",
        "pattern": "^[A-Za-z0-9._-]{1,100}$",
        "description": "1 to 100 letters, digits, `-`, `_` or `.`."
      },
      "Time": {
        "type": "number",
        "minimum": 0,
        "maximum": 100000000000,
        "description": "Seconds since 1970 (UTC)."
      },
      "QueryTime": {"type": "number", "minimum": -100000000000, "maximum": 100000000000},
      "EventType": {
        "type": "string",
        "pattern": "^[a-z0-9-]+/[a-z0-9-]+$",
        "maxLength": 100,
        "description": "`class/format`, e.g. position/wgs84, note/txt, picture/attached."
      },
      "PositionContent": {
        "type": "object",
        "required": ["latitude", "longitude"],
        "additionalProperties": false,
        "description": "The content of a `position/wgs84` event.",
        "properties": {
          "latitude": {"type": "number", "minimum": -90, "maximum": 90, "description": "Degrees (WGS 84)."},
          "longitude": {"type": "number", "minimum": -180, "maximum": 180, "description": "Degrees (WGS 84)."},
          "altitude": {"type": "number", "minimum": -20000, "maximum": 1000000, "description": "Metres."},
          "horizontalAccuracy": {"type": "number", "minimum": 0, "maximum": 10000000, "description": "Metres."},
          "verticalAccuracy": {"type": "number", "minimum": 0, "maximum": 10000000, "description": "Metres."},
          "speed": {"type": "number", "minimum": 0, "maximum": 100000, "description": "Metres per second."},
          "bearing": {
            "type": "number",
            "minimum": 0,
            "maximum": 360,
            "description": "Degrees clockwise from north."
          }
        }
      },
      "EventFields": {
        "type": "object",
        "properties": {
          "id": {"$ref": "#/components/schemas/Identifier"},
          "streamIds": {
            "type": "array",
            "minItems": 1,
            "items": {"$ref": "#/components/schemas/Identifier"},
            "description": "The streams the event belongs to (they must exist and the token must contribute to them)."
          },
          "streamId": {
            "allOf": [{"$ref": "#/components/schemas/Identifier"}],
            "description": "Pryv's older single stream; ignored when streamIds is given."
          },
          "time": {"$ref": "#/components/schemas/Time"},
          "duration": {
            "type": "number",
            "minimum": 0,
            "maximum": 100000000000,
            "nullable": true,
            "description": "Seconds; null for a period still running; 0 (the default) for a point event."
          },
          "type": {"$ref": "#/components/schemas/EventType"},
          "content": {"description": "Shaped by the type."},
          "description": {"type": "string", "nullable": true},
          "tags": {"type": "array", "items": {"type": "string"}},
          "clientData": {
            "type": "object",
            "nullable": true,
            "description": "Data the client keeps with the event."
          }
        }
      },
      "EventCreate": {
        "description": "A new event. `type` and `streamIds` (or `streamId`) are required; the content must fit the type. `picture/attached` needs a file, so it is created with multipart.",
        "allOf": [
          {"$ref": "#/components/schemas/EventFields"},
          {
            "type": "object",
            "required": ["type"],
            "additionalProperties": false,
            "properties": {
              "id": {},
              "streamIds": {},
              "streamId": {},
              "time": {},
              "duration": {},
              "type": {},
              "content": {},
              "description": {},
              "tags": {},
              "clientData": {}
            }
          },
          {"anyOf": [{"required": ["streamIds"]}, {"required": ["streamId"]}]},
          {
            "anyOf": [
              {
                "type": "object",
                "required": ["type", "content"],
                "properties": {
                  "type": {"type": "string", "enum": ["position/wgs84"]},
                  "content": {"$ref": "#/components/schemas/PositionContent"}
                }
              },
              {
                "type": "object",
                "required": ["type", "content"],
                "properties": {"type": {"type": "string", "enum": ["note/txt"]}, "content": {"type": "string"}}
              },
              {
                "type": "object",
                "properties": {
                  "type": {
                    "not": {"type": "string", "enum": ["position/wgs84", "note/txt", "picture/attached"]}
                  }
                }
              }
            ]
          }
        ]
      },
      "EventCreateWithFiles": {
        "description": "The `event` part of a multipart create: as EventCreate, and `picture/attached` is allowed since files come with it.",
        "allOf": [
          {"$ref": "#/components/schemas/EventFields"},
          {
            "type": "object",
            "required": ["type"],
            "additionalProperties": false,
            "properties": {
              "id": {},
              "streamIds": {},
              "streamId": {},
              "time": {},
              "duration": {},
              "type": {},
              "content": {},
              "description": {},
              "tags": {},
              "clientData": {}
            }
          },
          {"anyOf": [{"required": ["streamIds"]}, {"required": ["streamId"]}]},
          {
            "anyOf": [
              {
                "type": "object",
                "required": ["type", "content"],
                "properties": {
                  "type": {"type": "string", "enum": ["position/wgs84"]},
                  "content": {"$ref": "#/components/schemas/PositionContent"}
                }
              },
              {
                "type": "object",
                "required": ["type", "content"],
                "properties": {"type": {"type": "string", "enum": ["note/txt"]}, "content": {"type": "string"}}
              },
              {
                "type": "object",
                "properties": {"type": {"not": {"type": "string", "enum": ["position/wgs84", "note/txt"]}}}
              }
            ]
          }
        ]
      },
      "EventUpdate": {
        "description": "The fields to change. After the change the content must fit the type (a position needs latitude and longitude in range, a note a string).",
        "allOf": [
          {"$ref": "#/components/schemas/EventFields"},
          {
            "type": "object",
            "additionalProperties": false,
            "properties": {
              "streamIds": {},
              "streamId": {},
              "time": {},
              "duration": {},
              "type": {},
              "content": {},
              "description": {},
              "tags": {},
              "clientData": {},
              "trashed": {"type": "boolean"}
            }
          }
        ]
      },
      "Event": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "id",
          "streamIds",
          "streamId",
          "time",
          "type",
          "created",
          "createdBy",
          "modified",
          "modifiedBy"
        ],
        "properties": {
          "id": {"type": "string"},
          "streamIds": {"type": "array", "items": {"type": "string"}},
          "streamId": {"type": "string", "description": "The first stream, for older clients."},
          "time": {"type": "number"},
          "duration": {
            "type": "number",
            "nullable": true,
            "description": "Absent for a point event, null while running."
          },
          "type": {"type": "string"},
          "content": {},
          "description": {"type": "string"},
          "tags": {"type": "array", "items": {"type": "string"}},
          "clientData": {"type": "object"},
          "attachments": {"type": "array", "items": {"$ref": "#/components/schemas/Attachment"}},
          "trashed": {
            "type": "boolean",
            "enum": [true],
            "description": "Present only when the event is in the trash."
          },
          "created": {"type": "number"},
          "createdBy": {"type": "string"},
          "modified": {"type": "number"},
          "modifiedBy": {"type": "string"}
        }
      },
      "EventResponse": {
        "type": "object",
        "required": ["event", "meta"],
        "additionalProperties": false,
        "properties": {
          "event": {"$ref": "#/components/schemas/Event"},
          "meta": {"$ref": "#/components/schemas/Meta"}
        }
      },
      "Attachment": {
        "type": "object",
        "required": ["id", "fileName", "type", "size", "integrity"],
        "additionalProperties": false,
        "properties": {
          "id": {"type": "string"},
          "fileName": {"type": "string"},
          "type": {"type": "string", "description": "The media type."},
          "size": {"type": "integer", "minimum": 0},
          "integrity": {
            "type": "string",
            "description": "Subresource Integrity: sha256- and the base-64 digest."
          }
        }
      },
      "Stream": {
        "type": "object",
        "additionalProperties": false,
        "required": ["id", "name", "parentId", "children", "created", "createdBy", "modified", "modifiedBy"],
        "properties": {
          "id": {"type": "string"},
          "name": {"type": "string"},
          "parentId": {"type": "string", "nullable": true},
          "clientData": {"type": "object"},
          "trashed": {"type": "boolean", "enum": [true]},
          "children": {"type": "array", "items": {"$ref": "#/components/schemas/Stream"}},
          "created": {"type": "number"},
          "createdBy": {"type": "string"},
          "modified": {"type": "number"},
          "modifiedBy": {"type": "string"}
        }
      },
      "StreamCreate": {
        "type": "object",
        "required": ["name"],
        "additionalProperties": false,
        "properties": {
          "id": {
            "allOf": [{"$ref": "#/components/schemas/Identifier"}],
            "description": "Made from the name when absent."
          },
          "name": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200,
            "description": "Unique among its siblings."
          },
          "parentId": {"type": "string", "nullable": true},
          "clientData": {"type": "object", "nullable": true}
        }
      },
      "StreamUpdate": {
        "type": "object",
        "additionalProperties": false,
        "properties": {
          "name": {"type": "string", "minLength": 1, "maxLength": 200},
          "parentId": {
            "type": "string",
            "nullable": true,
            "description": "null makes it a root (needs a token that manages every stream)."
          },
          "clientData": {"type": "object", "nullable": true},
          "trashed": {"type": "boolean"}
        }
      },
      "BatchCall": {
        "type": "object",
        "required": ["method"],
        "properties": {
          "method": {
            "type": "string",
            "enum": [
              "events.get",
              "events.create",
              "events.update",
              "events.delete",
              "streams.get",
              "streams.create",
              "streams.update"
            ]
          },
          "params": {
            "type": "object",
            "description": "The method's parameters: events.get and streams.get take the query parameters; events.create and streams.create the new item; events.update and streams.update {id, update}; events.delete {id}."
          }
        }
      },
      "BatchResult": {
        "type": "object",
        "additionalProperties": false,
        "minProperties": 1,
        "maxProperties": 1,
        "description": "The call's answer as the route would give it (without meta), or its error.",
        "properties": {
          "event": {"$ref": "#/components/schemas/Event"},
          "events": {"type": "array", "items": {"$ref": "#/components/schemas/Event"}},
          "eventDeletion": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}},
          "stream": {"$ref": "#/components/schemas/Stream"},
          "streams": {"type": "array", "items": {"$ref": "#/components/schemas/Stream"}},
          "error": {"$ref": "#/components/schemas/Error"}
        }
      },
      "AccessInfo": {
        "type": "object",
        "required": ["name", "user", "permissions", "meta"],
        "additionalProperties": false,
        "properties": {
          "name": {"type": "string"},
          "user": {
            "type": "object",
            "required": ["username"],
            "additionalProperties": false,
            "properties": {"username": {"type": "string"}}
          },
          "permissions": {
            "type": "array",
            "items": {
              "type": "object",
              "required": ["streamId", "level"],
              "additionalProperties": false,
              "properties": {
                "streamId": {"type": "string", "description": "A stream, or * for every stream."},
                "level": {"type": "string", "enum": ["read", "contribute", "manage"]}
              }
            }
          },
          "meta": {"$ref": "#/components/schemas/Meta"}
        }
      },
      "OwnTracksMessage": {
        "type": "object",
        "required": ["_type"],
        "description": "An OwnTracks message. Only `_type: location` is stored, and it needs lat, lon and tst; other types (transition, waypoint, card…) are accepted and ignored. `tid` (tracker id) and `conn` are kept when they are strings.",
        "properties": {"_type": {"type": "string"}},
        "anyOf": [
          {"properties": {"_type": {"not": {"enum": ["location"]}}}},
          {
            "required": ["lat", "lon", "tst"],
            "properties": {
              "_type": {"enum": ["location"]},
              "lat": {"type": "number", "minimum": -90, "maximum": 90, "description": "Latitude, degrees."},
              "lon": {"type": "number", "minimum": -180, "maximum": 180, "description": "Longitude, degrees."},
              "tst": {
                "type": "number",
                "minimum": 0,
                "maximum": 100000000000,
                "description": "Seconds since 1970."
              },
              "acc": {
                "type": "number",
                "nullable": true,
                "minimum": 0,
                "maximum": 10000000,
                "description": "Horizontal accuracy, metres."
              },
              "vac": {
                "type": "number",
                "nullable": true,
                "minimum": 0,
                "maximum": 10000000,
                "description": "Vertical accuracy, metres."
              },
              "alt": {
                "type": "number",
                "nullable": true,
                "minimum": -20000,
                "maximum": 1000000,
                "description": "Altitude, metres."
              },
              "vel": {
                "type": "number",
                "nullable": true,
                "maximum": 360000,
                "description": "Speed, km/h (negative values are dropped)."
              },
              "cog": {
                "type": "number",
                "nullable": true,
                "description": "Course over ground, degrees (kept when 0 to 360)."
              },
              "batt": {"type": "number", "nullable": true, "description": "Battery level, percent."}
            }
          }
        ]
      },
      "Health": {
        "type": "object",
        "required": ["status", "meta"],
        "additionalProperties": false,
        "properties": {
          "status": {"type": "string", "enum": ["ok", "unavailable"]},
          "reason": {"type": "string"},
          "meta": {"$ref": "#/components/schemas/Meta"}
        }
      }
    }
  }
}
"""#
}
