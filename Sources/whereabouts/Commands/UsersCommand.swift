import ArgumentParser
import Logging
import WhereaboutsServer

/// `whereabouts users`
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Add users to the server's store and issue their tokens.",
        discussion: """
        Works on the same store as `serve` (--data-dir or --database); the server need not be \
        stopped. Tokens are printed once and stored only as hashes: keep them.

        Examples:
          whereabouts users add alice
          whereabouts users token alice --name phone --stream position --level contribute
          whereabouts users list --data-dir /var/lib/whereabouts
        """,
        subcommands: [Add.self, Token.self, List.self]
    )

    /// `whereabouts users add`
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a user and print a personal token (it manages all of the user's streams).",
            discussion: """
            Examples:
              whereabouts users add alice
              whereabouts users add alice --data-dir /var/lib/whereabouts
            """)

        @Argument(help: "The user's name: 1 to 60 lowercase letters, digits and '-'.")
        var name: String

        @OptionGroup var store: StoreOptions

        func run() async throws {
            let eventStore = try await store.open(logger: Logger(label: "whereabouts.users"), creating: true)
            do {
                let (_, token) = try await UserAdministration(store: eventStore).addUser(named: name)
                try await eventStore.close()
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
            discussion: """
            Without --stream the token has --level on every stream; with --stream, on that \
            stream and its descendants only (repeat --stream for several).

            Examples:
              whereabouts users token alice --name phone
              whereabouts users token alice --stream position --level read
            """)

        @Argument(help: "The user the token acts for.")
        var user: String

        @Option(name: .long, help: ArgumentHelp("A stream the token may use (repeatable).", valueName: "id"))
        var stream: [String] = []

        @Option(name: .long, help: ArgumentHelp("What the token may do.", valueName: "level"))
        var level: AccessLevel = .contribute

        @Option(name: .long, help: ArgumentHelp("A label for the token (e.g. the device).", valueName: "label"))
        var name = "app"

        @OptionGroup var store: StoreOptions

        func run() async throws {
            let permissions = (stream.isEmpty ? [Permission.allStreams] : stream).map {
                Permission(streamId: $0, level: level)
            }
            let eventStore = try await store.open(logger: Logger(label: "whereabouts.users"))
            do {
                let token = try await UserAdministration(store: eventStore).issueToken(
                    for: user, name: name, permissions: permissions)
                try await eventStore.close()
                print(token)
            } catch let error as UserAdministration.Failure {
                try? await eventStore.close()
                throw CommandFailure(error.description)
            }
        }
    }

    /// `whereabouts users list`
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the users of the store.",
            discussion: """
            Example:
              whereabouts users list --data-dir /var/lib/whereabouts
            """)

        @OptionGroup var store: StoreOptions

        func run() async throws {
            let eventStore = try await store.open(logger: Logger(label: "whereabouts.users"))
            let users = try await eventStore.users()
            try await eventStore.close()
            for user in users { print(user.name) }
        }
    }
}
