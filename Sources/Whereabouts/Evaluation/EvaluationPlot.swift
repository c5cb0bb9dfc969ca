/// A self-contained SVG picture of an evaluation (`whereabouts eval --plot report.svg`):
///
/// - left, the cumulative distribution of the horizontal error for each algorithm — x the error
///   in venue units, y the share (0–1) of the scans with a true position whose error is at most
///   x — one coloured line each, with a legend. Scans not located never count as within any
///   error, so a line that does not reach 1 shows how many were missed, and says so ("located
///   95 %") at its end and in the legend. A curve that lies on an earlier one (within a pixel)
///   is drawn dashed over it, so that both colours show, and its legend entry names the other;
/// - right, a map of truth against one algorithm's estimates, north up, equal x and y scale, with
///   axes in venue units and a legend: the venue's places outlined and named (with their floor
///   when the venue has several, which are drawn together), beacons as small grey squares,
///   estimates as pale dots in the algorithm's colour with a thin grey line to their truth, and
///   over them the truth: a near-black path through the true positions in order, with a dot at
///   each (hollow when not located); a scale bar. The places' names are drawn last, with a white
///   halo, and placed apart: a name that would cover another moves above, below or beside its
///   place, with a leader line when it has to go farther.
///
/// Elements carry classes (`cdf`, `place`, `place-label`, `leader`, `beacon`, `truth`,
/// `truth-path`, `estimate`, `error-line`) so the document can be styled or checked.
///
/// ```swift
/// let plot = EvaluationPlot(run: run, venue: venue, dataset: "uji-lib")
/// try plot.svg.write(to: URL(fileURLWithPath: "report.svg"), atomically: true, encoding: .utf8)
/// ```
public struct EvaluationPlot: Sendable {
    /// One algorithm's errors, for its CDF line.
    public struct Curve: Sendable {
        /// The algorithm's name (the legend's label).
        public var name: String
        /// Errors of the located scans with a true position, any order.
        public var errors: [Double]
        /// Scans with a true position, located or not: the CDF's denominator.
        public var total: Int

        /// Creates a curve; `total` is raised to `errors.count` if smaller.
        public init(name: String, errors: [Double], total: Int) {
            self.name = name
            self.errors = errors.filter(\.isFinite)
            self.total = max(total, self.errors.count)
        }
    }

    /// A title naming the data set.
    public var title: String
    /// The unit of errors and coordinates (`m`, `ft`, `cell`).
    public var units: String
    /// The CDF lines, one per algorithm, in legend order.
    public var curves: [Curve]
    /// The venue drawn under the map.
    public var venue: Venue
    /// The algorithm whose estimates the map shows.
    public var mapAlgorithm: String
    /// The truth/estimate pairs of the map.
    public var samples: [EvaluationSample]

    /// Creates a plot from its parts.
    public init(title: String, units: String, curves: [Curve], venue: Venue, mapAlgorithm: String, samples: [EvaluationSample]) {
        self.title = title
        self.units = units
        self.curves = curves
        self.venue = venue
        self.mapAlgorithm = mapAlgorithm
        self.samples = samples
    }

    /// The plot of an evaluation run: every algorithm's CDF, and the first algorithm's map. The
    /// title is the venue's name, with `dataset` (the folder's name, say) beside it.
    public init(run: EvaluationRun, venue: Venue, dataset: String) {
        let title = venue.name.map { $0 == dataset || dataset.isEmpty ? $0 : "\($0) (\(dataset))" } ?? dataset
        self.init(title: title, units: venue.units.rawValue,
                  curves: run.entries.map { Curve(name: $0.algorithm, errors: $0.evaluation.errors, total: run.scansWithPosition) },
                  venue: venue, mapAlgorithm: run.entries.first?.algorithm ?? "", samples: run.samples)
    }

