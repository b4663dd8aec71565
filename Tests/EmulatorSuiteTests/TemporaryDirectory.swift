#if canImport(Glibc)
import Glibc
#endif
@testable import EmulatorSuite

/// A fresh directory under /tmp, removed when the test's scope ends.
final class TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/emulators-suite-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap { mkdtemp($0) }
        }
        path = made.map { String(cString: $0) } ?? "/tmp/emulators-suite-test-fallback-\(getpid())"
        if made == nil { LocalFiles.makeDirectories(path) }
    }

    deinit {
        remove(path)
    }

    @discardableResult
    func write(_ name: String, _ text: String) -> String {
        let file = path + "/" + name
        LocalFiles.makeDirectories(LocalFiles.directory(of: file))
        LocalFiles.write(Array(text.utf8), to: file)
        return file
    }

    private func remove(_ path: String) {
        if LocalFiles.kind(path) == .directory {
            for name in LocalFiles.list(path) { remove(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
