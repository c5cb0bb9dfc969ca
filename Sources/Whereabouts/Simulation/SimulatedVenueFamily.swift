import Foundation

/// One venue of the simulated family (``SimulatedVenue/init(familySeed:)``): a building drawn at
/// random from a seed, a site survey of it and visitors' walks through it — for checking that
/// accuracy holds on venues that no setting was chosen on.
///
/// Each seed draws, independently:
/// - **The building**: 12–60 × 10–40 m, one floor or (three times in ten) two; laid out either
///   as **rooms** (polygons of 4–9 m whose walls cost 2–6 dB each) or as **cells** (a grid of
///   2.5–5 m cells, open plan: no wall loss). Every room or cell is a place; at most 200 a floor.
/// - **The beacons**: on a jittered grid 4–14 m apart on every floor, 2.2–3 m high — from a
///   beacon or two heard at a time up to ten or more.
/// - **The radio**: each beacon's true RSSI at 1 m −59 ± 4 dB and path-loss exponent 1.7–2.9
///   (± 0.15 per beacon), while the venue file says what an installer would write (−59 dBm, 2);
///   per-sample shadowing 1.5–4.5 dB, persistent shadowing 2–6 dB changing over 1.5–4 m (one field
///   for the whole building), 5–20 % of samples faded 6 dB, 5–40 % of packets lost, a sensitivity of
///   −100 to −88 dBm, 12–20 dB a floor.
/// - **The phones**: the survey's and each visitor's own gain (``RadioModel/receiverOffset``),
///   σ 4 dB apart, held within ±10 dB, and RSSI slope (``RadioModel/receiverGain``), σ 10 %
///   apart, held within ±25 %.
/// - **The survey** (``survey``, the training recording): one phone standing 4–8 s on each spot of
///   a 2–3 m grid (at most 300 spots) or, on a third of the venues, a dense one of 1–1.5 m (at
///   most 600 spots), row by row, floor by floor; a grid that would have more spots is widened.
/// - **The visits** (``visits``, the test recording): two visitors, each with another phone,
///   walking at 1.0–1.4 m/s through ten random spots, standing 0–40 s at about half of them,
///   changing floors on the way in a two-floor building. The second visit starts after the first.
///
/// The same seed always gives the same venue and recordings.
///
/// ```swift
/// let member = SimulatedVenue(familySeed: 7)
/// let training = Array(member.survey)
/// let test = member.visits.flatMap { Array($0) }
/// let setup = PositioningAlgorithm.default.setup(venue: member.venue, training: training)
/// ```
public struct SimulatedVenue: Sendable {
    /// The seed the venue was drawn from.
    public let seed: UInt64
    /// The venue as its installer would describe it: floors, places, beacons where they hang with
    /// the nominal calibration (−59 dBm at 1 m, exponent 2), not their true one.
    public let venue: Venue
    /// The site survey: the training recording, with ground truth and places.
    public let survey: Simulator
    /// The visitors' walks, in order: together the test recording.
    public let visits: [Simulator]
    /// How the building was drawn, as a layout word (`"rooms"` or `"cells"`) and its numbers.
    public let summary: String

    /// The largest number of places a floor gets.
    static let maximumPlacesPerFloor = 200
    /// The largest number of survey spots.
    static let maximumSurveySpots = 300
    /// The largest number of spots of a dense survey.
    static let maximumDenseSurveySpots = 600

