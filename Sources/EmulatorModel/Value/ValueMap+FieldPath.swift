extension ValueMap {
    /// The value at a nested field path (`a.b.c` looks into map `a`, then map `b`), or nil.
    package func value(at path: FieldPath) -> Value? {
        value(at: path.segments[...])
    }

    private func value(at path: ArraySlice<String>) -> Value? {
        guard let first = path.first, let v = self[first] else { return nil }
        if path.count == 1 { return v }
        guard case .map(let inner) = v else { return nil }
        return inner.value(at: path.dropFirst())
    }

    /// Sets the value at `path`, creating intermediate maps and replacing any non-map parent.
    /// An empty path does nothing.
    package mutating func setValue(_ value: Value, at path: FieldPath) {
        setValue(value, at: path.segments[...])
    }

    private mutating func setValue(_ value: Value, at path: ArraySlice<String>) {
        guard let first = path.first else { return }
        if path.count == 1 {
            self[first] = value
            return
        }
        modify(first) { slot in
            var inner: ValueMap
            if case .map(let m)? = slot { inner = m } else { inner = ValueMap() }
            slot = nil  // release before mutating so `inner` is uniquely referenced
            inner.setValue(value, at: path.dropFirst())
            slot = .map(inner)
        }
    }

    /// Removes the value at `path` and returns it; parents stay (possibly as empty maps).
    @discardableResult
    package mutating func removeValue(at path: FieldPath) -> Value? {
        removeValue(at: path.segments[...])
    }

    private mutating func removeValue(at path: ArraySlice<String>) -> Value? {
        guard let first = path.first else { return nil }
        if path.count == 1 { return removeValue(forKey: first) }
        guard case .map = self[first] else { return nil }
        return modify(first) { slot -> Value? in
            guard case .map(var inner)? = slot else { return nil }
            slot = nil
            let removed = inner.removeValue(at: path.dropFirst())
            slot = .map(inner)
            return removed
        }
    }

    /// Every leaf path (values that are not non-empty maps), in key order: the mask of a set-merge.
    package var leafPaths: [FieldPath] {
        var out: [FieldPath] = []
        func walk(_ map: ValueMap, _ prefix: [String]) {
            for f in map {
                if case .map(let m) = f.value, !m.isEmpty {
                    walk(m, prefix + [f.name])
                } else {
                    out.append(FieldPath(prefix + [f.name]))
                }
            }
        }
        walk(self, [])
        return out
    }
}
