#if canImport(Glibc)
import Glibc
#endif

/// Whose daemon a client trusts: its own user's, root's, or the `lprojd`
/// user's (the packaged service's). Another user could otherwise bind the
/// socket path first, or plant the published images, to pose as lprojd:
/// show this process their strings and be told its misses and selections.
enum DaemonTrust {
    /// Whether a socket, a listening process or published images of user `uid` are trusted.
    static func trusts(_ uid: UInt32) -> Bool {
        // The user database is read only when the owner is neither (a bundle's first views check this).
        uid == getuid() || uid == 0 || getpwnam("lprojd").map { $0.pointee.pw_uid == uid } == true
    }
}