    /// Line colours, in curve order (repeating after ten).
    public static let palette = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                 "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"]

    private static func colour(_ index: Int) -> String { palette[index % palette.count] }

    /// The truth's colour on the map: near-black, so that the true path reads over the estimates.
    static let truthColour = "#111111"
    /// The estimates' opacity on the map: pale, under the truth.
    static let estimateOpacity = "0.45"
    /// The beacons' colour on the map: a mid grey, apart from the truth's near-black.
    static let beaconColour = "#808080"

    // Layout, in SVG pixels.
    private static let width = 1000.0, height = 500.0
    private static let cdfBox = (left: 70.0, top: 60.0, right: 460.0, bottom: 450.0)
    private static let mapBox = (left: 520.0, top: 60.0, right: 980.0, bottom: 450.0)

    /// The SVG document.
    public var svg: String {
        var document = SVGDocument(width: Self.width, height: Self.height)
        document.element("rect", [("x", "0"), ("y", "0"), ("width", "100%"), ("height", "100%"), ("fill", "white")])
        document.element("text", [("x", "20"), ("y", "28"), ("font-size", "18"), ("font-weight", "bold")],
                         text: "\(title) — positioning error")
        drawCDF(into: &document)
        drawMap(into: &document)
        return document.text
    }

    // MARK: CDF

    private func drawCDF(into document: inout SVGDocument) {
        let box = Self.cdfBox
        let sortedCurves = curves.map { $0.errors.sorted() }
        var top = 0.0
        for sorted in sortedCurves where !sorted.isEmpty {
            top = max(top, Quantile.ofSorted(sorted, 0.99))
        }
        if !(top > 0) { top = 1 }
        let step = NiceTicks.step(span: top, count: 5)
        let xMax = NiceTicks.ceiling(top, step: step)
        func px(_ x: Double) -> Double { box.left + (box.right - box.left) * min(max(x / xMax, 0), 1) }
        func py(_ share: Double) -> Double { box.bottom - (box.bottom - box.top) * min(max(share, 0), 1) }

        document.element("text", [("x", SVGDocument.number(box.left)), ("y", SVGDocument.number(box.top - 12)), ("font-size", "13")],
                         text: "Error CDF (\(units))")
        // Grid and ticks.
        document.open("g", [("class", "axes"), ("font-size", "11"), ("fill", "#333")])
        var tick = 0.0
        while tick <= xMax + step * 1e-6 {
            let x = px(tick)
            document.element("line", [("x1", SVGDocument.number(x)), ("y1", SVGDocument.number(box.top)),
                                      ("x2", SVGDocument.number(x)), ("y2", SVGDocument.number(box.bottom)),
                                      ("stroke", "#e5e5e5")])
            document.element("line", [("x1", SVGDocument.number(x)), ("y1", SVGDocument.number(box.bottom)),
                                      ("x2", SVGDocument.number(x)), ("y2", SVGDocument.number(box.bottom + 5)), ("stroke", "#333")])
            document.element("text", [("x", SVGDocument.number(x)), ("y", SVGDocument.number(box.bottom + 18)), ("text-anchor", "middle")],
                             text: NiceTicks.label(tick, step: step))
            tick += step
        }
        for k in 0...5 {
            let share = Double(k) / 5
            let y = py(share)
            document.element("line", [("x1", SVGDocument.number(box.left)), ("y1", SVGDocument.number(y)),
                                      ("x2", SVGDocument.number(box.right)), ("y2", SVGDocument.number(y)), ("stroke", "#e5e5e5")])
            document.element("line", [("x1", SVGDocument.number(box.left - 5)), ("y1", SVGDocument.number(y)),
                                      ("x2", SVGDocument.number(box.left)), ("y2", SVGDocument.number(y)), ("stroke", "#333")])
            document.element("text", [("x", SVGDocument.number(box.left - 8)), ("y", SVGDocument.number(y + 4)), ("text-anchor", "end")],
                             text: NiceTicks.label(share, step: 0.2))
        }
        document.element("rect", [("x", SVGDocument.number(box.left)), ("y", SVGDocument.number(box.top)),
                                  ("width", SVGDocument.number(box.right - box.left)), ("height", SVGDocument.number(box.bottom - box.top)),
                                  ("fill", "none"), ("stroke", "#333")])
        document.element("text", [("x", SVGDocument.number((box.left + box.right) / 2)), ("y", SVGDocument.number(box.bottom + 38)),
                                  ("text-anchor", "middle"), ("font-size", "12")], text: "horizontal error (\(units))")
        let middle = (box.top + box.bottom) / 2
        document.element("text", [("x", SVGDocument.number(box.left - 42)), ("y", SVGDocument.number(middle)), ("text-anchor", "middle"),
                                  ("font-size", "12"), ("transform", "rotate(-90 \(SVGDocument.number(box.left - 42)) \(SVGDocument.number(middle)))")],
                         text: "share of scans with a true position")
        document.close("g")

        // A curve that lies on an earlier one (within a pixel over the whole axis) is drawn dashed
        // over it, so that both are seen.
        let columns = Int(box.right - box.left)
        func share(_ index: Int, at error: Double) -> Double {
            let sorted = sortedCurves[index]
            var low = 0, high = sorted.count
            while low < high {
                let middle = (low + high) / 2
                if sorted[middle] <= error { low = middle + 1 } else { high = middle }
            }
            return Double(low) / Double(max(curves[index].total, 1))
        }
        func coincide(_ a: Int, _ b: Int) -> Bool {
            guard sortedCurves[a].isEmpty == sortedCurves[b].isEmpty else { return false }
            let pixel = 1 / (box.bottom - box.top)
            return (0...columns).allSatisfy { column in
                let error = xMax * Double(column) / Double(columns)
                return abs(share(a, at: error) - share(b, at: error)) < pixel
            }
        }
        var sameAs: [Int?] = Array(repeating: nil, count: curves.count)
        var dashes: [Int] = Array(repeating: 0, count: curves.count)
        for index in curves.indices {
            guard let earlier = curves.indices.first(where: { $0 < index && sameAs[$0] == nil && coincide($0, index) }) else { continue }
            sameAs[index] = earlier
            dashes[earlier] += 1
            dashes[index] = dashes[earlier]
        }

        // One line per algorithm.
        var labelled: [Double] = []
        for (index, sorted) in sortedCurves.enumerated() {
            let total = curves[index].total
            var points: [(x: Double, y: Double)] = [(px(0), py(0))]
            if total > 0, !sorted.isEmpty {
                let limit = 600
                let picks = sorted.count <= limit ? Array(sorted.indices)
                    : (0..<limit).map { Int((Double($0) * Double(sorted.count - 1) / Double(limit - 1)).rounded()) }
                var within = 0
                for i in picks {
                    guard sorted[i] <= xMax else { break }
                    within = i + 1
                    points.append((px(sorted[i]), py(Double(i + 1) / Double(total))))
                }
                // Count ties and skipped ranks up to the right edge.
                while within < sorted.count, sorted[within] <= xMax { within += 1 }
                points.append((px(xMax), py(Double(within) / Double(total))))
            } else {
                points.append((px(xMax), py(0)))
            }
            var attributes = [("class", "cdf"), ("d", SVGDocument.pathData(points)), ("fill", "none"),
                              ("stroke", Self.colour(index)), ("stroke-width", "2"), ("stroke-linejoin", "round")]
            if sameAs[index] != nil {
                // The k-th copy shows in the k-th of every k+1 dashes of 6 px.
                let k = dashes[index]
                attributes += [("stroke-dasharray", "6 \(6 * k)"), ("stroke-dashoffset", "\(-6 * (k - 1))")]
            }
            document.element("path", attributes)
            // A curve that stops short of 1 because scans were not located says how many were.
            if total > 0, !sorted.isEmpty, sorted.count < total, sameAs[index] == nil, let end = points.last {
                // Above the line's end, and above any such label already there.
                var y = end.y - 5
                while labelled.contains(where: { abs($0 - y) < 11 }) { y -= 11 }
                labelled.append(y)
                document.element("text", [("class", "located"), ("x", SVGDocument.number(end.x - 4)),
                                          ("y", SVGDocument.number(y)), ("text-anchor", "end"), ("font-size", "10"),
                                          ("fill", Self.colour(index))], text: "located \(Self.percent(sorted.count, of: total))")
            }
        }

        // Legend, lower right (where a CDF leaves room).
        let rowHeight = 16.0
        let legendTop = box.bottom - 10 - rowHeight * Double(curves.count)
        let labels = curves.indices.map { index in
            let sorted = sortedCurves[index]
            if let earlier = sameAs[index] { return "\(curves[index].name) — on \(curves[earlier].name)'s line (dashed)" }
            var detail = sorted.isEmpty ? "none located"
                : "median \(NiceTicks.label(Quantile.ofSorted(sorted, 0.5), step: 0.01)) \(units)"
            if !sorted.isEmpty, sorted.count < curves[index].total {
                detail += ", located \(Self.percent(sorted.count, of: curves[index].total))"
            }
            return "\(curves[index].name) — \(detail)"
        }
        // About 6.2 px a character at 11 px: wide enough for the longest label, within the plot.
        let longest = labels.map(\.count).max() ?? 0
        let legendWidth = min(box.right - box.left - 14, max(120, 42 + 6.2 * Double(longest)))
        let legendLeft = box.right - 7 - legendWidth
        document.open("g", [("class", "legend"), ("font-size", "11")])
        document.element("rect", [("x", SVGDocument.number(legendLeft)), ("y", SVGDocument.number(legendTop - 8)),
                                  ("width", SVGDocument.number(legendWidth)), ("height", SVGDocument.number(rowHeight * Double(curves.count) + 8)),
                                  ("fill", "white"), ("fill-opacity", "0.85"), ("stroke", "#ccc")])
        for (index, label) in labels.enumerated() {
            let y = legendTop + rowHeight * Double(index) + 4
            var line = [("x1", SVGDocument.number(legendLeft + 7)), ("y1", SVGDocument.number(y)),
                        ("x2", SVGDocument.number(legendLeft + 29)), ("y2", SVGDocument.number(y)),
                        ("stroke", Self.colour(index)), ("stroke-width", "3")]
            if sameAs[index] != nil { line.append(("stroke-dasharray", "4 3")) }
            document.element("line", line)
            document.element("text", [("x", SVGDocument.number(legendLeft + 35)), ("y", SVGDocument.number(y + 4))], text: label)
        }
        document.close("g")
    }

    /// `part` of `whole` as a whole percentage, never rounded up to 100 while something is missing.
    private static func percent(_ part: Int, of whole: Int) -> String {
        let share = (Double(part) / Double(max(whole, 1)) * 100).rounded()
        return "\(Int(part < whole ? min(share, 99) : share)) %"
    }

    // MARK: Map

    private func drawMap(into document: inout SVGDocument) {
        let box = Self.mapBox
        let polygons: [(id: String, floor: Int, vertices: [PlanarPoint])] = venue.places.compactMap { place in
            if case .polygon(let vertices) = place.shape, !vertices.isEmpty { return (place.id, place.floor, vertices) }
            return nil
        }
        let circles: [(id: String, floor: Int, center: PlanarPoint, radius: Double)] = venue.places.compactMap { place in
            if case .circle(let center, let radius, _) = place.shape, center.x.isFinite, center.y.isFinite, radius.isFinite {
                return (place.id, place.floor, center, radius)
            }
            return nil
        }
        let floors = Set(venue.floors.map(\.level) + samples.compactMap(\.floor)).sorted()
        let beacons: [PlanarPoint] = venue.beacons.compactMap { beacon in
            guard let x = beacon.x, let y = beacon.y, x.isFinite, y.isFinite else { return nil }
            return PlanarPoint(x: x, y: y)
        }
        var all = beacons + polygons.flatMap(\.vertices)
        for circle in circles {
            all += [PlanarPoint(x: circle.center.x - circle.radius, y: circle.center.y - circle.radius),
                    PlanarPoint(x: circle.center.x + circle.radius, y: circle.center.y + circle.radius)]
        }
        for sample in samples {
            all.append(sample.truth)
            if let estimate = sample.estimate { all.append(estimate) }
        }
        all = all.filter { $0.x.isFinite && $0.y.isFinite }

        document.element("text", [("x", SVGDocument.number(box.left)), ("y", SVGDocument.number(box.top - 12)), ("font-size", "13")],
                         text: "Truth and estimates — \(mapAlgorithm)"
                            + (floors.count > 1 ? " (floors \(floors.map(String.init).joined(separator: ", ")) together)" : ""))
        document.element("rect", [("x", SVGDocument.number(box.left)), ("y", SVGDocument.number(box.top)),
                                  ("width", SVGDocument.number(box.right - box.left)), ("height", SVGDocument.number(box.bottom - box.top)),
                                  ("fill", "#fafafa"), ("stroke", "#333")])
        guard let first = all.first else {
            document.element("text", [("x", SVGDocument.number((box.left + box.right) / 2)), ("y", SVGDocument.number((box.top + box.bottom) / 2)),
                                      ("text-anchor", "middle"), ("font-size", "12"), ("fill", "#666")],
                             text: "nothing with a position to draw")
            return
        }
        var minX = first.x, maxX = first.x, minY = first.y, maxY = first.y
        for point in all {
            minX = min(minX, point.x); maxX = max(maxX, point.x)
            minY = min(minY, point.y); maxY = max(maxY, point.y)
        }
        let spanX = max(maxX - minX, 1e-6), spanY = max(maxY - minY, 1e-6)
        let inner = 16.0
        // 24 px above for the legend, 20 px below for the scale bar.
        let boxWidth = box.right - box.left - 2 * inner, boxHeight = box.bottom - box.top - 2 * inner - 44
        // Equal scale on both axes: the tighter of the two fits.
        let scale = min(boxWidth / spanX, boxHeight / spanY)
        let offsetX = box.left + inner + (boxWidth - spanX * scale) / 2
        let offsetY = box.top + inner + 24 + (boxHeight - spanY * scale) / 2
        func px(_ x: Double) -> String { SVGDocument.number(offsetX + (x - minX) * scale) }
        func py(_ y: Double) -> String { SVGDocument.number(offsetY + (maxY - y) * scale) }

        // Legend above the drawing: each mark as drawn, then its name.
        let legendY = box.top + 18
        let missed = samples.contains { $0.estimate == nil }
        document.open("g", [("class", "map-legend"), ("font-size", "11")])
        var legendX = box.left + 12
        func legendText(_ text: String) {
            document.element("text", [("x", SVGDocument.number(legendX)), ("y", SVGDocument.number(legendY))], text: text)
            legendX += Double(text.count) * 11 * LabelLayout.characterWidth + 14
        }
        document.element("line", [("x1", SVGDocument.number(legendX)), ("y1", SVGDocument.number(legendY - 4)),
                                  ("x2", SVGDocument.number(legendX + 22)), ("y2", SVGDocument.number(legendY - 4)),
                                  ("stroke", Self.truthColour), ("stroke-width", "2.5")])
        document.element("circle", [("cx", SVGDocument.number(legendX + 11)), ("cy", SVGDocument.number(legendY - 4)),
                                    ("r", "3"), ("fill", Self.truthColour)])
        legendX += 27
        legendText("truth (path)")
        document.element("circle", [("cx", SVGDocument.number(legendX + 3)), ("cy", SVGDocument.number(legendY - 4)), ("r", "3"),
                                    ("fill", Self.colour(0)), ("fill-opacity", Self.estimateOpacity)])
        legendX += 9
        legendText("estimate (\(mapAlgorithm))")
        if missed {
            document.element("circle", [("cx", SVGDocument.number(legendX + 3)), ("cy", SVGDocument.number(legendY - 4)), ("r", "3"),
                                        ("fill", "white"), ("stroke", Self.truthColour), ("stroke-width", "1.2")])
            legendX += 9
            legendText("truth, not located")
        }
        document.element("rect", [("x", SVGDocument.number(legendX)), ("y", SVGDocument.number(legendY - 8)),
                                  ("width", "7"), ("height", "7"), ("fill", Self.beaconColour)])
        legendX += 12
        legendText("beacon")
        document.close("g")

        drawAxes(into: &document, box: box, minX: minX, maxX: maxX, minY: minY, maxY: maxY,
                 x: { offsetX + ($0 - minX) * scale }, y: { offsetY + (maxY - $0) * scale })

        // The places, and where their names go: a circle's name on its centre, a polygon's just
        // inside its top; smallest place first, so that a room keeps its spot and the hall around
        // it moves (see LabelLayout).
        func label(_ id: String, floor: Int) -> String { floors.count > 1 ? "\(id) (floor \(floor))" : id }
        var names: [(label: LabelLayout.Label, area: Double)] = []
        document.open("g", [("class", "places")])
        for polygon in polygons {
            let points = polygon.vertices.map { px($0.x) + "," + py($0.y) }.joined(separator: " ")
            document.element("polygon", [("class", "place"), ("points", points), ("fill", "#eef2f7"), ("stroke", "#8a9bb0"),
                                         ("stroke-width", "1")])
            let cx = polygon.vertices.map(\.x).reduce(0, +) / Double(polygon.vertices.count)
            let top = polygon.vertices.map(\.y).max() ?? cx
            let xs = polygon.vertices.map(\.x), ys = polygon.vertices.map(\.y)
            let area = ((xs.max() ?? 0) - (xs.min() ?? 0)) * ((ys.max() ?? 0) - (ys.min() ?? 0))
            names.append((LabelLayout.Label(text: label(polygon.id, floor: polygon.floor), anchorX: offsetX + (cx - minX) * scale,
                                            anchorY: offsetY + (maxY - top) * scale + 8, fontSize: 10), area))
        }
        for circle in circles {
            document.element("circle", [("class", "place"), ("cx", px(circle.center.x)), ("cy", py(circle.center.y)),
                                        ("r", SVGDocument.number(circle.radius * scale)), ("fill", "#eef2f7"), ("fill-opacity", "0.6"),
                                        ("stroke", "#8a9bb0"), ("stroke-width", "1")])
            names.append((LabelLayout.Label(text: label(circle.id, floor: circle.floor), anchorX: offsetX + (circle.center.x - minX) * scale,
                                            anchorY: offsetY + (maxY - circle.center.y) * scale, fontSize: 10),
                          Double.pi * circle.radius * circle.radius))
        }
        document.close("g")
        let ordered = names.enumerated().sorted { ($0.element.area, $0.offset) < ($1.element.area, $1.offset) }.map(\.element.label)
        // Where a name should rather not go: over the truth.
        let truthDots = samples.map { sample in
            LabelLayout.Box(x: offsetX + (sample.truth.x - minX) * scale - 2, y: offsetY + (maxY - sample.truth.y) * scale - 2, width: 4, height: 4)
        }
        let placements = LabelLayout.place(ordered, bounds: LabelLayout.Box(x: box.left + 2, y: legendY + 6, width: box.right - box.left - 4,
                                                                            height: box.bottom - 22 - (legendY + 6)),
                                           avoiding: truthDots)

        // Estimates light, under the truth: thin grey lines from each truth to its estimate, then
        // the estimates, pale.
        document.open("g", [("class", "errors"), ("stroke", "#c4c4c4"), ("stroke-width", "0.5")])
        for sample in samples {
            guard let estimate = sample.estimate else { continue }
            document.element("line", [("class", "error-line"), ("x1", px(sample.truth.x)), ("y1", py(sample.truth.y)),
                                      ("x2", px(estimate.x)), ("y2", py(estimate.y))])
        }
        document.close("g")

        document.open("g", [("class", "estimates"), ("fill", Self.colour(0)), ("fill-opacity", Self.estimateOpacity)])
        for sample in samples {
            guard let estimate = sample.estimate else { continue }
            document.element("circle", [("class", "estimate"), ("cx", px(estimate.x)), ("cy", py(estimate.y)), ("r", "2")])
        }
        document.close("g")

        document.open("g", [("class", "beacons"), ("fill", Self.beaconColour), ("stroke", "white"), ("stroke-width", "1")])
        for beacon in beacons {
            document.element("rect", [("class", "beacon"), ("x", SVGDocument.number(offsetX + (beacon.x - minX) * scale - 3.5)),
                                      ("y", SVGDocument.number(offsetY + (maxY - beacon.y) * scale - 3.5)), ("width", "7"), ("height", "7")])
        }
        document.close("g")

        // The truth over everything but the names: a dark path through the true positions in
        // order, and a dot at each (hollow when the scan was not located).
        if !samples.isEmpty {
            document.element("path", [("class", "truth-path"), ("d", SVGDocument.pathData(samples.map {
                (offsetX + ($0.truth.x - minX) * scale, offsetY + (maxY - $0.truth.y) * scale)
            })), ("fill", "none"), ("stroke", Self.truthColour), ("stroke-width", "2"), ("stroke-linejoin", "round"),
                ("stroke-linecap", "round")])
        }
        document.open("g", [("class", "truths")])
        for sample in samples {
            var attributes = [("class", "truth"), ("cx", px(sample.truth.x)), ("cy", py(sample.truth.y)), ("r", "1.5")]
            attributes += sample.estimate == nil ? [("fill", "white"), ("stroke", Self.truthColour), ("stroke-width", "1.2")]
                : [("fill", Self.truthColour)]
            document.element("circle", attributes)
        }
        document.close("g")

        // The places' names last, haloed so that they read over the track, each with a thin
        // leader line to its place when it had to move away from it.
        document.open("g", [("class", "place-labels"), ("font-size", "10"), ("fill", "#4a5568")])
        for (label, placement) in zip(ordered, placements) where placement.leader {
            let end = LabelLayout.nearestPoint(of: placement.box, to: label.anchorX, label.anchorY)
            document.element("line", [("class", "leader"), ("x1", SVGDocument.number(label.anchorX)), ("y1", SVGDocument.number(label.anchorY)),
                                      ("x2", SVGDocument.number(end.x)), ("y2", SVGDocument.number(end.y)),
                                      ("stroke", "#8a9bb0"), ("stroke-width", "0.8")])
        }
        for (label, placement) in zip(ordered, placements) {
            document.element("text", [("class", "place-label"), ("x", SVGDocument.number(placement.x)), ("y", SVGDocument.number(placement.y)),
                                      ("text-anchor", "middle"), ("stroke", "white"), ("stroke-width", "3"), ("stroke-linejoin", "round"),
                                      ("paint-order", "stroke")], text: label.text)
        }
        document.close("g")

        // Scale bar: a round length about a fifth of the drawing's width.
        let barLength = NiceTicks.step(span: boxWidth / scale, count: 5)
        let barX = box.left + 14, barY = box.bottom - 10
        document.open("g", [("class", "scale-bar"), ("font-size", "11")])
        document.element("line", [("x1", SVGDocument.number(barX)), ("y1", SVGDocument.number(barY)),
                                  ("x2", SVGDocument.number(barX + barLength * scale)), ("y2", SVGDocument.number(barY)),
                                  ("stroke", "#333"), ("stroke-width", "2")])
        document.element("text", [("x", SVGDocument.number(barX + barLength * scale + 6)), ("y", SVGDocument.number(barY + 4))],
                         text: "\(NiceTicks.label(barLength, step: barLength)) \(units)")
        document.close("g")
    }

    /// Ticks and labels in venue units along the map's bottom (x) and left (y) edges, outside it.
    private func drawAxes(into document: inout SVGDocument, box: (left: Double, top: Double, right: Double, bottom: Double),
                          minX: Double, maxX: Double, minY: Double, maxY: Double,
                          x: (Double) -> Double, y: (Double) -> Double) {
        document.open("g", [("class", "map-axes"), ("font-size", "10"), ("fill", "#555")])
        let stepX = NiceTicks.step(span: max(maxX - minX, 1e-6), count: 5)
        var tick = (minX / stepX).rounded(.up) * stepX
        while tick <= maxX + stepX * 1e-6 {
            let at = SVGDocument.number(x(tick))
            document.element("line", [("x1", at), ("y1", SVGDocument.number(box.bottom)), ("x2", at),
                                      ("y2", SVGDocument.number(box.bottom + 4)), ("stroke", "#333")])
            document.element("text", [("x", at), ("y", SVGDocument.number(box.bottom + 15)), ("text-anchor", "middle")],
                             text: NiceTicks.label(tick, step: stepX))
            tick += stepX
        }
        let stepY = NiceTicks.step(span: max(maxY - minY, 1e-6), count: 5)
        tick = (minY / stepY).rounded(.up) * stepY
        while tick <= maxY + stepY * 1e-6 {
            let at = y(tick)
            document.element("line", [("x1", SVGDocument.number(box.left - 4)), ("y1", SVGDocument.number(at)),
                                      ("x2", SVGDocument.number(box.left)), ("y2", SVGDocument.number(at)), ("stroke", "#333")])
            document.element("text", [("x", SVGDocument.number(box.left - 6)), ("y", SVGDocument.number(at + 3)), ("text-anchor", "end")],
                             text: NiceTicks.label(tick, step: stepY))
            tick += stepY
        }
        document.element("text", [("x", SVGDocument.number(box.right)), ("y", SVGDocument.number(box.bottom + 28)),
                                  ("text-anchor", "end"), ("font-size", "11")], text: "x, y (\(units), north up)")
        document.close("g")
    }
}

