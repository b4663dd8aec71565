package import EmulatorModel

/// One decoded `Write` of a commit or batch write.
package struct Write: Sendable, Equatable {
    package enum Operation: Sendable, Equatable {
        /// Replace (mask nil) or merge the masked paths (mask present, possibly empty).
        case update(DocumentName, fields: ValueMap, mask: [FieldPath]?)
        case delete(DocumentName)
        /// Apply `transforms` only (a standalone `DocumentTransform`).
        case transform(DocumentName)
        /// Check the precondition only.
        case verify(DocumentName)
    }

    package var operation: Operation
    package var transforms: [FieldTransform]
    package var precondition: WritePrecondition

    package init(_ operation: Operation, transforms: [FieldTransform] = [], precondition: WritePrecondition = .none) {
        self.operation = operation
        self.transforms = transforms
        self.precondition = precondition
    }

    package var name: DocumentName {
        switch operation {
        case .update(let n, _, _), .delete(let n), .transform(let n), .verify(let n): n
        }
    }
}

/// `currentDocument`: must exist, must not exist, or must have this update time (µs).
package enum WritePrecondition: Sendable, Equatable {
    case none
    case exists(Bool)
    case updateTime(Int64)
}

/// What a write did: its document's update time (nil for deletes and verifies) and one result
/// per field transform.
package struct WriteResult: Sendable, Equatable {
    package var updateTime: Int64?
    package var transformResults: [Value]

    package init(updateTime: Int64?, transformResults: [Value] = []) {
        self.updateTime = updateTime
        self.transformResults = transformResults
    }
}