    /// Draws the member `seed` of the family.
    public init(familySeed seed: UInt64) {
        self.seed = seed
        var random = SeededRandom(seed: seed ^ 0xFA41_17F0_0D5E_ED00)
        func uniform(_ low: Double, _ high: Double) -> Double { low + (high - low) * random.nextUniform() }
        func normal(_ sigma: Double, within limit: Double) -> Double {
            min(max(sigma * random.nextGaussian(), -limit), limit)
        }
        let floors = random.nextUniform() < 0.3 ? 2 : 1
        let width = uniform(12, 60), depth = uniform(10, 40)
        let isRooms = random.nextUniform() < 0.5
        var cellSize = isRooms ? uniform(4, 9) : uniform(2.5, 5)
        while (width / cellSize).rounded(.up) * (depth / cellSize).rounded(.up) > Double(Self.maximumPlacesPerFloor) {
            cellSize *= 1.1
        }
        let columns = max(1, Int((width / cellSize).rounded())), rows = max(1, Int((depth / cellSize).rounded()))
        let spacing = uniform(4, 14)
        let beaconColumns = max(1, Int((width / spacing).rounded())), beaconRows = max(1, Int((depth / spacing).rounded()))

        var venue = Venue(name: "Simulated venue \(seed)",
                          floors: (0..<floors).map { Venue.Floor(level: $0, name: $0 == 0 ? "ground" : "floor \($0)",
                                                                elevation: Double($0) * 3.5) },
                          defaults: Venue.Defaults(txPower: -59, pathLossExponent: 2, z: 2.5))
        func decimetres(_ value: Double) -> Double { (value * 10).rounded() / 10 }
        var calibrations: [String: RadioModel.Calibration] = [:]
        let exponent = uniform(1.7, 2.9)
        for floor in 0..<floors {
            for row in 0..<rows {
                for column in 0..<columns {
                    let x0 = decimetres(width * Double(column) / Double(columns))
                    let x1 = decimetres(width * Double(column + 1) / Double(columns))
                    let y0 = decimetres(depth * Double(row) / Double(rows)), y1 = decimetres(depth * Double(row + 1) / Double(rows))
                    venue.places.append(Venue.Place(
                        id: "\(isRooms ? "room" : "cell")-\(floor)-\(row)-\(column)", floor: floor,
                        shape: .polygon([PlanarPoint(x: x0, y: y0), PlanarPoint(x: x1, y: y0),
                                         PlanarPoint(x: x1, y: y1), PlanarPoint(x: x0, y: y1)])))
                }
            }
            for row in 0..<beaconRows {
                for column in 0..<beaconColumns {
                    let id = "b\(floor)-\(row)-\(column)"
                    let x = width * (Double(column) + 0.5 + normal(0.15, within: 0.4)) / Double(beaconColumns)
                    let y = depth * (Double(row) + 0.5 + normal(0.15, within: 0.4)) / Double(beaconRows)
                    venue.beacons.append(Venue.Beacon(id: id, x: decimetres(x), y: decimetres(y), z: decimetres(uniform(2.2, 3)),
                                                      floor: floor))
                    calibrations[id] = RadioModel.Calibration(txPower: -59 + normal(4, within: 10),
                                                              pathLossExponent: exponent + normal(0.15, within: 0.4))
                }
            }
        }
        self.venue = venue

        var radio = RadioModel(calibrations: calibrations, shadowing: uniform(1.5, 4.5),
                               persistentShadowing: uniform(2, 6), shadowingCorrelationDistance: uniform(1.5, 4),
                               multipathShare: uniform(0.05, 0.2), multipathLoss: 6, packetLoss: uniform(0.05, 0.4),
                               wallAttenuation: isRooms ? uniform(2, 6) : 0, floorAttenuation: uniform(12, 20),
                               sensitivity: uniform(-100, -88))
        radio.shadowingFieldSeed = seed &* 0x9E37_79B9_7F4A_7C15 &+ 1
        // The phones' RSSI slopes and the survey's density come from a stream of their own, so
        // that each seed keeps the building, radio and walks it had before they were drawn.
        var conditions = SeededRandom(seed: seed ^ 0x0D15_EA5E_5CA1_AB1E)
        func phone() -> RadioModel {
            var phone = radio
            phone.receiverOffset = normal(4, within: 10)
            phone.receiverGain = 1 + min(max(0.1 * conditions.nextGaussian(), -0.25), 0.25)
            return phone
        }

        // The survey: a grid of spots, row by row (alternating direction), floor by floor; a
        // third of the venues are surveyed densely (every 1–1.5 m, up to twice the spots).
        var step = uniform(2, 3)
        let isDenseSurvey = conditions.nextUniform() < 1.0 / 3
        let surveySpots = isDenseSurvey ? Self.maximumDenseSurveySpots : Self.maximumSurveySpots
        if isDenseSurvey { step = 1 + 0.5 * conditions.nextUniform() }
        while (width / step).rounded(.up) * (depth / step).rounded(.up) * Double(floors) > Double(surveySpots) {
            step *= 1.1
        }
        let dwell = uniform(4, 8)
        var spots: [Walk.Waypoint] = []
        let spotColumns = max(1, Int((width / step).rounded(.down))), spotRows = max(1, Int((depth / step).rounded(.down)))
        for floor in 0..<floors {
            for row in 0..<spotRows {
                for index in 0..<spotColumns {
                    let column = row % 2 == 0 ? index : spotColumns - 1 - index
                    spots.append(Walk.Waypoint(x: decimetres(width * (Double(column) + 0.5) / Double(spotColumns)),
                                               y: decimetres(depth * (Double(row) + 0.5) / Double(spotRows)),
                                               floor: floor, dwell: dwell.rounded()))
                }
            }
        }
        let start = 1_700_000_000.0
        let surveyWalk = Walk(waypoints: spots, speed: 1, start: start, device: "survey-phone", track: "survey")
        survey = Simulator(venue: venue, walk: surveyWalk, radio: phone(), seed: seed &+ 1, truthDecimalPlaces: 2)

        // The visits: ten random spots each, after the survey and after each other.
        var visits: [Simulator] = []
        var visitStart = start + surveyWalk.duration + 600
        for visitor in 1...2 {
            var floor = Int(random.nextUniform() * Double(floors)) % floors
            var waypoints: [Walk.Waypoint] = []
            for _ in 0..<10 {
                if floors > 1, random.nextUniform() < 0.3 { floor = 1 - floor }
                let stands = random.nextUniform() < 0.5
                waypoints.append(Walk.Waypoint(x: decimetres(uniform(0.5, width - 0.5)), y: decimetres(uniform(0.5, depth - 0.5)),
                                               floor: floor, dwell: stands ? uniform(0, 40).rounded() : 0))
            }
            let walk = Walk(waypoints: waypoints, speed: uniform(1, 1.4), start: visitStart,
                            device: "visitor-\(visitor)-phone", track: "visit-\(visitor)")
            visits.append(Simulator(venue: venue, walk: walk, radio: phone(), seed: seed &+ 1 &+ UInt64(visitor),
                                    truthDecimalPlaces: 2))
            visitStart += walk.duration + 600
        }
        self.visits = visits

        func whole(_ value: Double) -> Int { Int(value.rounded()) }
        summary = "\(isRooms ? "rooms" : "cells"): \(whole(width)) × \(whole(depth)) m, "
            + "\(floors.counted("floor")), \((columns * rows * floors).counted("place")), "
            + "\(venue.beacons.count.counted("beacon")) \(whole(spacing)) m apart, "
            + "sensitivity \(whole(radio.sensitivity)) dBm, "
            + "survey every \((step * 10).rounded() / 10) m"
    }
}
