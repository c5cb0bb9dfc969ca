import Testing
@testable import WhereaboutsBluetooth

@Suite struct HCICommandTests {
    /// LE Set Scan Parameters (Core Vol 4, Part E, §7.8.10): packet type 0x01, opcode 0x200B
    /// (OGF 0x08 << 10 | OCF 0x000B) little-endian, length 7, type, interval, window, own address
    /// type, filter policy.
    @Test func setScanParameters() {
        let command = HCICommand.setScanParameters(type: .active, interval: 0x0010, window: 0x0010)
        #expect(command.packet == [0x01, 0x0B, 0x20, 0x07, 0x01, 0x10, 0x00, 0x10, 0x00, 0x00, 0x00])
        #expect(command.ogf == 0x08 && command.ocf == 0x000B)
        let passive = HCICommand.setScanParameters(type: .passive, interval: 0x00A0, window: 0x0050, ownAddressType: 1)
        #expect(passive.bytes == [0x0B, 0x20, 0x07, 0x00, 0xA0, 0x00, 0x50, 0x00, 0x01, 0x00])
    }

    /// LE Set Scan Enable (§7.8.11): enable, filter duplicates.
    @Test func setScanEnable() {
        #expect(HCICommand.setScanEnable(true).packet == [0x01, 0x0C, 0x20, 0x02, 0x01, 0x00])
        #expect(HCICommand.setScanEnable(false).packet == [0x01, 0x0C, 0x20, 0x02, 0x00, 0x00])
        #expect(HCICommand.setScanEnable(true, filterDuplicates: true).packet == [0x01, 0x0C, 0x20, 0x02, 0x01, 0x01])
    }

    /// LE Set Extended Scan Parameters (§7.8.64): own address type, filter policy, PHYs, then
    /// type/interval/window per PHY bit set (1M, then Coded).
    @Test func setExtendedScanParameters() {
        let oneM = HCICommand.setExtendedScanParameters(type: .passive, interval: 0x00A0, window: 0x0050)
        #expect(oneM.packet == [0x01, 0x41, 0x20, 0x08, 0x00, 0x00, 0x01, 0x00, 0xA0, 0x00, 0x50, 0x00])
        let both = HCICommand.setExtendedScanParameters(type: .active, interval: 0x0100, window: 0x0100, phys: [.le1M, .leCoded])
        #expect(both.bytes == [0x41, 0x20, 0x0D, 0x00, 0x00, 0x05,
                               0x01, 0x00, 0x01, 0x00, 0x01,
                               0x01, 0x00, 0x01, 0x00, 0x01])
    }

    /// LE Set Extended Scan Enable (§7.8.65): enable, filter duplicates, duration, period.
    @Test func setExtendedScanEnable() {
        #expect(HCICommand.setExtendedScanEnable(true).packet == [0x01, 0x42, 0x20, 0x06, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00])
        #expect(HCICommand.setExtendedScanEnable(true, duration: 0x0064, period: 0x0002).bytes
                == [0x42, 0x20, 0x06, 0x01, 0x00, 0x64, 0x00, 0x02, 0x00])
        #expect(HCICommand.readLocalSupportedFeatures.packet == [0x01, 0x03, 0x20, 0x00])
    }

    /// 100 ms / 0.625 ms = 160 units; 2.5 ms = 4 units is the shortest window; 10.24 s = 0x4000
    /// the longest interval.
    @Test func scanTiming() throws {
        #expect(ScanTiming().intervalUnits == 160 && ScanTiming().windowUnits == 160)
        let timing = try #require(ScanTiming(interval: 0.05, window: 0.025))
        #expect(timing.intervalUnits == 80 && timing.windowUnits == 40)
        #expect(ScanTiming(interval: 10.24, window: 0.0025)?.intervalUnits == 0x4000)
        #expect(ScanTiming(interval: 10.25, window: 0.1) == nil)
        #expect(ScanTiming(interval: 0.1, window: 0.2) == nil)
        #expect(ScanTiming(interval: 0.1, window: 0.001) == nil)
        #expect(ScanTiming(interval: .nan, window: 0.1) == nil)
    }

    @Test func addresses() {
        let address = BluetoothAddress(littleEndianBytes: [0x01, 0x00, 0x00, 0xEE, 0xFF, 0xC0])
        #expect(address?.description == "C0:FF:EE:00:00:01")
        #expect(BluetoothAddress("c0-ff-ee-00-00-01") == address)
        #expect(BluetoothAddress("C0FFEE000001") == address && BluetoothAddress("c0ffee000001") == address)
        #expect(BluetoothAddress("C0FFEE00000") == nil && BluetoothAddress("C0FFEE00000G") == nil && BluetoothAddress("C0FFEE0000001") == nil)
        #expect(address?.littleEndianBytes == [0x01, 0x00, 0x00, 0xEE, 0xFF, 0xC0])
        #expect(BluetoothAddress("C0:FF:EE:00:00") == nil && BluetoothAddress("C0:FF:EE:00:00:GG") == nil)
        #expect(BluetoothAddress(littleEndianBytes: [1, 2, 3]) == nil)
    }
}
