/// Method paths to implementations. Unknown paths answer UNIMPLEMENTED.
///
/// ```swift
/// var router = GRPCRouter()
/// router.register("google.firestore.v1.Firestore", "Commit", .unary { context, request in … })
/// ```
package struct GRPCRouter: Sendable {
    private var methods: [String: GRPCMethod] = [:]

    package init() {}

    package mutating func register(_ service: String, _ method: String, _ implementation: GRPCMethod) {
        methods["/\(service)/\(method)"] = implementation
    }

    package func method(for path: String) -> GRPCMethod? { methods[path] }
}
