/// The version `emulators --version` prints and the hub reports.
package enum SuiteVersion {
    package static let current = "0.1.0"
}
