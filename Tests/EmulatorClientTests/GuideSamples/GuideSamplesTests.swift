import EmulatorClient
import EmulatorTesting
import Foundation
import Testing

/// Where the samples, the compiler and the built client module are; each may be missing.
enum GuideSampleFixture {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let samplesFile = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/research/guide-samples.md").path
    static let hasSamples = FileManager.default.fileExists(atPath: samplesFile)

    static let swiftc: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/swiftc"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    /// The build directory of this test binary (`.build/debug`), when it holds the client module.
    static let buildDirectory: String? = {
        guard let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        if dir.path.hasSuffix(".xctest") { dir.deleteLastPathComponent() }
        let module = dir.appendingPathComponent("Modules/EmulatorClient.swiftmodule").path
        return FileManager.default.fileExists(atPath: module) ? dir.path : nil
    }()

    /// What a compiler outside SwiftPM needs to find the modules EmulatorClient imports: the Swift
    /// modules, and the C shim's module map (EmulatorSupport scans JSON strings with it), as
    /// SwiftPM hands every target that depends on the client.
    static func moduleSearchArguments(_ build: String) -> [String] {
        ["-I", build + "/Modules", "-Xcc", "-fmodule-map-file=" + build + "/CEmulatorLinux.build/module.modulemap"]
    }

    /// EmulatorClient and every target it depends on, whose objects the sample program links.
    static let clientTargets = [
        "EmulatorClient", "EmulatorModel", "EmulatorSupport", "EmulatorHTTP", "EmulatorHTTP2", "EmulatorProtobuf", "EmulatorPosix",
        "CEmulatorLinux",
    ]

    static func samples() throws -> [GuideSample] {
        GuideSample.parse(try String(contentsOfFile: samplesFile, encoding: .utf8))
    }

    /// Writes the program into a new temporary directory and returns its path.
    static func writeProgram() throws -> (directory: String, file: String) {
        let directory = NSTemporaryDirectory() + "guide-samples-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = directory + "/GuideSamples.swift"
        try GuideSampleProgram.source(try samples()).write(toFile: file, atomically: true, encoding: .utf8)
        return (directory, file)
    }

    struct Run {
        var status: Int32
        var output: String
        var errors: String
    }

    /// Runs `executable` with `arguments`, killing it after `timeout` seconds.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, timeout: Double = 240) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let deadline = DispatchTime.now() + timeout
        let timer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: deadline, execute: timer)
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        timer.cancel()
        return Run(
            status: process.terminationStatus, output: String(decoding: outData, as: UTF8.self),
            errors: String(decoding: errData, as: UTF8.self))
    }

    /// The compiler's error lines, each with the generated line it points at (warnings, e.g. the
    /// guide's own `#warning`, are not failures).
    static func errorLines(_ text: String, source file: String) -> String {
        let source = ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n", omittingEmptySubsequences: false)
        var out: [String] = []
        for line in text.split(separator: "\n") where line.hasPrefix("/") && line.contains(": error:") {
            let parts = line.split(separator: ":")
            var shown = String(line)
            if parts.count > 2, let number = Int(parts[1]), number >= 1, number <= source.count {
                shown += "\n    > " + source[number - 1].trimmingCharacters(in: .whitespaces)
            }
            out.append(shown)
            if out.count == 20 { break }
        }
        return out.joined(separator: "\n")
    }
}

@Suite(
    .serialized,
    .enabled(if: GuideSampleFixture.hasSamples, "../shared/research/guide-samples.md is absent (a fresh clone has no ../shared)"),
    .enabled(if: GuideSampleFixture.swiftc != nil, "swiftc is not on PATH"),
    .enabled(if: GuideSampleFixture.buildDirectory != nil, "the built EmulatorClient module is not next to the test binary"))