/// Places text labels near their anchors so that they overlap neither each other nor given
/// obstacles, greedily and deterministically, in the order given.
///
/// A label's box is estimated, not measured: its width the number of characters times
/// ``characterWidth`` of the font size, its height ``lineHeight`` of it. Each label tries spots
/// around its anchor in turn — centred on it; then just above, below, right and left of it; then
/// farther out (above, below, right, left and the four diagonals, one more label's size away at
/// each ring), with a leader line back to the anchor — and takes the first whose box stays inside
/// `bounds` and clear of the obstacles and of the labels placed before it. Among the spots next to
/// the anchor and those straight above and below it in the first ``softRings`` rings, one also
/// clear of what it should rather not cover (the truth's dots, say) comes first: a name may cover
/// the track rather than stray far from its place. When none is clear, it takes the spot that
/// overlaps least.
enum LabelLayout {
    /// A rectangle in SVG pixels (y down).
    struct Box: Equatable, Sendable {
        var x: Double
        var y: Double
        var width: Double
        var height: Double

        /// Whether the two boxes share some area (touching edges do not count).
        func intersects(_ other: Box) -> Bool {
            x < other.x + other.width && other.x < x + width && y < other.y + other.height && other.y < y + height
        }

        /// The area the two boxes share.
        func overlap(_ other: Box) -> Double {
            let w = min(x + width, other.x + other.width) - max(x, other.x)
            let h = min(y + height, other.y + other.height) - max(y, other.y)
            return w > 0 && h > 0 ? w * h : 0
        }

