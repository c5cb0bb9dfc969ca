import ArgumentParser
import Foundation
import Whereabouts

/// `whereabouts tags`
struct TagsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tags",
        abstract: "Name the tags that receivers hear, and phones by their identity resolving keys, in a tags file.",
        discussion: HelpText.fitting("""
        A tags file (FORMATS.md §9; tags.json here unless --file) names tags by the identity \
        they advertise. Most phones advertise from a resolvable private address that changes \
        every ~15 minutes; the phone's identity resolving key (IRK) names each of them. Give \
        the file to `scan`, `record`, `relay` (live scans and captures resolve addresses), \
        `bridge` and `fuse` with --tags.

        A key is a secret (whoever holds it can follow the phone): the file is written readable \
        by its owner only, `list` shows the first digits of each key, and the venue never holds \
        keys.

        A phone's key, after pairing it with a Linux machine: BlueZ keeps it in \
        /var/lib/bluetooth/<adapter address>/<phone address>/info, under [IdentityResolvingKey], \
        least significant byte first; --bluez-info reads it from there (as root) in the right \
        order. --irk takes the key in hexadecimal, most significant byte first, as the Bluetooth \
        specification, ESPresense and Home Assistant's hexadecimal form write it (an irk: prefix \
        is dropped); --stored-irk least significant first, in hexadecimal or base64, as BlueZ \
        and an iPhone's keychain ("Remote IRK", the base64 Home Assistant also takes) keep it.

        Examples:
          whereabouts tags add anna-phone --bluez-info /var/lib/bluetooth/00:1A:7D:DA:71:13/5C:F3:70:11:22:33/info
          whereabouts tags add ben-phone --irk ec0234a357c8ad05341010a60a397d9b
          whereabouts tags add cleo-phone --stored-irk 'm305CqYQEDQFrchXozQC7A=='
          whereabouts tags add keys --uuid E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 --major 7 --minor 2
          whereabouts tags list
          whereabouts tags remove ben-phone
        """),
        subcommands: [Add.self, List.self, Remove.self]
    )

    /// The tags file the subcommands work on.
    struct FileOption: ParsableArguments {
        @Option(name: .long, help: ArgumentHelp("The tags file.", valueName: "tags.json"))
        var file = "tags.json"

        /// The file's tags; none when it does not exist yet and `missingIsEmpty`.
        func read(missingIsEmpty: Bool) throws -> [Venue.Tag] {
            if missingIsEmpty && !FileManager.default.fileExists(atPath: file) { return [] }
            return try InputFiles.tags(at: file)
        }

        /// Writes `tags` to the file.
        func write(_ tags: [Venue.Tag]) throws {
            do {
                try TagsFile.write(tags, to: URL(fileURLWithPath: file))
            } catch {
                throw CommandFailure("Cannot write \(file): \(error.localizedDescription)")
            }
        }
    }

    /// `whereabouts tags add`
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a tag (or give a new identity to one already there).",
            discussion: HelpText.fitting("""
            Give one identity: --irk, --stored-irk or --bluez-info (a phone), --uuid with --major and --minor \
            (iBeacon/AltBeacon), or --namespace with --instance (Eddystone-UID); or --by-id for a \
            tag the reports already name (an ESPresense alias such as keys), so that it is \
            published by name. A tag of that name already in the file is replaced; another tag \
            with the same identity is an error.
            """))

        @Argument(help: "The tag's name: what its fixes, events and Home Assistant entities carry.")
        var name: String

        @Option(name: .long, help: ArgumentHelp("The phone's identity resolving key: 32 hexadecimal digits, most significant first.", valueName: "hex"))
        var irk: String?

        @Option(name: .long, help: ArgumentHelp("The key least significant byte first (hexadecimal or base64), as BlueZ and the iPhone keychain keep it.",
                                                valueName: "key"))
        var storedIrk: String?

        @Option(name: .long, help: ArgumentHelp("Read the key from BlueZ's record of a paired phone.", valueName: "info"))
        var bluezInfo: String?

        @Option(name: .long, help: ArgumentHelp("An iBeacon/AltBeacon proximity UUID.", valueName: "uuid"))
        var uuid: String?

        @Option(name: .long, help: ArgumentHelp("The iBeacon major (0–65535).", valueName: "n"))
        var major: Int?

        @Option(name: .long, help: ArgumentHelp("The iBeacon minor (0–65535).", valueName: "n"))
        var minor: Int?

        @Option(name: .long, help: ArgumentHelp("An Eddystone-UID namespace (20 hexadecimal digits).", valueName: "hex"))
        var namespace: String?

        @Option(name: .long, help: ArgumentHelp("An Eddystone-UID instance (12 hexadecimal digits).", valueName: "hex"))
        var instance: String?

        @Flag(name: .long, help: "The reports already name the tag by this name: it has no identity to resolve.")
        var byId = false

        @OptionGroup var file: FileOption

        func validate() throws {
            guard !name.isEmpty, name.utf8.count <= 256 else { throw ValidationError("A tag's name is 1 to 256 bytes.") }
            let keys = [irk, storedIrk, bluezInfo].compactMap { $0 }.count
            let given = [keys > 0, uuid != nil || major != nil || minor != nil,
                         namespace != nil || instance != nil, byId].filter { $0 }.count
            guard given == 1, keys <= 1 else {
                throw ValidationError("Give one identity: --irk, --stored-irk, --bluez-info, --uuid/--major/--minor, --namespace/--instance or --by-id.")
            }
            if bluezInfo == nil { _ = try makeTag() }
        }

        func run() throws {
            let tag = try makeTag()
            var tags = try file.read(missingIsEmpty: true)
            let replaced = tags.firstIndex { $0.id == name }
            if let other = tags.first(where: { $0.id != name && Self.sameIdentity($0, tag) }) {
                throw CommandFailure("\(file.file): the tag \"\(other.id)\" already has this identity; remove it first "
                                     + "(`whereabouts tags remove \(other.id)`).")
            }
            if let replaced { tags[replaced] = tag } else { tags.append(tag) }
            // The file as it will be read back: every bound and check of the format.
            _ = try TagsFile.decode(Array(JSONWriter().string(from: TagsFile.encode(tags)).utf8), file: file.file)
            try file.write(tags)
            Terminal.error("\(replaced == nil ? "Added" : "Replaced") \(name) in \(file.file) (\(tags.count.counted("tag"))).")
        }

        private func makeTag() throws -> Venue.Tag {
            var tag = Venue.Tag(id: name)
            if let irk {
                let digits = irk.lowercased().hasPrefix("irk:") ? String(irk.dropFirst(4)) : irk
                guard let key = TagsFile.identityResolvingKey(hex: digits) else {
                    throw ValidationError("--irk takes 32 hexadecimal digits (16 bytes), most significant first; found \"\(irk.prefix(80))\".")
                }
                tag.identityResolvingKey = key
            } else if let storedIrk {
                let base64 = Data(base64Encoded: storedIrk.trimmingCharacters(in: .whitespaces)).map { [UInt8]($0) }
                guard let stored = TagsFile.identityResolvingKey(hex: storedIrk) ?? base64.flatMap({ $0.count == 16 ? $0 : nil }) else {
                    throw ValidationError("--stored-irk takes 16 bytes, least significant first: 32 hexadecimal digits or 24 characters of base64; found \"\(storedIrk.prefix(80))\".")
                }
                tag.identityResolvingKey = stored.reversed()
            } else if let bluezInfo {
                tag.identityResolvingKey = try BlueZInfo.identityResolvingKey(at: bluezInfo)
            } else if let uuid {
                guard let parsed = UUID(uuidString: uuid) else {
                    throw ValidationError("\"\(uuid)\" is not a UUID (expected the form E2C56DB5-DFFB-48D2-B060-D0F5A71096E0).")
                }
                guard let major, let minor, let majorValue = UInt16(exactly: major), let minorValue = UInt16(exactly: minor) else {
                    throw ValidationError("--uuid takes --major and --minor, each 0–65535.")
                }
                tag.iBeacon = IBeaconIdentity(uuid: parsed, major: majorValue, minor: minorValue)
            } else if byId {
                return tag
            } else if let namespace, let instance {
                guard let identity = EddystoneIdentity(namespace: namespace, instance: instance) else {
                    throw ValidationError("--namespace takes 20 hexadecimal digits and --instance 12.")
                }
                tag.eddystone = identity
            } else {
                throw ValidationError("--namespace and --instance go together.")
            }
            return tag
        }

        private static func sameIdentity(_ a: Venue.Tag, _ b: Venue.Tag) -> Bool {
            (a.identityResolvingKey != nil && a.identityResolvingKey == b.identityResolvingKey)
                || (a.iBeacon != nil && a.iBeacon == b.iBeacon) || (a.eddystone != nil && a.eddystone == b.eddystone)
        }
    }

    /// `whereabouts tags list`
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the tags of the file, each key shown by its first digits only.")

        @OptionGroup var file: FileOption

        func run() throws {
            let tags = try file.read(missingIsEmpty: false)
            guard !tags.isEmpty else {
                Terminal.error("\(file.file) names no tags.")
                return
            }
            for tag in tags {
                var identity: [String] = []
                if let iBeacon = tag.iBeacon { identity.append("iBeacon \(iBeacon.uuid.uuidString) \(iBeacon.major)/\(iBeacon.minor)") }
                if let eddystone = tag.eddystone { identity.append("Eddystone \(eddystone)") }
                if let key = tag.identityResolvingKey { identity.append("irk \(TagsFile.hexadecimal(key).prefix(4))…") }
                if identity.isEmpty { identity.append("by id") }
                print("\(tag.id)\t\(identity.joined(separator: ", "))")
            }
        }
    }

    /// `whereabouts tags remove`
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a tag from the file.")

        @Argument(help: "The tag's name.")
        var name: String

        @OptionGroup var file: FileOption

        func run() throws {
            var tags = try file.read(missingIsEmpty: false)
            guard let index = tags.firstIndex(where: { $0.id == name }) else {
                throw CommandFailure("\(file.file) names no tag \"\(name)\" (it names \(tags.map(\.id).joined(separator: ", "))).")
            }
            tags.remove(at: index)
            try file.write(tags)
            Terminal.error("Removed \(name) from \(file.file) (\(tags.count.counted("tag")) left).")
        }
    }
}

