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
    mode: "plain",
    error: null,
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
    };
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
    if (point && inRange(point.time)) {
      let at = track.length;
      while (at > 0 && track[at - 1].time > point.time) at -= 1;
      track.splice(at, 0, point);
      // The common case, a new latest position inside the view, is drawn without a redraw.
      if (index < 0 && at === track.length - 1 && appendPoint(point)) return;
    }
    if (index >= 0 || point) render();
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
    render();
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

  function render() {
    const map = el.map;
    while (map.firstChild) map.removeChild(map.firstChild);
    const floor = plan ? plan.floor : null;
    // Venue coordinates need the plan; latitude/longitude need a frame, or the plain canvas.
    const shown = track.filter(function (p) {
      const drawable = p.local ? plan !== null : (plan === null || plan.frame !== null);
      return drawable && (floor === null || p.floor === null || p.floor === floor);
    });

    // Projection: the venue's local frame (y up); or, without a venue, metres east and north of
    // the track's mean position on the mean-radius sphere (equirectangular), labelled in degrees.
    // Drawing in metres around the track, rather than in raw degrees, keeps a track of a few
    // metres clear of the browser's single-precision SVG rounding.
    let project, toAxes;
    if (plan) {
      project = function (p) {
        if (p.local) return { x: p.x, y: p.y };
        const q = plan.frame.planarPoint(p.latitude, p.longitude);
        return { x: q.x, y: q.y };
      };
      toAxes = null;
    } else {
      const count = Math.max(1, shown.length);
      const latitude0 = shown.reduce(function (s, p) { return s + p.latitude; }, 0) / count;
      const longitude0 = shown.reduce(function (s, p) { return s + p.longitude; }, 0) / count;
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

    // Bounds of everything drawn.
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    function extend(x, y) { minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y); }
    xy.forEach(function (q) { extend(q.x, q.y); });
    const beacons = plan ? plan.beacons.filter(function (b) { return b.floor === null || b.floor === floor; }) : [];
    const places = plan ? plan.places.filter(function (p) { return p.floor === floor; }) : [];
    if (plan) {
      beacons.forEach(function (b) { extend(b.x, b.y); });
      places.forEach(function (p) {
        if (p.polygon) p.polygon.forEach(function (v) { extend(v.x, v.y); });
        else { extend(p.center.x - p.radius, p.center.y - p.radius); extend(p.center.x + p.radius, p.center.y + p.radius); }
      });
    }
    if (!Number.isFinite(minX)) { minX = -1; maxX = 1; minY = -1; maxY = 1; }
    let span = Math.max(maxX - minX, maxY - minY);
    if (!(span > 0)) span = 10;
    const margin = span * 0.08;
    const cx = (minX + maxX) / 2, cy = (minY + maxY) / 2, half = span / 2 + margin;
    // SVG y grows downwards: y on the map is -y.
    // Fill the element: stretch the view along its longer side.
    const aspect = (map.clientWidth || 1) / (map.clientHeight || 1);
    const halfX = half * Math.max(1, aspect), halfY = half * Math.max(1, 1 / aspect);
    map.setAttribute("viewBox", [cx - halfX, -cy - halfY, 2 * halfX, 2 * halfY].join(" "));
    const unit = 2 * half / 100;   // one hundredth of the view, for sizes

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

    // The venue.
    if (plan) {
      const layer = svg("g", { class: "plan" }, map);
      for (const place of places) {
        const node = place.polygon
          ? svg("polygon", { class: "place", points: place.polygon.map(function (v) { return v.x + "," + (-v.y); }).join(" ") }, layer)
          : svg("circle", { class: "place", cx: place.center.x, cy: -place.center.y, r: place.radius }, layer);
        titled(node, "Place " + place.id);
        let lx, ly;
        if (place.polygon) {
          lx = place.polygon.reduce(function (s, v) { return s + v.x; }, 0) / place.polygon.length;
          ly = place.polygon.reduce(function (s, v) { return s + v.y; }, 0) / place.polygon.length;
        } else { lx = place.center.x; ly = place.center.y; }
        const text = svg("text", { class: "place-label", x: lx, y: -ly, "font-size": 2.6 * unit, "text-anchor": "middle" }, layer);
        text.textContent = place.id;
      }
      for (const beacon of beacons) {
        const size = 1.6 * unit;
        titled(svg("rect", { class: "beacon", x: beacon.x - size / 2, y: -beacon.y - size / 2, width: size, height: size }, layer),
          "Beacon " + beacon.id);
      }
    }

    // The track.
    const layer = svg("g", { class: "track" }, map);
    const line = svg("polyline", { class: "track-line", points: xy.map(function (q) { return q.x + "," + (-q.y); }).join(" ") }, layer);
    const accuracy = svg("circle", { class: "accuracy", cx: 0, cy: 0, r: 0, visibility: "hidden" }, layer);
    view = {
      project: project, metresPerUnit: metresPerUnit, unit: unit, layer: layer, line: line, accuracy: accuracy,
      x0: cx - halfX, x1: cx + halfX, y0: cy - halfY, y1: cy + halfY, newest: null, count: 0,
      first: shown.length ? shown[0].time : null,
    };
    shown.forEach(function (p, i) {
      if (i < shown.length - 1) { pointCircle(p, xy[i], false); view.count += 1; } else drawPoint(p, xy[i]);
    });
    updateCounts();
  }

  // The circle of a point, with its time (and accuracy and coordinates) as its title.
  function pointCircle(p, q, isNewest) {
    const circle = svg("circle", {
      class: isNewest ? "point newest" : "point", cx: q.x, cy: -q.y, r: (isNewest ? 1.4 : 0.8) * view.unit,
      "data-time": p.time, "data-id": p.id,
    }, view.layer);
    if (p.local) {
      const units = plan ? plan.units : "";
      return titled(circle, formatTime(p.time) + (p.accuracy ? " (±" + p.accuracy.toFixed(1) + " " + units + ")" : "") +
        " — x " + p.x.toFixed(2) + ", y " + p.y.toFixed(2));
    }
    return titled(circle, formatTime(p.time) + (p.accuracy ? " (±" + p.accuracy + " m)" : "") +
      " — " + p.latitude.toFixed(6) + ", " + p.longitude.toFixed(6));
  }

  // Draws a point as the newest of the track, demoting the previous newest.
  function drawPoint(p, q) {
    if (view.newest) {
      view.newest.setAttribute("class", "point");
      view.newest.setAttribute("r", String(0.8 * view.unit));
    }
    const circle = pointCircle(p, q, true);
    view.newest = circle;
    view.newestTime = p.time;
    view.accuracy.setAttribute("cx", String(q.x));
    view.accuracy.setAttribute("cy", String(-q.y));
    // A local point's accuracy is in venue units already; a geographic one's in metres.
    view.accuracy.setAttribute("r", String(p.accuracy ? (p.local ? p.accuracy : p.accuracy / view.metresPerUnit) : 0));
    view.accuracy.setAttribute("visibility", p.accuracy ? "visible" : "hidden");
    view.count += 1;
  }

  function updateCounts() {
    const count = view.count;
    el.map.setAttribute("data-points", String(count));
    state.points = count;
    state.mode = plan ? "venue" : "plain";
    el.caption.textContent = count === 0
      ? "No positions in this range" + (plan ? " on " + plan.name + "." : ".")
      : count + (count === 1 ? " position" : " positions") + " from " + formatTime(view.first) +
        " to " + formatTime(view.newestTime) + (plan ? " on " + plan.name : "") + "; the newest is highlighted.";
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
    drawPoint(p, q);
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
      setStatus(range.to !== null ? "Showing a past range (no live updates)" : "Not connected", "idle");
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
  // The form.

  async function show() {
    token = el.token.value.trim();
    const from = parseInput(el.from.value);
    const to = parseInput(el.to.value);
    if (!token) { showError("Enter an access token (from `whereabouts users token NAME`)."); closeSocket(); return; }
    if (from === null) { showError("Choose the start of the range."); return; }
    if (to !== null && to < from) { showError("The end of the range is before its start."); return; }
    try { localStorage.setItem(TOKEN_KEY, token); } catch (ignored) { /* storage disabled */ }
    range = { from: from, to: to };
    closeSocket();
    if (!plan && venueNeedsToken) await loadVenue(token);
    if (!(await loadTrack())) return;
    // The default range (the last 24 hours) is empty but older positions exist, e.g. a replayed
    // recording: start 24 hours before the newest one rather than show an empty map (still up to
    // now, so that live updates go on).
    if (track.length === 0 && to === null && el.from.value === defaultFrom) {
      const newest = await newestPositionEnd();
      if (newest !== null && newest < from) {
        el.from.value = inputValue(Math.floor(newest) - 24 * 3600);
        range = { from: parseInput(el.from.value), to: null };
        if (!(await loadTrack())) return;
        el.note.textContent = "No positions in the last 24 hours: showing from the day before the newest one.";
      }
    }
    connect();
  }

  function start() {
    el.form = document.getElementById("controls");
    el.token = document.getElementById("token");
    el.from = document.getElementById("from");
    el.to = document.getElementById("to");
    el.floor = document.getElementById("floor");
    el.floorField = document.getElementById("floor-field");
    el.error = document.getElementById("error");
    el.status = document.getElementById("status");
    el.map = document.getElementById("map");
    el.caption = document.getElementById("map-caption");
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
    el.from.value = inputValue(Math.floor(Date.now() / 1000) - 24 * 3600);
    defaultFrom = el.from.value;
    el.to.value = "";

    el.form.addEventListener("submit", function (e) { e.preventDefault(); show(); });
    let resizeTimer = null;
    window.addEventListener("resize", function () {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(render, 150);
    });
    el.floor.addEventListener("change", function () {
      if (plan) { plan.floor = Number(el.floor.value); render(); }
    });
    render();
    loadVenue(initial).finally(function () {
      if (initial) show();
      else setStatus("Enter a token to show a track", "idle");
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