        /// Whether `other` lies wholly inside this box.
        func contains(_ other: Box) -> Bool {
            other.x >= x && other.y >= y && other.x + other.width <= x + width && other.y + other.height <= y + height
        }
    }

    /// A label to place: its text, the point it names, its font size.
    struct Label: Sendable {
        var text: String
        var anchorX: Double
        var anchorY: Double
        var fontSize: Double
    }

    /// Where a label went: the middle of its baseline (for `text-anchor="middle"`), its box, and
    /// whether it is far enough from its anchor to need a leader line.
    struct Placement: Equatable, Sendable {
        var x: Double
        var y: Double
        var box: Box
        var leader: Bool
    }

    /// Width of a character, as a share of the font size (Helvetica's average is about 0.55).
    static let characterWidth = 0.6
    /// Height of a label's box, as a share of the font size.
    static let lineHeight = 1.2
    /// The gap between a label and its anchor or a neighbour, in pixels.
    static let gap = 2.0
    /// The rings of spots tried beyond the first.
    static let rings = 8
    /// The rings whose spots straight above and below the anchor are preferred when clear of what
    /// a label should rather not cover.
    static let softRings = 2

    /// The box of `label` if its centre were at (`x`, `y`).
    static func box(of label: Label, centredAt x: Double, _ y: Double) -> Box {
        let width = Double(label.text.count) * label.fontSize * characterWidth, height = label.fontSize * lineHeight
        return Box(x: x - width / 2, y: y - height / 2, width: width, height: height)
    }

