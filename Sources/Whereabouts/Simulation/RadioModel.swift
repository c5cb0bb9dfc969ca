import Foundation

/// How a simulated receiver hears a venue's beacons: log-distance path loss with log-normal
/// shadowing, occasional multipath fades, packet loss, walls, floors and a sensitivity floor.
///
/// For a beacon at 3-D distance `d` (never less than ``minimumDistance``) the mean RSSI is
///
///     txPower − receiverGain·(10·n·log10(d) + wallAttenuation·walls + floorAttenuation·|floors apart|) + receiverOffset
///
/// where `txPower` and `n` are the beacon's own values in the venue, else the venue's defaults,
/// unless ``calibrations`` or the model-wide ``txPower``/``pathLossExponent`` override them, plus
/// a persistent offset of standard deviation ``persistentShadowing`` (times ``receiverGain``) that
/// depends on where the receiver is (see there). Each
/// sample then gets Gaussian noise of standard deviation ``shadowing``; a share
/// ``multipathShare`` of the samples loses a further ``multipathLoss`` dB; a share
/// ``packetLoss`` is not heard at all, nor is any sample below ``sensitivity``. RSSI is rounded to
/// whole dBm, as phones report it, when ``roundsRSSI`` is set, and kept below 0 dBm (at most −1
/// when rounded, −0.1 otherwise) so that every reading is a valid one.
///
/// Heights: a beacon stands at its floor's `elevation` (0 when the venue gives none) plus its `z`
/// (or the venue's default `z`); the receiver at its floor's elevation plus ``receiverHeight``.
///
/// ```swift
/// var radio = RadioModel(shadowing: 2.5, multipathShare: 0.1, multipathLoss: 6)
/// radio.wallAttenuation = 4      // dB per wall between beacon and receiver
/// radio.packetLoss = 0.05
/// ```
public struct RadioModel: Hashable, Sendable {
    /// A beacon's calibration: RSSI at 1 m and path-loss exponent, either of which may be left to the venue.
    public struct Calibration: Hashable, Sendable {
        /// RSSI at 1 m in dBm, or `nil` for the venue's value.
        public var txPower: Double?
        /// Path-loss exponent, or `nil` for the venue's value.
        public var pathLossExponent: Double?

        /// Creates a calibration.
        public init(txPower: Double? = nil, pathLossExponent: Double? = nil) {
            self.txPower = txPower
            self.pathLossExponent = pathLossExponent
        }
    }

    /// RSSI at 1 m for every beacon, overriding the venue's values; `nil` (the default) keeps them.
    public var txPower: Double?
    /// Path-loss exponent for every beacon, overriding the venue's values; `nil` keeps them.
    public var pathLossExponent: Double?
    /// Calibrations of single beacons by venue id; they win over the venue and the model-wide values.
    public var calibrations: [String: Calibration]
    /// Standard deviation of the log-normal shadowing, dB (Gaussian noise on RSSI); default 0.
    public var shadowing: Double
    /// Standard deviation of the persistent shadowing, dB; default 0. Unlike ``shadowing``, which
    /// is drawn afresh for every sample, this offset of a beacon's mean RSSI depends only on where
    /// the receiver is — the furniture, people and walls no venue lists — so a receiver standing
    /// still keeps it, and averaging its samples does not take it away. It is a smooth random
    /// field per beacon and floor that decorrelates over ``shadowingCorrelationDistance``, fixed by
    /// ``shadowingFieldSeed`` (else the simulator's seed).
    public var persistentShadowing: Double
    /// The distance over which the persistent shadowing changes, venue units; default 2 (the
    /// field is interpolated between independent values on a grid of this spacing).
    public var shadowingCorrelationDistance: Double
    /// The seed of the persistent shadowing field; `nil` (the default) takes the simulator's
    /// seed. Give several simulations of one venue the same value — a site survey and the walks
    /// located with it — and they share the venue's field, as recordings made in one building do.
    public var shadowingFieldSeed: UInt64?
    /// Share (0…1) of samples hit by a multipath fade; default 0.
    public var multipathShare: Double
    /// How many dB a multipath fade takes off; default 6.
    public var multipathLoss: Double
    /// Probability (0…1) that a sample is not received at all; default 0.
    public var packetLoss: Double
    /// Seconds between scans; default 1.
    public var scanInterval: Double
    /// dB lost per wall (an edge of a polygon place on the receiver's floor) that the straight
    /// line from the beacon to the receiver crosses; default 0. An edge shared by two polygons counts once.
    public var wallAttenuation: Double
    /// dB lost per floor level between the beacon's floor and the receiver's; default 0.
    public var floorAttenuation: Double
    /// The weakest RSSI the receiver hears, dBm; samples below it are dropped. Default −100.
    public var sensitivity: Double
    /// The receiver's height above its floor, venue units; default 1.2 (a phone in the hand).
    public var receiverHeight: Double
    /// Distances shorter than this (venue units) count as this, so that the log stays finite; default 0.1.
    public var minimumDistance: Double
    /// Whether RSSI is rounded to whole dBm (as phones report it); default `true`.
    public var roundsRSSI: Bool
    /// Whether readings carry the beacon's `txPower`, as iBeacon frames advertise their measured power; default `true`.
    public var reportsTxPower: Bool
    /// How many dB this receiver reads above what the beacons' calibration says, before noise and
    /// the sensitivity cut: a phone's own gain (models differ by several dB); default 0.
    public var receiverOffset: Double = 0
    /// How steeply this receiver's RSSI falls with the losses on the way (distance, walls, floors,
    /// persistent shadowing), relative to the beacons' calibration: a phone reads
    /// `txPower − receiverGain·loss`, so a gain of 0.9 hears a far beacon louder than the
    /// calibration says and 1.1 quieter (phones' RSSI scales differ by about ±10 %); default 1.
    public var receiverGain: Double = 1

