import Glibc
@testable import EmulatorSnapshot

/// A fresh directory under /tmp, removed on deinit.
final class TestDirectory {
    let path: String

    init() {
        var template = Array("/tmp/snapshot-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let base = buffer.baseAddress, mkdtemp(base) != nil else { return nil }
            return String(cString: base)
        }
        path = made ?? "/tmp/snapshot-test-fallback-\(getpid())"
    }

    deinit { SnapshotFileSystem().removeTree(path) }

    func write(_ relative: String, _ bytes: [UInt8]) throws {
        let fs = SnapshotFileSystem()
        let full = path + "/" + relative
        try fs.makeDirectories(SnapshotFileSystem.split(full).parent)
        fs.removeTree(full)
        try fs.writeFile(full, bytes)
    }

    func read(_ relative: String) throws -> [UInt8] { try SnapshotFileSystem().read(path + "/" + relative) }
}
