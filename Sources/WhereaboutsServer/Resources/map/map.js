// Whereabouts map page: a user's position/wgs84 events drawn as a track, on the venue plan when the
// server has one, with live updates over the /live WebSocket. No dependencies, no network but the
// server itself.
"use strict";

(function () {
  const TOKEN_KEY = "whereabouts.token";
  const LIMIT = 10000;
  const SVG_NS = "http://www.w3.org/2000/svg";

  // Test and debugging hooks: the page's state, read by the headless-browser test.
  const state = {
    connected: false,
    points: 0,
    outside: 0,          // of the points, those outside the view, drawn as arrows at its edge
    mode: "plain",
    error: null,
    floor: null,         // the floor shown (with a multi-floor venue)
    latestFloor: null,   // the floor of the latest position that has one
    floorByHand: false,  // the user picked the shown floor, away from the latest position's
    tags: [],            // the tags drawn (fixed receivers' tags, each at its latest position)
    range: { mode: "range", day: null, from: null, to: null },   // the history shown: a day
                         // ("YYYY-MM-DD", local) or a range; from/to in seconds, to = null: live
    loading: false,      // a track is being loaded (with the nearest days and the retention)
    nearest: null,       // on a day without positions: {previous, next}, the nearest days with some (or null)
    retention: null,     // GET /retention's {keep, from, streams}, when the server answers it
    expiring: 0,         // of the points, those the retention purge removes within 7 days (overdue included)
    overdue: 0,          // of those, the ones already past their limit (the purge has not run yet)
    LocalFrame: LocalFrame,
  };
  window.whereaboutsMap = state;

  // ---------------------------------------------------------------------------------------------
  // WGS84 to a venue's local frame, exactly as Whereabouts' LocalFrame (Geometry/LocalFrame.swift):
  // through Earth-centred Earth-fixed coordinates, then east/north rotated by the bearing.

  function LocalFrame(origin, bearing, metresPerUnit) {
    this.origin = { latitude: origin.latitude, longitude: origin.longitude };
    this.bearing = bearing || 0;
    this.metresPerUnit = metresPerUnit || 1;
  }
  LocalFrame.a = 6378137.0;
  LocalFrame.f = 1 / 298.257223563;
  LocalFrame.e2 = LocalFrame.f * (2 - LocalFrame.f);
  function radians(degrees) { return degrees * Math.PI / 180; }
  LocalFrame.ecef = function (latitude, longitude, height) {
    const phi = radians(latitude), lambda = radians(longitude);
    const n = LocalFrame.a / Math.sqrt(1 - LocalFrame.e2 * Math.sin(phi) * Math.sin(phi));
    return [(n + height) * Math.cos(phi) * Math.cos(lambda),
            (n + height) * Math.cos(phi) * Math.sin(lambda),
            (n * (1 - LocalFrame.e2) + height) * Math.sin(phi)];
  };
  LocalFrame.prototype.enu = function (latitude, longitude, height) {
    const o = LocalFrame.ecef(this.origin.latitude, this.origin.longitude, 0);
    const p = LocalFrame.ecef(latitude, longitude, height);
    const dx = p[0] - o[0], dy = p[1] - o[1], dz = p[2] - o[2];
    const phi = radians(this.origin.latitude), lambda = radians(this.origin.longitude);
    const e = -Math.sin(lambda) * dx + Math.cos(lambda) * dy;
    const n = -Math.sin(phi) * Math.cos(lambda) * dx - Math.sin(phi) * Math.sin(lambda) * dy + Math.cos(phi) * dz;
    const u = Math.cos(phi) * Math.cos(lambda) * dx + Math.cos(phi) * Math.sin(lambda) * dy + Math.sin(phi) * dz;
    return { e: e, n: n, u: u };
  };
  // The point on the plan, in venue units, of a coordinate on the ellipsoid.
  LocalFrame.prototype.planarPoint = function (latitude, longitude) {
    const d = this.enu(latitude, longitude, 0);
    const b = radians(this.bearing);
    const x = d.e * Math.cos(b) - d.n * Math.sin(b);
    const y = d.e * Math.sin(b) + d.n * Math.cos(b);
    return { x: x / this.metresPerUnit, y: y / this.metresPerUnit };
  };

  // ---------------------------------------------------------------------------------------------
  // Elements and small helpers.

  const el = {};
  let token = "";
  let range = { from: 0, to: null };   // seconds since 1970; to = null: up to now, with live updates
  let track = [];                      // {id, time, latitude, longitude, accuracy, floor}, by time
  let plan = null;                     // the venue plan, when the server has a venue with an origin
  let view = null;                     // what render() drew last, for appending live points
  let socket = null;
  let reconnectDelay = 1;
  let reconnectTimer = null;
  let connectGeneration = 0;           // bumped whenever the live connection is abandoned
  let loadGeneration = 0;
  let defaultFrom = "";                 // the start the page proposed, until the user changes it
  let selection = null;                // what is shown: {mode: "day", day} or {mode: "range", from, to}
  let showGeneration = 0;              // bumped by every show(): an older one stops at its next step
  let retention = null;                // {keep, from, streams}: see loadRetention
  let floorByHand = false;             // the user picked a floor other than the latest position's

  function pad(n) { return String(n).padStart(2, "0"); }
  // A time as the page shows it: local, "YYYY-MM-DD HH:MM:SS".
  function formatTime(seconds) {
    const d = new Date(seconds * 1000);
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " +
      pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds());
  }
  // The value of a datetime-local input for a time.
  function inputValue(seconds) { return formatTime(seconds).replace(" ", "T"); }
  // The time of a datetime-local input's value (local time), or null when empty or invalid.
  function parseInput(value) {
    if (!value) return null;
    const t = new Date(value).getTime();
    return Number.isFinite(t) ? t / 1000 : null;
  }

  // Local calendar days, as "YYYY-MM-DD" (the value of a date input). A day runs from its local
  // midnight to the next (23 or 25 hours on the days the clocks change).
  const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
  // The local midnight starting `day` plus `days` days, as a Date; null when `day` is no valid day.
  function midnight(day, days) {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day || "");
    if (!m) return null;
    const year = Number(m[1]), month = Number(m[2]) - 1, date = Number(m[3]);
    const check = new Date(year, month, date);
    if (year < 1000 || check.getFullYear() !== year || check.getMonth() !== month || check.getDate() !== date) return null;
    return new Date(year, month, date + (days || 0));
  }
  function dayStart(day) { const d = midnight(day, 0); return d ? d.getTime() / 1000 : null; }
  function dayEnd(day) { const d = midnight(day, 1); return d ? d.getTime() / 1000 : null; }
  function dayOf(seconds) {
    const d = new Date(seconds * 1000);
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate());
  }
  function shiftDay(day, days) { const d = midnight(day, days); return d ? dayOf(d.getTime() / 1000) : null; }
  function today() { return dayOf(Date.now() / 1000); }
  // A date as the page writes it: "5 Sep 2026"; with the weekday: "Sat 5 Sep 2026".
  function formatDate(seconds, withWeekday) {
    const d = new Date(seconds * 1000);
    return (withWeekday ? WEEKDAYS[d.getDay()] + " " : "") + d.getDate() + " " + MONTHS[d.getMonth()] + " " + d.getFullYear();
  }
  function formatDay(day) { return formatDate(dayStart(day), true); }
  function svg(name, attributes, parent) {
    const node = document.createElementNS(SVG_NS, name);
    for (const key in attributes) node.setAttribute(key, String(attributes[key]));
    if (parent) parent.appendChild(node);
    return node;
  }
  function titled(node, text) {
    const title = document.createElementNS(SVG_NS, "title");
    title.textContent = text;
    node.appendChild(title);
    return node;
  }

  function showError(message) {
    state.error = message;
    el.error.textContent = message;
    el.error.hidden = false;
  }
  function clearError() {
    state.error = null;
    el.error.textContent = "";
    el.error.hidden = true;
  }
  function setStatus(text, kind) {
    el.status.textContent = text;
    el.status.dataset.kind = kind;
  }

  // The message of an API error response (Pryv's shape), or a description of the status.
  async function errorMessage(response) {
    try {
      const body = await response.json();
      if (body && body.error && body.error.message) return body.error.message;
    } catch (ignored) { /* not JSON */ }
    return "HTTP " + response.status + " " + response.statusText;
  }

  // ---------------------------------------------------------------------------------------------
  // Positions.

  // A track point from an event, or null when the event is not a readable position: a
  // position/wgs84 (latitude, longitude; accuracy in metres) or, from a tracker on a venue
  // without an origin, a position/local (x, y in venue units, drawn on the venue's plan).
  function pointFrom(event) {
    if (!event || event.trashed) return null;
    const c = event.content || {};
    if (event.type === "position/local") {
      if (typeof c.x !== "number" || typeof c.y !== "number" || !Number.isFinite(c.x) || !Number.isFinite(c.y)) return null;
      return {
        id: event.id,
        time: event.time,
        local: true,
        x: c.x,
        y: c.y,
        accuracy: typeof c.accuracy === "number" ? c.accuracy : null,
        floor: typeof c.floor === "number" ? c.floor : floorInClientData(event),
        tag: tagOf(event),
        end: endOf(event),
        streamIds: streamIdsOf(event),
      };
    }
    if (event.type !== "position/wgs84") return null;
    if (typeof c.latitude !== "number" || typeof c.longitude !== "number") return null;
    if (!(Math.abs(c.latitude) <= 90 && Math.abs(c.longitude) <= 180)) return null;
    return {
      id: event.id,
      time: event.time,
      latitude: c.latitude,
      longitude: c.longitude,
      accuracy: typeof c.horizontalAccuracy === "number" ? c.horizontalAccuracy : null,
      floor: typeof c.floor === "number" ? c.floor : floorInClientData(event),
      tag: tagOf(event),
      end: endOf(event),
      streamIds: streamIdsOf(event),
    };
  }

  // When an event ends: its time plus its duration (none: a moment), Infinity while it runs
  // (`duration: null`), which the retention purge never removes.
  function endOf(event) {
    if (event.duration === null) return Infinity;
    return event.time + (typeof event.duration === "number" ? event.duration : 0);
  }
  function streamIdsOf(event) {
    return Array.isArray(event.streamIds) ? event.streamIds.filter(function (id) { return typeof id === "string"; }) : [];
  }

  // The tag a position is of, when the server stored it for fixed receivers (in a stream
  // `tag-…`, the tag's name in clientData), or null for the user's own track.
  function tagOf(event) {
    const stream = Array.isArray(event.streamIds) ? event.streamIds[0] : null;
    if (typeof stream !== "string" || !stream.startsWith("tag-")) return null;
    const data = event.clientData && event.clientData.whereabouts;
    const name = data && typeof data.device === "string" ? data.device : stream.slice(4);
    return name.slice(0, 60);
  }

  // The floor a Whereabouts tracker keeps in clientData (a position/wgs84 content has no floor).
  function floorInClientData(event) {
    const data = event.clientData && event.clientData.whereabouts;
    return data && typeof data.floor === "number" ? data.floor : null;
  }

  // The newest position's end time, or null: where an empty default range jumps to.
  async function newestPositionEnd() {
    try {
      const response = await fetch("/events?types[]=position/wgs84&types[]=position/local&limit=1",
        { headers: { Authorization: token }, cache: "no-store" });
      if (!response.ok) return null;
      const body = await response.json();
      const event = (body.events || [])[0];
      if (!event || typeof event.time !== "number") return null;
      return event.time + (typeof event.duration === "number" ? event.duration : 0);
    } catch (ignored) {
      return null;
    }
  }

  function inRange(time) {
    return time >= range.from && (range.to === null || time <= range.to);
  }

  // Adds, replaces or (trashed, moved out of range) removes the point of a live event.
  function applyLiveEvent(event) {
    const index = track.findIndex(function (p) { return p.id === event.id; });
    if (index >= 0) track.splice(index, 1);
    const point = pointFrom(event);
    let at = -1;
    if (point && inRange(point.time)) {
      at = track.length;
      while (at > 0 && track[at - 1].time > point.time) at -= 1;
      track.splice(at, 0, point);
    }
    if (track.length > 0 && !el.dayNote.hidden) hideDayNote();   // today had none, until now
    // A position on another floor brings its floor up first (unless the user chose one).
    const moved = followFloor();
    // The common case, a new latest position inside the view, is drawn without a redraw.
    if (!moved && at >= 0 && index < 0 && at === track.length - 1 && !point.tag && appendPoint(point)) return;
    if (index >= 0 || point || moved) render();
  }

  async function loadTrack() {
    const generation = ++loadGeneration;
    const to = range.to === null ? Date.now() / 1000 : range.to;
    const url = "/events?types[]=position/wgs84&types[]=position/local&fromTime=" + encodeURIComponent(range.from) +
      "&toTime=" + encodeURIComponent(to) + "&sortAscending=true&limit=" + LIMIT;
    setStatus("Loading positions…", "busy");
    let response;
    try {
      response = await fetch(url, { headers: { Authorization: token }, cache: "no-store" });
    } catch (error) {
      showError("Cannot reach the server (" + error.message + "). Check that it is running, then press “Show track”.");
      setStatus("Server unreachable", "error");
      return false;
    }
    if (generation !== loadGeneration) return false;
    if (!response.ok) {
      const message = await errorMessage(response);
      if (response.status === 401) {
        showError("The server refused the token: " + message + " Enter a valid token above.");
      } else if (response.status === 403) {
        showError("This token may not read positions: " + message);
      } else {
        showError("Could not load positions: " + message);
      }
      setStatus("Not connected", "error");
      return false;
    }
    let body;
    try {
      body = await response.json();
    } catch (error) {
      showError("The server's answer to /events is not JSON.");
      return false;
    }
    if (generation !== loadGeneration) return false;
    track = (body.events || []).map(pointFrom).filter(function (p) { return p !== null; });
    track.sort(function (a, b) { return a.time - b.time; });
    followFloor();
    clearError();
    // A server whose cap per answer is below LIMIT ends its answer with `next`.
    const shown = (body.events || []).length;
    el.note.textContent = shown >= LIMIT || body.next
      ? "Showing the first " + shown + " positions of the range; choose a shorter range to see the rest."
      : "";
    render();
    return true;
  }

  // ---------------------------------------------------------------------------------------------
  // Retention: how long the server keeps the positions (GET /retention). The purge removes an
  // event once it ended more than its limit ago: the shortest of its streams' own limits, else
  // the user's (`keep`). Positions it removes within the next 7 days are drawn as hollow rings,
  // and so are those already past their limit (the purge runs hourly: it has not come yet).

  const EXPIRY_WINDOW = 7 * 86400;

  // Reads the user's retention; without an answer (an older server), nothing is marked.
  async function loadRetention() {
    retention = null;
    try {
      const response = await fetch("/retention", { headers: { Authorization: token }, cache: "no-store" });
      if (response.ok) {
        const body = await response.json();
        const r = body && body.retention;
        if (r && typeof r === "object") {
          const streams = {};
          for (const id in r.streams || {}) {
            const limit = r.streams[id];
            if (limit === null) streams[id] = Infinity;  // kept for ever, whatever the user's limit
            else if (typeof limit === "number" && limit >= 0) streams[id] = limit;
          }
          retention = { keep: typeof r.keep === "number" && r.keep >= 0 ? r.keep : null, from: r.from, streams: streams };
        }
      }
    } catch (ignored) { /* unreachable, or not JSON: the events request reports the server */ }
    state.retention = retention;
  }

  // A position's limit in seconds, or null when it is kept for ever: the shortest among its
  // streams' (a stream the server did not list has the user's), as the purge does.
  function limitOf(p) {
    if (!retention) return null;
    const userLimit = retention.keep === null ? Infinity : retention.keep;
    const ids = p.streamIds || [];
    let limit = ids.length === 0 ? userLimit : Infinity;
    for (const id of ids) {
      const own = Object.prototype.hasOwnProperty.call(retention.streams, id) ? retention.streams[id] : userLimit;
      if (own < limit) limit = own;
    }
    return Number.isFinite(limit) ? limit : null;
  }

  // When the purge removes a position (seconds since 1970), or null when it never does.
  function removalTime(p) {
    const limit = limitOf(p);
    return limit === null || !Number.isFinite(p.end) ? null : p.end + limit;
  }

  // Marks a position (p.expiry): "overdue" when already past its limit, "soon" when the purge
  // removes it within EXPIRY_WINDOW of `now`, null otherwise.
  function markExpiry(p, now) {
    const at = removalTime(p);
    p.removal = at;
    p.expiry = at === null || at > now + EXPIRY_WINDOW ? null : at < now ? "overdue" : "soon";
    return p.expiry;
  }

  // A duration as the page writes it: "90 days", "1 day", "12 hours", "30 minutes", "45 seconds".
  function formatKeep(seconds) {
    function count(n, unit) { return n + " " + unit + (n === 1 ? "" : "s"); }
    if (!Number.isFinite(seconds)) return "for ever";
    if (seconds >= 86400 && seconds % 86400 === 0) return count(seconds / 86400, "day");
    if (seconds >= 3600 && seconds % 3600 === 0) return count(seconds / 3600, "hour");
    if (seconds >= 60 && seconds % 60 === 0) return count(seconds / 60, "minute");
    return count(Math.round(seconds), "second");
  }

  // The note above the map: what is kept, and how many of the positions shown go soon.
  function updateRetentionNote() {
    const limited = retention ? Object.keys(retention.streams).sort() : [];
    const applies = retention !== null && (retention.keep !== null || limited.length > 0);
    el.retentionNote.hidden = !applies;
    el.legendExpiring.hidden = !applies;
    if (!applies) { el.retentionNote.textContent = ""; return; }
    const now = Date.now() / 1000;
    const parts = [];
    if (retention.keep !== null) {
      const cutoff = now - retention.keep;
      parts.push("Kept " + formatKeep(retention.keep) + (retention.from === "server" ? " (this server's default)" : "") +
        ": positions before " + (retention.keep < 2 * 86400 ? formatTime(cutoff).slice(0, 16) : formatDate(cutoff)) + " are removed.");
    }
    if (limited.length > 0) {
      parts.push((limited.length === 1 ? "A stream has its own limit: " : "Streams with their own limit: ") +
        limited.slice(0, 5).map(function (id) { return id + " (" + formatKeep(retention.streams[id]) + ")"; }).join(", ") +
        (limited.length > 5 ? ", …" : "") + ".");
    }
    const soon = state.expiring, overdue = state.overdue;
    if (soon > 0) {
      parts.push((soon === 1 ? "1 position shown is" : soon + " positions shown are") + " removed within 7 days" +
        (overdue > 0 ? " (" + (overdue === 1 ? "1 is" : overdue + " are") + " past the limit already: the next purge removes " +
          (overdue === 1 ? "it" : "them") + ")" : "") + ".");
    }
    el.retentionNote.textContent = parts.join(" ");
  }

  // ---------------------------------------------------------------------------------------------
  // The venue plan.

  let venueNeedsToken = false;          // the server shows its venue to token holders only

  async function loadVenue(withToken) {
    let response;
    try {
      response = await fetch("/venue", { cache: "no-store", headers: withToken ? { Authorization: withToken } : {} });
    } catch (error) {
      return;   // the events request reports an unreachable server
    }
    venueNeedsToken = response.status === 401;
    if (!response.ok) return;   // 404: the server has no venue; 401: it wants a token first
    let body;
    try { body = await response.json(); } catch (error) { return; }
    const venue = body && body.venue;
    if (!venue) return;
    const metresPerUnit = { m: 1, ft: 0.3048 }[venue.units || "m"];
    // Without an origin, the plan is drawn in its own units and only position/local events
    // (venue coordinates) can go on it.
    const frame = venue.origin && metresPerUnit ? new LocalFrame(venue.origin, venue.origin.bearing || 0, metresPerUnit) : null;
    if (!frame) {
      el.note.textContent = "The venue has no latitude/longitude origin: positions in venue coordinates (position/local) are drawn on its plan, latitude/longitude ones are not.";
    }
    function local(item) {
      if (frame && typeof item.latitude === "number" && typeof item.longitude === "number") {
        return frame.planarPoint(item.latitude, item.longitude);
      }
      if (typeof item.x === "number" && typeof item.y === "number") return { x: item.x, y: item.y };
      return null;
    }
    const beacons = [];
    for (const beacon of venue.beacons || []) {
      const p = local(beacon);
      if (p) beacons.push({ id: beacon.id, x: p.x, y: p.y, floor: typeof beacon.floor === "number" ? beacon.floor : null });
    }
    const places = [];
    for (const place of venue.places || []) {
      const floor = typeof place.floor === "number" ? place.floor : 0;
      if (Array.isArray(place.polygon)) {
        places.push({ id: place.id, floor: floor, polygon: place.polygon.map(function (v) { return { x: v[0], y: v[1] }; }) });
      } else if (typeof place.radius === "number") {
        const c = local(place);
        if (c) places.push({ id: place.id, floor: floor, center: c, radius: place.radius });
      }
    }
    const floors = (venue.floors || []).map(function (f) { return { level: f.level, name: f.name || ("Floor " + f.level) }; });
    plan = { name: venue.name || "Venue", units: venue.units || "m", frame: frame, metresPerUnit: metresPerUnit || 1, beacons: beacons, places: places, floors: floors, floor: floors.length ? floors[0].level : 0 };
    state.mode = "venue";
    if (floors.length > 1) {
      el.floor.innerHTML = "";
      for (const f of floors) {
        const option = document.createElement("option");
        option.value = String(f.level);
        option.textContent = f.name;
        el.floor.appendChild(option);
      }
      el.floorField.hidden = false;
    }
    followFloor();
    render();
  }

  // ---------------------------------------------------------------------------------------------
  // The floor shown.
  //
  // The selector follows the latest position: a track that goes upstairs is shown upstairs, on
  // the first load and as live positions arrive. Once the user picks another floor by hand, the
  // page keeps it and says, above the map, on which floor the newer positions are, with a button
  // to go there; picking that floor, the button, or "Show track" lets the selector follow again.

  // The floor of the latest position that has one, or null.
  function latestFloor() {
    for (let i = track.length - 1; i >= 0; i -= 1) {
      if (track[i].floor !== null) return track[i].floor;
    }
    return null;
  }
  function floorName(level) {
    const floor = plan && plan.floors.find(function (f) { return f.level === level; });
    return floor ? floor.name : "floor " + level;
  }

  // Shows the latest position's floor unless the user picked another; updates the note.
  // Returns whether the floor shown changed (the caller redraws).
  function followFloor() {
    const latest = latestFloor();
    const choosable = plan !== null && plan.floors.length > 1 && latest !== null &&
      plan.floors.some(function (f) { return f.level === latest; });
    let moved = false;
    if (choosable && !floorByHand && plan.floor !== latest) {
      plan.floor = latest;
      el.floor.value = String(latest);
      moved = true;
    }
    const away = choosable && plan.floor !== latest;
    el.floorNote.hidden = !away;
    el.floorNoteText.textContent = away ? "Newer positions are on " + floorName(latest) + "." : "";
    el.floorFollow.textContent = away ? "Show " + floorName(latest) : "";
    state.floor = plan ? plan.floor : null;
    state.latestFloor = latest;
    state.floorByHand = floorByHand;
    return moved;
  }

  // ---------------------------------------------------------------------------------------------
  // Fitting the view.
  //
  // The view fits the venue's plan, not the track: one position posted far from the venue (a
  // phone that reported its home town, a test event) must not squash the plan into a blob at
  // the end of a 600 km axis. Without a plan, it fits the bulk of the track, so that one outlier
  // cannot rescale it either. Positions near the fitted region widen the view a little; the
  // others are drawn as arrows at its edge, pointing toward them, with a note under the map.

  const PLAN_SLACK = 0.5;           // positions up to half the plan's size off it widen the view,
  const MIN_PLAN_SLACK_METRES = 25; // or up to 25 m (a poor GPS fix next to a small venue)
  const TRACK_TRIM = 0.1;           // without a plan: the share of positions left out at each end of each axis
  const MIN_TRACK_SLACK_METRES = 100;

  function emptyBox() { return { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity }; }
  function extendBox(box, x, y) {
    box.minX = Math.min(box.minX, x); box.maxX = Math.max(box.maxX, x);
    box.minY = Math.min(box.minY, y); box.maxY = Math.max(box.maxY, y);
  }
  function boxSpan(box) { return Math.max(box.maxX - box.minX, box.maxY - box.minY); }

  // The extent of beacons and places (circles and polygons; a label-only place has no extent),
  // or null when there are none.
  function planExtent(beacons, places) {
    const box = emptyBox();
    beacons.forEach(function (b) { extendBox(box, b.x, b.y); });
    places.forEach(function (p) {
      if (p.polygon) p.polygon.forEach(function (v) { extendBox(box, v.x, v.y); });
      else { extendBox(box, p.center.x - p.radius, p.center.y - p.radius); extendBox(box, p.center.x + p.radius, p.center.y + p.radius); }
    });
    return Number.isFinite(box.minX) ? box : null;
  }

  // The extent of the bulk of the points, or null when there are none: on each axis, from the
  // TRACK_TRIM quantile to the 1 - TRACK_TRIM one, with at least the extreme point left out at
  // each end once there are three points, so that a single outlier is never part of it (the
  // ordinary points left out are brought back by fitRegion's slack).
  function bulkExtent(xy) {
    const n = xy.length;
    if (n === 0) return null;
    const trim = n >= 3 ? Math.max(1, Math.floor(n * TRACK_TRIM)) : 0;
    const xs = xy.map(function (q) { return q.x; }).sort(function (a, b) { return a - b; });
    const ys = xy.map(function (q) { return q.y; }).sort(function (a, b) { return a - b; });
    return { minX: xs[trim], maxX: xs[n - 1 - trim], minY: ys[trim], maxY: ys[n - 1 - trim] };
  }

  // The region the view fits, or null when there is nothing to draw: the plan (`planBox`), else
  // the bulk of the track; widened to take in the positions within a slack of it. The slack is
  // half the plan's size, at least 25 m; for a track, the bulk's size, at least 100 m, and at
  // least three times the median distance of the positions from the bulk (so that a short track
  // of a few spread-out positions, e.g. three along a drive, is not taken for outliers).
  // Positions beyond the slack are left out.
  function fitRegion(xy, planBox, metresPerUnit) {
    const core = planBox || bulkExtent(xy);
    if (!core) return null;
    function distance(q) {   // from the core, 0 inside it
      return Math.hypot(Math.max(core.minX - q.x, 0, q.x - core.maxX), Math.max(core.minY - q.y, 0, q.y - core.maxY));
    }
    const slack = planBox
      ? Math.max(PLAN_SLACK * boxSpan(core), MIN_PLAN_SLACK_METRES / metresPerUnit)
      : Math.max(boxSpan(core), MIN_TRACK_SLACK_METRES / metresPerUnit, 3 * median(xy.map(distance)));
    const box = Object.assign({}, core);
    xy.forEach(function (q) { if (distance(q) <= slack) extendBox(box, q.x, q.y); });
    return box;
  }

  // The median of numbers.
  function median(values) {
    const sorted = values.slice().sort(function (a, b) { return a - b; });
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  }

  // A distance in metres as the page writes it: "850 m", "4.2 km", "612 km".
  function formatDistance(metres) {
    if (metres < 1000) return Math.round(metres) + " m";
    return (metres < 10000 ? (metres / 1000).toFixed(1) : String(Math.round(metres / 1000))) + " km";
  }

  // ---------------------------------------------------------------------------------------------
  // Drawing.

  // Nice grid spacing: 1, 2 or 5 times a power of ten, about `count` lines over `span`.
  function gridStep(span, count) {
    const raw = span / count;
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const m of [1, 2, 5, 10]) if (raw <= m * power) return m * power;
    return 10 * power;
  }

  // The box an element covers in the drawing's coordinates, or null when the browser cannot say
  // (the map is not displayed).
  function boxOf(node) {
    try {
      const b = node.getBBox();
      return b.width > 0 || b.height > 0 ? { x: b.x, y: b.y, width: b.width, height: b.height } : null;
    } catch (ignored) {
      return null;
    }
  }
  function overlaps(a, b) {
    return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
  }

  // Draws the map: grid, plan shapes, track, arrows toward positions outside the view, then the
  // places' labels, in that order, so that labels are painted over the track.
  function render() {
    const map = el.map;
    while (map.firstChild) map.removeChild(map.firstChild);
    const floor = plan ? plan.floor : null;
    // Venue coordinates need the plan; latitude/longitude need a frame, or the plain canvas.
    const visible = track.filter(function (p) {
      const drawable = p.local ? plan !== null : (plan === null || plan.frame !== null);
      return drawable && (floor === null || p.floor === null || p.floor === floor);
    });
    // The user's own track; fixed receivers' tags are drawn apart, each at its latest position.
    const shown = visible.filter(function (p) { return !p.tag; });
    const latestOfTag = new Map();
    for (const p of visible) if (p.tag && (!latestOfTag.has(p.tag) || latestOfTag.get(p.tag).time <= p.time)) latestOfTag.set(p.tag, p);
    const tags = [...latestOfTag.values()].sort(function (a, b) { return a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0; });

    // Projection: the venue's local frame (y up); or, without a venue, metres east and north of
    // the track's median position on the mean-radius sphere (equirectangular), labelled in
    // degrees. Drawing in metres around the track, rather than in raw degrees, keeps a track of
    // a few metres clear of the browser's single-precision SVG rounding; the median, unlike the
    // mean, stays on the track when one position is far away.
    let project, toAxes;
    if (plan) {
      project = function (p) {
        if (p.local) return { x: p.x, y: p.y };
        const q = plan.frame.planarPoint(p.latitude, p.longitude);
        return { x: q.x, y: q.y };
      };
      toAxes = null;
    } else {
      const latitude0 = shown.length ? median(shown.map(function (p) { return p.latitude; })) : 0;
      const longitude0 = shown.length ? median(shown.map(function (p) { return p.longitude; })) : 0;
      const k = Math.cos(radians(latitude0));
      const metresPerDegree = Math.PI / 180 * 6371008.8;
      project = function (p) {
        return { x: (p.longitude - longitude0) * k * metresPerDegree, y: (p.latitude - latitude0) * metresPerDegree };
      };
      toAxes = {   // degrees of longitude and latitude to and from the drawing's metres
        x: function (longitude) { return (longitude - longitude0) * k * metresPerDegree; },
        y: function (latitude) { return (latitude - latitude0) * metresPerDegree; },
        longitude: function (x) { return longitude0 + x / (k * metresPerDegree); },
        latitude: function (y) { return latitude0 + y / metresPerDegree; },
      };
    }
    const metresPerUnit = plan ? plan.metresPerUnit : 1;
    const xy = shown.map(project);
    // What retention removes soon, as of now.
    const now = Date.now() / 1000;
    let expiring = 0, overdue = 0;
    for (const p of shown) {
      const expiry = markExpiry(p, now);
      if (expiry) expiring += 1;
      if (expiry === "overdue") overdue += 1;
    }

    // The view: the plan on this floor (else on any floor, when this one has nothing drawn),
    // else the bulk of the track; see fitRegion.
    const beacons = plan ? plan.beacons.filter(function (b) { return b.floor === null || b.floor === floor; }) : [];
    const places = plan ? plan.places.filter(function (p) { return p.floor === floor; }) : [];
    const planBox = plan ? (planExtent(beacons, places) || planExtent(plan.beacons, plan.places)) : null;
    const fit = fitRegion(xy, planBox, metresPerUnit) || { minX: -1, maxX: 1, minY: -1, maxY: 1 };
    let span = boxSpan(fit);
    if (!(span > 0)) span = 10;
    const margin = span * 0.08;
    const cx = (fit.minX + fit.maxX) / 2, cy = (fit.minY + fit.maxY) / 2;
    // SVG y grows downwards: y on the map is -y.
    // Fill the element: the region and its margin fit the element's shape along the side that
    // limits it; the view extends along the other.
    const aspect = (map.clientWidth || 1) / (map.clientHeight || 1);
    const fitX = Math.max((fit.maxX - fit.minX) / 2, span / 20) + margin, fitY = Math.max((fit.maxY - fit.minY) / 2, span / 20) + margin;
    const halfX = Math.max(fitX, fitY * aspect), halfY = halfX / aspect;
    map.setAttribute("viewBox", [cx - halfX, -cy - halfY, 2 * halfX, 2 * halfY].join(" "));
    const half = Math.min(halfX, halfY);
    const unit = 2 * half / 100;   // one hundredth of the view's shorter side, for sizes

    // Grid: venue units on the plan, degrees on the plain canvas.
    const grid = svg("g", { class: "grid" }, map);
    const fontSize = 2.4 * unit;
    function gridLines(low, high, step, draw) {
      if (!(step > 0) || !Number.isFinite(step) || (high - low) / step > 50) return;
      const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
      for (let i = Math.ceil(low / step); i * step <= high; i += 1) draw(i * step, decimals);
    }
    function verticalLine(x, text) {
      svg("line", { x1: x, y1: -cy - halfY, x2: x, y2: -cy + halfY }, grid);
      const label = svg("text", { x: x + unit / 2, y: -cy + halfY - unit, "font-size": fontSize }, grid);
      label.textContent = text;
    }
    function horizontalLine(y, text) {
      svg("line", { x1: cx - halfX, y1: -y, x2: cx + halfX, y2: -y }, grid);
      const label = svg("text", { x: cx - halfX + unit, y: -y - unit / 2, "font-size": fontSize }, grid);
      label.textContent = text;
    }
    if (toAxes) {
      const west = toAxes.longitude(cx - halfX), east = toAxes.longitude(cx + halfX);
      const south = toAxes.latitude(cy - halfY), north = toAxes.latitude(cy + halfY);
      gridLines(west, east, gridStep(east - west, 5), function (longitude, d) { verticalLine(toAxes.x(longitude), longitude.toFixed(d) + "°"); });
      gridLines(south, north, gridStep(north - south, 5), function (latitude, d) { horizontalLine(toAxes.y(latitude), latitude.toFixed(d) + "°"); });
    } else {
      const step = gridStep(2 * half, 5);
      gridLines(cx - halfX, cx + halfX, step, function (x, d) { verticalLine(x, x.toFixed(d) + " " + plan.units); });
      gridLines(cy - halfY, cy + halfY, step, function (y, d) { horizontalLine(y, y.toFixed(d) + " " + plan.units); });
    }

    // The venue's shapes; their labels come last, over the track.
    if (plan) {
      const layer = svg("g", { class: "plan" }, map);
      for (const place of places) {
        const node = place.polygon
          ? svg("polygon", { class: "place", points: place.polygon.map(function (v) { return v.x + "," + (-v.y); }).join(" ") }, layer)
          : svg("circle", { class: "place", cx: place.center.x, cy: -place.center.y, r: place.radius }, layer);
        titled(node, "Place " + place.id);
      }
      for (const beacon of beacons) {
        const size = 1.6 * unit;
        titled(svg("rect", { class: "beacon", x: beacon.x - size / 2, y: -beacon.y - size / 2, width: size, height: size }, layer),
          "Beacon " + beacon.id);
      }
    }

    // The track: the positions inside the view as dots joined by a line, the newest highlighted.
    const x0 = cx - halfX, x1 = cx + halfX, y0 = cy - halfY, y1 = cy + halfY;
    function inView(q) { return q.x >= x0 && q.x <= x1 && q.y >= y0 && q.y <= y1; }
    const inside = [], outside = [];
    shown.forEach(function (p, i) { (inView(xy[i]) ? inside : outside).push(i); });
    const layer = svg("g", { class: "track" }, map);
    const line = svg("polyline", { class: "track-line", points: inside.map(function (i) { return xy[i].x + "," + (-xy[i].y); }).join(" ") }, layer);
    const accuracy = svg("circle", { class: "accuracy", cx: 0, cy: 0, r: 0, visibility: "hidden" }, layer);
    view = {
      project: project, metresPerUnit: metresPerUnit, unit: unit, layer: layer, line: line, accuracy: accuracy,
      x0: x0, x1: x1, y0: y0, y1: y1, newest: null, count: shown.length, outside: outside.length,
      expiring: expiring, overdue: overdue,
      first: shown.length ? shown[0].time : null, newestTime: shown.length ? shown[shown.length - 1].time : null,
    };
    const last = shown.length - 1;
    inside.forEach(function (i) {
      if (i < last) pointCircle(shown[i], xy[i], false); else drawPoint(shown[i], xy[i]);
    });

    // The tags: a marker and a name at each one's latest position inside the view.
    const tagLayer = svg("g", { class: "tags" }, map);
    state.tags = [];
    for (const p of tags) {
      const q = project(p);
      if (!inView(q)) continue;
      titled(svg("circle", { class: "tag", cx: q.x, cy: -q.y, r: 1.2 * unit, "data-tag": p.tag, "data-time": p.time }, tagLayer),
        "Tag " + p.tag + ": " + pointText(p));
      const name = svg("text", { class: "tag-label", x: q.x + 1.8 * unit, y: -q.y - 1.2 * unit, "font-size": 2.6 * unit }, tagLayer);
      name.textContent = p.tag;
      state.tags.push(p.tag);
    }

    // Positions outside the view: arrows at its edge, never a rescaled view.
    const markers = svg("g", { class: "outside" }, map);
    const drawn = drawOutside(outside.map(function (i) { return { point: shown[i], q: xy[i], newest: i === last }; }),
      markers, { cx: cx, cy: cy, halfX: halfX, halfY: halfY, unit: unit, metresPerUnit: metresPerUnit });
    el.outsideNote.hidden = outside.length === 0;
    el.outsideNote.textContent = outside.length === 0 ? "" :
      (outside.length === 1 ? "1 position" : outside.length + " positions") +
      (planBox ? " outside the plan of " + plan.name : " far from the rest of the track") +
      (outside.length === 1 ? ", " : ", up to ") + formatDistance(drawn.distance) + " away: " +
      (drawn.arrows === 1 ? "the arrow at the map's edge points" : "the arrows at the map's edge point") +
      (outside.length === 1 ? " toward it." : " toward them.");

    // The places' names, on top of everything, clear of each other, of the grid's labels and of
    // the arrows.
    if (plan) {
      const obstacles = [];
      for (const node of grid.querySelectorAll("text")) { const b = boxOf(node); if (b) obstacles.push(b); }
      for (const node of markers.children) { const b = boxOf(node); if (b) obstacles.push(b); }
      for (const node of tagLayer.querySelectorAll("text")) { const b = boxOf(node); if (b) obstacles.push(b); }
      const newest = view.newest ? boxOf(view.newest) : null;
      // A label's halo is 3 px wide whatever the zoom: keep names 4 px apart on each side at least.
      const unitsPerPixel = map.clientWidth > 0 ? 2 * halfX / map.clientWidth : 0;
      placeLabels(places, svg("g", { class: "labels" }, map),
        { x: x0, y: -y1, width: x1 - x0, height: y1 - y0 }, obstacles, newest ? [newest] : [], unit,
        Math.max(0.25 * unit, 4 * unitsPerPixel));
    }
    updateCounts();
  }

  // Draws `items` ({point, q (drawing coordinates), newest}), the positions outside the view,
  // as arrows at the view's edge on the line from its centre toward them, each with the distance
  // of its farthest position; positions in about the same direction share an arrow. Returns the
  // number of arrows and the largest distance from the view's centre, in metres.
  function drawOutside(items, layer, geometry) {
    const g = geometry;
    const inset = 1.2 * g.unit, length = 4 * g.unit, width = 3.2 * g.unit;
    const hx = Math.max(g.halfX - inset, 0), hy = Math.max(g.halfY - inset, 0);
    const arrows = new Map();
    let maxDistance = 0;
    for (const item of items) {
      const dx = item.q.x - g.cx, dy = item.q.y - g.cy;
      const norm = Math.hypot(dx, dy);
      if (!(norm > 0)) continue;
      // Where the ray from the centre leaves the view (inset so that the arrow shows whole).
      const t = Math.min(dx !== 0 ? hx / Math.abs(dx) : Infinity, dy !== 0 ? hy / Math.abs(dy) : Infinity);
      const tip = { x: g.cx + dx * t, y: g.cy + dy * t };
      const distance = norm * g.metresPerUnit;
      maxDistance = Math.max(maxDistance, distance);
      const key = Math.round(tip.x / (2 * g.unit)) + "," + Math.round(tip.y / (2 * g.unit));
      let arrow = arrows.get(key);
      if (!arrow) { arrow = { tip: tip, ux: dx / norm, uy: dy / norm, count: 0, distance: 0, latest: null, newest: false }; arrows.set(key, arrow); }
      arrow.count += 1;
      arrow.distance = Math.max(arrow.distance, distance);
      arrow.latest = item.point;   // items come by time
      arrow.newest = arrow.newest || item.newest;
    }
    for (const arrow of arrows.values()) {
      // In SVG coordinates (y down): the tip, and the base `length` behind it.
      const tx = arrow.tip.x, ty = -arrow.tip.y, ux = arrow.ux, uy = -arrow.uy;
      const bx = tx - ux * length, by = ty - uy * length;
      const corners = [[tx, ty], [bx - uy * width / 2, by + ux * width / 2], [bx + uy * width / 2, by - ux * width / 2]];
      const node = svg("polygon", {
        class: arrow.newest ? "edge-marker newest" : "edge-marker",
        points: corners.map(function (c) { return c[0] + "," + c[1]; }).join(" "),
        "data-id": arrow.latest.id, "data-time": arrow.latest.time, "data-count": arrow.count,
        "data-distance": Math.round(arrow.distance),
      }, layer);
      titled(node, (arrow.count === 1 ? "" : arrow.count + " positions, up to ") + formatDistance(arrow.distance) +
        " from the centre of the view" + (arrow.count === 1 ? ": " : "; the latest: ") + pointText(arrow.latest));
      if (arrow.newest) view.newest = node;
      // The distance, just inside the arrow's base, aligned so that it stays in the view.
      const label = svg("text", {
        class: "edge-distance", x: bx - ux * 0.8 * g.unit, y: by - uy * 0.8 * g.unit, "font-size": 2.2 * g.unit,
        "text-anchor": ux > 0.4 ? "end" : ux < -0.4 ? "start" : "middle",
        "dominant-baseline": uy < -0.4 ? "hanging" : uy > 0.4 ? "auto" : "central",
      }, layer);
      label.textContent = formatDistance(arrow.distance);
    }
    return { arrows: arrows.size, distance: maxDistance };
  }

  // Where a place's label goes by default, and what the place covers: a polygon's centroid, a
  // circle's centre; its area; its bounding box in SVG coordinates (y down).
  function labelAnchor(place) {
    if (!place.polygon) {
      const c = place.center, r = place.radius;
      return { x: c.x, y: c.y, area: Math.PI * r * r, box: { x: c.x - r, y: -c.y - r, width: 2 * r, height: 2 * r } };
    }
    const vs = place.polygon;
    const extent = planExtent([], [place]);
    const box = { x: extent.minX, y: -extent.maxY, width: extent.maxX - extent.minX, height: extent.maxY - extent.minY };
    let area = 0, sx = 0, sy = 0;
    for (let i = 0; i < vs.length; i += 1) {
      const a = vs[i], b = vs[(i + 1) % vs.length];
      const cross = a.x * b.y - b.x * a.y;
      area += cross; sx += (a.x + b.x) * cross; sy += (a.y + b.y) * cross;
    }
    if (Math.abs(area) < 1e-12) {   // degenerate: the mean of the vertices
      return { x: vs.reduce(function (s, v) { return s + v.x; }, 0) / vs.length,
               y: vs.reduce(function (s, v) { return s + v.y; }, 0) / vs.length, area: 0, box: box };
    }
    return { x: sx / (3 * area), y: sy / (3 * area), area: Math.abs(area) / 2, box: box };
  }

  // Writes the places' names without overprinting, greedily: smallest place first (a room
  // needs its spot near it more than the hall around it, which has room elsewhere), each label
  // at the first spot where it stays inside `bounds` and overlaps neither an earlier label nor
  // `obstacles` (boxes in SVG coordinates). The spots tried: on its anchor; above, below, right,
  // left and diagonally off it; just inside the top and the bottom of the place. Spots that cover
  // neither `avoid` (the newest position) nor a smaller place are preferred, then those clear of
  // the newest position (so that a hall's name is not written over it, nor, where there is room,
  // inside a room of the hall); at full size, then smaller. Labels keep `pad` apart on each side
  // (their halo and a gap: a name that touches another reads as one). A label that fits nowhere
  // is left out: its place keeps its name as a tooltip.
  function placeLabels(places, layer, bounds, obstacles, avoid, unit, pad) {
    const taken = obstacles.slice();
    const items = places.map(function (place) { return { place: place, anchor: labelAnchor(place) }; });
    items.sort(function (a, b) { return a.anchor.area - b.anchor.area; });
    function free(box) {
      if (box.x < bounds.x || box.y < bounds.y || box.x + box.width > bounds.x + bounds.width ||
          box.y + box.height > bounds.y + bounds.height) return false;
      return !taken.some(function (other) { return overlaps(box, other); });
    }
    items.forEach(function (item, index) {
      const ax = item.anchor.x, ay = -item.anchor.y, shape = item.anchor.box;
      const smaller = items.slice(0, index).map(function (other) { return other.anchor.box; });
      const text = svg("text", { class: "place-label", x: ax, y: ay, "text-anchor": "middle", "dominant-baseline": "central" }, layer);
      text.textContent = item.place.id;
      let spot = null;
      for (const scale of [1, 0.8, 0.64]) {
        const size = 2.6 * unit * scale;
        text.setAttribute("font-size", String(size));
        text.setAttribute("x", String(ax));
        text.setAttribute("y", String(ay));
        const measured = boxOf(text);
        if (!measured) { spot = { x: ax, y: ay, box: null }; break; }   // not displayed: nothing to avoid
        // The label's box, padded, relative to the point it is drawn at.
        const box = { x: measured.x - ax - pad, y: measured.y - ay - pad, width: measured.width + 2 * pad, height: measured.height + 2 * pad };
        const w = box.width, h = box.height;
        const spots = [[ax, ay], [ax, ay - h], [ax, ay + h], [ax + w * 0.6, ay], [ax - w * 0.6, ay],
                       [ax + w * 0.6, ay - h], [ax - w * 0.6, ay - h], [ax + w * 0.6, ay + h], [ax - w * 0.6, ay + h],
                       [ax, shape.y + h / 2 + pad], [ax, shape.y + shape.height - h / 2 - pad]]
          .map(function (s) { return { x: s[0], y: s[1], box: { x: s[0] + box.x, y: s[1] + box.y, width: w, height: h } }; })
          .filter(function (s) { return free(s.box); });
        function clear(s, boxes) { return !boxes.some(function (other) { return overlaps(s.box, other); }); }
        spot = spots.find(function (s) { return clear(s, smaller) && clear(s, avoid); }) ||
          spots.find(function (s) { return clear(s, avoid); }) ||
          spots.find(function (s) { return clear(s, smaller); }) || spots[0] || null;
        if (spot) break;
      }
      if (!spot) { layer.removeChild(text); return; }
      text.setAttribute("x", String(spot.x));
      text.setAttribute("y", String(spot.y));
      if (spot.box) taken.push(spot.box);
    });
  }

  // The tooltip text of a position: its time, accuracy and coordinates (and when retention
  // removes it, when that is soon).
  function pointText(p) {
    const removal = p.expiry === "overdue" ? "; past its retention: the next purge removes it"
      : p.expiry === "soon" ? "; removed by retention on " + formatTime(p.removal).slice(0, 16) : "";
    if (p.local) {
      const units = plan ? plan.units : "";
      return formatTime(p.time) + (p.accuracy ? " (±" + p.accuracy.toFixed(1) + " " + units + ")" : "") +
        " — x " + p.x.toFixed(2) + ", y " + p.y.toFixed(2) + removal;
    }
    return formatTime(p.time) + (p.accuracy ? " (±" + p.accuracy + " m)" : "") +
      " — " + p.latitude.toFixed(6) + ", " + p.longitude.toFixed(6) + removal;
  }

  // The circle of a point, with its time (and accuracy and coordinates) as its title; a hollow
  // ring when retention removes it within 7 days (`expiring`; `overdue` when already past).
  function pointCircle(p, q, isNewest) {
    const classes = ["point"];
    if (isNewest) classes.push("newest");
    if (p.expiry) classes.push("expiring");
    if (p.expiry === "overdue") classes.push("overdue");
    const circle = svg("circle", {
      class: classes.join(" "), cx: q.x, cy: -q.y, r: (isNewest ? 1.4 : 0.8) * view.unit,
      "data-time": p.time, "data-id": p.id,
    }, view.layer);
    return titled(circle, pointText(p));
  }

  // Draws a point as the newest of the track, demoting the previous newest (a dot, or an arrow
  // at the edge).
  function drawPoint(p, q) {
    if (view.newest) {
      view.newest.classList.remove("newest");
      if (view.newest.tagName === "circle") view.newest.setAttribute("r", String(0.8 * view.unit));
    }
    const circle = pointCircle(p, q, true);
    view.newest = circle;
    view.newestTime = p.time;
    view.accuracy.setAttribute("cx", String(q.x));
    view.accuracy.setAttribute("cy", String(-q.y));
    // A local point's accuracy is in venue units already; a geographic one's in metres.
    view.accuracy.setAttribute("r", String(p.accuracy ? (p.local ? p.accuracy : p.accuracy / view.metresPerUnit) : 0));
    view.accuracy.setAttribute("visibility", p.accuracy ? "visible" : "hidden");
  }

  function updateCounts() {
    const count = view.count;
    el.map.setAttribute("data-points", String(count));
    el.map.setAttribute("data-outside", String(view.outside));
    el.map.setAttribute("data-expiring", String(view.expiring));
    state.points = count;
    state.outside = view.outside;
    state.expiring = view.expiring;
    state.overdue = view.overdue;
    state.mode = plan ? "venue" : "plain";
    const day = selection && selection.mode === "day" ? selection.day : null;
    el.caption.textContent = count === 0
      ? (day ? "No positions on " + formatDay(day) : "No positions in this range") + (plan ? " on " + plan.name + "." : ".")
      : count + (count === 1 ? " position" : " positions") + " from " + formatTime(view.first) +
        " to " + formatTime(view.newestTime) + (plan ? " on " + plan.name : "") + "; the newest is highlighted.";
    updateRetentionNote();
  }

  // Adds a new newest point to the drawing without redrawing it, when the point falls inside the
  // current view; returns whether it could.
  function appendPoint(p) {
    if (!view || (plan && p.floor !== null && p.floor !== plan.floor)) return false;
    if (p.local ? plan === null : (plan !== null && plan.frame === null)) return false;
    const q = view.project(p);
    if (!(q.x >= view.x0 && q.x <= view.x1 && q.y >= view.y0 && q.y <= view.y1)) return false;
    const points = view.line.getAttribute("points");
    view.line.setAttribute("points", (points ? points + " " : "") + q.x + "," + (-q.y));
    if (view.first === null) view.first = p.time;
    const expiry = markExpiry(p, Date.now() / 1000);
    if (expiry) view.expiring += 1;
    if (expiry === "overdue") view.overdue += 1;
    drawPoint(p, q);
    view.count += 1;
    updateCounts();
    return true;
  }

  // ---------------------------------------------------------------------------------------------
  // Live updates.

  function closeSocket() {
    connectGeneration += 1;
    if (reconnectTimer) { clearTimeout(reconnectTimer); reconnectTimer = null; }
    if (socket) {
      socket.onclose = null; socket.onmessage = null; socket.onerror = null;
      socket.close();
      socket = null;
    }
    state.connected = false;
  }

  function connect() {
    closeSocket();
    if (!token || range.to !== null) {
      const past = selection && selection.mode === "day" ? "Showing " + formatDay(selection.day) : "Showing a past range";
      setStatus(range.to !== null ? past + " (no live updates)" : "Not connected", "idle");
      return;
    }
    const attempt = connectGeneration;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(scheme + "//" + location.host + "/live?auth=" + encodeURIComponent(token));
    socket = ws;
    let ready = false;
    setStatus("Connecting to live updates…", "busy");
    ws.onmessage = function (message) {
      let data;
      try { data = JSON.parse(message.data); } catch (error) { return; }
      if (data.ready) {
        ready = true;
        reconnectDelay = 1;
        state.connected = true;
        setStatus("Live: new positions appear as they arrive", "live");
      } else if (data.event) {
        applyLiveEvent(data.event);
      }
    };
    ws.onclose = async function () {
      if (socket !== ws) return;
      socket = null;
      state.connected = false;
      if (!ready) {
        // Browsers do not say why a WebSocket was refused: ask /live over plain HTTP, which
        // answers 401 or 403 with the reason when the token is the problem.
        const refusal = await liveRefusal();
        if (attempt !== connectGeneration) return;   // the user started over meanwhile
        if (refusal) {
          showError("Live updates refused: " + refusal);
          setStatus("Live updates refused", "error");
          return;
        }
      }
      const delay = reconnectDelay;
      reconnectDelay = Math.min(30, reconnectDelay * 2);
      setStatus((ready ? "Live updates interrupted" : "Live updates unavailable") + "; retrying in " + delay + " s", "error");
      reconnectTimer = setTimeout(function () { reconnectTimer = null; connect(); }, delay * 1000);
    };
  }

  // Why /live refuses the token (401, 403), or null when it does not (or cannot be asked).
  async function liveRefusal() {
    try {
      const response = await fetch("/live", { headers: { Authorization: token }, cache: "no-store" });
      if (response.status === 401 || response.status === 403) return await errorMessage(response);
    } catch (ignored) { /* the server is unreachable: retry */ }
    return null;
  }

  // ---------------------------------------------------------------------------------------------
  // Day by day, and the address.
  //
  // The page shows a day (local midnight to midnight; today's goes on live) or a range. The
  // address's fragment keeps it, `#day=2026-12-01` or `#from=2026-12-01T07:00:00Z&to=…` (UTC;
  // without `to`: up to now, live), so that a reload or a shared link shows the same history.
  // The token never goes there. The default, the last 24 hours, leaves the fragment empty.

  // The range of a selection: {from, to} in seconds, to = null for up to now (live). A day
  // ends just before the next one's midnight (a position at midnight is the next day's).
  function rangeOf(chosen) {
    if (chosen.mode !== "day") return { from: chosen.from, to: chosen.to };
    return { from: dayStart(chosen.day), to: chosen.day === today() ? null : dayEnd(chosen.day) - 0.001 };
  }

  function sameSelection(a, b) {
    return a.mode === b.mode && (a.mode === "day" ? a.day === b.day : a.from === b.from && a.to === b.to);
  }

  function isoTime(seconds) { return new Date(seconds * 1000).toISOString().replace(".000Z", "Z"); }

  // The fragment that names a selection ("" for the default).
  function fragmentOf(chosen) {
    if (chosen.isDefault) return "";
    if (chosen.mode === "day") return "#day=" + chosen.day;
    return "#from=" + isoTime(chosen.from) + (chosen.to !== null ? "&to=" + isoTime(chosen.to) : "");
  }

  // The selection the address names; null when it names none; {error} when it names a wrong one.
  function selectionFromAddress() {
    const text = location.hash.replace(/^#/, "");
    if (!text) return null;
    const params = new URLSearchParams(text);
    function time(value) {
      const t = value ? new Date(value).getTime() : NaN;
      return Number.isFinite(t) ? t / 1000 : null;
    }
    if (params.has("day")) {
      const day = params.get("day");
      return dayStart(day) !== null ? { mode: "day", day: day }
        : { error: "The address names no day (#day=YYYY-MM-DD): showing the last 24 hours." };
    }
    if (params.has("from")) {
      const from = time(params.get("from")), to = params.get("to") ? time(params.get("to")) : null;
      if (from !== null && (to !== null || !params.get("to")) && (to === null || to >= from)) {
        return { mode: "range", from: from, to: to };
      }
      return { error: "The address names no range (#from=…&to=…, e.g. 2026-12-01T08:00:00Z): showing the last 24 hours." };
    }
    return null;
  }

  // Makes `chosen` the selection shown, and its range the one loaded.
  function choose(chosen) {
    selection = chosen;
    range = rangeOf(chosen);
    state.range = { mode: chosen.mode, day: chosen.mode === "day" ? chosen.day : null, from: range.from, to: range.to };
  }

  // The default: the last 24 hours, up to now.
  function defaultSelection() {
    defaultFrom = inputValue(Math.floor(Date.now() / 1000) - 24 * 3600);
    return { mode: "range", from: parseInput(defaultFrom), to: null, isDefault: true };
  }

  // Puts the selection in the address: a new history entry (the browser's Back goes to the
  // previous day or range), or in place of the current one.
  function writeAddress(chosen, replace) {
    const target = location.pathname + location.search + fragmentOf(chosen);
    if (target === location.pathname + location.search + location.hash) return;
    if (replace) history.replaceState(null, "", target);
    else history.pushState(null, "", target);
  }

  // Shows the controls of a mode: the day's, or the range's.
  function setMode(mode) {
    const isDay = mode === "day";
    el.modeDay.checked = isDay;
    el.modeRange.checked = !isDay;
    el.dayField.hidden = !isDay;
    el.fromField.hidden = isDay;
    el.toField.hidden = isDay;
    el.day.disabled = !isDay;
    el.from.disabled = isDay;
    el.to.disabled = isDay;
  }

  // Sets the controls to a selection (a day's range fills From and To, for a switch to Range).
  function reflect(chosen) {
    setMode(chosen.mode);
    const r = rangeOf(chosen);
    const latest = today();
    el.day.max = latest;
    if (chosen.mode === "day") el.day.value = chosen.day;
    el.from.value = inputValue(Math.floor(r.from));
    el.to.value = r.to === null ? "" : inputValue(Math.floor(r.to));
    // Not disabled, which would drop the keyboard focus of whoever pressed it to get there.
    el.dayNext.setAttribute("aria-disabled", String(chosen.mode !== "day" || chosen.day >= latest));
  }

  // The day the day buttons move from: the date input's, else the one shown, else today.
  function currentDay() {
    if (dayStart(el.day.value) !== null) return el.day.value;
    return selection && selection.mode === "day" ? selection.day : today();
  }

  function showDay(day) {
    if (dayStart(day) !== null) show({ mode: "day", day: day });
  }

  function hideDayNote() {
    state.nearest = null;
    el.dayNote.hidden = true;
    el.dayEarlier.hidden = true;
    el.dayLater.hidden = true;
  }

  // The day of the position nearest to a day, from `/events` with `query` and `limit=1`, or null.
  async function nearestDay(query) {
    try {
      const response = await fetch("/events?types[]=position/wgs84&types[]=position/local&" + query + "&limit=1",
        { headers: { Authorization: token }, cache: "no-store" });
      if (!response.ok) return null;
      const body = await response.json();
      const event = (body.events || [])[0];
      return event && typeof event.time === "number" ? dayOf(event.time) : null;
    } catch (ignored) {
      return null;
    }
  }

  // On a day without positions: says so, and offers the nearest days before and after it that
  // have some.
  async function offerNearestDays(day, generation) {
    // The newest position before the day (with toTime alone the API would look at the 24 hours
    // before it only: from 1970 on), and the oldest after it (none after today).
    const previous = await nearestDay("fromTime=0&toTime=" + encodeURIComponent(dayStart(day) - 0.001));
    const next = day >= today() ? null : await nearestDay("fromTime=" + encodeURIComponent(dayEnd(day)) + "&sortAscending=true");
    if (generation !== showGeneration || track.length > 0) return;
    state.nearest = { previous: previous, next: next };
    el.dayNoteText.textContent = "No positions on " + formatDay(day) +
      (previous || next ? "." : day >= today() ? " nor before it." : " nor on any other day.");
    jumpButton(el.dayEarlier, previous, "Earlier: ", true);
    jumpButton(el.dayLater, next, "Later: ", false);
    el.dayNote.hidden = false;
  }

  function jumpButton(button, day, label, before) {
    button.textContent = "";
    button.hidden = !day;
    if (!day) return;
    button.dataset.day = day;
    const arrow = document.createElement("span");
    arrow.setAttribute("aria-hidden", "true");
    arrow.textContent = before ? "◀ " : " ▶";
    const text = document.createTextNode(label + formatDay(day));
    if (before) button.append(arrow, text); else button.append(text, arrow);
  }

  // ---------------------------------------------------------------------------------------------
  // The form.

  // What the form asks for.
  function selectionOfForm() {
    if (el.modeDay.checked) return { mode: "day", day: el.day.value };
    const to = parseInput(el.to.value);
    return { mode: "range", from: parseInput(el.from.value), to: to, isDefault: el.from.value === defaultFrom && to === null };
  }

  // Shows a selection: checks it, puts it in the controls and the address, loads the retention
  // and the track (on an empty day, the nearest days with positions), then follows live updates
  // when the range goes on to now. Options: `replace`, the address in place of the current one
  // (not a new history entry); `warning`, an error to show once loaded (why this selection).
  async function show(chosen, options) {
    token = el.token.value.trim();
    if (!token) { showError("Enter an access token (from `whereabouts users token NAME`)."); closeSocket(); return; }
    if (chosen.mode === "day" && dayStart(chosen.day) === null) { showError("Choose a day."); return; }
    if (chosen.mode !== "day" && chosen.from === null) { showError("Choose the start of the range."); return; }
    if (chosen.mode !== "day" && chosen.to !== null && chosen.to < chosen.from) { showError("The end of the range is before its start."); return; }
    try { localStorage.setItem(TOKEN_KEY, token); } catch (ignored) { /* storage disabled */ }
    const generation = ++showGeneration;
    const current = function () { return generation === showGeneration; };
    choose(chosen);
    state.loading = true;
    reflect(chosen);
    writeAddress(chosen, options && options.replace);
    hideDayNote();
    floorByHand = false;
    closeSocket();
    if (!plan && venueNeedsToken) await loadVenue(token);
    if (!current()) return;
    await loadRetention();
    if (!current()) return;
    if (!(await loadTrack())) { if (current()) state.loading = false; return; }
    if (!current()) return;
    // The default range (the last 24 hours) is empty but older positions exist, e.g. a replayed
    // recording: start 24 hours before the newest one rather than show an empty map (still up to
    // now, so that live updates go on).
    if (track.length === 0 && chosen.isDefault) {
      const newest = await newestPositionEnd();
      if (!current()) return;
      if (newest !== null && newest < range.from) {
        el.from.value = inputValue(Math.floor(newest) - 24 * 3600);
        choose({ mode: "range", from: parseInput(el.from.value), to: null, isDefault: true });
        if (!(await loadTrack())) { if (current()) state.loading = false; return; }
        if (!current()) return;
        el.note.textContent = "No positions in the last 24 hours: showing from the day before the newest one.";
      }
    }
    if (chosen.mode === "day" && track.length === 0) await offerNearestDays(chosen.day, generation);
    if (!current()) return;
    connect();
    if (options && options.warning) showError(options.warning);
    state.loading = false;
  }

  function start() {
    el.form = document.getElementById("controls");
    el.token = document.getElementById("token");
    el.modeDay = document.getElementById("mode-day");
    el.modeRange = document.getElementById("mode-range");
    el.dayField = document.getElementById("day-field");
    el.day = document.getElementById("day");
    el.dayPrevious = document.getElementById("day-previous");
    el.dayNext = document.getElementById("day-next");
    el.fromField = document.getElementById("from-field");
    el.toField = document.getElementById("to-field");
    el.from = document.getElementById("from");
    el.to = document.getElementById("to");
    el.floor = document.getElementById("floor");
    el.floorField = document.getElementById("floor-field");
    el.floorNote = document.getElementById("floor-note");
    el.floorNoteText = document.getElementById("floor-note-text");
    el.floorFollow = document.getElementById("floor-follow");
    el.dayNote = document.getElementById("day-note");
    el.dayNoteText = document.getElementById("day-note-text");
    el.dayEarlier = document.getElementById("day-earlier");
    el.dayLater = document.getElementById("day-later");
    el.retentionNote = document.getElementById("retention-note");
    el.legendExpiring = document.getElementById("legend-expiring");
    el.error = document.getElementById("error");
    el.status = document.getElementById("status");
    el.map = document.getElementById("map");
    el.caption = document.getElementById("map-caption");
    el.outsideNote = document.getElementById("outside-note");
    el.note = document.getElementById("note");

    const params = new URLSearchParams(location.search);
    let initial = params.get("auth") || "";
    if (initial) {
      // Keep the token out of the address bar and history once it is stored.
      params.delete("auth");
      const query = params.toString();
      history.replaceState(null, "", location.pathname + (query ? "?" + query : "") + location.hash);
    } else {
      try { initial = localStorage.getItem(TOKEN_KEY) || ""; } catch (ignored) { initial = ""; }
    }
    el.token.value = initial;
    // The day or range the address names, else the last 24 hours.
    const named = selectionFromAddress();
    const warning = named && named.error ? named.error : null;
    if (warning) showError(warning);
    choose(named && !warning ? named : defaultSelection());
    reflect(selection);

    el.form.addEventListener("submit", function (e) { e.preventDefault(); show(selectionOfForm()); });
    el.modeDay.addEventListener("change", function () {
      if (!el.modeDay.checked) return;
      // The day the range shown starts on; today when it goes on live.
      const day = range.to === null ? today() : dayOf(range.from);
      if (el.token.value.trim()) show({ mode: "day", day: day });
      else reflect({ mode: "day", day: day });
    });
    // The range of the day shown, in From and To, to change at will and show.
    el.modeRange.addEventListener("change", function () { if (el.modeRange.checked) setMode("range"); });
    el.day.addEventListener("change", function () { showDay(el.day.value); });
    el.dayPrevious.addEventListener("click", function () { showDay(shiftDay(currentDay(), -1)); });
    el.dayNext.addEventListener("click", function () {
      if (el.dayNext.getAttribute("aria-disabled") !== "true") showDay(shiftDay(currentDay(), 1));
    });
    for (const button of [el.dayEarlier, el.dayLater]) {
      button.addEventListener("click", function () {
        showDay(button.dataset.day);
        el.day.focus();   // the button goes once the day has positions
      });
    }
    // Back, Forward, or a fragment typed in the address bar.
    window.addEventListener("hashchange", function () {
      const named = selectionFromAddress();
      const wrong = named && named.error ? named.error : null;
      const chosen = named && !wrong ? named : defaultSelection();
      if (!wrong && selection && sameSelection(chosen, selection)) return;
      if (el.token.value.trim()) { show(chosen, { replace: true, warning: wrong }); return; }
      choose(chosen);
      reflect(chosen);
      if (wrong) showError(wrong);
    });
    let resizeTimer = null;
    window.addEventListener("resize", function () {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(render, 150);
    });
    el.floor.addEventListener("change", function () {
      if (!plan) return;
      plan.floor = Number(el.floor.value);
      // Picking the latest position's floor is following it again.
      floorByHand = plan.floor !== latestFloor();
      followFloor();
      render();
    });
    el.floorFollow.addEventListener("click", function () {
      floorByHand = false;
      followFloor();
      render();
    });
    render();
    state.loading = initial !== "";
    loadVenue(initial).finally(function () {
      if (initial) show(selection, { replace: true, warning: warning });
      else setStatus("Enter a token to show a track", "idle");
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
