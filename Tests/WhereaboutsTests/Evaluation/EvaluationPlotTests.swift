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
        #expect(texts.contains("a<b & \"c\" — median 1.50 m"))
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

    @Test func aVenueWithoutPositionsStillMakesADocument() throws {
        let empty = EvaluationPlot(title: "labels", units: "cell", curves: [EvaluationPlot.Curve(name: "x", errors: [], total: 0)],
                                   venue: Venue(beacons: [Venue.Beacon(id: "b")]), mapAlgorithm: "x", samples: [])
        let elements = try #require(ElementCollector.parse(empty.svg))
        #expect(ElementCollector.count(elements, "path", class: "cdf") == 1)
        #expect(elements.contains { $0.text == "nothing with a position to draw" })
    }
}
