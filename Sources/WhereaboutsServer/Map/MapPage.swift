import HTTPTypes
import Hummingbird
import Whereabouts

/// The map page: a user's positions over a day or a date range drawn as a track, on the venue plan
/// when the server has a venue, with live updates from `/live`.
///
/// The page is plain HTML, CSS and JavaScript (``html``, ``stylesheet``, ``script``), written in
/// `Resources/map/` and embedded in the binary when it is built: no CDN, no files to install.
/// It loads nothing from anywhere but the server, so it works offline. It reads
/// the token from `?auth=` (then keeps it in the browser's local storage and removes it from the
/// address bar) or from its form, and talks to the API like any other client: `GET /venue`,
/// `GET /retention`, `GET /events?types[]=position/wgs84&…` with an `Authorization` header, and
/// the `/live` WebSocket.
///
/// History is browsed day by day (a local calendar day, midnight to midnight, with "Previous
/// day" and "Next day" buttons and a date input; today's goes on live) or over any range (From,
/// To; an empty To is up to now, live); the default is the last 24 hours. A day without
/// positions says so and offers the nearest earlier and later days that have some. The address's
/// fragment keeps what is shown, `#day=2026-12-01` or `#from=…Z&to=…Z` (never the token), so that
/// a reload, Back and Forward, or a shared link show the same history.
///
/// Where the user's events are not kept for ever (``RetentionRoutes``), the page says so above
/// the map ("Kept 90 days: positions before 5 Sep 2026 are removed") and draws as hollow rings
/// the positions shown that the purge removes within 7 days, and those already past their limit
/// that it has not removed yet. A position's limit is the shortest of its streams' own, else the
/// user's.
///
/// Positions are converted to the venue's local frame exactly as ``LocalFrame`` does. When the
/// venue has no latitude/longitude origin (or there is no venue), the track is drawn on a plain
/// latitude/longitude canvas.
///
/// For tests, the page exposes its state: the `<svg id="map">` carries `data-points="N"` (the
/// positions drawn) and `data-outside="N"` (those outside the view, drawn as arrows at its edge),
/// and `data-expiring="N"`, and `window.whereaboutsMap` is `{connected, points, outside, mode,
/// error, floor, latestFloor, floorByHand, tags, range, loading, nearest, retention, expiring,
/// overdue}`: `range` is `{mode: "day" | "range", day, from, to}` (`day` as `YYYY-MM-DD`, times in
/// seconds, `to` null when live), `loading` is true until a track and what goes with it are
/// shown, `nearest` is `{previous, next}` on an empty day, `expiring` counts the points the purge
/// removes within 7 days (`overdue`, those already past their limit).
///
/// On a venue of several floors, the floor selector follows the latest position (on the first
/// load and as live positions arrive) until the user picks another floor by hand; the page then
/// keeps that floor and says above the map on which floor the newer positions are, with a button
/// to go there.
///
/// The view fits the venue's plan (without one, the bulk of the track), never every position: a
/// position far from the venue is an arrow at the edge pointing toward it, with a note under the
/// map, so one stray fix cannot squash the plan. Place names are placed so that they do not
/// collide (a few pixels apart, also for nested places with the same centre), clear of the newest
/// position where there is room, and are drawn over the track.
///
/// ```swift
/// let router = Router(context: ServerRequestContext.self)
/// MapPage(venue: try VenueFile.read(from: venueURL)).addRoutes(to: router)
/// ```
struct MapPage: ServerRoutes {
    /// The page's path.
    static let path = "/map"

    /// The venue the page draws, served at `GET /venue`; `nil` when the server has none.
    var venue: Venue?
    /// Whether `GET /venue` answers without a token (the page sends its token when it has one).
    var venueIsPublic: Bool

    /// Creates the page's routes for `venue`.
    init(venue: Venue?, venueIsPublic: Bool = true) {
        self.venue = venue
        self.venueIsPublic = venueIsPublic
    }

    /// Adds `GET /map`, its assets (`/map/map.css`, `/map/map.js`) and `GET /venue` to `router`.
    ///
    /// `GET /venue` answers `{"venue": <venue.json>, "meta": {…}}`, the venue written as
    /// ``VenueFile/encode(_:)`` writes it, when ``venue`` is given, and 404 `unknown-resource`
    /// otherwise.
    func addRoutes(to router: Router<ServerRequestContext>) {
        router.get(RouterPath(Self.path)) { _, _ in
            Self.asset(Self.html, contentType: "text/html; charset=utf-8")
        }
        router.get(RouterPath(Self.path + "/map.css")) { _, _ in
            Self.asset(Self.stylesheet, contentType: "text/css; charset=utf-8")
        }
        router.get(RouterPath(Self.path + "/map.js")) { _, _ in
            Self.asset(Self.script, contentType: "text/javascript; charset=utf-8")
        }
        let encodedVenue = venue.map(VenueFile.encode)
        router.get("/venue") { [venueIsPublic] _, context -> Response in
            if !venueIsPublic { _ = try context.requireAccess() }
            guard let encodedVenue else {
                return APIResponse.error(APIError(.unknownResource,
                    "This server has no venue; start it with `whereabouts serve --venue venue.json` to draw tracks on a plan."))
            }
            return APIResponse.json([("venue", encodedVenue)])
        }
    }

    /// The page at `GET /map`: the form, the status line, the SVG map and its legend.
    static let html = String(decoding: PackageResources.index_html, as: UTF8.self)

    /// The page's stylesheet at `GET /map/map.css` (light and dark schemes, narrow screens).
    static let stylesheet = String(decoding: PackageResources.map_css, as: UTF8.self)

    /// The page's script at `GET /map/map.js`: fetching the track, the venue plan, drawing, the live feed.
    static let script = String(decoding: PackageResources.map_js, as: UTF8.self)

    /// The content security policy of the page: its own scripts, styles and connections only.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    private static func asset(_ text: String, contentType: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.cacheControl] = "no-cache"
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.xContentTypeOptions] = "nosniff"
        // The page's address may carry `?auth=TOKEN`: never send it on as a referrer.
        if let referrerPolicy = HTTPField.Name("Referrer-Policy") { headers[referrerPolicy] = "no-referrer" }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
