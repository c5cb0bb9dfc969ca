import Foundation
import Whereabouts

/// IBeaconLocation's processor: the algorithms, their trusts and the position.
extension IBeaconLocationFacade {
    /// IBeaconLocation's `Processor`: the position, recomputed from every ranging round by the
    /// algorithm (or the trusted mix of algorithms) chosen, PowerCenter by default.
    ///
    /// Each beacon's circle is CoreLocation's `accuracy` when the source reports it
    /// (`Reading.distance`), else the range the engine derives from the RSSI. Fewer than three
    /// usable circles give no position (`nil`), never a crash.
    ///
    /// ```swift
    /// try location.processor.setAlgorithmsAndTrusts([.epta: 5, .powerCenter: 10])   // PowerCenter twice as trusted
    /// location.processor.customAlgorithm = NearestBeacon()
    /// try location.processor.setAlgorithm(.custom)
    /// ```
    public final class Processor: Sendable {
        private struct AlgorithmChoice: Sendable {
            var algorithms: [(type: AlgorithmType, trust: Double)] = [(.powerCenter, 1)]
            var custom: (any CustomAlgorithm)?
            var revision = 0
        }

        private let floor: Floor
        private let settings = LockedValue(AlgorithmChoice())
        private let engine: LocationEngine
        /// The floor and settings revisions the engine was last configured with.
        private let configured = LockedValue<(floor: Int, settings: Int)>((-1, -1))
        private let latest = LockedValue<Fix?>(nil)
        private let positionHandler = LockedValue<(@Sendable (Fix) -> Void)?>(nil)

        /// The per-device pipeline IBeaconLocation ran: each ranging round's values as they are (no
        /// RSSI filter, no floor selection, no tracking), a beacon counted for a second after it
        /// was last heard.
        public static let locator = LocatorConfiguration(filter: nil, beaconTimeout: 1, floorSelection: nil, tracking: nil)

        init(floor: Floor) {
            self.floor = floor
            engine = LocationEngine(configuration: .init(venue: Venue(), method: .algorithm(.powerCenter), locator: Self.locator))
        }

        /// The algorithm ``AlgorithmType/custom`` runs. Set it before selecting `.custom`.
        public var customAlgorithm: (any CustomAlgorithm)? {
            get { settings.value.custom }
            set { settings.withValue { $0.custom = newValue; $0.revision += 1 } }
        }

        /// Positions with one algorithm, trust 1 (IBeaconLocation's `setAlgorithm:`).
        public func setAlgorithm(_ type: AlgorithmType) throws(BeaconLocationError) {
            try setAlgorithms([type], trusts: [1])
        }

        /// Positions with several algorithms, each answer weighted by its trust: the trusts are
        /// normalised to sum 1, all zero means equal (IBeaconLocation's `setAlgorithmsAndTrusts:`).
        public func setAlgorithms(_ algorithms: [AlgorithmType], trusts: [Double]) throws(BeaconLocationError) {
            guard !algorithms.isEmpty else { throw .noAlgorithm }
            guard algorithms.count == trusts.count else { throw .trustsMismatch(algorithms: algorithms.count, trusts: trusts.count) }
            for (type, trust) in zip(algorithms, trusts) where !(trust >= 0) || !trust.isFinite { throw .invalidTrust(type, trust) }
            let hasCustom = settings.value.custom != nil
            if algorithms.contains(.custom), !hasCustom { throw .customAlgorithmNotSet }
            settings.withValue { settings in
                settings.algorithms = Array(zip(algorithms, trusts)).map { ($0.0, $0.1) }
                settings.revision += 1
            }
        }

        /// ``setAlgorithms(_:trusts:)`` from IBeaconLocation's dictionary form, algorithms in
        /// ``AlgorithmType`` order.
        public func setAlgorithmsAndTrusts(_ trusts: [AlgorithmType: Double]) throws(BeaconLocationError) {
            let types = AlgorithmType.allCases.filter { trusts[$0] != nil }
            try setAlgorithms(types, trusts: types.map { trusts[$0] ?? 0 })
        }

        /// The algorithms and their trusts, as set.
        public var algorithms: [AlgorithmType: Double] {
            Dictionary(settings.value.algorithms.map { ($0.type, $0.trust) }, uniquingKeysWith: +)
        }

        /// The latest position, if one was found.
        public var position: Fix? { latest.value }

        /// Sets (or, with `nil`, removes) the callback that hears every new position.
        public func setPositionHandler(_ handler: (@Sendable (Fix) -> Void)?) {
            positionHandler.value = handler
        }

        /// Takes in one ranging round (a scan of the beacons heard) and returns the position it
        /// gives, if any.
        @discardableResult
        public func process(_ scan: Scan) async -> Fix? {
            let map = floor.snapshot
            let current = settings.value
            if configured.value != (map.revision, current.revision) {
                configured.value = (map.revision, current.revision)
                await engine.reconfigure(with: .init(venue: map.venue, method: Self.method(for: current), locator: Self.locator))
            }
            guard let fix = await engine.process(scan) else { return nil }
            latest.value = fix
            positionHandler.value?(fix)
            return fix
        }

        /// The engine's method for the settings: one algorithm, or their trust fusion.
        private static func method(for settings: AlgorithmChoice) -> PositioningMethod {
            let members = settings.algorithms.map { PositioningMethod.Member(method(for: $0.type, custom: settings.custom), trust: $0.trust) }
            return members.count == 1 ? members[0].method : .fusion(members)
        }

        private static func method(for type: AlgorithmType, custom: (any CustomAlgorithm)?) -> PositioningMethod {
            switch type {
            case .epta: .algorithm(.epta)
            case .powerCenter: .algorithm(.powerCenter)
            case .sphereIntersection: .algorithm(.sphereIntersection)
            case .custom:
                .solver(name: "custom") { venue in CustomAlgorithmSolver(algorithm: custom, venue: venue) }
            }
        }
    }

    /// A ``CustomAlgorithm`` as an engine solver: the observation's ranges become circles, the
    /// answer's radius is the circles' misfit at the point.
    struct CustomAlgorithmSolver: PositionSolver {
        let algorithm: (any CustomAlgorithm)?
        let venue: PositioningVenue

        var name: String { "custom" }

        func locate(_ observation: Observation) -> PositionEstimate? {
            guard let algorithm else { return nil }
            let circles = observation.ranges.compactMap { range -> BeaconCircle? in
                guard range.beaconIndex < venue.venue.beacons.count,
                      let beacon = Floor.beacon(venue.venue.beacons[range.beaconIndex]) else { return nil }
                return BeaconCircle(beacon: beacon, accuracy: range.distance)
            }
            guard let point = algorithm.position(from: circles), point.x.isFinite, point.y.isFinite else { return nil }
            let misfit = observation.rangeMisfit(at: point, receiverHeight: venue.receiverHeight) ?? 0
            return PositionEstimate(point: SpatialPoint(x: point.x, y: point.y, z: venue.receiverHeight), accuracy: misfit,
                                    beaconCount: circles.count)
        }
    }
}
