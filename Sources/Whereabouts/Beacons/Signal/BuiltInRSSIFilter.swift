import Foundation

/// The name of one of the package's RSSI filters, as a command-line flag or a configuration file
/// spells it.
///
/// ```swift
/// let kind = RSSIFilterKind(name: "Kalman")        // .kalman
/// let filter = BuiltInRSSIFilter(kind: .median)    // 15 s window, 1.5 IQR fences
/// ```
public enum RSSIFilterKind: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// ``RunningAverageRSSIFilter``: AltBeacon's trimmed running average.
    case average
    /// ``ARMARSSIFilter``: AltBeacon's auto-regressive moving average.
    case arma
    /// ``KalmanRSSIFilter``: a scalar Kalman filter.
    case kalman
    /// ``MedianRSSIFilter``: a windowed median with IQR outlier rejection.
    case median
    /// ``RateKalmanRSSIFilter``: a Kalman filter on the level and its rate of change.
    case rate

    /// The kind named `name` (`average`, `arma`, `kalman`, `median` or `rate`, in any case, surrounding
    /// spaces ignored), or `nil` for any other name.
    public init?(name: String) {
        let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
        self.init(rawValue: trimmed)
    }

    /// The names of the parameters ``BuiltInRSSIFilter/init(kind:parameters:)`` accepts for this kind.
    public var parameterNames: [String] {
        switch self {
        case .average: ["window"]
        case .arma: ["coefficient"]
        case .kalman: ["processNoise", "measurementNoise"]
        case .median: ["window", "iqrMultiplier"]
        case .rate: ["rateNoise", "measurementNoise", "gapReset", "dropClip", "rateTimeConstant"]
        }
    }

    /// The name, as ``init(name:)`` reads it.
    public var description: String { rawValue }
}

/// One of the package's five RSSI filters, chosen at run time: what a caller builds from a
/// filter name and its parameters, and what an ``RSSIFilterBank`` copies for every new beacon.
///
/// ```swift
/// let filter = try BuiltInRSSIFilter(kind: .kalman, parameters: ["measurementNoise": 9])
/// var bank = RSSIFilterBank<BeaconReference, BuiltInRSSIFilter>(prototype: filter)
/// bank.add(rssi: -67, for: .id("23"), at: 0)
/// ```
public enum BuiltInRSSIFilter: RSSIFilter, Hashable, CustomStringConvertible {
    /// A trimmed running average.
    case average(RunningAverageRSSIFilter)
    /// An auto-regressive moving average.
    case arma(ARMARSSIFilter)
    /// A scalar Kalman filter.
    case kalman(KalmanRSSIFilter)
    /// A windowed median with IQR outlier rejection.
    case median(MedianRSSIFilter)
    /// A Kalman filter on the level and its rate of change.
    case rate(RateKalmanRSSIFilter)

    /// A new filter of the given kind with its default parameters.
    public init(kind: RSSIFilterKind) {
        switch kind {
        case .average: self = .average(RunningAverageRSSIFilter())
        case .arma: self = .arma(ARMARSSIFilter())
        case .kalman: self = .kalman(KalmanRSSIFilter())
        case .median: self = .median(MedianRSSIFilter())
        case .rate: self = .rate(RateKalmanRSSIFilter())
        }
    }