struct GuideSamplesTests {
    @Test func everySampleIsPlacedAndTheCountMatchesTheFile() throws {
        let samples = try GuideSampleFixture.samples()
        #expect(samples.filter { $0.guide == "F" }.count == 24)
        #expect(samples.filter { $0.guide == "R" }.count == 10)
        for sample in samples { #expect(GuideSampleProgram.placements[sample.id] != nil, "\(sample.id) has no placement") }
    }

    @Test func theSamplesCompileInSwift5LanguageMode() throws {
        let swiftc = try #require(GuideSampleFixture.swiftc)
        let build = try #require(GuideSampleFixture.buildDirectory)
        let program = try GuideSampleFixture.writeProgram()
        defer { try? FileManager.default.removeItem(atPath: program.directory) }
        let result = try GuideSampleFixture.run(
            swiftc,
            ["-typecheck", "-swift-version", "5", "-parse-as-library"] + GuideSampleFixture.moduleSearchArguments(build)
                + [program.file])
        #expect(result.status == 0, "\(GuideSampleFixture.errorLines(result.errors, source: program.file))")
    }

    /// Builds the samples in Swift 6 language mode and runs them as a separate program against
    /// an in-process suite; the program finds it through the variables `emulators:exec` sets.
    @Test func theSamplesBuildInSwift6LanguageModeAndRunAgainstTheSuite() async throws {
        let swiftc = try #require(GuideSampleFixture.swiftc)
        let build = try #require(GuideSampleFixture.buildDirectory)
        let program = try GuideSampleFixture.writeProgram()
        defer { try? FileManager.default.removeItem(atPath: program.directory) }
        var objects: [String] = []
        for target in GuideSampleFixture.clientTargets {
            let dir = build + "/\(target).build"
            for file in try FileManager.default.contentsOfDirectory(atPath: dir) where file.hasSuffix(".o") {
                objects.append(dir + "/" + file)
            }
        }
        let executable = program.directory + "/guide-samples"
        let compiled = try GuideSampleFixture.run(
            swiftc,
            ["-swift-version", "6", "-parse-as-library"] + GuideSampleFixture.moduleSearchArguments(build) + [program.file]
                + objects + ["-o", executable])
        try #require(compiled.status == 0, "\(GuideSampleFixture.errorLines(compiled.errors, source: program.file))")

        try await withEmulators(projectID: "demo-guides") { env in
            let firestorePort = try #require(env.firestorePort)
            let databasePort = try #require(env.databasePort)
            try await env.seed(firestore: [
                "books/invalid-data": ["title": 42, "pages": "many"],
                "colors/red": ["name": "Red", "color": "#FF0000FF"],
            ])
            try await env.seed(database: ["title": "Hi", "starCount": 0], at: "posts/post1")
            var environment = ProcessInfo.processInfo.environment
            environment["GCLOUD_PROJECT"] = "demo-guides"
            environment["FIRESTORE_EMULATOR_HOST"] = "127.0.0.1:\(firestorePort)"
            environment["FIREBASE_DATABASE_EMULATOR_HOST"] = "127.0.0.1:\(databasePort)"
            let ran = try await Task { try GuideSampleFixture.run(executable, [], environment: environment, timeout: 120) }.value
            #expect(ran.status == 0, "\(ran.errors)")
            var results: [String: String] = [:]
            for line in ran.output.split(separator: "\n") where line.hasPrefix("RESULT ") {
                let pair = line.dropFirst("RESULT ".count)
                guard let eq = pair.firstIndex(of: "=") else { continue }
                results[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
            }
            let title = "The Hitchhiker's Guide to the Galaxy"
            #expect(results["F1.title"] == title)
            #expect(results["F6.id"] == "hitchhiker")
            #expect(results["F7.pages"] == "816")
            #expect(results["F23.hitchhiker"] == title)
            // The guide's view model formats `DecodingError`s as "<description>: <context>".
            #expect(results["F23.does-not-exist"]?.hasSuffix(": Expected Dictionary<String, Any> value but found null instead.") == true)
            #expect(results["F23.invalid-data"]?.hasSuffix(": Expected to decode String but found an integer instead.") == true)
            #expect(results["F24.before"] == "Red")
            #expect(results["F24.after"] == "Green,Red")
            #expect(results["R4.handle"] == "set")
            #expect(results["R.starCount"] == "number 2", "\(ran.output)")
            #expect(results["done"] == "yes")
            #expect(ran.output.contains("Data saved successfully!"))
            #expect(ran.output.contains("Book stored with new document reference"))

            let db = env.firestore()
            let dune = try await db.collection("books").whereField("title", isEqualTo: "Dune").getDocuments()
            #expect(dune.documents.count == 1)
            let rtdb = env.database().reference()
            #expect(try await rtdb.child("users/ada/username").getData().value as? String == "ada")
            #expect(try await rtdb.child("posts/post1/stars/ada").getData().value as? Bool == true)
            let fanOut = try await rtdb.child("user-posts/ada").getData()
            #expect(fanOut.childrenCount == 1)
        }
    }
}
