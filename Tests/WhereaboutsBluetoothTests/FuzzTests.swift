import Testing
@testable import Whereabouts
@testable import WhereaboutsBluetooth

extension SeededRandom {
    mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

/// Seeded random mutations of valid inputs (1 000 000 in all): decoding never traps, and every
/// outcome is a value or a typed error.
@Suite struct FuzzTests {
    private static func mutate(_ bytes: inout [UInt8], _ random: inout SeededRandom) {
        switch random.below(6) {
        case 0 where !bytes.isEmpty: bytes[random.below(bytes.count)] = random.byte()
        case 1 where !bytes.isEmpty: bytes.removeLast(random.below(bytes.count) + 1)
        case 2: bytes.insert(random.byte(), at: random.below(bytes.count + 1))
        case 3 where !bytes.isEmpty: bytes.remove(at: random.below(bytes.count))
        case 4 where bytes.count > 1: bytes[1] = random.byte()   // the length byte
        default: if bytes.count > 3 { bytes[2 + random.below(min(2, bytes.count - 2))] = UInt8(random.below(4)) }
        }
    }

    /// 800 000 mutated events (legacy reports of one and two reports, extended reports, command
    /// completions) through the decoder in both layouts and through the sighting decoder.
    @Test func hciEventDecoderNeverTraps() {
        var random = SeededRandom(seed: 0xB1E7_00F0_220D_5EED)
        let twoGrouped: [UInt8] = [0x3E, 0x1B, 0x02, 0x02, 0x03, 0x00, 0x01, 0x00, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16,
                                   0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x03, 0x02, 0x02, 0x01, 0x06, 0x01, 0x09, 0xC5, 0xB0]
        let seeds: [[UInt8]] = [
            Vectors.legacyEvent(data: Vectors.iBeacon(major: 1, minor: 2)),
            Vectors.legacyEvent(data: Vectors.eddystoneUID),
            Vectors.extendedEvent(data: Vectors.iBeacon(major: 3, minor: 4)),
            Vectors.extendedEvent(data: Vectors.eddystoneUID),
            twoGrouped,
            [0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00],
            [0x0F, 0x04, 0x00, 0x01, 0x42, 0x20],
        ]
        let decoder = SightingDecoder()
        var decoded = 0, failed = 0, readings = 0
        var input: [UInt8] = []
        for iteration in 0..<800_000 {
            input = seeds[iteration % seeds.count]
            for _ in 0...random.below(3) { Self.mutate(&input, &random) }
            let layout: AdvertisingReportLayout = iteration & 1 == 0 ? .groupedByField : .interleaved
            do {
                let event = try HCIEvent.decode(input, layout: layout)
                decoded += 1
                for report in event.advertisingReports where decoder.reading(from: report) != nil { readings += 1 }
            } catch {
                failed += 1
                if iteration % 64 == 0 { #expect(!error.description.isEmpty) }
            }
        }
        #expect(decoded > 10_000 && failed > 10_000 && readings > 1_000)
    }

    /// 200 000 mutated captures of three records each, read to the end or to the first error.
    @Test func btsnoopReaderNeverTraps() {
        var random = SeededRandom(seed: 0x0B75_0009_F022_0001)
        var seeds: [[UInt8]] = []
        for datalink in [BTSnoop.Datalink.h4, .monitor, .hciUnencapsulated] {
            var writer = BTSnoopWriter(datalink: datalink)
            writer.append(.event(Vectors.legacyEvent(data: Vectors.iBeacon(major: 1, minor: 1)), time: 1, datalink: datalink))
            writer.append(.event([0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00], time: 2, datalink: datalink))
            writer.append(.event(Vectors.extendedEvent(data: Vectors.eddystoneUID), time: 3, datalink: datalink))
            seeds.append(writer.bytes)
        }
        var complete = 0, failed = 0, events = 0
        for iteration in 0..<200_000 {
            var input = seeds[iteration % seeds.count]
            for _ in 0...random.below(3) {
                if random.below(2) == 0 {
                    Self.mutate(&input, &random)
                } else if input.count > 16 {
                    input[16 + random.below(input.count - 16)] = random.byte()   // inside the records
                }
            }
            do {
                var reader = try BTSnoopReader(bytes: input)
                while let record = try reader.next() {
                    if let event = record.eventPacket(datalink: reader.datalink), (try? HCIEvent.decode(event)) != nil { events += 1 }
                }
                complete += 1
            } catch {
                failed += 1
            }
        }
        #expect(complete > 1_000 && failed > 1_000 && events > 1_000)
    }
}
