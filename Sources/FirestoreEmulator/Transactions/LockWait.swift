import EmulatorModel
import Synchronization

/// The end of one lock wait: nil when the locks were granted, else why the wait failed. Resolved
/// once, from any thread; the handler runs on the resolving thread (keep it short).
final class LockWait: Sendable {
    private enum State {
        case pending((@Sendable (EmulatorError?) -> Void)?)
        case resolved(EmulatorError?)
        case delivered
    }

    private let state = Mutex<State>(.pending(nil))

    func resolve(_ error: EmulatorError?) {
        let handler = state.withLock { s -> (@Sendable (EmulatorError?) -> Void)? in
            guard case .pending(let handler) = s else { return nil }
            if let handler {
                s = .delivered
                return handler
            }
            s = .resolved(error)
            return nil
        }
        handler?(error)
    }

    func onResolve(_ handler: @escaping @Sendable (EmulatorError?) -> Void) {
        let ready = state.withLock { s -> EmulatorError?? in
            switch s {
            case .pending:
                s = .pending(handler)
                return nil
            case .resolved(let error):
                s = .delivered
                return .some(error)
            case .delivered:
                return nil
            }
        }
        if let ready { handler(ready) }
    }
}