    /// The spots `label` tries, in order: box centres and whether each needs a leader line.
    static func candidates(for label: Label) -> [(x: Double, y: Double, leader: Bool)] {
        let probe = box(of: label, centredAt: 0, 0)
        let w = probe.width, h = probe.height
        let ax = label.anchorX, ay = label.anchorY
        var spots: [(x: Double, y: Double, leader: Bool)] = [(ax, ay, false),
            (ax, ay - h / 2 - gap, false), (ax, ay + h / 2 + gap, false),
            (ax + w / 2 + gap, ay, false), (ax - w / 2 - gap, ay, false)]
        for ring in 1...rings {
            let k = Double(ring)
            let dy = h / 2 + gap + k * (h + gap), dx = w / 2 + gap + k * (min(w, 4 * h) + gap)
            spots += [(ax, ay - dy, true), (ax, ay + dy, true), (ax + dx, ay, true), (ax - dx, ay, true),
                      (ax + dx, ay - dy, true), (ax - dx, ay - dy, true), (ax + dx, ay + dy, true), (ax - dx, ay + dy, true)]
        }
        return spots
    }

    /// Places `labels` in order inside `bounds`, clear of `obstacles` and of each other where
    /// possible, and near their anchors clear of `avoiding` where that is possible too.
    static func place(_ labels: [Label], bounds: Box, obstacles: [Box] = [], avoiding: [Box] = []) -> [Placement] {
        var taken = obstacles
        var placements: [Placement] = []
        for label in labels {
            let spots = candidates(for: label).enumerated().compactMap { index, spot -> (placement: Placement, near: Bool, overlap: Double)? in
                let box = box(of: label, centredAt: spot.x, spot.y)
                guard bounds.contains(box) else { return nil }
                // The first five spots, then above and below (the first two of each ring's eight).
                let near = index < 5 || (index - 5) / 8 < softRings && (index - 5) % 8 < 2
                return (Placement(x: spot.x, y: spot.y + label.fontSize * 0.35, box: box, leader: spot.leader), near,
                        taken.reduce(0) { $0 + box.overlap($1) })
            }
            let chosen = spots.first { $0.near && $0.overlap == 0 && !avoiding.contains(where: $0.placement.box.intersects) }?.placement
                ?? spots.first { $0.overlap == 0 }?.placement
                ?? spots.min { $0.overlap < $1.overlap }?.placement
                // Not even inside the bounds: on the anchor.
                ?? Placement(x: label.anchorX, y: label.anchorY + label.fontSize * 0.35,
                             box: box(of: label, centredAt: label.anchorX, label.anchorY), leader: false)
            taken.append(chosen.box)
            placements.append(chosen)
        }
        return placements
    }

    /// The point of `box` nearest to (`x`, `y`): where a leader line from the anchor ends.
    static func nearestPoint(of box: Box, to x: Double, _ y: Double) -> (x: Double, y: Double) {
        (min(max(x, box.x), box.x + box.width), min(max(y, box.y), box.y + box.height))
    }
}
