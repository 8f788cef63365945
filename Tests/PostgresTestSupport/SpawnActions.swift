import Foundation

/// File actions for a `posix_spawn` of the tests: the child keeps stdin, stdout and stderr only.
///
/// Without it a child inherits every descriptor the test process has open at that instant, among
/// them the pipes of a concurrent test's subprocess; a child that outlives the spawn (a watchdog, a
/// server, a shell's background job) then keeps that pipe's write end, and its reader never sees
/// the end. Foundation's `Process` closes them itself; spawns of our own go through here.
package enum SpawnActions {
    /// Adds "close every descriptor from 3 up" to `actions` (glibc's
    /// `posix_spawn_file_actions_addclosefrom_np`, looked up at run time: Swift's Glibc module does
    /// not declare it). Returns false, leaving `actions` as it was, where the C library lacks it.
    @discardableResult
    package static func closeInherited(_ actions: inout posix_spawn_file_actions_t) -> Bool {
        guard let closeFrom = addCloseFrom else { return false }
        return closeFrom(&actions, 3) == 0
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    private static let addCloseFrom: AddCloseFrom? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
    }()
}
