import Testing
@testable import Whereabouts

@Suite struct FrameFuzzTests {
    /// 240,000 mutated advertisements (truncations, random bytes, corrupted length bytes, inserted
    /// and deleted bytes): each one parses to a frame that survives an encode → parse round trip,
    /// to `nil`, or to a typed error whose offset lies within the input. A trap would end the run.
    @Test func mutatedAdvertisementsNeverTrap() throws {
        var random = SeededRandom(seed: 0xF4A3_E5B1_0D0C_AFE1)
        let seeds = FrameVectors.all
        var frames = [BeaconFrameKind: Int](), errors = [String: Int](), empty = 0
        var input = [UInt8]()
        input.reserveCapacity(64)
        for iteration in 0..<240_000 {
            input.removeAll(keepingCapacity: true)
            input += seeds[iteration % seeds.count]
            for _ in 0...random.below(3) { mutate(&input, &random) }
            let kind: Advertisement.Kind = random.below(4) == 0 ? .legacy : .extended
            // The typed throw makes every failure an AdvertisementError.
            let result = Result { () throws(AdvertisementError) in try Advertisement.parse(input, kind: kind) }
            switch result {
            case .success(let frame?):
                frames[frame.kind, default: 0] += 1
                let again = try Advertisement.parse(try frame.encoded(), kind: .legacy)
                #expect(again == frame)
            case .success(nil):
                empty += 1
            case .failure(let error):
                #expect(error.offset >= 0 && error.offset <= input.count, "\(error) for \(input)")
                #expect(!error.description.isEmpty)
                errors[caseName(error), default: 0] += 1
                if iteration % 16 == 0, case .structureOverrun = error {
                    // The structure listing finds the same overrun.
                    #expect(throws: error) { try Advertisement.structures(input, kind: kind) }
                }
            }
        }
        // The mutations reach every outcome: every frame kind, no frame, and every error kind.
        for kind in BeaconFrameKind.allCases { #expect(frames[kind, default: 0] > 100, "\(kind)") }
        #expect(empty > 100)
        for name in ["dataTooLong", "structureOverrun", "invalidFrameLength", "invalidIBeaconLength",
                     "missingEddystoneFrameType", "invalidURLScheme", "invalidURLByte"] {
            #expect(errors[name, default: 0] > 0, "\(name)")
        }
    }

    private func caseName(_ error: AdvertisementError) -> String {
        switch error {
        case .dataTooLong: "dataTooLong"
        case .structureOverrun: "structureOverrun"
        case .invalidFrameLength: "invalidFrameLength"
        case .invalidIBeaconLength: "invalidIBeaconLength"
        case .missingEddystoneFrameType: "missingEddystoneFrameType"
        case .invalidURLScheme: "invalidURLScheme"
        case .invalidURLByte: "invalidURLByte"
        }
    }

    private func mutate(_ bytes: inout [UInt8], _ random: inout SeededRandom) {
        switch random.below(7) {
        case 0:  // truncate
            bytes.removeLast(random.below(bytes.count + 1))
        case 1:  // random byte
            if !bytes.isEmpty { bytes[random.below(bytes.count)] = random.nextByte() }
        case 2:  // flip one bit
            if !bytes.isEmpty { bytes[random.below(bytes.count)] ^= 1 << UInt8(random.below(8)) }
        case 3:  // corrupt a length byte: nudge it or replace it
            let starts = structureStarts(bytes)
            if !starts.isEmpty {
                let at = starts[random.below(starts.count)]
                bytes[at] = random.below(2) == 0 ? bytes[at] &+ UInt8(random.below(5)) &- 2 : UInt8(random.below(40))
            }
        case 4:  // insert a byte
            bytes.insert(random.nextByte(), at: random.below(bytes.count + 1))
        case 5:  // delete a byte
            if !bytes.isEmpty { bytes.remove(at: random.below(bytes.count)) }
        default:  // append random bytes
            for _ in 0..<random.below(4) + 1 { bytes.append(random.nextByte()) }
        }
    }

    /// The offsets of the length bytes, following lengths as far as they stay inside the data.
    private func structureStarts(_ bytes: [UInt8]) -> [Int] {
        var starts = [Int](), offset = 0
        while offset < bytes.count {
            starts.append(offset)
            offset += 1 + Int(bytes[offset])
        }
        return starts
    }
}
