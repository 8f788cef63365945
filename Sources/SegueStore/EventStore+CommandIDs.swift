extension EventStore {
    /// A reader of every stored command id, on a read connection of its own: the daemon builds its
    /// filter of known ids from it in the background, without holding the store's shared read
    /// connection (history and state queries) for the length of the walk.
    package func commandIDs() throws(StoreError) -> CommandIDReader {
        try CommandIDReader(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
    }
}
