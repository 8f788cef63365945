import CPostgres

/// Where and how to connect: a libpq conninfo (`host=/run/postgresql dbname=segue` or a
/// `postgresql://` URL), checked once, plus the failure-detection settings a store needs.
///
/// A password is refused in the conninfo itself: it would end up in config files, process lists
/// and logs. libpq reads it from a password file instead (`passfile=` or `PGPASSFILE`, by default
/// `~/.pgpass`). `redacted` is the only form of the settings that goes into a message.
package struct ConnectionSettings: Sendable, Equatable, CustomStringConvertible {
    /// The parsed conninfo, keyword and value, in libpq's order (empty values dropped).
    package let parameters: [(keyword: String, value: String)]
    /// How long an idle connection may stay silent before the kernel probes it, and how long
    /// unacknowledged data may stay unacknowledged before the kernel drops the connection
    /// (`keepalives_idle`, `tcp_user_timeout`): a server that vanished is noticed within these, not
    /// after the kernel's two-hour default. Unix sockets ignore both.
    package var keepaliveIdle: Duration
    package var tcpUserTimeout: Duration
    /// How long to wait for the server to accept a connection (`connect_timeout`, whole seconds, at
    /// least 2 as libpq rounds).
    package var connectTimeout: Duration
    /// `application_name` when the conninfo sets none: what `pg_stat_activity` shows.
    package var applicationName: String
    /// Where the server's notices go; nil leaves libpq's default, a line on stderr. Not part of
    /// what makes two settings equal: it says how to report, not where to connect.
    package var notices: PostgresNoticeHandler?

    package init(
        conninfo: String, keepaliveIdle: Duration = .seconds(5), tcpUserTimeout: Duration = .seconds(10),
        connectTimeout: Duration = .seconds(5), applicationName: String = "segued"
    ) throws(PostgresError) {
        parameters = try Self.parse(conninfo)
        // A secret in the conninfo ends up in config files, process lists and logs (and --check-config
        // prints the conninfo): the password goes in a password file, the key is kept without one.
        if let key = parameters.first(where: { $0.keyword == "password" || $0.keyword == "sslpassword" })?.keyword {
            var refusal = PostgresError(
                sqlState: SQLState.invalidAuthorization,
                message:
                    "The PostgreSQL connection string \(Self.redact(parameters)) sets \(key == "password" ? "a" : "an") \(key): "
                    + (key == "password"
                        ? "Segue takes passwords only from a password file. Remove it and put it in a file named by "
                            + "passfile= (or PGPASSFILE), mode 0600, one line host:port:dbname:user:password."
                        : "a secret in it ends up in config files, process lists and logs. Give sslkey= a key "
                            + "without a passphrase, readable by segued's user only (mode 0600)."))
            refusal.saysWhatToDo = true
            throw refusal
        }
        self.keepaliveIdle = keepaliveIdle
        self.tcpUserTimeout = tcpUserTimeout
        self.connectTimeout = connectTimeout
        self.applicationName = applicationName
    }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.parameters.elementsEqual(rhs.parameters) { $0 == $1 } && lhs.keepaliveIdle == rhs.keepaliveIdle
            && lhs.tcpUserTimeout == rhs.tcpUserTimeout && lhs.connectTimeout == rhs.connectTimeout
            && lhs.applicationName == rhs.applicationName
    }

    /// The value the conninfo gives `keyword`, if any.
    package func value(_ keyword: String) -> String? {
        parameters.last { $0.keyword == keyword }?.value
    }

    /// The conninfo as `key=value` pairs without anything secret: safe for logs and errors.
    package var redacted: String { Self.redact(parameters) }

    package var description: String { redacted }

    /// What libpq gets: the failure-detection defaults first, so that the conninfo's own values
    /// (later in the list) win, as libpq keeps the last value of a repeated keyword.
    func keywordsAndValues() -> [(String, String)] {
        let seconds = { (duration: Duration) in max(1, duration.components.seconds) }
        var list: [(String, String)] = [
            ("keepalives", "1"), ("keepalives_idle", "\(seconds(keepaliveIdle))"), ("keepalives_interval", "2"),
            ("keepalives_count", "3"), ("tcp_user_timeout", "\(Self.milliseconds(tcpUserTimeout))"),
            ("connect_timeout", "\(max(2, seconds(connectTimeout)))"), ("fallback_application_name", applicationName),
        ]
        list += parameters.map { ($0.keyword, $0.value) }
        return list
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    /// Keywords whose values may be shown; anything else (password, sslpassword, unknown) is not.
    static let shown: Set<String> = [
        "host", "hostaddr", "port", "dbname", "user", "passfile", "sslmode", "application_name",
        "target_session_attrs", "options", "connect_timeout",
    ]

    static func redact(_ parameters: [(keyword: String, value: String)]) -> String {
        let pairs = parameters.map { pair in
            shown.contains(pair.keyword) ? "\(pair.keyword)=\(quote(pair.value))" : "\(pair.keyword)=<redacted>"
        }
        return pairs.isEmpty ? "(libpq defaults)" : pairs.joined(separator: " ")
    }

    /// A value as conninfo syntax writes it: quoted when it has spaces, quotes or backslashes.
    static func quote(_ value: String) -> String {
        guard value.isEmpty || value.contains(where: { $0 == " " || $0 == "'" || $0 == "\\" }) else { return value }
        return "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
            + "'"
    }

    /// What in conninfo text libpq could not parse may be a secret: a URL's password (`user:secret@`),
    /// a `password`/`sslpassword` query parameter, or a keyword's value. Longest first, so that no
    /// part of one is left when a shorter one is masked.
    static func secrets(in conninfo: String) -> [String] {
        var found: [String] = []
        if let userinfo = conninfo.firstMatch(of: #/^[A-Za-z][A-Za-z0-9+.-]*://(?<user>[^@/?#]*)@/#)?.user,
            let colon = userinfo.firstIndex(of: ":")
        {
            found.append(String(userinfo[userinfo.index(after: colon)...]))
        }
        for match in conninfo.matches(
            of: #/(?i)(?:^|[?&\s])(?:ssl)?password\s*=\s*(?<value>'(?:[^'\\]|\\.)*'|[^&\s]+)/#)
        {
            found.append(String(match.value))
            if match.value.hasPrefix("'") { found.append(String(match.value.dropFirst().dropLast())) }
        }
        return found.filter { !$0.isEmpty }.sorted { $0.count > $1.count }
    }

    /// Whether `place` is a PostgreSQL URL: its scheme `postgresql://` or `postgres://`, in any case.
    package static func isURL(_ place: String) -> Bool {
        guard let end = place.range(of: "://") else { return false }
        return ["postgresql", "postgres"].contains(place[..<end.lowerBound].lowercased())
    }

    /// A URL's scheme in lower case, as libpq alone recognizes it (URL schemes are case-insensitive);
    /// anything else unchanged.
    static func lowercasingScheme(_ conninfo: String) -> String {
        guard isURL(conninfo), let end = conninfo.range(of: "://") else { return conninfo }
        return conninfo[..<end.lowerBound].lowercased() + conninfo[end.lowerBound...]
    }

    /// `PQconninfoParse`: libpq's own reading of both syntaxes; only a URL's scheme is lowered first,
    /// which libpq knows in lower case alone.
    static func parse(_ conninfo: String) throws(PostgresError) -> [(keyword: String, value: String)] {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(lowercasingScheme(conninfo), &errorMessage) else {
            var reason = errorMessage.map { String(cString: $0) } ?? "out of memory"
            if let errorMessage { PQfreemem(errorMessage) }
            // libpq quotes a URL it cannot read, or the token it could not decode: whatever could be a
            // secret in the text is masked first.
            for secret in secrets(in: conninfo) { reason = reason.replacingOccurrences(of: secret, with: "<redacted>") }
            // Not 08001: nothing was tried, so no server is to be checked.
            throw PostgresError(
                sqlState: SQLState.invalidParameterValue,
                message: "The PostgreSQL connection string is not valid: "
                    + reason.split(whereSeparator: \.isNewline).joined(separator: " ")
                    + ". Write it as key=value pairs (host=/run/postgresql dbname=segue) or as a postgresql:// URL.")
        }
        defer { PQconninfoFree(options) }
        var parameters: [(keyword: String, value: String)] = []
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val, value.pointee != 0 {
                parameters.append((String(cString: keyword), String(cString: value)))
            }
            option += 1
        }
        return parameters
    }
}
