import Whereabouts

extension APIService {
    // MARK: auth.delete

    /// Pryv's account deletion (`DELETE /users/{username}`): a personal token of the user erases
    /// them and everything the server holds about them — events, attachment files, streams,
    /// accesses and tombstones, in one transaction (``EventStore/removeUser(named:)``), as
    /// `whereabouts users delete` does. Their tokens stop at once on this server (within a second
    /// on others sharing the store) and their `/live` connections close. Answers
    /// `{"userDeletion": {"username": …}}`.
    ///
    /// Another token (an app's, a shared one, or another user's) is refused with 403, as Pryv
    /// refuses a token that is not the account's personal one; an account already gone is 404.
    public func deleteAccount(username: String, access: Access) async throws(APIError) -> APIResult {
        guard access.type == .personal, access.userName == username else {
            throw APIError(id: APIError.Kind.invalidAccessToken.rawValue,
                           message: "Only the account's own personal token may delete it (`whereabouts users delete` on the server does too).",
                           status: .forbidden)
        }
        let removal: UserRemoval?
        do {
            removal = try await store.removeUser(named: username)
        } catch {
            throw .storeFailure(error)
        }
        guard let removal else { throw APIError(.unknownResource, "There is no user \"\(username)\".") }
        await streams.invalidate(username)
        await accessesDidEnd(removal.tokenHashes)
        return APIResult([("userDeletion", .object([("username", .string(username))]))])
    }
}
