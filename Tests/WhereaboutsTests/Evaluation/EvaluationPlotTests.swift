import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import Whereabouts

/// The elements of an XML document, parsed with Foundation's XMLParser (which fails on anything
/// that is not well-formed).
private final class ElementCollector: NSObject, XMLParserDelegate {
    struct Element {
        var name: String
        var attributes: [String: String]
        var text = ""
    }

    var elements: [Element] = []
    private var open: [Int] = []

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        open.append(elements.count)
        elements.append(Element(name: elementName, attributes: attributeDict))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let last = open.last { elements[last].text += string }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        _ = open.popLast()
    }

    /// Parses `text`; `nil` when it is not well-formed XML.
    static func parse(_ text: String) -> [Element]? {
        let parser = XMLParser(data: Data(text.utf8))
        let collector = ElementCollector()
        parser.delegate = collector
        return parser.parse() ? collector.elements : nil
    }

    static func count(_ elements: [Element], _ name: String, class className: String) -> Int {
        elements.filter { $0.name == name && $0.attributes["class"] == className }.count
    }
}

@Suite("Evaluation plot (SVG)")
struct EvaluationPlotTests {
    /// The ESPresense room: 6 × 4 m with a receiver near each corner, and a polygon place.
    private let venue = SimulationPreset.espresenseRoom.venue

    private func plot(names: [String] = ["a<b & \"c\"", "centroid", "third"]) -> EvaluationPlot {
        let samples = [
            EvaluationSample(truth: PlanarPoint(x: 1, y: 1), estimate: PlanarPoint(x: 1.5, y: 1.2)),
            EvaluationSample(truth: PlanarPoint(x: 3, y: 2), estimate: nil),
            EvaluationSample(truth: PlanarPoint(x: 5, y: 3), estimate: PlanarPoint(x: 4, y: 3)),
        ]
        return EvaluationPlot(
            title: "room & co", units: "m",
            curves: names.enumerated().map { index, name in
                EvaluationPlot.Curve(name: name, errors: index == 2 ? [.nan] : [1, 2], total: 4)
            },
            venue: venue, mapAlgorithm: names[0], samples: samples)
    }

    @Test func isWellFormedWithOneLinePerAlgorithm() throws {
        let svg = plot().svg
        let elements = try #require(ElementCollector.parse(svg))
        #expect(elements.first?.name == "svg")
        #expect(ElementCollector.count(elements, "path", class: "cdf") == 3)
        #expect(Set(elements.filter { $0.attributes["class"] == "cdf" }.compactMap { $0.attributes["stroke"] }).count == 3)
        #expect(!svg.contains("nan") && !svg.contains("inf"))
        // Self-contained: nothing fetched from elsewhere.
        #expect(!svg.contains("href") && !svg.contains("url("))
    }

    @Test func mapHasEveryPointBeaconAndPlace() throws {
        let elements = try #require(ElementCollector.parse(plot().svg))
        #expect(ElementCollector.count(elements, "circle", class: "truth") == 3)
        #expect(ElementCollector.count(elements, "circle", class: "estimate") == 2)   // one scan not located
        #expect(ElementCollector.count(elements, "line", class: "error-line") == 2)
        #expect(ElementCollector.count(elements, "rect", class: "beacon") == 4)
        #expect(ElementCollector.count(elements, "polygon", class: "place") == 1)
    }

    @Test func escapesText() throws {
        let svg = plot().svg
        #expect(svg.contains("a&lt;b &amp; &quot;c&quot;"))
        #expect(!svg.contains("a<b"))
        let elements = try #require(ElementCollector.parse(svg))
        let texts = elements.filter { $0.name == "text" }.map(\.text)
        #expect(texts.contains("a<b & \"c\" — median 1.50 m, located 50 %"))
        #expect(texts.contains("room & co — positioning error"))
        #expect(texts.contains("Truth and estimates — a<b & \"c\""))
    }

    @Test func cdfEndsAtTheShareWithinTheAxis() throws {
        let elements = try #require(ElementCollector.parse(plot().svg))
        let paths = elements.filter { $0.attributes["class"] == "cdf" }.compactMap { $0.attributes["d"] }
        // Errors [1, 2] of 4 scans: the 99th percentile 1.99 gives ticks of 0.5 (about five over
        // 1.99), so the axis ends at 2. The plot box spans x 70…460 and y 450 (share 0) … 60
        // (share 1): error 1 at share 1/4 → (265, 352.5); error 2 at 2/4 → (460, 255); then the
        // right edge at the share within 2 → (460, 255) again.
        #expect(paths[0] == "M70,450 L265,352.5 L460,255 L460,255")
        // A curve with no finite error stays at 0.
        #expect(paths[2] == "M70,450 L460,450")
    }

