/// Work waiting for one worker, taken one client at a time in turn, each client's in the order it
/// was asked: a client with a backlog holds another's item up by at most the one in progress.
struct TakingTurns<Client: Hashable, Item> {
    /// The clients with items waiting, the next one to serve first.
    private var turns: [Client] = []
    private var waiting: [Client: [Item]] = [:]

    var isEmpty: Bool { turns.isEmpty }

    mutating func append(_ item: Item, for client: Client) {
        if waiting[client, default: []].isEmpty { turns.append(client) }
        waiting[client, default: []].append(item)
    }

    /// The next client's first item; that client then waits for every other's turn.
    mutating func next() -> Item? {
        guard !turns.isEmpty else { return nil }
        let client = turns.removeFirst()
        let item = waiting[client]!.removeFirst()
        if waiting[client]!.isEmpty {
            waiting[client] = nil
        } else {
            turns.append(client)
        }
        return item
    }
}
