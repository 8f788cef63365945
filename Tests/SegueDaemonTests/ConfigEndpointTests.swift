import Foundation
import Glibc
import Testing

@testable import SegueDaemon

@Suite struct ConfigEndpointTests {
    static let valid: [(String, Endpoint.Transport, Bool)] = [
        ("tcp://127.0.0.1:7400", .tcp, false),
        ("tcp://127.1.2.3:1", .tcp, false),
        ("tcp://localhost:65535", .tcp, false),
        ("tcp://lo:7400", .tcp, false),
        ("tcp://[::1]:7400", .tcp, false),
        ("tcp://*:7400", .tcp, true),
        ("tcp://0.0.0.0:*", .tcp, true),
        ("tcp://10.0.0.5:7400", .tcp, true),
        ("tcp://[::]:7400", .tcp, true),
        ("tcp://eth0:7400", .tcp, true),
        ("tcp://segue.example.com:7400", .tcp, true),
        ("tcp://127.0.0.1.example.com:7400", .tcp, true),
        ("ipc:///run/segue/command.sock", .ipc, false),
        ("ipc://@segue-command", .ipc, false),
        ("inproc://commands", .inproc, false),
    ]

    @Test(arguments: valid)
    func validEndpointsParse(text: String, transport: Endpoint.Transport, nonLoopback: Bool) throws {
        let endpoint = try Endpoint(parsing: text)
        #expect(endpoint.transport == transport)
        #expect(endpoint.description == text)
        #expect(endpoint.isNonLoopbackTCP == nonLoopback)
        #expect(Endpoint.isNonLoopbackTCP(text) == nonLoopback)
    }

    /// (endpoint, whether this machine can bind it): an address, an interface or `*`, never a host
    /// name, which only `cluster.advertise` (an endpoint others connect to) may use.
    static let binding: [(String, Bool)] = [
        ("tcp://127.0.0.1:7400", true), ("tcp://0.0.0.0:*", true), ("tcp://*:7400", true),
        ("tcp://[::1]:7400", true), ("tcp://lo:7400", true), ("ipc:///run/segue/command.sock", true),
        ("inproc://commands", true), ("tcp://localhost:7400", false), ("tcp://segue.example.com:7400", false),
        ("tcp://no-such-interface0:7400", false), ("tcp://127.0.0.1.example.com:7400", false),
    ]

    @Test(arguments: binding)
    func onlyAnAddressOrAnInterfaceIsBound(text: String, bindable: Bool) throws {
        #expect(try Endpoint(parsing: text).description == text, "parses either way")
        do throws(EndpointError) {
            _ = try Endpoint(binding: text)
            #expect(bindable)
        } catch {
            #expect(!bindable, "\(error)")
            #expect(error.reason.contains("not a host name: write tcp://127.0.0.1:7400 for loopback"), "\(error)")
        }
    }

    /// libzmq deletes whatever an ipc path names before it binds: a data file, a config. Only a socket
    /// (a stale one, or one in use, which the bind itself refuses) or nothing may be there.
    @Test func anIPCPathThatNamesAnythingButASocketIsRefused() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("segue.db", "data")
        try FileManager.default.createDirectory(atPath: directory.path + "/dir", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/link", withDestinationPath: file)
        let socket = directory.path + "/stale.sock"
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(socket.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0)
        let cases: [(String, String?)] = [
            (file, "a regular file"), (directory.path + "/dir", "a directory"),
            (directory.path + "/link", "a symbolic link"),
            (socket, nil), (directory.path + "/new.sock", nil),
        ]
        for (path, what) in cases {
            let text = "ipc://" + path
            do throws(EndpointError) {
                _ = try Endpoint(binding: text)
                #expect(what == nil, "\(text) was accepted")
            } catch {
                #expect(
                    error.reason
                        == "'\(text)' names \(what ?? "?"), not a socket: binding would delete it (libzmq replaces "
                        + "whatever is at an ipc path); choose a path where nothing else lives")
            }
        }
        #expect(FileManager.default.contents(atPath: file) == Data("data".utf8))
    }

    /// One socket file written several ways is one endpoint: binding it twice would fail the second
    /// bind at start (the first socket "in use") instead of at the config check.
    @Test func anIPCFileClashesHoweverItsPathIsWritten() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path + "/sub", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(
            atPath: directory.path + "/alias", withDestinationPath: directory.path + "/sub")
        let base = try Endpoint(parsing: "ipc://\(directory.path)/sub/c.sock")
        let cwd = FileManager.default.currentDirectoryPath
        let relative =
            "ipc://" + String(repeating: "../", count: cwd.split(separator: "/").count)
            + directory.path.dropFirst() + "/sub/c.sock"
        let same = [
            "ipc://\(directory.path)/sub/./c.sock", "ipc://\(directory.path)//sub/c.sock",
            "ipc://\(directory.path)/sub/../sub/c.sock", "ipc://\(directory.path)/alias/c.sock", relative,
        ]
        for text in same {
            let other = try Endpoint(parsing: text)
            #expect(base.clashes(with: other) && other.clashes(with: base), "\(text)")
            #expect(base.repeats(other), "\(text)")
        }
        for text in ["ipc://\(directory.path)/sub/d.sock", "ipc://\(directory.path)/c.sock", "ipc://@c.sock"] {
            #expect(!base.clashes(with: try Endpoint(parsing: text)), "\(text)")
        }
        #expect(try Endpoint(parsing: "ipc://@c").clashes(with: Endpoint(parsing: "ipc://@c")))
        #expect(
            configError(
                #"{"command": ["ipc://\#(directory.path)/sub/c.sock"], "publish": ["ipc://\#(directory.path)/alias/c.sock"]}"#
            )?.description
                == "config error at $.publish[0]: 'ipc://\(directory.path)/alias/c.sock' is also a command endpoint "
                + "(as 'ipc://\(directory.path)/sub/c.sock')")
    }

    static let invalid: [(String, String)] = [
        ("tcp://127.0.0.1:0", "'tcp://127.0.0.1:0' has port '0'; use 1 to 65535, or * for any free port"),
        ("tcp://127.0.0.1:+80", "'tcp://127.0.0.1:+80' has port '+80'; use 1 to 65535, or * for any free port"),
        ("tcp://:7400", "'tcp://:7400' needs a host: tcp://127.0.0.1:port or tcp://*:port"),
        ("tcp://a b:7400", "'tcp://a b:7400' has host 'a b'; use an address, a host name, an interface or *"),
        ("tcp://1*:7400", "'tcp://1*:7400' has host '1*'; use an address, a host name, an interface or *"),
        ("tcp://[::1:7400", "'tcp://[::1:7400' has a malformed IPv6 address; write tcp://[::1]:port"),
        (
            "ipc://" + String(repeating: "x", count: 108),
            "'ipc://\(String(repeating: "x", count: 108))' has an ipc path longer than 107 bytes"
        ),
        ("inproc://", "'inproc://' has no address after '://'"),
        (
            "pgm://eth0;239.192.1.1:5555",
            "'pgm://eth0;239.192.1.1:5555' has transport 'pgm'; segued binds tcp, ipc or inproc"
        ),
    ]

    @Test(arguments: invalid)
    func invalidEndpointsSayWhy(text: String, reason: String) {
        #expect(throws: EndpointError(reason)) { try Endpoint(parsing: text) }
        #expect(!Endpoint.isNonLoopbackTCP(text))
    }
}
