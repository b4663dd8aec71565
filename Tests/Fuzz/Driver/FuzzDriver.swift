import EmulatorFuzzTargets
import Glibc

/// `emulators-fuzz`: runs the fuzz targets of `Tests/Fuzz/Targets`.
///
/// Built with `-sanitize=fuzzer,address -DFUZZING` (see `Tests/Fuzz/run`) it is a libFuzzer
/// binary: `FUZZ_TARGET=hpack emulators-fuzz corpus/ -max_total_time=20`. Built plainly it
/// replays inputs: `emulators-fuzz hpack file-or-folder…`, lists the targets with `list`, or
/// checks that a reused emulator answers inputs as a new one (`compare <target> <inputs>`).
@main
enum FuzzDriver {
    static func main() {
        #if FUZZING
        runLibFuzzer()
        #else
        replay(Array(CommandLine.arguments.dropFirst()))
        #endif
    }

    static func replay(_ arguments: [String]) {
        if arguments.first == "compare" {
            compare(Array(arguments.dropFirst()))
            return
        }
        guard let name = arguments.first, name != "list" else {
            for target in FuzzTargets.all { print("\(target.name)\t\(target.summary)") }
            return
        }
        guard let target = FuzzTargets.named(name) else {
            printError("emulators-fuzz: no target named \(name); `emulators-fuzz list` lists them")
            exit(2)
        }
        var count = 0
        for path in arguments.dropFirst() {
            for file in FuzzFiles.files(at: path) {
                guard let bytes = FuzzFiles.read(file) else { continue }
                target.run(bytes)
                count += 1
            }
        }
        print("\(name): \(count) inputs, no crash")
    }
}

extension FuzzDriver {
    /// `emulators-fuzz compare <target> <file-or-folder>…`: for a target that reuses an emulator,
    /// runs every input on the reused emulator (in order, each after the ones before) and on a new
    /// one, and prints the inputs that got different answers; exits 1 if there were any.
    static func compare(_ arguments: [String]) {
        guard let name = arguments.first, let target = FuzzTargets.named(name), let outcomes = target.outcomes else {
            printError("emulators-fuzz compare: name a target that reuses an emulator")
            exit(2)
        }
        var count = 0, differing = 0
        for path in arguments.dropFirst() {
            for file in FuzzFiles.files(at: path) {
                guard let bytes = FuzzFiles.read(file) else { continue }
                count += 1
                let reused = outcomes(bytes, true), fresh = outcomes(bytes, false)
                if reused != fresh {
                    differing += 1
                    print("\(file): reused \(reused), new \(fresh)")
                }
            }
        }
        print("\(name): \(count) inputs, \(differing) answered differently by the reused emulator")
        if differing > 0 { exit(1) }
    }
}

/// Writes a line to standard error.
func printError(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

#if FUZZING
/// libFuzzer's driver entry (LLVM 11 and later); the fuzzer runtime provides it.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The target chosen by `FUZZ_TARGET`, read once before fuzzing starts.
nonisolated(unsafe) private var selected: FuzzTarget?  // written once in main, before any callback

extension FuzzDriver {
    static func runLibFuzzer() {
        guard let name = getenv("FUZZ_TARGET").map({ String(cString: $0) }), let target = FuzzTargets.named(name) else {
            printError("emulators-fuzz: set FUZZ_TARGET to one of: \(FuzzTargets.all.map(\.name).joined(separator: " "))")
            exit(2)
        }
        selected = target
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
            selected?.run(bytes)
            return 0
        })
    }
}
#endif
