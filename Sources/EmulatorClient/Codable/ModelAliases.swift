import EmulatorModel

// The model module has types with the same names as this library's public ones.
typealias EmulatorModelTimestamp = EmulatorModel.Timestamp
typealias ModelFieldPath = EmulatorModel.FieldPath
