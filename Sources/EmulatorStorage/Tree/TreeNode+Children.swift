/// Children of an internal node: a base array plus up to `maxPatches` replaced entries.
///
/// Path copying copies every internal node on the way to a changed leaf, and a copy that
/// duplicated the children array would retain every child (and the old node's death release
/// every one again): with random keys at a million entries that is one cold refcount touch per
/// leaf of the tree on every commit. So a copy shares its source's children array (one retain
/// of the array) and records the few children the commit replaces as patches; once a node
/// gathers `maxPatches` patches, or its children change in number (a split, a merge, a cut),
/// it builds its own array ("materializes") and patches start over.
///
/// A replaced child stays referenced from the shared array until every node sharing that array
/// is gone, so each internal node may keep up to `maxPatches` superseded children alive.
///
/// Correctness does not depend on `ownsChildren`: all changes go through Swift's copy-on-write
/// arrays (and `isKnownUniquelyReferenced` on an array element first makes the array unique),
/// so a wrong guess could only cost a copy.
extension TreeNode {
    static let noPatches = UInt64.max
    static let maxPatches = 4

    /// Number of children.
    var childCount: Int { baseChildren.count }

    /// Child `index`, patches applied.
    @inline(__always)
    func child(at index: Int) -> TreeNode {
        if patchSlots != TreeNode.noPatches, let position = patchPosition(of: index) { return patchNodes[position] }
        return baseChildren[index]
    }

    /// Child `index` without a retain (the caller holds the tree, so the node stays alive).
    @inline(__always)
    func unretainedChild(at index: Int) -> Unmanaged<TreeNode> {
        if patchSlots != TreeNode.noPatches, let position = patchPosition(of: index) {
            return patchNodes.withUnsafeBufferPointer { Unmanaged.passUnretained($0[position]) }
        }
        return baseChildren.withUnsafeBufferPointer { Unmanaged.passUnretained($0[index]) }
    }

    /// All children, patches applied (for checks and cold paths).
    var children: [TreeNode] {
        guard patchSlots != TreeNode.noPatches else { return baseChildren }
        var merged = baseChildren
        forEachPatch { index, node in merged[index] = node }
        return merged
    }

    @inline(__always)
    func patchPosition(of index: Int) -> Int? {
        var slots = patchSlots
        var position = 0
        while slots & 0xFF != 0xFF {
            if Int(slots & 0xFF) == index { return position }
            slots = slots >> 8 | 0xFF << 56
            position += 1
        }
        return nil
    }

    private func forEachPatch(_ body: (Int, TreeNode) -> Void) {
        var slots = patchSlots
        var position = 0
        while slots & 0xFF != 0xFF {
            body(Int(slots & 0xFF), patchNodes[position])
            slots = slots >> 8 | 0xFF << 56
            position += 1
        }
    }

    /// Child `index`, made private to this (private) node: copied (dropping versions older
    /// than `horizon`) unless this node is its only owner.
    func privateChild(at index: Int, horizon: CommitTime) -> TreeNode {
        if patchSlots != TreeNode.noPatches, let position = patchPosition(of: index) {
            if !isKnownUniquelyReferenced(&patchNodes[position]) {
                patchNodes[position] = patchNodes[position].copy(horizon: horizon)
            }
            return patchNodes[position]
        }
        if ownsChildren {
            if !isKnownUniquelyReferenced(&baseChildren[index]) {
                baseChildren[index] = baseChildren[index].copy(horizon: horizon)
            }
            return baseChildren[index]
        }
        // The base array is shared with older versions of this node, which still reach the child.
        let copied = baseChildren[index].copy(horizon: horizon)
        if patchNodes.count >= TreeNode.maxPatches {
            materialize()
            baseChildren[index] = copied
        } else {
            let shift = UInt64(8 * patchNodes.count)
            patchSlots = patchSlots & ~(0xFF << shift) | UInt64(index) << shift
            patchNodes.append(copied)
        }
        return copied
    }

    /// Gives this node its own children array with the patches applied (before its children
    /// change in number, or once it has too many patches).
    func materialize() {
        guard !ownsChildren || patchSlots != TreeNode.noPatches else { return }
        var own: [TreeNode] = []
        own.reserveCapacity(baseChildren.count + 2)
        own.append(contentsOf: baseChildren)
        forEachPatch { index, node in own[index] = node }
        baseChildren = own
        patchNodes = []
        patchSlots = TreeNode.noPatches
        ownsChildren = true
    }
}