    @Test func mapKeepsEqualScale() throws {
        let elements = try #require(ElementCollector.parse(plot().svg))
        let polygon = try #require(elements.first { $0.attributes["class"] == "place" })
        let points = try #require(polygon.attributes["points"]).split(separator: " ").map { pair -> (Double, Double) in
            let parts = pair.split(separator: ",").compactMap { Double($0) }
            return (parts.first ?? .nan, parts.last ?? .nan)
        }
        let width = (points.map(\.0).max() ?? 0) - (points.map(\.0).min() ?? 0)
        let height = (points.map(\.1).max() ?? 0) - (points.map(\.1).min() ?? 0)
        // The room is 6 × 4 m: the drawing is 1.5 times as wide as high (to the hundredth of a pixel).
        #expect(abs(width / height - 1.5) < 0.001)
        // North up: the polygon's first vertex (0, 0) is at the bottom left.
        #expect(points[0].1 == points.map(\.1).max())
    }

    /// Two algorithms that made the same errors draw one line over the other: the second is
    /// dashed, so the first's colour shows between its dashes, and the legend names both. A
    /// curve a pixel or more away from every other is drawn as it is.
    @Test func identicalCurvesAreBothSeen() throws {
        let elements = try #require(ElementCollector.parse(plot().svg))
        let curves = elements.filter { $0.attributes["class"] == "cdf" }
        #expect(curves[0].attributes["stroke-dasharray"] == nil)
        #expect(curves[1].attributes["stroke-dasharray"] == "6 6")
        #expect(curves[1].attributes["d"] == curves[0].attributes["d"])
        #expect(curves[2].attributes["stroke-dasharray"] == nil)
        // 1 scan in 1,600 apart: a quarter of a pixel of the 390 px high plot, the same line; 4 in
        // 300: 5 pixels, two lines.
        func dash(_ other: [Double], total: Int) throws -> String? {
            let pair = EvaluationPlot(title: "t", units: "m", curves: [
                EvaluationPlot.Curve(name: "a", errors: Array(repeating: 1, count: total), total: total),
                EvaluationPlot.Curve(name: "b", errors: other, total: total)], venue: venue, mapAlgorithm: "a", samples: [])
            return try #require(ElementCollector.parse(pair.svg)).filter { $0.attributes["class"] == "cdf" }.last?.attributes["stroke-dasharray"]
        }
        #expect(try dash(Array(repeating: 1, count: 1599) + [1.5], total: 1600) == "6 6")
        #expect(try dash(Array(repeating: 1, count: 296) + [1.5, 1.5, 1.5, 1.5], total: 300) == nil)
        let texts = elements.filter { $0.name == "text" }.map(\.text)
        #expect(texts.contains("centroid — on a<b & \"c\"'s line (dashed)"))
    }

    /// A curve that stops short of 1 because scans were not located says so where it ends; 2 of
    /// 4 located is 50 %, 99.6 % is said as 99 %, never as all.
    @Test func aCurveThatStopsShortSaysHowManyWereLocated() throws {
        let elements = try #require(ElementCollector.parse(plot().svg))
        let labels = elements.filter { $0.attributes["class"] == "located" }
        #expect(labels.map(\.text) == ["located 50 %"])   // the copy and the curve of none located say nothing here
        #expect(labels.first?.attributes["x"] == "456" && labels.first?.attributes["y"] == "250")
        let almost = EvaluationPlot(title: "t", units: "m", curves: [EvaluationPlot.Curve(name: "a", errors: Array(repeating: 1, count: 249), total: 250)],
                                    venue: venue, mapAlgorithm: "a", samples: [])
        let texts = try #require(ElementCollector.parse(almost.svg)).filter { $0.name == "text" }.map(\.text)
        #expect(texts.contains("located 99 %"))
        #expect(texts.contains("a — median 1.00 m, located 99 %"))
    }

    /// The map draws the truth over the estimates, places of every shape with their names (and
    /// floors when there are several), and axes in venue units; the title is the venue's name.
    @Test func theMapSaysWhatItShows() throws {
        var campus = SimulationPreset.example.venue
        campus.places.append(Venue.Place(id: "desk", floor: 1, shape: .circle(center: PlanarPoint(x: 10, y: 10), radius: 3, coordinate: nil)))
        let samples = [EvaluationSample(truth: PlanarPoint(x: 0, y: 0), floor: 0, estimate: PlanarPoint(x: 5, y: 5))]
        let drawn = EvaluationPlot(title: "x", units: "m", curves: [EvaluationPlot.Curve(name: "a", errors: [7], total: 1)],
                                   venue: campus, mapAlgorithm: "a", samples: samples)
        let elements = try #require(ElementCollector.parse(drawn.svg))
        let estimate = try #require(elements.firstIndex { $0.attributes["class"] == "estimate" })
        let truth = try #require(elements.firstIndex { $0.attributes["class"] == "truth" })
        #expect(estimate < truth)
        #expect(elements.contains { $0.name == "circle" && $0.attributes["class"] == "place" })
        let texts = elements.filter { $0.name == "text" }.map(\.text)
        #expect(texts.contains("desk (floor 1)"))
        #expect(texts.contains { $0.hasPrefix("Truth and estimates — a (floors 0, 1 together)") })
        #expect(texts.contains("x, y (m, north up)"))
        #expect(elements.contains { $0.attributes["class"] == "map-axes" })

        let run = EvaluationRun(setups: [])
        #expect(EvaluationPlot(run: run, venue: campus, dataset: "Examples").title == "Trade fair campus (example) (Examples)")
        #expect(EvaluationPlot(run: run, venue: Venue(), dataset: "uji-lib").title == "uji-lib")
    }

    /// Two places with the same centre (a hall and a smaller hall inside it), and a third close
    /// by: their names are laid out in boxes that do not overlap, inside the bounds; the first
    /// keeps its anchor, the others move off it.
    @Test func labelsWithTheSameOrCloseAnchorsGetApartBoxes() {
        let labels = [LabelLayout.Label(text: "hall7smaller", anchorX: 200, anchorY: 150, fontSize: 10),
                      LabelLayout.Label(text: "hall7", anchorX: 200, anchorY: 150, fontSize: 10),
                      LabelLayout.Label(text: "hall7annex", anchorX: 203, anchorY: 152, fontSize: 10)]
        let bounds = LabelLayout.Box(x: 0, y: 0, width: 400, height: 300)
        let placements = LabelLayout.place(labels, bounds: bounds)
        #expect(placements.count == 3)
        for i in placements.indices {
            #expect(bounds.contains(placements[i].box))
            for j in placements.indices where j > i {
                #expect(!placements[i].box.intersects(placements[j].box), "\(labels[i].text) and \(labels[j].text) overlap")
            }
        }
        #expect(placements[0].box == LabelLayout.box(of: labels[0], centredAt: 200, 150))
        // The box is about as wide as the text: 12 characters at 10 px.
        #expect(placements[0].box.width == 72 && placements[0].box.height == 12)
        // An obstacle over the anchor, and bounds that leave no room on one side: still apart.
        let crowded = LabelLayout.place(labels, bounds: LabelLayout.Box(x: 150, y: 140, width: 250, height: 160),
                                        obstacles: [LabelLayout.Box(x: 160, y: 140, width: 80, height: 20)])
        let boxes = crowded.map(\.box) + [LabelLayout.Box(x: 160, y: 140, width: 80, height: 20)]
        for i in boxes.indices { for j in boxes.indices where j > i { #expect(!boxes[i].intersects(boxes[j])) } }
        // A label moved away from its anchor says so, for its leader line.
        #expect(crowded.contains { $0.leader })
    }

    /// The same in the document: the names of a hall and the smaller hall inside it (same centre)
    /// and of a hall on another floor with the same centre, as the example venue has them, are
    /// written in boxes that do not overlap.
    @Test func placeNamesInTheMapDoNotOverlap() throws {
        var venue = Venue(beacons: [Venue.Beacon(id: "b1", x: -100, y: -100), Venue.Beacon(id: "b2", x: 100, y: 100)])
        venue.floors = [Venue.Floor(level: 0), Venue.Floor(level: 1)]
        for (id, floor, radius) in [("hall7", 0, 50.0), ("hall7smaller", 0, 40.0), ("hall8", 0, 30.0), ("hall81", 1, 30.0)] {
            let center = id.hasPrefix("hall8") ? PlanarPoint(x: 60, y: -60) : PlanarPoint(x: 0, y: 0)
            venue.places.append(Venue.Place(id: id, floor: floor, shape: .circle(center: center, radius: radius, coordinate: nil)))
        }
        let drawn = EvaluationPlot(title: "t", units: "m", curves: [EvaluationPlot.Curve(name: "a", errors: [1], total: 1)],
                                   venue: venue, mapAlgorithm: "a",
                                   samples: [EvaluationSample(truth: PlanarPoint(x: 0, y: 0), floor: 0, estimate: PlanarPoint(x: 1, y: 1))])
        let elements = try #require(ElementCollector.parse(drawn.svg))
        let labels = elements.filter { $0.attributes["class"] == "place-label" }
        #expect(Set(labels.map(\.text)) == ["hall7 (floor 0)", "hall7smaller (floor 0)", "hall8 (floor 0)", "hall81 (floor 1)"])
        let boxes = labels.map { label in
            // The text is drawn centred on x, its baseline at y (font size 10).
            LabelLayout.box(of: LabelLayout.Label(text: label.text, anchorX: 0, anchorY: 0, fontSize: 10),
                            centredAt: Double(label.attributes["x"] ?? "") ?? .nan, (Double(label.attributes["y"] ?? "") ?? .nan) - 3.5)
        }
        for i in boxes.indices {
            for j in boxes.indices where j > i {
                #expect(!boxes[i].intersects(boxes[j]), "\(labels[i].text) at \(boxes[i]) and \(labels[j].text) at \(boxes[j])")
            }
        }
        // The names are drawn last, over the track.
        let lastLabel = try #require(elements.lastIndex { $0.attributes["class"] == "place-label" })
        let truth = try #require(elements.lastIndex { $0.attributes["class"] == "truth" })
        #expect(truth < lastLabel)
    }

    /// The truth is a dark path drawn after (over) the estimates, which are pale; the legend
    /// says which is which.
    @Test func theTruthIsADarkPathOverTheEstimates() throws {
        let elements = try #require(ElementCollector.parse(plot().svg))
        let path = try #require(elements.firstIndex { $0.attributes["class"] == "truth-path" })
        let lastEstimate = try #require(elements.lastIndex { $0.attributes["class"] == "estimate" })
        let lastErrorLine = try #require(elements.lastIndex { $0.attributes["class"] == "error-line" })
        #expect(path > lastEstimate && path > lastErrorLine)
        // Through the three truths in order, dark and thicker than the estimates' dots.
        let stroke = try #require(elements[path].attributes["stroke"])
        #expect(Self.luminance(stroke) < 0.1, "the truth is drawn in \(stroke)")
        #expect((Double(elements[path].attributes["stroke-width"] ?? "") ?? 0) >= 2)
        #expect(elements[path].attributes["d"]?.split(separator: "L").count == 3)
        // Every truth dot is dark (filled, or outlined when not located), after the estimates.
        let truths = elements.enumerated().filter { $0.element.attributes["class"] == "truth" }
        #expect(truths.count == 3 && truths.allSatisfy { $0.offset > lastEstimate })
        for truth in truths.map(\.element) {
            let colour = truth.attributes["fill"] == "white" ? truth.attributes["stroke"] : truth.attributes["fill"]
            #expect(colour.map { Self.luminance($0) < 0.1 } == true, "\(truth.attributes)")
        }
        // The estimates are pale.
        let estimates = try #require(elements.first { $0.attributes["class"] == "estimates" })
        #expect((Double(estimates.attributes["fill-opacity"] ?? "") ?? 1) <= 0.5)
        let legend = elements.filter { $0.name == "text" }.map(\.text)
        #expect(legend.contains("truth (path)") && legend.contains("estimate (a<b & \"c\")") && legend.contains("truth, not located"))
    }

    /// The relative luminance (0 black … 1 white) of a `#rrggbb` colour; 1 for anything else.
    private static func luminance(_ colour: String) -> Double {
        guard colour.count == 7, colour.hasPrefix("#"), let value = UInt32(colour.dropFirst(), radix: 16) else { return 1 }
        func linear(_ channel: UInt32) -> Double {
            let c = Double(channel) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(value >> 16 & 0xff) + 0.7152 * linear(value >> 8 & 0xff) + 0.0722 * linear(value & 0xff)
    }

    @Test func aVenueWithoutPositionsStillMakesADocument() throws {
        let empty = EvaluationPlot(title: "labels", units: "cell", curves: [EvaluationPlot.Curve(name: "x", errors: [], total: 0)],
                                   venue: Venue(beacons: [Venue.Beacon(id: "b")]), mapAlgorithm: "x", samples: [])
        let elements = try #require(ElementCollector.parse(empty.svg))
        #expect(ElementCollector.count(elements, "path", class: "cdf") == 1)
        #expect(elements.contains { $0.text == "nothing with a position to draw" })
    }
}
