import CLinux

/// Filesystems whose changes inotify does not see whole: it reports what
/// this host does, never what another host (an NFS client, the SMB server,
/// the far side of sshfs or of a VM's 9p / virtiofs share) does. Told by
/// `statfs`'s magic number; a root on one is polled under `[Watch] Poll=auto`.
public enum RemoteFilesystem {
    /// The name of the filesystem `path` is on when it is one of those, nil otherwise (or when `statfs` fails).
    public static func name(at path: String) -> String? {
        var magic: UInt64 = 0
        guard lproj_filesystem_type(path, &magic) == 0 else { return nil }
        return name(ofMagic: magic)
    }

    /// The name for a `statfs` magic number (`f_type`), when inotify does not see that filesystem whole.
    public static func name(ofMagic magic: UInt64) -> String? {
        magics[magic]
    }

    /// From `linux/magic.h` and the filesystems' own headers.
    private static let magics: [UInt64: String] = [
        0x6969: "NFS",
        0x517B: "SMB",
        0xFF53_4D42: "CIFS",
        0xFE53_4D42: "SMB2",
        0x6573_5546: "FUSE (sshfs, virtiofs, rclone…)",
        0x0102_1997: "9p",
        0x00C3_6400: "Ceph",
        0x5346_414F: "AFS",
        0x6B41_4653: "AFS",
        0x0BD0_0BD0: "Lustre",
        0x0116_1970: "GFS2",
        0x7461_636F: "OCFS2",
        0x7375_7245: "Coda",
    ]
}
