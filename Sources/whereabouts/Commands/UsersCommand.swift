import ArgumentParser
import Foundation
import Logging
import WhereaboutsServer

/// `whereabouts users`
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Add users to the server's store and issue their tokens.",
        discussion: HelpText.fitting("""
        Works on the same store as `serve` (--data-dir or --database); the server need not be \
        stopped. Tokens are printed once and stored only as hashes: keep them. A revoked token \
        stops working within a second on every server sharing the store, and its /live \
        connections are closed.

        Examples:
          whereabouts users add alice
          whereabouts users token alice --name phone --stream position --level contribute --expires 30d
          whereabouts users revoke --user alice --name phone
          whereabouts users list --tokens --data-dir /var/lib/whereabouts
          whereabouts users delete alice --yes
          whereabouts users retention alice --keep 90d
          whereabouts users purge
          whereabouts users export alice -o alice.jsonl
          whereabouts users import alice.jsonl --database postgres://…
        """),
        subcommands: [Add.self, Token.self, Revoke.self, List.self, Delete.self, Retention.self, Purge.self, Export.self, Import.self]
    )

    /// `whereabouts users export`
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write everything the store holds of a user into one file.",
            discussion: HelpText.fitting("""
            The file (JSON Lines, FORMATS.md §10) holds the user's streams, every event with all \
            its fields and its attachments' bytes, and the user's tokens without their secrets. \
            `whereabouts users import` brings it into another store (SQLite or PostgreSQL) with \
            ids and times kept. Safe while the server runs.

            Examples:
              whereabouts users export alice -o alice.jsonl
              whereabouts users export alice -o - --data-dir /var/lib/whereabouts | gzip > alice.jsonl.gz
            """))

        @Argument(help: "The user.")
        var user: String

        @Option(name: .shortAndLong, help: ArgumentHelp("The file to write (- for standard output).", valueName: "file"))
        var output: String

        @OptionGroup var store: StoreOptions

        func run() async throws {
            let target = output == "-" ? nil : URL(fileURLWithPath: output)
            let partial = target.map { $0.deletingLastPathComponent().appendingPathComponent(".\($0.lastPathComponent).partial") }
            do {
                let handle: FileHandle
                if let partial {
                    guard FileManager.default.createFile(atPath: partial.path, contents: nil) else {
                        throw CommandFailure("\(output): cannot be written")
                    }
                    handle = try FileHandle(forWritingTo: partial)
                } else {
                    handle = FileHandle.standardOutput
                }
                let counts = try await store.withStore { eventStore in
                    try await UserArchive.export(user: user, from: eventStore) { line in handle.write(Data(line.utf8)) }
                }
                if let partial, let target {
                    try handle.synchronize()
                    try handle.close()
                    // One rename: an earlier file of that name is replaced whole, or kept if it fails.
                    guard rename(partial.path, target.path) == 0 else {
                        throw CommandFailure("\(output): cannot be written (\(String(cString: strerror(errno))))")
                    }
                }
                Terminal.error("Exported \(user): \(counts.streams.counted("stream")), \(counts.events.counted("event")), "
                    + "\(counts.attachments.counted("attachment")) (\(counts.attachmentBytes) bytes), \(counts.accesses.counted("token")) without secrets.")
            } catch {
                if let partial { try? FileManager.default.removeItem(at: partial) }
                throw error
            }
        }
    }

    /// `whereabouts users import`
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Bring a user's file from `users export` into this store.",
            discussion: HelpText.fitting("""
            Creates the user (the file's, or --as) with their streams, events and attachments, \
            ids and times as they were; the user must not exist yet, so importing twice changes \
            nothing the second time. Tokens are not in the file: issue new ones with \
            `whereabouts users token`.

            Examples:
              whereabouts users import alice.jsonl
              whereabouts users import alice.jsonl --as alice2 --database postgres://whereabouts@db/whereabouts
            """))

        @Argument(help: "The file `users export` wrote (- for standard input).")
        var file: String

        @Option(name: .customLong("as"), help: ArgumentHelp("Import as this user instead of the file's.", valueName: "name"))
        var name: String?

        @OptionGroup var store: StoreOptions

        func run() async throws {
            let reader: FileLines
            do {
                reader = try FileLines(path: file)
            } catch {
                throw CommandFailure("\(file): no such file, or not readable")
            }
            // A new server's store is made, as by `users add`.
            do {
                let counts = try await store.withStore(creating: true) { try await UserArchive.importArchive(reader, into: $0, as: name) }
                Terminal.error("Imported \(counts.streams.counted("stream")), \(counts.events.counted("event")), "
                    + "\(counts.attachments.counted("attachment")) (\(counts.attachmentBytes) bytes); "
                    + "\(counts.accesses.counted("token")) not imported: issue new ones with `whereabouts users token`.")
            } catch let error as UserArchive.ArchiveError {
                throw CommandFailure("\(file): \(error)")
            }
        }
    }

    /// `whereabouts users retention`
    struct Retention: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show or set how long a user's events are kept, or one stream's.",
            discussion: HelpText.fitting("""
            Events that ended longer ago than their retention are purged by the server every \
            hour, and at once by `whereabouts users purge`, each leaving a tombstone that clients \
            syncing incrementally read (GET /events?modifiedSince=…&includeDeletions=true). A \
            stream's retention (--stream) applies to it and the streams under it that have none \
            of their own; other streams follow the user's, else the server's --keep. An event in \
            several streams goes by the shortest limit among them. Without --keep, --forever, \
            --server-default or --inherit it prints the user's retention and their streams'.

            Examples:
              whereabouts users retention alice --keep 90d
              whereabouts users retention alice --keep 30d --stream position
              whereabouts users retention alice --forever --stream diary
              whereabouts users retention alice --inherit --stream position
              whereabouts users retention alice
            """))

        @Argument(help: "The user.")
        var user: String

        @Option(name: .long, help: ArgumentHelp("Keep the user's events (or the stream's) this long: seconds, or 30m, 12h, 90d, 52w.",
                                                valueName: "duration"))
        var keep: String?

        @Flag(name: .long, help: "Keep the user's events as the server's --keep says (for ever by default).")
        var serverDefault = false

        @Flag(name: .long, help: "Keep the user's events (or the stream's) for ever, whatever the server's --keep.")
        var forever = false

        @Option(name: .long, help: ArgumentHelp("Set the retention of this stream (and the streams under it) rather than the user's.",
                                                valueName: "id"))
        var stream: String?

        @Flag(name: .long, help: "With --stream: keep the stream's events as its parent's, else the user's.")
        var inherit = false

        @OptionGroup var store: StoreOptions

        func validate() throws {
            if [keep != nil, serverDefault, forever, inherit].filter({ $0 }).count > 1 {
                throw ValidationError("Give one of --keep, --forever, --server-default and --inherit.")
            }
            if let keep, Token.seconds(in: keep) == nil {
                throw ValidationError("--keep must be a duration: seconds, or with a unit (30m, 12h, 90d, 52w).")
            }
            if inherit, stream == nil { throw ValidationError("--inherit is for a stream: give --stream ID.") }
            if serverDefault, stream != nil {
                throw ValidationError("--server-default is for the user; for a stream, --inherit follows its parent's, else the user's.")
            }
        }

        func run() async throws {
            let setting: Double?? = if let keep { .some(Token.seconds(in: keep)) } else if forever { .some(.infinity) }
                else if serverDefault || inherit { .some(nil) } else { nil }
            let (current, streams) = try await store.withStore { eventStore in
                if let setting {
                    if let stream {
                        let ids = try await eventStore.streams(of: user).map(\.id)
                        guard ids.contains(stream) else {
                            throw CommandFailure("\(user) has no stream \(stream.debugDescription); theirs: "
                                + ids.prefix(20).joined(separator: ", ") + (ids.count > 20 ? ", …" : "") + ".")
                        }
                        try await eventStore.setRetention(setting, for: user, stream: stream)
                    } else {
                        try await eventStore.setRetention(setting, for: user)
                    }
                }
                return (try await eventStore.retention(of: user), try await eventStore.streamRetentions(of: user))
            }
            print(Self.describe(current, user: user))
            for (id, seconds) in streams.sorted(by: { $0.key < $1.key }) {
                print("  stream \(id): \(Self.amount(seconds)) (and the streams under it without their own)")
            }
            if let stream, streams[stream] == nil {
                print("  stream \(stream): as its parent's, else the user's")
            }
        }

        /// `alice: events kept 90 days, then purged`, `… for ever`, `… as the server's --keep says`.
        static func describe(_ seconds: Double?, user: String) -> String {
            guard let seconds else { return "\(user): events kept as the server's --keep says (for ever without it)" }
            return "\(user): events \(amount(seconds))"
        }

        /// `kept 90 days, then purged`, `kept for ever`.
        static func amount(_ seconds: Double) -> String {
            guard seconds.isFinite else { return "kept for ever" }
            let days = seconds / 86_400
            let amount = days >= 1 && days == days.rounded() ? "\(Int(days)) day\(days == 1 ? "" : "s")"
                : "\(Int(seconds.rounded())) seconds"
            return "kept \(amount), then purged"
        }
    }

    /// `whereabouts users purge`
    struct Purge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Purge now the events past each user's retention.",
            discussion: HelpText.fitting("""
            What the server does every hour, now: each user's events that ended longer ago than \
            their retention (`users retention`, else --keep) are deleted, oldest first, a \
            thousand to a transaction, each leaving a tombstone. Safe while the server runs; an \
            interrupted purge carries on at the next.

            Examples:
              whereabouts users purge
              whereabouts users purge --keep 365d --data-dir /var/lib/whereabouts
            """))

        @Option(name: .long, help: ArgumentHelp("The retention of users without their own, as the server's --keep.", valueName: "duration"))
        var keep: String?

        @OptionGroup var store: StoreOptions

        func validate() throws {
            if let keep, Token.seconds(in: keep) == nil {
                throw ValidationError("--keep must be a duration: seconds, or with a unit (30m, 12h, 90d, 52w).")
            }
        }

        func run() async throws {
            let defaultKeep = keep.flatMap(Token.seconds(in:))
            let report = try await store.withStore { eventStore in
                try await RetentionPurge(store: eventStore, defaultKeep: defaultKeep).run { user, events in
                    if events > 0 { Terminal.error("\(user): \(events.counted("event")) purged.") }
                }
            }
            Terminal.error("Purged \(report.events.counted("event")) of \(report.users.counted("user")) with a retention.")
        }
    }

    /// `whereabouts users delete`
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Erase a user: every event, attachment, stream, token and tombstone of theirs.",
            discussion: HelpText.fitting("""
            Works on the same store as `serve` (--data-dir or --database); the server need not be \
            stopped. The user's tokens stop working within a second on every server sharing the \
            store, and their /live connections are closed. Nothing of the user is left in the \
            store's files: SQLite overwrites the pages it frees and truncates its log, and the \
            user's attachment folder goes. It cannot be undone, so --yes is required.

            Example:
              whereabouts users delete alice --yes --data-dir /var/lib/whereabouts
            """))

        @Argument(help: "The user to erase.")
        var user: String

        @Flag(name: .long, help: "Erase without asking: the user's data cannot be brought back.")
        var yes = false

        @OptionGroup var store: StoreOptions

        func validate() throws {
            if !yes {
                throw ValidationError("Erasing \(user) cannot be undone: give --yes to erase every event, attachment, stream and token of theirs.")
            }
        }

        func run() async throws {
            let removal = try await store.withStore { try await UserAdministration(store: $0).deleteUser(named: user) }
            Terminal.error("Erased \(user): \(removal.events.counted("event")), \(removal.streams.counted("stream")), "
                + "\(removal.accesses.counted("token")), \(removal.deletions.counted("tombstone")).")
        }
    }

    /// `whereabouts users add`
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a user and print a personal token (it manages all of the user's streams).",
            discussion: HelpText.fitting("""
            Examples:
              whereabouts users add alice
              whereabouts users add alice --data-dir /var/lib/whereabouts
            """))

        @Argument(help: "The user's name: 1 to 60 lowercase letters, digits and '-'.")
        var name: String

        @OptionGroup var store: StoreOptions

        func run() async throws {
            let eventStore = try await store.open(logger: Logger(label: "whereabouts.users"), creating: true)
            do {
                let (_, token) = try await UserAdministration(store: eventStore).addUser(named: name)
                try await eventStore.close()
                Terminal.error("Added \(name). Their personal token (it manages every stream; shown only now, keep it):")
                print(token)
            } catch let error as StoreError {
                try? await eventStore.close()
                throw CommandFailure("Cannot add \"\(name)\": \(error).")
            } catch let error as UserAdministration.Failure {
                try? await eventStore.close()
                throw CommandFailure(error.description)
            }
        }
    }

    /// `whereabouts users token`
    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Issue a new token for a user and print it.",
            discussion: HelpText.fitting("""
            Without --stream the token has --level on every stream; with --stream, on that \
            stream and its descendants only (repeat --stream for several).

            --expires makes the token stop working after a while: a number of seconds, or with \
            a unit (30m, 12h, 30d, 4w); it works until then unless revoked.

            Examples:
              whereabouts users token alice --name phone
              whereabouts users token alice --stream position --level read
              whereabouts users token alice --name visitor --expires 7d
            """))

        @Argument(help: "The user the token acts for.")
        var user: String

        @Option(name: .long, help: ArgumentHelp("A stream the token may use (repeatable).", valueName: "id"))
        var stream: [String] = []

        @Option(name: .long, help: ArgumentHelp("What the token may do.", valueName: "level"))
        var level: AccessLevel = .contribute

        @Option(name: .long, help: ArgumentHelp("A label for the token (e.g. the device).", valueName: "label"))
        var name = "app"

        @Option(name: .long, help: ArgumentHelp("Stop working after this long: seconds, or 30m, 12h, 30d, 4w.", valueName: "duration"))
        var expires: String?

        @OptionGroup var store: StoreOptions

        func validate() throws {
            if let expires, Self.seconds(in: expires) == nil {
                throw ValidationError("--expires must be a positive duration: seconds, or a number with m, h, d or w (e.g. 30d).")
            }
        }

        /// The seconds of a duration such as `90`, `30m`, `12h`, `30d` or `4w`; `nil` when it is not one.
        static func seconds(in text: String) -> Double? {
            let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800]
            var number = Substring(text)
            var unit = 1.0
            if let last = text.last, let factor = units[last] {
                number = number.dropLast()
                unit = factor
            }
            guard let value = Double(number), value > 0, (value * unit).isFinite, value * unit <= 100 * 365 * 86_400 else { return nil }
            return value * unit
        }

        func run() async throws {
            let permissions = (stream.isEmpty ? [Permission.allStreams] : stream).map {
                Permission(streamId: $0, level: level)
            }
            let until = expires.flatMap(Self.seconds(in:)).map { Date().timeIntervalSince1970 + $0 }
            let eventStore = try await store.open(logger: Logger(label: "whereabouts.users"))
            do {
                let token = try await UserAdministration(store: eventStore).issueToken(
                    for: user, name: name, permissions: permissions, expires: until)
                try await eventStore.close()
                let scope = stream.isEmpty ? "every stream" : stream.joined(separator: ", ")
                Terminal.error("\(user)'s token \"\(name)\" (\(level.rawValue) on \(scope)"
                               + (expires.map { ", for \($0)" } ?? "") + "; shown only now, keep it):")
                print(token)
            } catch let error as UserAdministration.Failure {
                try? await eventStore.close()
                throw CommandFailure(error.description)
            }
        }
    }

    /// `whereabouts users revoke`
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a token, or every token of a user with a label.",
            discussion: HelpText.fitting("""
            The token stops working within a second on every server sharing the store, and the \
            /live connections it opened are closed. Give the token itself (its hash is looked \
            up), or --user and --name to revoke by label (the label given to `users token --name`).

            Examples:
              whereabouts users revoke Qm9vb2sxMjM0NTY3ODkw
              whereabouts users revoke --user alice --name phone
            """))

        @Argument(help: "The token to revoke.")
        var token: String?

        @Option(name: .long, help: ArgumentHelp("The user whose labelled tokens to revoke (with --name).", valueName: "user"))
        var user: String?

        @Option(name: .long, help: ArgumentHelp("The label of the tokens to revoke (with --user).", valueName: "label"))
        var name: String?

        @OptionGroup var store: StoreOptions

        func validate() throws {
            switch (token, user, name) {
            case (.some, nil, nil), (nil, .some, .some): break
            case (.some, _, _): throw ValidationError("Give the token, or --user and --name, not both.")
            default: throw ValidationError("Give the token to revoke, or --user and --name.")
            }
        }

        func run() async throws {
            let eventStore = try await store.open(logger: Logger(label: "whereabouts.users"))
            do {
                let administration = UserAdministration(store: eventStore)
                if let token {
                    try await administration.revoke(token: token)
                    Terminal.error("Revoked the token.")
                } else if let user, let name {
                    let count = try await administration.revoke(user: user, name: name)
                    Terminal.error("Revoked \(count.counted("token")) of \(user) labelled \"\(name)\".")
                }
                try await eventStore.close()
            } catch let error as UserAdministration.Failure {
                try? await eventStore.close()
                throw CommandFailure(error.description)
            }
        }
    }

    /// `whereabouts users list`
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the users of the store (with --tokens, each user's tokens too).",
            discussion: HelpText.fitting("""
            With --tokens, each user is followed by one line a token: its label, what it may do, \
            when it was issued and when it expires (the tokens themselves are not stored).

            Examples:
              whereabouts users list --data-dir /var/lib/whereabouts
              whereabouts users list --tokens
            """))

        @Flag(name: .long, help: "Also list each user's tokens: label, permissions, issued, expires.")
        var tokens = false

        @OptionGroup var store: StoreOptions

        func run() async throws {
            let eventStore = try await store.open(logger: Logger(label: "whereabouts.users"))
            let users = try await eventStore.users()
            var lines: [String] = []
            for user in users {
                lines.append(user.name)
                guard tokens else { continue }
                let now = Date().timeIntervalSince1970
                for access in try await eventStore.accesses(of: user.name) {
                    let grants = access.permissions.map { "\($0.streamId):\($0.level.rawValue)" }.joined(separator: ",")
                    let expiry = access.expires.map { (access.hasExpired(at: now) ? "expired " : "expires ") + Self.date($0) } ?? "never expires"
                    lines.append("  \(access.name)  \(grants)  issued \(Self.date(access.created))  \(expiry)")
                }
            }
            try await eventStore.close()
            for line in lines { print(line) }
        }

        /// `2026-11-26T10:30:00Z`.
        static func date(_ time: Double) -> String {
            ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: time))
        }
    }
}
