import Foundation
import SegueCore
import SegueWire
import Testing

/// The security model (docs/reliability.md, "Security model"): CURVE on both sockets with a ZAP handler that admits
/// listed keys by role, a warning for plaintext beyond loopback, restrictive ipc modes.
@Suite(.ownThreads, .serialized) struct SecurityTests {
    /// A CURVE daemon admitting one controller and one observer key.
    struct CurveSetup {
        let daemon: DaemonProcess
        let server: (public: String, secret: String)
        let controller: (public: String, secret: String)
        let observer: (public: String, secret: String)

        init() throws {
            server = try ZMQCurve.keyPair()
            controller = try ZMQCurve.keyPair()
            observer = try ZMQCurve.keyPair()
            let dir = DaemonProcess.temporaryDirectory()
            let keyFile = dir + "/server.key"
            try Data((server.secret + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
            let config = try Reliability.writeConfig(
                [
                    "security": [
                        "curve": [
                            "serverSecretKeyFile": .string(keyFile),
                            "clients": [
                                ["publicKey": .string(controller.public), "role": "controller"],
                                ["publicKey": .string(observer.public), "role": "observer"],
                            ],
                        ]
                    ]
                ], in: dir)
            daemon = try DaemonProcess(dataDir: dir, arguments: ["--config", config], waitReady: false)
            let probe = try peer(controller)
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline {
                if try probe.call(["cmd": "ping"], timeout: .milliseconds(200))?["ok"] == true { return }
            }
            throw Reliability.Failure("the CURVE daemon did not answer:\n\(daemon.log)")
        }

        func peer(_ keys: (public: String, secret: String), kind: ZMQSocket.Kind = .dealer, topics: [String] = [])
            throws -> CurvePeer
        {
            let endpoint = kind == .sub ? daemon.publishEndpoint : daemon.commandEndpoint
            return try CurvePeer(
                endpoint: endpoint, kind: kind, serverPublicKey: server.public, keys: keys, topics: topics)
        }
    }

    @Test func unlistedKeyAndPlaintextAreRefused() throws {
        let setup = try CurveSetup()
        let stranger = try setup.peer(try ZMQCurve.keyPair())
        #expect(try stranger.call(["cmd": "ping"], timeout: .seconds(1)) == nil)
        let plain = try TestClient(endpoint: setup.daemon.commandEndpoint)
        #expect(throws: TestClient.Timeout.self) { try plain.call(["cmd": "ping"], timeout: .seconds(1)) }
        let strangerSub = try setup.peer(try ZMQCurve.keyPair(), kind: .sub, topics: ["hb/"])
        #expect(try strangerSub.nextTopic(timeout: .milliseconds(1500)) == nil)
        #expect(setup.daemon.log.contains("not listed in security.curve.clients"))
        #expect(setup.daemon.stop() == 0)
    }

    @Test func observerReadsAndSubscribesButCannotNavigate() throws {
        let setup = try CurveSetup()
        let controller = try setup.peer(setup.controller)
        #expect(try controller.call(["cmd": "create", "navigator": "main", "root": "Home"])?["ok"] == true)
        let observer = try setup.peer(setup.observer)
        let push = try observer.call(["cmd": "push", "navigator": "main", "screen": "Detail"])
        #expect(push?["ok"] == false)
        #expect(push?["error"]?["code"] == "forbidden")
        #expect(try observer.call(["cmd": "state", "navigator": "main"])?["revision"] == 1)
        #expect(try observer.call(["cmd": "history"])?["ok"] == true)
        let subscriber = try setup.peer(setup.observer, kind: .sub, topics: ["hb/"])
        #expect(try subscriber.nextTopic(timeout: .seconds(3)) == "hb/")
        #expect(setup.daemon.stop() == 0)
    }

    @Test func controllerNavigates() throws {
        let setup = try CurveSetup()
        let controller = try setup.peer(setup.controller)
        #expect(try controller.call(["cmd": "create", "navigator": "main", "root": "Home"])?["ok"] == true)
        let push = try controller.call(["cmd": "push", "navigator": "main", "screen": "Detail", "animated": false])
        #expect(push?["ok"] == true, "\(String(describing: push))")
        #expect(push?["revision"] == 3)
        #expect(setup.daemon.stop() == 0)
    }

    @Test(arguments: [
        ("tcp://0.0.0.0:7400", true), ("tcp://*:7400", true), ("tcp://192.0.2.1:7400", true),
        ("tcp://127.0.0.1:7400", false), ("tcp://[::1]:7400", false), ("ipc:///run/segue/command.sock", false),
    ])
    func plaintextBeyondLoopbackIsWarned(endpoint: String, warned: Bool) throws {
        let result = try Reliability.run(
            DaemonProcess.binary("segued"),
            ["--check-config", "--command", endpoint, "--publish", "tcp://127.0.0.1:7401", "--data-dir", "/tmp/unused"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("warning") == warned, "\(result.output)")
    }

    /// Like OpenSSH's check of private key modes, but a warning: a secret key its group or every user
    /// can read, or others can replace, is named (the unit's group is the local clients').
    @Test(arguments: [
        (0o600, nil), (0o400, nil), (0o640, "can be read by group "), (0o644, "can be read by every user"),
        (0o604, "can be read by every user"), (0o620, "can be replaced by users other than its owner"),
    ])
    func aSecretKeyOthersCanReadIsWarned(mode: Int, who: String?) throws {
        for linked in [false, true] { try checkSecretKeyWarning(mode: mode, who: who, throughSymlink: linked) }
    }

    /// Through a symbolic link (as secret mounts place keys), the key's own mode counts, not the link's.
    private func checkSecretKeyWarning(mode: Int, who: String?, throughSymlink: Bool) throws {
        let dir = DaemonProcess.temporaryDirectory()
        let target = dir + "/server.key"
        try Data((try ZMQCurve.keyPair().secret + "\n").utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: target)
        var keyFile = target
        if throughSymlink {
            keyFile = dir + "/linked.key"
            try FileManager.default.createSymbolicLink(atPath: keyFile, withDestinationPath: target)
        }
        let client = try ZMQCurve.keyPair()
        let config = try Reliability.writeConfig(
            [
                "security": [
                    "curve": [
                        "serverSecretKeyFile": .string(keyFile),
                        "clients": [["publicKey": .string(client.public), "role": "controller"]],
                    ]
                ]
            ], in: dir)
        let result = try Reliability.run(
            DaemonProcess.binary("segued"), ["--check-config", "--config", config, "--data-dir", dir + "/data"])
        #expect(result.status == 0, "\(result.output)")
        if let who {
            #expect(result.output.contains("serverSecretKeyFile \(keyFile) \(who)"), "\(result.output)")
            #expect(result.output.contains("(mode 0\(String(mode, radix: 8))). Make it 0600"), "\(result.output)")
        } else {
            #expect(!result.output.contains("warning"), "\(result.output)")
        }
    }

    @Test func ipcSocketsAreGroupOnly() throws {
        let daemon = try DaemonProcess(transport: .ipc)
        for endpoint in [daemon.commandEndpoint, daemon.publishEndpoint] {
            let path = String(endpoint.dropFirst("ipc://".count))
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? Int) == 0o660, "\(path)")
            let directory = try FileManager.default.attributesOfItem(
                atPath: (path as NSString).deletingLastPathComponent)
            #expect((directory[.posixPermissions] as? Int) == 0o750)
        }
        #expect(daemon.stop() == 0)
    }
}
