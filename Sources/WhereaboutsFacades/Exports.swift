// The facades' product brings the scan sources with it: the BlueZ scanner and `ScanSource` on
// Linux, `CoreLocationRangingSource` on iOS, so that an app ported from a seed scans live with
// `import WhereaboutsFacades` alone:
//
//     try await bluenet.startScanning(try ScanSource.adapter(.init(adapter: "hci0")))
//     try await bluenet.startScanning(CoreLocationRangingSource(uuids: [uuid]).liveScans())
@_exported import WhereaboutsBluetooth