    /// Creates a radio model; the defaults are a noiseless, lossless receiver scanning once a second.
    public init(txPower: Double? = nil, pathLossExponent: Double? = nil, calibrations: [String: Calibration] = [:],
                shadowing: Double = 0, persistentShadowing: Double = 0, shadowingCorrelationDistance: Double = 2,
                multipathShare: Double = 0, multipathLoss: Double = 6,
                packetLoss: Double = 0, scanInterval: Double = 1, wallAttenuation: Double = 0,
                floorAttenuation: Double = 0, sensitivity: Double = -100, receiverHeight: Double = 1.2,
                minimumDistance: Double = 0.1, roundsRSSI: Bool = true, reportsTxPower: Bool = true) {
        self.txPower = txPower
        self.pathLossExponent = pathLossExponent
        self.calibrations = calibrations
        self.shadowing = shadowing
        self.persistentShadowing = persistentShadowing
        self.shadowingCorrelationDistance = shadowingCorrelationDistance
        shadowingFieldSeed = nil
        self.multipathShare = multipathShare
        self.multipathLoss = multipathLoss
        self.packetLoss = packetLoss
        self.scanInterval = scanInterval
        self.wallAttenuation = wallAttenuation
        self.floorAttenuation = floorAttenuation
        self.sensitivity = sensitivity
        self.receiverHeight = receiverHeight
        self.minimumDistance = minimumDistance
        self.roundsRSSI = roundsRSSI
        self.reportsTxPower = reportsTxPower
    }

    /// The RSSI at 1 m this model uses for a beacon of a venue.
    public func txPower(of beacon: Venue.Beacon, defaults: Venue.Defaults) -> Double {
        calibrations[beacon.id]?.txPower ?? txPower ?? beacon.txPower ?? defaults.txPower
    }

    /// The path-loss exponent this model uses for a beacon of a venue.
    public func pathLossExponent(of beacon: Venue.Beacon, defaults: Venue.Defaults) -> Double {
        calibrations[beacon.id]?.pathLossExponent ?? pathLossExponent ?? beacon.pathLossExponent ?? defaults.pathLossExponent
    }

    /// The mean RSSI of the log-distance model at `distance` (clamped to ``minimumDistance``),
    /// before walls, floors and noise: `txPower − 10·n·log10(d)`.
    ///
    /// ```swift
    /// RadioModel().meanRSSI(distance: 10, txPower: -59, pathLossExponent: 2)   // −79
    /// ```
    public func meanRSSI(distance: Double, txPower: Double, pathLossExponent: Double) -> Double {
        let d = max(distance, minimumDistance)
        return txPower - 10 * pathLossExponent * log10(d)
    }

    /// One noisy sample around `mean`, or `nil` when the packet is lost or too weak to hear.
    ///
    /// Draws exactly four uniforms from `random` whatever happens, so that one beacon's fate never
    /// shifts the random numbers of the others.
    func sample(mean: Double, using random: inout SeededRandom) -> Double? {
        let lost = random.nextUniform() < packetLoss
        let faded = random.nextUniform() < multipathShare
        let noise = random.nextGaussian()
        guard !lost else { return nil }
        var rssi = mean + shadowing * noise - (faded ? multipathLoss : 0)
        if roundsRSSI { rssi = rssi.rounded() }
        guard rssi.isFinite, rssi >= sensitivity else { return nil }
        return min(rssi, roundsRSSI ? -1 : -0.1)
    }
}
