import Testing
@testable import EmulatorModel