    /// A new filter of the given kind; parameters left out take their defaults.
    ///
    /// The parameter names are the kind's ``RSSIFilterKind/parameterNames``: `window` (seconds) for
    /// `average` and `median`, `coefficient` for `arma`, `processNoise` and `measurementNoise`
    /// (dB²) for `kalman`, `iqrMultiplier` for `median`; `rateNoise` (dB²/s³), `measurementNoise`
    /// (dB²), `gapReset` (seconds), `dropClip` (standard deviations) and `rateTimeConstant`
    /// (seconds) for `rate`.
    ///
    /// - Throws: ``RSSIFilterConfigurationError`` for a name the kind does not take or a value
    ///   out of range.
    public init(kind: RSSIFilterKind, parameters: [String: Double]) throws {
        let allowed = kind.parameterNames
        if let unknown = parameters.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw RSSIFilterConfigurationError.unknownParameter(unknown, kind: kind)
        }
        func invalid(_ name: String) -> RSSIFilterConfigurationError {
            .invalidValue(parameters[name] ?? .nan, parameter: name, kind: kind)
        }
        switch kind {
        case .average:
            guard let filter = RunningAverageRSSIFilter(
                window: parameters["window"] ?? RunningAverageRSSIFilter.defaultWindow)
            else { throw invalid("window") }
            self = .average(filter)
        case .arma:
            guard let filter = ARMARSSIFilter(
                coefficient: parameters["coefficient"] ?? ARMARSSIFilter.defaultCoefficient)
            else { throw invalid("coefficient") }
            self = .arma(filter)
        case .kalman:
            let processNoise = parameters["processNoise"] ?? KalmanRSSIFilter.defaultProcessNoise
            let measurementNoise = parameters["measurementNoise"] ?? KalmanRSSIFilter.defaultMeasurementNoise
            guard let filter = KalmanRSSIFilter(processNoise: processNoise, measurementNoise: measurementNoise)
            else {
                throw invalid(processNoise >= 0 && processNoise.isFinite ? "measurementNoise" : "processNoise")
            }
            self = .kalman(filter)
        case .median:
            let window = parameters["window"] ?? MedianRSSIFilter.defaultWindow
            let multiplier = parameters["iqrMultiplier"] ?? MedianRSSIFilter.defaultIQRMultiplier
            guard let filter = MedianRSSIFilter(window: window, iqrMultiplier: multiplier)
            else { throw invalid(window > 0 && window.isFinite ? "iqrMultiplier" : "window") }
            self = .median(filter)
        case .rate:
            let rateNoise = parameters["rateNoise"] ?? RateKalmanRSSIFilter.defaultRateNoise
            let measurementNoise = parameters["measurementNoise"] ?? RateKalmanRSSIFilter.defaultMeasurementNoise
            let gapReset = parameters["gapReset"] ?? RateKalmanRSSIFilter.defaultGapReset
            let dropClip = parameters["dropClip"] ?? RateKalmanRSSIFilter.defaultDropClip
            let tau = parameters["rateTimeConstant"] ?? RateKalmanRSSIFilter.defaultRateTimeConstant
            guard let filter = RateKalmanRSSIFilter(rateNoise: rateNoise, measurementNoise: measurementNoise,
                                                    gapReset: gapReset, dropClip: dropClip, rateTimeConstant: tau)
            else {
                let name = if !(tau > 0 && tau.isFinite) { "rateTimeConstant" }
                    else if !(rateNoise >= 0 && rateNoise.isFinite) { "rateNoise" }
                    else if !(measurementNoise > 0 && measurementNoise.isFinite) { "measurementNoise" }
                    else if !(gapReset > 0 && gapReset.isFinite) { "gapReset" }
                    else { "dropClip" }
                throw invalid(name)
            }
            self = .rate(filter)
        }
    }

    /// Which filter this is.
    public var kind: RSSIFilterKind {
        switch self {
        case .average: .average
        case .arma: .arma
        case .kalman: .kalman
        case .median: .median
        case .rate: .rate
        }
    }

    /// Every parameter with its value, under the names ``init(kind:parameters:)`` reads.
    public var parameters: [String: Double] {
        switch self {
        case .average(let filter): ["window": filter.window]
        case .arma(let filter): ["coefficient": filter.coefficient]
        case .kalman(let filter):
            ["processNoise": filter.processNoise, "measurementNoise": filter.measurementNoise]
        case .median(let filter): ["window": filter.window, "iqrMultiplier": filter.iqrMultiplier]
        case .rate(let filter):
            ["rateNoise": filter.rateNoise, "measurementNoise": filter.measurementNoise,
             "gapReset": filter.gapReset, "dropClip": filter.dropClip,
             "rateTimeConstant": filter.rateTimeConstant]
        }
    }

    /// Adds a sample heard at `time`; unusable samples are ignored (see ``RSSIFilter``).
    public mutating func add(rssi: Double, at time: Double) {
        switch self {
        case .average(var filter):
            // The enum lets go of the samples first, so that the copy holds the only reference and
            // changes them in place rather than copying them.
            self = .placeholder
            filter.add(rssi: rssi, at: time)
            self = .average(filter)
        case .arma(var filter):
            filter.add(rssi: rssi, at: time)
            self = .arma(filter)
        case .kalman(var filter):
            filter.add(rssi: rssi, at: time)
            self = .kalman(filter)
        case .median(var filter):
            // The enum lets go of the samples first, so that the copy holds the only reference and
            // changes them in place rather than copying them.
            self = .placeholder
            filter.add(rssi: rssi, at: time)
            self = .median(filter)
        case .rate(var filter):
            filter.add(rssi: rssi, at: time)
            self = .rate(filter)
        }
    }

    /// The filtered RSSI (dBm) after the samples so far, or `nil` before the first.
    public var value: Double? {
        switch self {
        case .average(let filter): filter.value
        case .arma(let filter): filter.value
        case .kalman(let filter): filter.value
        case .median(let filter): filter.value
        case .rate(let filter): filter.value
        }
    }

    /// The filtered RSSI (dBm) as of `time`, or `nil` when no sample counts then.
    public func value(at time: Double) -> Double? {
        switch self {
        case .average(let filter): filter.value(at: time)
        case .arma(let filter): filter.value(at: time)
        case .kalman(let filter): filter.value(at: time)
        case .median(let filter): filter.value(at: time)
        case .rate(let filter): filter.value(at: time)
        }
    }

    /// A filter that holds no samples, for the moments a payload is taken out to be changed.
    private static let placeholder = BuiltInRSSIFilter.arma(ARMARSSIFilter())

    /// Forgets every sample; the parameters stay.
    public mutating func reset() {
        switch self {
        case .average(var filter):
            // The enum lets go of the samples first, so that the copy holds the only reference and
            // changes them in place rather than copying them.
            self = .placeholder
            filter.reset()
            self = .average(filter)
        case .arma(var filter):
            filter.reset()
            self = .arma(filter)
        case .kalman(var filter):
            filter.reset()
            self = .kalman(filter)
        case .median(var filter):
            // The enum lets go of the samples first, so that the copy holds the only reference and
            // changes them in place rather than copying them.
            self = .placeholder
            filter.reset()
            self = .median(filter)
        case .rate(var filter):
            filter.reset()
            self = .rate(filter)
        }
    }

    /// The kind and its parameters in name order, e.g. `kalman(measurementNoise: 4.0, processNoise: 0.008)`.
    public var description: String {
        let list = parameters.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        return "\(kind)(\(list.joined(separator: ", ")))"
    }
}

/// Why ``BuiltInRSSIFilter/init(kind:parameters:)`` refused a configuration.
public enum RSSIFilterConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind takes no parameter of that name.
    case unknownParameter(String, kind: RSSIFilterKind)
    /// The value is out of the parameter's range.
    case invalidValue(Double, parameter: String, kind: RSSIFilterKind)

    /// A readable form, for logs and error messages.
    public var description: String {
        switch self {
        case .unknownParameter(let name, let kind):
            let names = kind.parameterNames.map { "'\($0)'" }.joined(separator: ", ")
            return "the '\(kind)' RSSI filter has no parameter '\(name)' (it takes \(names))"
        case .invalidValue(let value, let name, let kind):
            let range = switch (kind, name) {
            case (_, "window"): "a positive number of seconds"
            case (_, "coefficient"): "a number in (0, 1]"
            case (_, "processNoise"): "a variance of 0 or more"
            case (_, "measurementNoise"): "a positive variance"
            case (_, "rateNoise"): "a spectral density of 0 or more"
            case (_, "gapReset"), (_, "rateTimeConstant"): "a positive number of seconds"
            default: "a number of 0 or more"
            }
            return "the '\(kind)' RSSI filter's '\(name)' must be \(range), not \(value)"
        }
    }
}
