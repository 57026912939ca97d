/// Who is on the other end of a connection: its process, user and groups
/// (the effective group and the supplementary ones), as the kernel saw it
/// connect. The shell reads them from the socket; the core decides with them.
struct PeerCredentials: Sendable, Equatable {
    var pid: Int32
    var uid: UInt32
    var gid: UInt32
    var groups: Set<UInt32>
}