/// BlueZ's record of a paired device (`/var/lib/bluetooth/<adapter>/<device>/info`, an INI file).
enum BlueZInfo {
    /// The largest record read, in bytes.
    static let maximumLength = 65_536

    /// The device's identity resolving key, most significant byte first: BlueZ writes `Key=` of
    /// `[IdentityResolvingKey]` least significant byte first, as the kernel keeps it.
    static func identityResolvingKey(at path: String) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read (BlueZ's records are root's: try sudo)" : "no such file"
            throw CommandFailure("\(path): \(reason) (BlueZ's record of a paired phone)")
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: maximumLength + 1)) ?? Data()
        guard data.count <= maximumLength else { throw CommandFailure("\(path): longer than \(maximumLength) bytes, not a BlueZ info file") }
        return try identityResolvingKey(in: String(decoding: data, as: UTF8.self), path: path)
    }

    /// The key in the text of an info file.
    static func identityResolvingKey(in text: String, path: String) throws -> [UInt8] {
        var section = ""
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") && line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast())
            } else if section == "IdentityResolvingKey", line.hasPrefix("Key=") {
                guard let stored = TagsFile.identityResolvingKey(hex: String(line.dropFirst(4))) else {
                    throw CommandFailure("\(path): [IdentityResolvingKey] Key is not 32 hexadecimal digits")
                }
                return stored.reversed()
            }
        }
        throw CommandFailure("\(path): no [IdentityResolvingKey] — the phone shared no key when it paired "
                             + "(pair it again as a Bluetooth LE device, from the phone's Bluetooth settings)")
    }
}
